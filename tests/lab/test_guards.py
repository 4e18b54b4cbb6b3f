"""Size guards: every command that allocates by a user-given length, width or count estimates its memory first and
refuses, within a second and before any work, what does not fit, naming the estimate and the memory available."""

import importlib
import json
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

import posenc.extend.memory
import posenc.resources
from posenc.cli import main
from posenc.errors import PosencError
from posenc.lab import RunConfig, run_sweep
from posenc.lab.train import check_run, estimate_run
from posenc.model import ModelConfig
from posenc.probe.run import check_probe_fits, estimate_probe_memory
from posenc.properties.check import check_fits, estimate_check
from posenc.resources import GB, available_memory, check_memory

#: command -> work functions that must not run when the guard refuses
WORK = {"check": [("posenc.properties", "check_encoding"), ("posenc.properties", "check_all")],
        "plot": [("posenc.plots.figures", "make_figure")], "show": [("posenc.summary", "summarize")],
        "train": [("posenc.lab", "train_run")], "sweep": [("posenc.lab.sweep", "_execute_and_store")],
        "bench": [("posenc.kernels.bench", "run_benchmark")], "probe": [("posenc.probe.run", "run_probe")]}


def _forbid(monkeypatch, command):
    for module, attribute in WORK[command]:
        def fail(*args, _where=f"{module}.{attribute}", **kwargs):
            raise AssertionError(f"{_where} ran although the size guard should have refused")

        monkeypatch.setattr(importlib.import_module(module), attribute, fail)


def test_check_memory_names_the_estimate_and_what_is_available():
    assert check_memory(GB, "a job", "shrink it", limit_bytes=2 * GB) == 2 * GB
    with pytest.raises(PosencError, match=r"a job does not fit in memory: estimated 3.00 GB \(parts\), but only "
                                          r"2.00 GB is available on cpu; shrink it"):
        check_memory(3 * GB, "a job", "shrink it", limit_bytes=2 * GB, detail="parts")


def test_one_available_memory_helper():
    assert posenc.extend.memory.available_memory is available_memory  # extend uses the shared helper
    assert 0 < available_memory() < 1 << 50


GUARDED = [
    ["check", "sinusoidal", "--length", "1000000000"],
    ["check", "--all", "-q", "--length", "100000000", "--d-model", "64"],
    ["plot", "rope", "--kind", "decay", "--length", "100000000", "--d-model", "512"],
    ["show", "rope", "--length", "100000000", "--d-model", "512"],
    ["train", "--train-len", "100000000"],
    ["train", "--task", "charlm", "-e", "alibi", "--train-len", "64", "--eval-lengths", "400000"],
    ["train", "--d-model", "65536", "--n-heads", "1", "--n-layers", "64"],
    ["bench", "--seq-len", "100000000"],
]


@pytest.mark.parametrize("argv", GUARDED, ids=[" ".join(a[:3]) for a in GUARDED])
def test_cli_refuses_what_does_not_fit_within_a_second(argv, monkeypatch, capsys):
    _forbid(monkeypatch, argv[0])
    started = time.perf_counter()
    rc = main(argv)
    elapsed = time.perf_counter() - started
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "does not fit in memory: estimated" in err and "is available on cpu" in err
    assert elapsed < 1.0, f"the guard took {elapsed:.2f} s"


def test_charlm_length_past_the_validation_text_is_refused(monkeypatch, capsys):
    _forbid(monkeypatch, "train")
    assert main(["train", "--task", "charlm", "--eval-lengths", "100000000"]) == 2
    assert "longer than the char-LM's validation text" in capsys.readouterr().err
    with pytest.raises(PosencError, match="training text"):
        check_run(RunConfig(task="charlm", train_len=100_000_000, eval_lengths=[64]))


def test_sweep_counts_runs_side_by_side(tmp_path, monkeypatch):
    config = {"task": "copy", "encoding": "alibi", "train_len": 64, "eval_lengths": [64], "steps": 1, "d_model": 32,
              "n_heads": 2, "n_layers": 1}
    one = estimate_run(RunConfig.from_dict(config)).total
    monkeypatch.setattr(posenc.resources, "available_memory", lambda device="cpu": int(1.5 * one))
    _forbid(monkeypatch, "sweep")
    spec = {"base": config, "grid": {"n_layers": [1]}, "seeds": [0, 1]}
    with pytest.raises(PosencError, match="2 runs side by side"):
        run_sweep(spec, tmp_path / "runs.sqlite", workers=2, progress=False)
    grid = tmp_path / "g.json"
    grid.write_text(json.dumps({**spec, "base": {**config, "train_len": 10_000_000}}))
    assert main(["sweep", "--grid", str(grid), "--store", str(tmp_path / "s.sqlite"), "--no-progress"]) == 2


def test_estimates_grow_as_the_work_does():
    small, large = (estimate_run(RunConfig(model=ModelConfig(encoding="alibi"), train_len=n,
                                           eval_lengths=[n])) for n in (1000, 2000))
    assert 3.5 < large.train_bytes / small.train_bytes < 4.1  # a bias: attention matrices, quadratic in length
    small, large = (estimate_run(RunConfig(model=ModelConfig(encoding="rope"), train_len=n,
                                           eval_lengths=[n])) for n in (100, 200))
    assert 1.9 < large.train_bytes / small.train_bytes < 2.1  # fused attention: linear in length
    assert large.seconds > small.seconds > 0
    a, ta = estimate_check(8192, 64, ["sinusoidal"])
    b, tb = estimate_check(16384, 64, ["sinusoidal"])
    assert 3.9 < tb / ta < 4.1 and b > a  # uniqueness compares every pair of positions
    assert estimate_check(16384, 64, ["rope"])[1] == 0.0  # no table to compare pairwise
    with pytest.raises(PosencError, match="does not fit"):
        check_fits(4096, 512, limit_bytes=GB // 4)


def test_probe_guard_runs_before_the_model_loads(monkeypatch, capsys):
    bert = SimpleNamespace(num_attention_heads=12, hidden_size=384, num_hidden_layers=6, intermediate_size=1536,
                           vocab_size=30522)
    small, large = estimate_probe_memory(bert, 256)[0], estimate_probe_memory(bert, 512)[0]
    assert large > small
    with pytest.raises(PosencError, match="windows of 512 tokens does not fit"):
        check_probe_fits(bert, 512, "bert", limit_bytes=small)
    monkeypatch.setattr(posenc.resources, "available_memory", lambda device="cpu": GB // 2)
    _forbid(monkeypatch, "probe")
    assert main(["probe", "minilm", "--window", "512"]) == 2
    assert "does not fit in memory" in capsys.readouterr().err


# VmHWM, this process's own peak: getrusage's ru_maxrss keeps the high-water mark of the process that forked it (a
# test worker that loaded a model) across exec
PEAK = """
import json, re, sys
from posenc.lab import RunConfig, train_run
from posenc.lab.train import estimate_run
def hwm():
    return int(re.search(r"VmHWM:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1)) * 1024
config = RunConfig.from_dict(json.loads(sys.argv[1]))
before = hwm()
train_run(config, progress=False)
print(json.dumps({"peak": hwm(), "before": before, "estimate": estimate_run(config).total}))
"""


@pytest.mark.parametrize("encoding", ["alibi", "rope"])
def test_estimate_is_an_upper_bound_of_a_real_run(encoding):
    # a run whose activations dominate the process: alibi's attention matrices (3 L B H T^2 floats) and rope's
    # fused attention; the peak resident memory of the whole process must stay below the estimate
    config = {"task": "copy", "encoding": encoding, "train_len": 128, "eval_lengths": [128], "steps": 2,
              "batch_size": 32, "d_model": 64, "n_heads": 4, "n_layers": 2, "eval_samples": 128}
    out = subprocess.run([sys.executable, "-c", PEAK, json.dumps(config)], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    numbers = json.loads(out.stdout.strip().splitlines()[-1])
    assert numbers["peak"] <= numbers["estimate"], numbers
    assert numbers["estimate"] <= 4 * numbers["peak"], numbers  # an upper bound, not a wild one
