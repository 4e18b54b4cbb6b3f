"""``posenc check`` and ``posenc plot`` through the real entry point."""

import json

import pytest

from posenc.cli import main
from posenc.properties import PROPERTIES, VARIANTS
from posenc.registry import available


def test_check_one_encoding_writes_json(tmp_path, capsys):
    out = tmp_path / "sin.json"
    rc = main(["check", "sinusoidal", "--d-model", "16", "--length", "64", "--json", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "relative" in text and "holds" in text
    data = json.loads(out.read_text())
    assert data["encoding"] == "sinusoidal" and data["d_model"] == 16
    assert [p["name"] for p in data["properties"]] == list(PROPERTIES)
    assert {p["name"]: p["verdict"] for p in data["properties"]}["uniqueness"] == "holds"


def test_check_with_options_and_bias_na(capsys):
    assert main(["check", "rope", "--d-model", "16", "--length", "64", "-o",
                 'scaling={"type": "yarn", "factor": 4}']) == 0
    assert "yarn x4" in capsys.readouterr().out.replace("\n", " ")
    assert main(["check", "alibi", "--d-model", "16", "--length", "64"]) == 0
    assert "n.a." in capsys.readouterr().out


def test_check_all(tmp_path):
    out = tmp_path / "all.json"
    assert main(["check", "--all", "--d-model", "16", "--length", "64", "-q", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [r["label"] for r in data] == available() + [v[0] for v in VARIANTS]
    assert {(r["d_model"], r["length"]) for r in data} == {(16, 64)}  # every encoding at the sizes given


@pytest.mark.parametrize("argv", [["check", "sinusoidal", "--length", "3"], ["check", "sinusoidal", "--d-model", "7"],
                                  ["check"], ["check", "rope", "--all"], ["check", "nosuch"],
                                  ["plot", "alibi", "--kind", "dims"], ["plot", "rope", "--kind", "pie"]])
def test_bad_input_exits_2(argv, capsys):
    assert main(argv) == 2
    assert "error:" in capsys.readouterr().err


def test_internal_error_exits_nonzero(monkeypatch, capsys):
    def broken(view):
        raise RuntimeError("boom")

    monkeypatch.setitem(PROPERTIES, "broken", broken)
    assert main(["check", "sinusoidal", "--d-model", "16", "--length", "64"]) == 1
    assert "boom" in capsys.readouterr().err


def test_plot_writes_a_png(tmp_path):
    out = tmp_path / "fig" / "decay.png"
    assert main(["plot", "rope", "--kind", "decay", "--length", "256", "--out", str(out)]) == 2  # no folder "fig"
    assert not (tmp_path / "fig").exists()  # and none is made for a file
    (tmp_path / "fig").mkdir()
    assert main(["plot", "rope", "--kind", "decay", "--length", "256", "--out", str(out)]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"
