"""``posenc sweep`` (posenc.cli.lab) on a two-run grid: its table of runs (in the sweep, already stored, run now,
failed), the line that names a failed run and the first line of its error, and how ``--set`` errors read."""

import json

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
        encoding = config["encoding"] if isinstance(config, dict) else config.encoding
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
