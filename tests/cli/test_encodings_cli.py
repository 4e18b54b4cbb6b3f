import subprocess
import sys

from posenc.cli import main


def test_list_shows_every_encoding(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in ("sinusoidal", "rope", "alibi", "t5", "randomized"):
        assert name in out


def test_list_has_a_column_for_each_field_its_help_names(capsys):
    # `posenc list --help`: "List every encoding: name, family, hooks used, paper."
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if line.startswith("┃"))
    assert [cell.strip() for cell in header.split("┃")[1:-1]] == ["name", "family", "hooks", "paper"]
    rope = next(line for line in lines if line.startswith("│ rope "))
    assert [cell.strip() for cell in rope.split("│")[1:-1]][2] == "rotate"  # RoPE rotates q and k, nothing else


def test_show_writes_a_heatmap(tmp_path, capsys):
    png = tmp_path / "sin.png"
    assert main(["show", "sinusoidal", "--d-model", "32", "--length", "64", "--out", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = capsys.readouterr().out
    assert "[-1, 1]" in out and "absolute" in out


def test_show_with_options(tmp_path):
    assert main(["show", "rope", "-o", "base=500", "-o", "pairing=interleaved", "--out", str(tmp_path / "r.png")]) == 0


def test_bad_names_and_options_exit_2_with_a_clear_line(tmp_path):
    result = subprocess.run([sys.executable, "-m", "posenc.cli", "show", "sinusoidl", "--out", str(tmp_path / "x.png")],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "unknown encoding 'sinusoidl'" in result.stderr and "Traceback" not in result.stderr
    result = subprocess.run([sys.executable, "-m", "posenc.cli", "show", "rope", "-o", "bogus=1"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "valid options" in result.stderr
