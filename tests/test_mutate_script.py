"""``make mutate`` (scripts/mutate.py): bad requests stop before any work with a message naming what was given, and the
module-to-tests table points at files that exist."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("mutate_script", ROOT / "scripts" / "mutate.py")
mutate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutate)


def test_an_unknown_module_is_named_with_close_matches(capsys, tmp_path):
    code = mutate.main(["posenc.encodingz", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "no module 'posenc.encodingz'" in err and "posenc.encodings" in err


@pytest.mark.parametrize("args, words", [(["--sample", "-1"], "--sample must be 0"),
                                         (["--workers", "0"], "--workers must be at least 1")])
def test_bad_counts_are_refused(capsys, tmp_path, args, words):
    assert mutate.main([*args, "--out", str(tmp_path)]) == 2
    assert words in capsys.readouterr().err


def test_uncommitted_changes_are_refused(monkeypatch, tmp_path, capsys):
    repo = tmp_path / "repo"
    (repo / "src" / "posenc").mkdir(parents=True)
    (repo / "src" / "posenc" / "__init__.py").write_text("")
    for cmd in (["git", "init", "-q"], ["git", "add", "."],
                ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]):
        subprocess.run(cmd, cwd=repo, check=True)
    monkeypatch.setattr(mutate, "ROOT", repo)
    monkeypatch.setattr(mutate, "SRC", repo / "src")
    mutate.check_clean()  # clean: nothing raised
    (repo / "src" / "posenc" / "__init__.py").write_text("x = 1\n")
    with pytest.raises(mutate.UsageError, match=r"uncommitted changes \(src/posenc/__init__.py\)"):
        mutate.check_clean()


def test_an_unwritable_output_folder_is_refused(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(mutate.UsageError, match=r"--out .*file is a file, not a folder"):
        mutate.check_writable(blocker / "out")


def test_every_listed_test_path_exists_and_every_module_resolves():
    for module, tests in mutate.TESTS.items():
        assert mutate.module_path(module).exists()
        assert all((ROOT / t).exists() for t in tests), (module, tests)


def test_a_mutant_belongs_to_the_longest_matching_module():
    mods = ["posenc.lab", "posenc.lab.train"]
    assert mutate.owner("posenc.lab.train.x_f__mutmut_1", mods) == "posenc.lab.train"
    assert mutate.owner("posenc.lab.sweep.x_f__mutmut_1", mods) == "posenc.lab"
