"""--device and --dtype on every command that runs a model: a device or precision this machine cannot use is one
clear line and exit status 2, before any work (no model loaded, no run started, no output written)."""

from __future__ import annotations

import pytest
import torch

from posenc.cli import main

#: each command with the arguments it needs, and the library call its work starts with
COMMANDS = {
    "train": ([], "posenc.lab.train_run"),
    "sweep": (["--preset", "quick"], "posenc.lab.run_sweep"),
    "probe": (["minilm"], "posenc.probe.run.run_probe"),
    "extend": ([], "posenc.extend.run_extend"),
    "report": (["--quick"], "posenc.report.run.run_report"),
    "bench": (["--seq-len", "8"], "posenc.kernels.bench.run_benchmark"),
}


@pytest.fixture
def no_work(monkeypatch, tmp_path):
    """No CUDA, no MPS, and any start of real work fails the test; commands run in an empty folder."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    monkeypatch.chdir(tmp_path)

    def refuse(*args, **kwargs):
        raise AssertionError("work started before the device was checked")

    for _, target in COMMANDS.values():
        module, name = target.rsplit(".", 1)
        monkeypatch.setattr(module + "." + name, refuse)
    monkeypatch.setattr("posenc.pretrained.model_config", refuse)  # probe and extend read the model's config first
    return tmp_path


@pytest.mark.parametrize("command", list(COMMANDS))
def test_device_cuda_without_cuda_exits_2_with_the_reason(no_work, command, capsys):
    args, _ = COMMANDS[command]
    assert main([command, *args, "--device", "cuda"]) == 2
    captured = capsys.readouterr()
    assert "error: device 'cuda': CUDA is not available here (torch" in captured.err
    assert "use --device cpu or auto" in captured.err and "Traceback" not in captured.err + captured.out
    assert list(no_work.iterdir()) == []  # nothing written


@pytest.mark.parametrize("command", list(COMMANDS))
def test_unknown_device_names_the_accepted_forms(no_work, command, capsys):
    args, _ = COMMANDS[command]
    assert main([command, *args, "--device", "tpu:0"]) == 2
    err = capsys.readouterr().err
    assert "unknown device 'tpu:0'; use one of: auto, cpu, cuda" in err


@pytest.mark.parametrize("command", ["train", "sweep", "probe", "extend", "report"])
def test_mps_without_mps_and_an_unknown_dtype(no_work, command, capsys):
    args, _ = COMMANDS[command]
    assert main([command, *args, "--device", "mps"]) == 2
    assert "device 'mps': MPS is not available here" in capsys.readouterr().err
    assert main([command, *args, "--dtype", "float64"]) == 2
    assert "unknown dtype 'float64'; use one of: float32, bfloat16, float16" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["train", "sweep", "report"])
def test_float16_training_on_the_cpu_is_refused(no_work, command, capsys):
    args, _ = COMMANDS[command]
    assert main([command, *args, "--device", "cpu", "--dtype", "float16"]) == 2
    assert "dtype 'float16' cannot train on the CPU" in capsys.readouterr().err


def test_float16_through_a_run_setting_is_refused_too(no_work, capsys):
    assert main(["train", "--set", "dtype=float16"]) == 2
    assert "dtype 'float16' cannot train on the CPU" in capsys.readouterr().err
