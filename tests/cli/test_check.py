"""``posenc check`` and ``posenc plot`` through the real entry point."""

import json

import pytest

import posenc
from posenc.cli import main
from posenc.properties import PROPERTIES

#: every registered encoding, alphabetically, then the two RoPE scaling variants --all adds
ALL_LABELS = [*posenc.available(), "rope+yarn", "rope+llama3"]


class Reached(Exception):
    """Raised by a stand-in work function, carrying its keyword arguments."""


def _stop(*args, **kwargs):
    raise Reached(kwargs)


def test_check_one_encoding_writes_json(tmp_path, capsys):
    out = tmp_path / "sin.json"
    rc = main(["check", "sinusoidal", "--d-model", "16", "--length", "64", "--json", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "relative" in text and "holds" in text
    data = json.loads(out.read_text())
    assert data["encoding"] == "sinusoidal" and data["d_model"] == 16
    assert [p["name"] for p in data["properties"]] == PROPERTIES.choices  # the table's order
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
    assert [r["label"] for r in data] == ALL_LABELS
    assert {(r["d_model"], r["length"]) for r in data} == {(16, 64)}  # every encoding at the sizes given


@pytest.mark.parametrize("argv, message", [
    (["check", "sinusoidal", "--length", "3"], "length must be an integer >= 8"),
    (["check", "sinusoidal", "--d-model", "7"], "d_model must be an even integer >= 2"),
    (["check"], "name an encoding (see `posenc list`) or pass --all"),
    (["check", "rope", "--all"], "pass an encoding name or --all, not both (got 'rope' and --all)"),
    (["check", "nosuch"], "unknown encoding 'nosuch'; valid encodings are: alibi, axial_rope"),
    (["plot", "alibi", "--kind", "dims"], "cannot draw 'dims'"),
    (["plot", "rope", "--kind", "pie"], "unknown figure kind 'pie'; valid kinds are: heatmap, dims, positions, "
                                        "binary, rotation, decay, ramp"),
])
def test_bad_input_exits_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in " ".join(err.split()), err


def test_internal_error_exits_nonzero(monkeypatch, capsys):
    def broken(view):
        raise RuntimeError("boom")

    monkeypatch.setitem(PROPERTIES, "broken", broken)
    assert main(["check", "sinusoidal", "--d-model", "16", "--length", "64"]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == ["sinusoidal/broken: internal error: RuntimeError: boom",
                                "Error: 1 property hit an internal error"]  # one: "property"
    monkeypatch.setitem(PROPERTIES, "broken too", broken)
    assert main(["check", "sinusoidal", "--d-model", "16", "--length", "64"]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == "Error: 2 properties hit an internal error"


def test_plot_writes_a_png(tmp_path):
    out = tmp_path / "fig" / "decay.png"
    assert main(["plot", "rope", "--kind", "decay", "--length", "256", "--out", str(out)]) == 2  # no folder "fig"
    assert not (tmp_path / "fig").exists()  # and none is made for a file
    (tmp_path / "fig").mkdir()
    assert main(["plot", "rope", "--kind", "decay", "--length", "256", "--out", str(out)]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_an_estimate_past_30_seconds_is_printed_first(monkeypatch, capsys):
    # SLOW_S = 30: at 30 s nothing is said; just past it the estimate comes before the work
    import posenc.properties.check as check_module

    for seconds, said in ((29.9, False), (30.0, False), (30.1, True)):
        monkeypatch.setattr(check_module, "check_fits", lambda *args, _s=seconds, **kwargs: (0, _s))
        assert main(["check", "sinusoidal", "--d-model", "16", "--length", "64"]) == 0
        err = capsys.readouterr().err
        assert ("estimated " in err) is said, (seconds, err)
        if said:
            assert err.splitlines()[0] == ("estimated 30 s (the uniqueness property compares every pair of the 64 "
                                           "positions; a shorter --length is much faster)")


@pytest.mark.parametrize("n_heads, rc", [(0, 2), (1, 0), (2, 0)])
def test_n_heads_below_one_is_refused(n_heads, rc, capsys):
    assert main(["check", "alibi", "--d-model", "16", "--length", "64", "--n-heads", str(n_heads)]) == rc
    err = capsys.readouterr().err
    assert ("--n-heads must be a positive integer, got 0" in err) is (rc == 2)


def test_check_defaults_as_parsed_and_in_help(monkeypatch, capsys):
    monkeypatch.setattr("posenc.properties.check_encoding", _stop)
    with pytest.raises(Reached) as caught:
        main(["check", "sinusoidal"])
    kwargs = caught.value.args[0]
    # --d-model 512, --length 4096, --n-heads 8, no -o; --threads 1 (one thread, set, not torch's own choice)
    assert kwargs == {"d_model": 512, "length": 4096, "options": {}, "n_heads": 8, "threads": 1}
    capsys.readouterr()
    assert main(["check", "--help"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("--")}
    for option, default in (("--d-model", "512"), ("--length", "4096"), ("--n-heads", "8"), ("--threads", "1")):
        assert lines[option].endswith(f"[default: {default}]"), lines[option]
    assert "[default" not in lines["--all"] and "[default" not in lines["--json"]


def test_threads_zero_leaves_torchs_count_to_torch(monkeypatch):
    monkeypatch.setattr("posenc.properties.check_encoding", _stop)
    for given, passed in (("0", None), ("1", 1), ("3", 3)):
        with pytest.raises(Reached) as caught:
            main(["check", "sinusoidal", "--d-model", "16", "--length", "64", "--threads", given])
        assert caught.value.args[0]["threads"] == passed


#: figure kind -> (length, d_model) it draws when neither is given: the tutorials' own figures (tutorial 000 draws
#: its sinusoidal heatmap, dimension curves and position vectors at 128 x 64, the binary table at 64 x 32; the
#: rotation at 64 x 64; the decay and ramp figures reach long distances at head_dim 128)
PLOT_DEFAULTS = {"heatmap": (128, 64), "dims": (128, 64), "positions": (128, 64), "binary": (64, 32),
                 "rotation": (64, 64), "decay": (1024, 128), "ramp": (4096, 128)}


@pytest.mark.parametrize("kind", list(PLOT_DEFAULTS))
def test_each_figure_kind_is_taken_with_its_own_sizes(kind, tmp_path, monkeypatch, capsys):
    import posenc.plots.figures as figures

    drawn = {}
    monkeypatch.setattr(figures, "make_figure", lambda name, kind, **kwargs: drawn.update(kwargs, name=name, kind=kind))
    monkeypatch.setattr(figures, "save_figure", lambda fig, out: out)
    monkeypatch.chdir(tmp_path)
    assert main(["plot", "sinusoidal", "--kind", kind]) == 0
    length, d_model = PLOT_DEFAULTS[kind]
    assert drawn == {"name": "sinusoidal", "kind": kind, "length": length, "d_model": d_model, "options": {},
                     "n_heads": 8}
    assert capsys.readouterr().out.strip() == f"wrote sinusoidal-{kind}.png"  # the default --out: NAME-KIND.png
    assert main(["plot", "sinusoidal", "--kind", kind, "--length", "32", "--d-model", "16"]) == 0
    assert (drawn["length"], drawn["d_model"]) == (32, 16)  # given sizes win
    assert kind in capsys.readouterr().out and kind in _plot_help(capsys)


def _plot_help(capsys) -> str:
    capsys.readouterr()
    assert main(["plot", "--help"]) == 0
    return " ".join(capsys.readouterr().out.split())


def test_plot_help_shows_the_default_kind(capsys):
    assert "--kind <str> one of: heatmap, dims, positions, binary, rotation, decay, ramp [default: heatmap]" in \
        _plot_help(capsys)


#: the file types plot --out writes, and the first bytes of each (PNG signature, SVG's XML, PDF header, JPEG SOI)
FORMATS = {".png": b"\x89PNG", ".svg": b"<?xml", ".pdf": b"%PDF", ".jpg": b"\xff\xd8\xff", ".jpeg": b"\xff\xd8\xff",
           ".PNG": b"\x89PNG"}


@pytest.mark.parametrize("suffix", list(FORMATS))
def test_each_output_format_is_written_as_that_format(suffix, tmp_path):
    out = tmp_path / f"fig{suffix}"
    assert main(["plot", "sinusoidal", "--length", "16", "--d-model", "8", "--out", str(out)]) == 0
    assert out.read_bytes()[:len(FORMATS[suffix])] == FORMATS[suffix]


@pytest.mark.parametrize("command", [["plot", "sinusoidal"], ["show", "sinusoidal"]])
def test_help_of_out_names_every_format_written(command, capsys):
    assert main([*command, "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "file: .png, .svg, .pdf, .jpg, .jpeg (default: NAME" in help_text


def test_another_format_is_refused_with_the_ones_that_fit(tmp_path, capsys):
    assert main(["plot", "sinusoidal", "--out", str(tmp_path / "fig.tiff")]) == 2
    assert f"error: --out must end in .png, .svg, .pdf, .jpg, .jpeg, got 'fig.tiff'; e.g. --out " \
           f"{tmp_path / 'fig.png'}" in " ".join(capsys.readouterr().err.split())
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("flags, progress", [([], True), (["-q"], False), (["--quiet"], False)])
def test_all_shows_progress_unless_quiet(flags, progress, monkeypatch):
    monkeypatch.setattr("posenc.properties.check_all", _stop)
    with pytest.raises(Reached) as caught:
        main(["check", "--all", "--d-model", "16", "--length", "64", *flags])
    assert caught.value.args[0] == {"d_model": 16, "length": 64, "n_heads": 8, "progress": progress, "threads": 1}
