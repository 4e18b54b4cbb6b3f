"""Every output path is checked before any work: an unwritable --out / --json / --store fails with exit status 2 and
a line naming the option, and the command's work function is never called (so it fails in milliseconds, not after
the work; how fast is not timed here)."""

import pytest

from posenc.cli import main
from posenc.cli.paths import output_dir, output_file
from posenc.errors import PosencError

#: command -> (argv before the path option, the work functions that must not run: (module, attribute))
WORK = {
    "check": (["check", "sinusoidal"], [("posenc.properties", "check_encoding"), ("posenc.properties", "check_all")]),
    "plot": (["plot", "sinusoidal"], [("posenc.plots.figures", "make_figure")]),
    "show": (["show", "sinusoidal"], [("posenc.summary", "summarize")]),
    "train": (["train", "--steps", "1"], [("posenc.lab", "train_run")]),
    "sweep": (["sweep", "--preset", "quick"], [("posenc.lab", "run_sweep")]),
    "probe": (["probe", "minilm"], [("posenc.probe.run", "run_probe"), ("posenc.pretrained", "model_config")]),
    "extend": (["extend", "smollm2"], [("posenc.extend", "run_extend"), ("posenc.pretrained", "model_config")]),
    "bench": (["bench"], [("posenc.kernels.bench", "run_benchmark")]),
    "report": (["report", "--quick"], [("posenc.report.run", "run_report")]),
}

#: (command, option, what the option names: a "file" or a "dir")
OPTIONS = [("check", "--json", "file"), ("plot", "--out", "file"), ("show", "--out", "file"),
           ("train", "--store", "file"), ("sweep", "--store", "file"), ("sweep", "--out", "dir"),
           ("probe", "--out", "dir"), ("extend", "--out", "dir"), ("extend", "--store", "file"),
           ("bench", "--json", "file"), ("report", "--out", "dir"), ("report", "--store", "file")]

SUFFIX = {"--json": ".json", "--store": ".sqlite", "--out": ".png"}


def _name(option: str, kind: str) -> str:
    return "out" + (SUFFIX[option] if kind == "file" else "")


@pytest.fixture
def no_work(monkeypatch):
    """Make every command's work function fail loudly if it is reached."""
    import importlib

    called = []

    def patch(command):
        for module, attribute in WORK[command][1]:
            def fail(*args, _where=f"{module}.{attribute}", **kwargs):
                called.append(_where)
                raise AssertionError(f"{_where} ran before the output path was checked")

            monkeypatch.setattr(importlib.import_module(module), attribute, fail)
        return called

    return patch


def _bad_paths(tmp_path, option, kind):
    blocker = tmp_path / "plain-file.txt"
    blocker.write_text("not a folder")
    paths = {"under a file": blocker / "sub" / _name(option, kind),
             "under /proc": f"/proc/posenc-no-such-folder/{_name(option, kind)}"}
    if kind == "file":
        folder = tmp_path / ("folder" + SUFFIX[option])
        folder.mkdir()
        paths["a folder"] = folder
    else:
        paths["a file"] = blocker
    return paths


@pytest.mark.parametrize("command,option,kind", OPTIONS, ids=[f"{c}{o}" for c, o, _ in OPTIONS])
def test_unwritable_output_fails_before_any_work(command, option, kind, tmp_path, no_work, capsys):
    called = no_work(command)
    argv, _ = WORK[command]
    for what, path in _bad_paths(tmp_path, option, kind).items():
        rc = main([*argv, option, str(path)])
        err = capsys.readouterr().err
        assert rc == 2, f"{what}: {err}"
        assert f"error: {option} " in err and "Traceback" not in err, (what, err)
        assert f"error: {option} {path}" in err, (what, err)  # the path as given
    assert called == []


def test_helpers_accept_good_paths_and_create_nothing(tmp_path):
    assert output_dir(tmp_path / "a" / "b", "--out") == tmp_path / "a" / "b"
    assert output_file(tmp_path / "c" / "d.json", "--json", (".json",)) == tmp_path / "c" / "d.json"
    existing = tmp_path / "e.json"
    existing.write_text("{}")
    assert output_file(existing, "--json") == existing and existing.read_text() == "{}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.json"]  # no folder made, no write test left behind


def test_refused_run_leaves_no_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["extend", "minilm"]) == 2  # no RoPE: refused after the path checks
    assert "Traceback" not in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # neither runs/ nor runs/extend was created


@pytest.mark.parametrize("kind", ["file", "dir"])
def test_helper_messages_say_what_was_wrong(tmp_path, kind):
    blocker = tmp_path / "f.txt"
    blocker.write_text("x")
    check = output_file if kind == "file" else output_dir
    with pytest.raises(PosencError, match="f.txt is a file"):
        check(blocker / "x.json", "--json")
    with pytest.raises(PosencError, match="cannot write"):
        check("/proc/posenc-nope/x.json", "--json")
    if kind == "file":
        with pytest.raises(PosencError, match="is a folder, not a file"):
            output_file(tmp_path, "--json")
        with pytest.raises(PosencError, match="must end in .json"):
            output_file(tmp_path / "x.txt", "--json", (".json",))
    else:
        with pytest.raises(PosencError, match="is a file, not a folder"):
            output_dir(blocker, "--out")


@pytest.mark.parametrize("check", [output_file, output_dir])
def test_helpers_name_out_when_no_option_is_given(tmp_path, check):
    # the default option is --out (what plot, show, sweep, probe, extend and report call their path): a message
    # must name a flag the user can pass, spelled as on the command line
    blocker = tmp_path / "f.txt"
    blocker.write_text("x")
    with pytest.raises(PosencError, match=r"^--out .*; pass a writable (file path|folder) with --out (FILE|DIR)"):
        check(blocker / "x.png")
