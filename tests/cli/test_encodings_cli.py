"""``posenc list`` and ``posenc show`` (posenc.cli.encodings): every encoding in the list with its family and hooks,
show's sizes at their limits and its defaults, options reaching the encoding, and bad names."""

import json
import subprocess
import sys

import pytest

from posenc.cli import main
from posenc.registry import available as registered

#: encodings -> (family, hooks), as the papers describe them: absolute tables are added to the token embedding,
#: rotary ones rotate q and k, bias ones add to the attention logits, contextual ones compute their bias from the
#: content (FoX from a forget gate on the input), temperature scales the queries, NoPE does nothing, and the
#: randomized wrapper can wrap any of the three kinds (a newer encoding's own test file checks its own)
ENCODINGS = {
    "alibi": ("bias", ["bias"]), "axial_rope": ("rotary", ["rotate"]), "binary": ("absolute", ["embed"]),
    "cope": ("contextual", ["contextual_bias"]), "dape": ("contextual", ["contextual_bias"]),
    "fire": ("bias", ["bias"]), "fox": ("contextual", ["contextual_bias"]), "integer": ("absolute", ["embed"]),
    "kerple": ("bias", ["bias"]), "learned": ("absolute", ["embed"]), "mrope": ("rotary", ["rotate"]),
    "nope": ("none", []), "normalized": ("absolute", ["embed"]), "p_rope": ("rotary", ["rotate"]),
    "pope": ("rotary", ["rotate"]), "randomized": ("wrapper", ["embed", "rotate", "bias"]),
    "rope": ("rotary", ["rotate"]), "sandwich": ("bias", ["bias"]), "sinusoidal": ("absolute", ["embed"]),
    "t5": ("bias", ["bias"]), "temperature": ("temperature", ["query_scale"]), "videorope": ("rotary", ["rotate"]),
    "xpos": ("rotary", ["rotate"]),
}


def _table_rows(out: str) -> dict[str, list[str]]:
    """The drawn table's rows by their first cell."""
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in out.splitlines() if line.startswith("│")]
    return {row[0]: row for row in rows}


def test_list_shows_every_encoding_once_in_name_order(capsys):
    assert main(["list"]) == 0
    assert list(_table_rows(capsys.readouterr().out)) == sorted(registered())


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_each_encoding_is_listed_with_its_family_and_hooks(name, capsys):
    family, hooks = ENCODINGS[name]
    assert main(["list"]) == 0
    row = _table_rows(capsys.readouterr().out)[name]
    assert row[1:3] == [family, ", ".join(hooks) or "(none)"]  # an encoding without hooks says so
    assert row[3]  # a paper for every one


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


def _show_json(argv, capsys) -> dict:
    assert main([*argv, "--json", "-"]) == 0
    return json.loads(capsys.readouterr().out)


def test_show_with_options_builds_the_encoding_they_name(tmp_path, capsys):
    summary = _show_json(["show", "rope", "-o", "base=500", "-o", "pairing=interleaved", "--out",
                          str(tmp_path / "r.png")], capsys)
    assert "base=500," in summary["module"] and "pairing='interleaved'" in summary["module"]
    summary = _show_json(["show", "rope", "--out", str(tmp_path / "r.png")], capsys)
    assert "base=10000," in summary["module"] and "pairing='half'" in summary["module"]  # RoFormer's: without -o


@pytest.mark.parametrize("n_heads, value_range", [
    # ALiBi's slopes are 2^(-8 i / n) for heads i = 1..n (Press et al. 2022); head 0 of n heads has 2^(-8/n), and
    # the farthest of 16 positions is 15 back: one head: -15/256; two heads: -15/16; eight: -15/2
    (1, "[-0.05859, -0]"), (2, "[-0.9375, -0]"), (8, "[-7.5, -0]"),
])
def test_show_n_heads_from_one(n_heads, value_range, tmp_path, capsys):
    summary = _show_json(["show", "alibi", "--length", "16", "--n-heads", str(n_heads), "--out",
                          str(tmp_path / "a.png")], capsys)
    assert summary["module"] == f"ALiBi(n_heads={n_heads})" and summary["value range"] == value_range


@pytest.mark.parametrize("option", ["--length", "--d-model", "--n-heads"])
def test_show_sizes_below_one_are_refused_naming_all_three(option, tmp_path, capsys):
    sizes = {"--length": 128, "--d-model": 64, "--n-heads": 8}  # show's defaults
    for value in (0, -1):
        sizes[option] = value
        assert main(["show", "alibi", option, str(value), "--out", str(tmp_path / "x.png")]) == 2
        err = capsys.readouterr().err
        assert err == (f"error: --length, --d-model and --n-heads must be positive, got {sizes['--length']}, "
                       f"{sizes['--d-model']}, {sizes['--n-heads']}\n")
    assert list(tmp_path.iterdir()) == []


def test_show_at_one_position_draws_one_row(tmp_path, capsys):
    summary = _show_json(["show", "sinusoidal", "--length", "1", "--out", str(tmp_path / "s.png")], capsys)
    assert summary["drawn"] == "sinusoidal: PE[p, j] over 1 positions, shape [1, 64]"
    assert summary["value range"] == "[0, 1]"  # position 0: sin 0 = 0 and cos 0 = 1 in every pair


def test_show_defaults_as_parsed_and_in_help(tmp_path, monkeypatch, capsys):
    seen = {}
    monkeypatch.setattr("posenc.summary.summarize", lambda name, **kwargs: seen.update(kwargs, name=name) or {})
    monkeypatch.chdir(tmp_path)
    assert main(["show", "rope"]) == 0
    out = seen.pop("out")
    assert seen == {"name": "rope", "d_model": 64, "length": 128, "n_heads": 8, "options": {}}
    assert str(out) == "rope.png"  # --out NAME.png, in the current folder
    assert main(["show", "--help"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("--")}
    for option, default in (("--d-model", "64"), ("--length", "128"), ("--n-heads", "8")):
        assert lines[option].endswith(f"[default: {default}]"), lines[option]
    assert lines["--out"].endswith("(default: NAME.png)")


def test_show_refuses_what_does_not_fit_in_memory_and_draws_what_just_fits(tmp_path, monkeypatch, capsys):
    # show at length 128, d_model 64 needs 0.4 GiB of runtime + 128 bytes per cell x 128 x 64 cells
    needed = int(0.4 * 1024 ** 3) + 128 * 128 * 64
    monkeypatch.setattr("posenc.summary.summarize", lambda name, **kwargs: {})
    for available, rc in ((needed, 0), (needed - 1, 2)):
        monkeypatch.setattr("posenc.resources.available_memory", lambda device="cpu", _a=available: _a)
        assert main(["show", "sinusoidal", "--out", str(tmp_path / "s.png")]) == rc
    err = " ".join(capsys.readouterr().err.split())
    assert err.startswith("error: drawing sinusoidal at length 128, d_model 64 does not fit in memory: estimated ")
    assert err.endswith("use a smaller --length or --d-model")


def test_bad_names_and_options_exit_2_with_a_clear_line(tmp_path):
    result = subprocess.run([sys.executable, "-m", "posenc.cli", "show", "sinusoidl", "--out", str(tmp_path / "x.png")],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "unknown encoding 'sinusoidl'" in result.stderr and "Did you mean 'sinusoidal'" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_unknown_option_names_the_valid_ones(tmp_path, capsys):
    assert main(["show", "rope", "-o", "bogus=1", "--out", str(tmp_path / "x.png")]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "unknown option(s) 'bogus'" in err and "valid options" in err and "base" in err
