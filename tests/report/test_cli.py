"""``posenc report``: writes the page and says where; bad input exits 2 with one clear line."""

from __future__ import annotations

import json

from posenc.cli import main


def test_report_command_writes_page_and_json(tmp_path, capsys):
    code = main(["report", "--quick", "--out", str(tmp_path), "--claim", "sin-bounded", "--no-progress"])
    assert code == 0
    out = capsys.readouterr()
    assert str((tmp_path / "index.html").resolve()) in out.out
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
