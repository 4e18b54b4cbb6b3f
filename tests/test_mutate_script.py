"""``make mutate`` (scripts/mutate.py): bad requests stop before any work with a message naming what was given, and the
module-to-tests table points at files that exist."""

from __future__ import annotations

import importlib.util
import json
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


def test_a_failed_trace_is_reported_not_scored(tmp_path):
    log = tmp_path / "mutmut.log"
    log.write_text("running stats\nERROR tests/lab/test_ray.py - Failed: 'xdist_group' not found\n"
                   "failed to collect stats. runner returned 1\n")
    assert "tests/lab/test_ray.py" in mutate.trace_failure(log)
    log.write_text("running stats\n    done\n")
    assert mutate.trace_failure(log) == ""


@pytest.mark.slow  # collects every test the mutation table lists in a fresh pytest (about 22 s)
def test_the_mutation_run_collects_every_listed_test():
    """mutmut runs pytest with :data:`PYTEST_ARGS` (one process, no xdist, strict markers): the listed tests must
    collect that way, or the stats run fails and no mutant can be judged."""
    tests = sorted({t for paths in mutate.TESTS.values() for t in paths})
    run = subprocess.run([mutate.sys.executable, "-m", "pytest", "--collect-only", *mutate.PYTEST_ARGS, *tests],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    # no test that starts a Ray cluster (marked ray): a mutant killed on its time limit would leave it running
    ray = subprocess.run([mutate.sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "-m", "ray",
                          *tests], cwd=ROOT, capture_output=True, text=True)
    marked = {line for line in ray.stdout.splitlines() if "::" in line}
    assert "tests/lab/test_ray.py::test_ray_executor_runs_and_stores" in marked  # the ray tests are found
    assert marked.isdisjoint(run.stdout.splitlines())


def test_modules_left_out_of_a_package_run_unless_named():
    assert mutate.left_out(["posenc.kernels", "posenc.stats"]) == ["posenc.kernels.triton_rope", "posenc.kernels.bench"]
    assert mutate.left_out(["posenc.kernels.triton_rope"]) == []  # named itself: it runs
    assert mutate.left_out(["posenc.encodings"]) == []
    assert all(mutate.module_path(m).is_file() for m in mutate.LEFT_OUT)


def test_again_needs_a_finished_run_of_the_same_source(tmp_path):
    import argparse

    out, work = tmp_path / "out", tmp_path / "work"
    out.mkdir()
    args = argparse.Namespace(out=out, workers=1)
    with pytest.raises(mutate.UsageError, match="--again needs a finished run"):
        mutate.run_again(args, work, out / "mutmut.log")
    (work / "mutants").mkdir(parents=True)
    stats = mutate.source_of(["posenc.stats"])
    (out / "summary.json").write_text(json.dumps({"modules": ["posenc.stats", "posenc.store"], "commit": "1234567890ab",
                                                  "src_tree": {**stats, "posenc.store": "0000"}}))
    with pytest.raises(mutate.UsageError, match=r"source of posenc.store changed since the run .* \(commit 1234567890\)"):
        mutate.run_again(args, work, out / "mutmut.log")


def test_mutmut_copies_the_docs_that_tests_read(tmp_path):
    """tests/lab/test_presets.py reads docs/lab.md; mutmut copies src/ and tests/ into its folder, and without the
    docs the run on the unmodified code failed (2026-11-25, posenc.lab.evaluate), so no mutant could be judged."""
    import tomllib

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    mutate.write_settings(tmp_path, ["posenc.stats"], ["tests/test_stats.py"])
    settings = tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["mutmut"]
    assert "docs/" in settings["also_copy"]
    assert "lab.md" in (ROOT / "tests" / "lab" / "test_presets.py").read_text()  # the test this is for
    # the files beside src/, tests/ and docs/ that a test reads or runs (found 2026-11-25 when the run over every
    # package stopped at tests/cli/test_registration.py, which reads README.md)
    for name, test in (("README.md", "tests/cli/test_registration.py"), ("scripts/", "tests/test_mutate_script.py"),
                       ("benchmarks/", "tests/report/test_reference.py")):
        assert name in settings["also_copy"]
        assert name.rstrip("/") in (ROOT / test).read_text(), (name, test)


def test_per_module_draws_that_many_of_each_module_independently_of_the_others():
    modules = ["posenc", "posenc.lab", "posenc.stats"]
    mine = ([f"posenc.lab.train.x_f__mutmut_{i}" for i in range(100)] + [f"posenc.stats.x_g__mutmut_{i}" for i in
            range(10)] + [f"posenc.store.x_h__mutmut_{i}" for i in range(70)])
    drawn = mutate.draw(mine, modules, sample=400, per_module=60, seed=2026)
    counts = {m: sum(mutate.owner(d, modules) == m for d in drawn) for m in modules}
    assert counts == {"posenc": 60, "posenc.lab": 60, "posenc.stats": 10}  # stats has 10: all of them
    assert drawn == sorted(drawn) and len(set(drawn)) == 130
    assert drawn == mutate.draw(mine, modules, sample=400, per_module=60, seed=2026)  # seeded
    fewer = [m for m in mine if not m.startswith("posenc.store")]  # another module's count changes ...
    lab = [d for d in drawn if d.startswith("posenc.lab")]
    assert [d for d in mutate.draw(fewer, modules, 0, 60, 2026) if d.startswith("posenc.lab")] == lab  # ... not lab's
    assert mutate.draw(mine, modules, sample=0, per_module=0, seed=0) == mine
    assert len(mutate.draw(mine, modules, sample=25, per_module=0, seed=0)) == 25


def test_every_package_covers_each_subpackage_and_its_tests_exist():
    subpackages = sorted(p.name for p in (ROOT / "src" / "posenc").iterdir() if (p / "__init__.py").is_file())
    assert sorted(m.split(".")[1] for m in mutate.PACKAGE_TESTS if m != "posenc") == subpackages
    assert "posenc" in mutate.PACKAGE_TESTS  # the top-level modules, as one package
    for module, tests in mutate.PACKAGE_TESTS.items():
        assert mutate.module_path(module).exists() and all((ROOT / t).exists() for t in tests), module
    assert mutate.tests_for("posenc.extend.passkey") == ("tests/extend",)
    assert mutate.tests_for("posenc.stats") == ("tests/test_stats.py",)  # its own entry first


@pytest.mark.parametrize("args, words", [(["--per-module", "-2"], "--per-module must be a positive count"),
                                         (["--every-package", "posenc.stats"], "--every-package names the modules")])
def test_bad_per_module_requests_are_refused(capsys, tmp_path, args, words):
    assert mutate.main([*args, "--out", str(tmp_path)]) == 2
    assert words in capsys.readouterr().err


def test_the_tests_left_out_of_mutation_runs_exist():
    for node in mutate.NOT_UNDER_MUTMUT:
        path, name = node.split("::")
        assert f"def {name}(" in (ROOT / path).read_text(), node
        assert ["--deselect", node] == mutate.PYTEST_ARGS[mutate.PYTEST_ARGS.index(node) - 1:][:2]
