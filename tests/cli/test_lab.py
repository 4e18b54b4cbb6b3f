"""``posenc sweep`` (posenc.cli.lab) on a two-run grid: its table of runs (in the sweep, already stored, run now,
failed), the line that names a failed run and the first line of its error, and how ``--set`` errors read."""

import json
import socket

import pytest

from posenc.cli import main
from posenc.lab import sweep as lab_sweep

#: two copy-task runs of a few steps on a one-layer model of width 8
GRID = {"base": {"task": "copy", "train_len": 3, "eval_lengths": [3], "d_model": 8, "n_layers": 1, "n_heads": 2,
                 "batch_size": 2, "eval_samples": 2, "steps": 2, "warmup": 1},
        "grid": {"encoding": ["nope", "alibi"]}, "seeds": [0]}


def _runs_table(out: str) -> tuple[list[str], list[str]]:
    """The header and the one row of the "runs" table."""
    lines = out.splitlines()
    start = lines.index(next(line for line in lines if line.strip() == "runs"))
    header = next(line for line in lines[start:] if line.startswith("┃"))
    row = next(line for line in lines[start:] if line.startswith("│"))
    return [cell.strip() for cell in header.split("┃")[1:-1]], [cell.strip() for cell in row.split("│")[1:-1]]


def test_sweep_counts_its_runs_and_names_a_failed_one_with_its_error(tmp_path, monkeypatch, capsys):
    grid = tmp_path / "grid.json"
    grid.write_text(json.dumps(GRID))
    real = lab_sweep.train_run

    def alibi_runs_out_of_memory(config, seed=0, **kwargs):  # the nope run trains for real
        encoding = config["model"]["encoding"] if isinstance(config, dict) else config.model.encoding
        if encoding == "alibi":
            raise RuntimeError("out of memory (simulated)\nwhile allocating the attention bias")
        return real(config, seed, **kwargs)

    monkeypatch.setattr(lab_sweep, "train_run", alibi_runs_out_of_memory)
    argv = ["sweep", "--grid", str(grid), "--store", str(tmp_path / "runs.sqlite"), "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    header, row = _runs_table(out)
    assert header == ["in sweep", "already stored", "ran now", "failed"]
    assert row == ["2", "0", "2", "1"]  # both runs ran; alibi failed
    failed = [line for line in out.splitlines() if line.startswith("failed ")]
    assert failed == ["failed copy/alibi seed 0: RuntimeError: out of memory (simulated)"]  # the error's first line

    assert main(argv) == 0  # again: nope is stored and skipped, alibi (failed, so not stored as done) runs again
    out = capsys.readouterr().out
    assert _runs_table(out)[1] == ["2", "1", "1", "1"]
    assert [line for line in out.splitlines() if line.startswith("failed ")] == failed


def test_a_set_item_without_a_value_names_set_and_shows_an_example(tmp_path, capsys):
    argv = ["sweep", "--preset", "quick", "--set", "steps", "--store", str(tmp_path / "runs.sqlite"), "--limit", "0"]
    assert main(argv) == 2
    message = " ".join(capsys.readouterr().err.split())
    assert "--set 'steps' is not of the form KEY=VALUE; write e.g. --set steps=500" in message


class Reached(Exception):
    """Raised by a stand-in for the work function, carrying its arguments."""


@pytest.fixture
def stopped(monkeypatch, tmp_path):
    """``run_sweep`` and ``train_run`` replaced by stand-ins that stop; no CUDA; commands run in an empty folder."""
    import torch

    def stop(*args, **kwargs):
        raise Reached(args, kwargs)

    monkeypatch.setattr("posenc.lab.run_sweep", stop)
    monkeypatch.setattr("posenc.lab.train_run", stop)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _reached(argv: list[str]):
    with pytest.raises(Reached) as caught:
        main(argv)
    return caught.value.args


def test_sweep_defaults_as_parsed_and_in_help(stopped, capsys):
    from pathlib import Path

    (spec, store), kwargs = _reached(["sweep", "--preset", "quick"])
    assert store == Path("runs/lab.sqlite")
    assert kwargs == {"executor": "local", "workers": 1, "address": "auto", "progress": True, "threads": 1,
                      "limit": None, "echo": kwargs["echo"], "device": "cpu", "dtype": None}
    assert main(["sweep", "--help"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("--")}
    for option, default in (("--store", "runs/lab.sqlite"), ("--executor", "local"), ("--workers", "1"),
                            ("--address", "auto"), ("--threads", "1"), ("--progress", "progress"),
                            ("--device", "auto")):
        assert lines[option].endswith(f"[default: {default}]"), lines[option]
    assert "[default" not in lines["--limit"] and "[default" not in lines["--dtype"]


@pytest.mark.parametrize("option, value, message", [
    ("--workers", "0", "--workers must be an integer >= 1, got 0"), ("--workers", "1", None), ("--workers", "2", None),
    ("--limit", "-1", "--limit must be an integer >= 0, got -1"), ("--limit", "0", None), ("--limit", "1", None),
    ("--threads", "-1", "--threads must be an integer >= 0 (0: torch's own choice, every core), got -1"),
    ("--threads", "0", None), ("--threads", "1", None),
])
def test_sweep_counts_at_their_limits(stopped, option, value, message, capsys):
    argv = ["sweep", "--preset", "quick", option, value]
    if message is None:
        _, kwargs = _reached(argv)
        expected = {"--workers": int(value), "--limit": int(value), "--threads": int(value) or None}[option]
        assert kwargs[option.lstrip("-")] == expected  # --threads 0: torch's own choice, passed on as None
    else:
        assert main(argv) == 2
        assert capsys.readouterr().err == f"error: {message}\n"
    assert list(stopped.iterdir()) == []


@pytest.mark.parametrize("argv", [[], ["--preset", "quick", "--grid", "g.json"]])
def test_sweep_needs_exactly_one_of_preset_and_grid(stopped, argv, capsys):
    assert main(["sweep", *argv]) == 2
    from posenc.lab.presets import PRESETS

    names = ", ".join(PRESETS)  # the lab's presets and the report's sweeps, registered by the command
    assert names.startswith("alibi-table, nope-tasks, quick, report-tasks, report-tasks-quick, ")
    assert capsys.readouterr().err == f"error: pass exactly one of --preset ({names}) or --grid FILE.json\n"


def test_sweep_takes_a_report_sweep_by_name_and_lists_them_for_an_unknown_one(tmp_path, capsys):
    store = tmp_path / "runs.sqlite"
    assert main(["sweep", "--preset", "report-tasks-quick", "--store", str(store), "--limit", "0",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "report-tasks-quick" in out and "18 run(s) of this sweep are not in the store yet" in out
    assert main(["sweep", "--preset", "report-task", "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert "report-irope-quick" in err and "Did you mean 'report-tasks'?" in err


def test_sweep_on_ray_leaves_the_device_and_precision_to_each_worker(stopped, capsys):
    # here (no CUDA) --device cuda is refused, but on Ray it is resolved on each worker, as is a training precision
    assert main(["sweep", "--preset", "quick", "--device", "cuda"]) == 2
    assert "CUDA is not available here" in capsys.readouterr().err
    with socket.create_server(("127.0.0.1", 0)) as head:  # a head that answers: the sweep checks it does
        address = f"127.0.0.1:{head.getsockname()[1]}"
        _, kwargs = _reached(["sweep", "--preset", "quick", "--executor", "ray", "--device", "cuda", "--dtype",
                              "float16", "--address", address])
    assert (kwargs["executor"], kwargs["device"], kwargs["dtype"], kwargs["address"]) == ("ray", "cuda", "float16",
                                                                                          address)
    _, kwargs = _reached(["sweep", "--preset", "quick", "--executor", "ray", "--dtype", "float16"])  # device auto
    assert (kwargs["device"], kwargs["dtype"]) == ("auto", "float16")
    assert main(["sweep", "--preset", "quick", "--executor", "ray", "--device", "tpu"]) == 2  # the form still counts
    assert "unknown device 'tpu'" in capsys.readouterr().err
    assert main(["sweep", "--preset", "quick", "--executor", "ray", "--dtype", "float8"]) == 2
    assert "unknown dtype 'float8'" in capsys.readouterr().err


def test_train_estimate_past_30_seconds_is_printed_first(stopped, monkeypatch, capsys):
    from types import SimpleNamespace

    for seconds, said in ((30.0, False), (30.5, True)):
        monkeypatch.setattr("posenc.lab.train.check_run", lambda *args, _s=seconds, **kwargs: SimpleNamespace(seconds=_s))
        _reached(["train", "--steps", "40"])
        err = capsys.readouterr().err
        assert err == ("estimated 30 s for 40 steps and the evaluation\n" if said else ""), (seconds, err)


def test_train_defaults_as_parsed_and_in_help(stopped, capsys):
    import torch

    from posenc.device import Placement
    from posenc.lab import RunConfig

    (config, seed), kwargs = _reached(["train"])
    assert config == RunConfig() and seed == 0
    assert kwargs == {"device": Placement(torch.device("cpu"), torch.float32)}  # auto, without CUDA: the CPU
    assert main(["train", "--help"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("--")}
    for option, default in (("--seed", "0"), ("--threads", "1"), ("--device", "auto")):
        assert lines[option].endswith(f"[default: {default}]"), lines[option]
    assert "[default" not in lines["--store"] and "[default" not in lines["--json"]


def test_with_json_on_standard_output_a_failed_run_is_named_on_standard_error(tmp_path, monkeypatch, capsys):
    # --json -: standard output is the summary alone, so the line naming a failed run goes to standard error
    grid = tmp_path / "grid.json"
    grid.write_text(json.dumps({**GRID, "grid": {"encoding": ["alibi"]}}))

    def out_of_memory(config, seed=0, **kwargs):
        raise RuntimeError("out of memory (simulated)")

    monkeypatch.setattr(lab_sweep, "train_run", out_of_memory)
    argv = ["sweep", "--grid", str(grid), "--store", str(tmp_path / "runs.sqlite"), "--no-progress", "--json", "-"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["missing"] == 1 and "failed" not in out
    assert "failed copy/alibi seed 0: RuntimeError: out of memory (simulated)" in err
