"""``posenc report``: writes the page and says where; bad input exits 2 with one clear line."""

from __future__ import annotations

import json

from posenc.cli import main


def test_report_command_writes_page_and_json(tmp_path, capsys):
    code = main(["report", "--quick", "--out", str(tmp_path), "--claim", "sin-bounded", "--no-progress"])
    assert code == 0
    out = capsys.readouterr()
    assert str((tmp_path / "index.html").resolve()) in out.out
    assert f"explorer: {(tmp_path / 'explore.html').resolve()}" in out.out  # the page beside it, and where
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["quick"] is True and [c["id"] for c in data["claims"]] == ["sin-bounded"]
    assert data["claims"][0]["verdict"]["status"] == "supported"


def test_report_command_bad_input_exits_2(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["report", "--quick", "--out", str(blocker), "--no-progress"]) == 2
    assert "is a file" in capsys.readouterr().err
    assert main(["report", "--quick", "--out", str(tmp_path / "o"), "--claim", "nope", "--no-progress"]) == 2
    assert "unknown claim" in capsys.readouterr().err


def test_report_command_refuses_bad_seeds_and_thresholds_before_any_work(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["report", "--quick", "--out", str(out), "--seeds", "0", "--no-progress"]) == 2
    assert "seeds must be a whole number >= 1, got 0" in capsys.readouterr().err
    broken = tmp_path / "t.json"
    broken.write_text("{not json")
    assert main(["report", "--quick", "--out", str(out), "--thresholds", str(broken), "--no-progress"]) == 2
    assert "does not parse as JSON" in capsys.readouterr().err
    assert not (out / "report.json").exists()


def test_report_command_threshold_file_changes_the_verdict(tmp_path, capsys):
    strict = tmp_path / "t.json"
    strict.write_text(json.dumps({"sin-bounded": {"max_abs": 0.5}}))
    code = main(["report", "--quick", "--out", str(tmp_path / "o"), "--claim", "sin-bounded", "--thresholds",
                 str(strict), "--no-progress"])
    assert code == 0
    data = json.loads((tmp_path / "o" / "report.json").read_text())
    assert data["claims"][0]["verdict"]["status"] == "refuted" and data["thresholds"] == str(strict)


def test_report_command_refuses_a_bad_executor_or_ray_address_before_any_work(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["report", "--quick", "--out", str(out), "--executor", "slurm", "--no-progress"]) == 2
    assert "unknown executor 'slurm'; valid executors are: local, ray" in capsys.readouterr().err
    assert main(["report", "--quick", "--out", str(out), "--executor", "ray", "--address", "ray://head:10001",
                 "--no-progress"]) == 2
    assert "is not HOST:PORT or 'auto'" in capsys.readouterr().err
    assert main(["report", "--quick", "--out", str(out), "--executor", "ray", "--device", "tpu",
                 "--no-progress"]) == 2
    assert "unknown device 'tpu'" in capsys.readouterr().err
    assert not out.exists()


def test_an_unknown_claim_names_the_closest_known_one_or_none(tmp_path, capsys):
    """A misspelt id gets the nearest known id; an id like none gets no guess. Either way nothing is created."""
    out = tmp_path / "o"
    assert main(["report", "--quick", "--out", str(out), "--claim", "sin-bounde", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "unknown claim 'sin-bounde' for --claim; valid claims are: " in err and "Did you mean 'sin-bounded'?" in err
    assert main(["report", "--quick", "--out", str(out), "--claim", "zzzzzz", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "unknown claim 'zzzzzz' for --claim;" in err and "Did you mean" not in err
    assert not out.exists()
