"""``scripts/mutate.py --since``: the modules changed in git since a date, a sample drawn before the mutants are
generated (and generated as the same changes mutmut makes when it generates them all), the tests of a top-level
module found by name, and the committed list of equivalent mutants."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("mutate_script_since", ROOT / "scripts" / "mutate.py")
mutate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutate)

SMALL = "posenc.checks"  # a small module with functions and several mutants each


def test_the_modules_changed_since_a_date_are_named_as_files_that_exist():
    every = mutate.changed_since("2000-01-01")  # the whole history: every module of src/posenc
    tracked = {p for p in mutate.git("ls-tree", "-r", "--name-only", "HEAD", "--", "src/posenc").split()
               if p.endswith(".py")}
    assert len(every) == len(tracked) - len([m for m in mutate.LEFT_OUT if mutate.module_path(m).is_file()])
    assert "posenc.__init__" in every and "posenc.encodings.__init__" in every and "posenc.stats" in every
    assert not set(mutate.LEFT_OUT) & set(every)
    for name in every:
        assert mutate.module_path(name).suffix == ".py", name


def test_a_date_counts_from_the_start_of_that_day():
    # the day of the last commit that changed src/posenc: its modules count whatever the time of day is now
    day = mutate.git("log", "-1", "--format=%cd", "--date=format:%Y-%m-%d", "--", "src/posenc")
    last = mutate.git("log", "-1", "--name-only", "--pretty=format:", "--", "src/posenc").split()
    changed = mutate.changed_since(day)
    assert {".".join(Path(f).relative_to("src").with_suffix("").parts) for f in last if f.endswith(".py")
            and (ROOT / f).is_file()} - set(mutate.LEFT_OUT) <= set(changed)


@pytest.mark.parametrize("date, words", [("yesterday", "--since takes a date as YYYY-MM-DD, got 'yesterday'"),
                                         ("2027-06-01", "no module of src/posenc changed since 2027-06-01")])
def test_a_bad_or_empty_date_is_refused(date, words):
    with pytest.raises(mutate.UsageError, match=re.escape(words)):
        mutate.changed_since(date)


@pytest.mark.parametrize("args", [["posenc.stats", "--since", "2026-11-25"], ["--every-package", "--since", "2026-11-25"],
                                  ["--per-module", "5", "--since", "2026-11-25"]])
def test_since_with_modules_of_its_own_is_refused(capsys, tmp_path, args):
    assert mutate.main([*args, "--out", str(tmp_path)]) == 2
    assert "--since chooses the modules itself" in capsys.readouterr().err


def test_a_top_level_modules_tests_are_the_files_that_name_it():
    assert mutate.tests_for("posenc.stats") == ("tests/test_stats.py",)  # its own entry comes first
    tests = mutate.tests_for("posenc.resources")  # no entry: the test files that name it
    assert "tests/test_resources.py" in tests and "tests" not in tests
    for t in tests:
        text = (ROOT / t).read_text()
        assert "posenc.resources" in text or re.search(r"from posenc import [^\n]*\bresources\b", text), t
    assert "tests/test_registry.py" in mutate.tests_for("posenc.__init__")  # import posenc; posenc.build(...)
    # this script's own tests name modules as examples and read git, which mutmut's exported copy has not
    assert "tests/test_mutate_since.py" not in mutate.tests_for("posenc.checks")
    assert not set(mutate.SCRIPT_TESTS) & set(mutate.tests_for("posenc.__init__"))
    assert mutate.tests_for("posenc.encodings.rope") == mutate.TESTS["posenc.encodings"]  # a package's mirror


def test_the_draw_names_each_mutant_by_function_and_place_and_is_fixed_by_the_seed():
    counts = {"posenc.a": {"x_f": 3, "xǁCǁg": 2}, "posenc.b.__init__": {"x_h": 4}}
    plan = mutate.plan_sample(counts, 4, seed=7)
    assert plan["total"] == 9 and len(plan["names"]) == 4
    assert plan == mutate.plan_sample(counts, 4, seed=7) and plan != mutate.plan_sample(counts, 4, seed=8)
    every = mutate.plan_sample(counts, 0, seed=7)
    assert every["keep"] == {"posenc.a": {"x_f": [1, 2, 3], "xǁCǁg": [1, 2]}, "posenc.b.__init__": {"x_h": [1, 2, 3, 4]}}
    # a package's __init__ is named as mutmut names it (posenc.b, not posenc.b.__init__); numbered as generated
    assert every["names"]["posenc.b.x_h__mutmut_4"] == "posenc.b.__init__:x_h:4"
    for name, drawn in plan["names"].items():
        f, key, n = drawn.rsplit(":", 2)
        assert name.startswith(mutate.mutant_prefix(f, key)) and int(n) in plan["keep"][f][key]


def test_the_drawn_mutants_are_generated_as_the_same_changes_as_when_all_are(monkeypatch):
    """Counted, drawn, then generated alone: each drawn mutant's function is the one mutmut writes for that
    mutant when it generates every mutant of the file (numbered anew within its function)."""
    import mutmut.mutation.file_mutation as fm

    path = mutate.module_path(SMALL).relative_to(ROOT)
    monkeypatch.chdir(ROOT)
    code = path.read_text()
    counts = mutate.count_mutants([SMALL])
    full = fm.mutate_file_contents(str(path), code)
    assert sum(counts[SMALL].values()) == len(full.mutant_names) > 20
    plan = mutate.plan_sample(counts, 12, seed=3)
    monkeypatch.setattr(fm, "create_mutations", mutate.keep_drawn(fm.create_mutations, {str(path): plan["keep"][SMALL]}))
    drawn = fm.mutate_file_contents(str(path), code)
    assert sorted(f"{SMALL}.{n}" for n in drawn.mutant_names) == sorted(plan["names"])

    def body(mutated, name):
        span = mutated.line_span_by_function_name[name]
        lines = mutated.code.splitlines()[span.start - 1:span.end]
        return "\n".join(lines).replace(name, "FUNCTION")

    for name, place in plan["names"].items():
        f, key, n = place.rsplit(":", 2)
        short = name.removeprefix(f"{SMALL}.")
        assert body(drawn, short) == body(full, f"{key}__mutmut_{n}"), (name, place)


def test_equivalent_mutants_are_matched_by_function_and_change(tmp_path):
    listed = tmp_path / "equivalent.toml"
    listed.write_text('[[mutant]]\nfunction = "posenc.m.x_f"\ndiff = ["-  a = 1", "+  a = 2"]\nwhy = "never read"\n')
    entries = mutate.load_equivalents(listed)
    assert mutate.equivalent_reason("posenc.m.x_f__mutmut_7", ["-        a = 1", "+        a = 2"], entries) == "never read"
    assert mutate.equivalent_reason("posenc.m.x_f__mutmut_7", ["-  a = 1", "+  a = 3"], entries) is None
    assert mutate.equivalent_reason("posenc.m.x_g__mutmut_7", ["-  a = 1", "+  a = 2"], entries) is None
    listed.write_text('[[mutant]]\nfunction = "posenc.m.x_f"\ndiff = ["-  a = 1", "+  a = 2"]\n')
    with pytest.raises(mutate.UsageError, match=r"mutant 1 \(posenc.m.x_f\) lacks why"):
        mutate.load_equivalents(listed)


def test_the_committed_equivalents_name_functions_that_exist_and_give_reasons():
    for e in mutate.load_equivalents():
        module, _, key = e["function"].rpartition(".")
        assert mutate.module_path(module).is_file() and key.startswith("x") and len(e["why"]) > 20, e
        name = key[2:] if key.startswith("x_") else key.split("ǁ")[-1]
        assert re.search(rf"def {re.escape(name)}\(", mutate.module_path(module).read_text()), e


def test_counts_are_kept_by_source_and_not_counted_again(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    source, cache = mutate.source_of([SMALL]), tmp_path / "counts.json"
    counts = mutate.counts_for([SMALL], source, ROOT, 1, cache)
    assert counts == mutate.count_mutants([SMALL]) and sum(counts[SMALL].values()) > 20

    def no_process(*args, **kwargs):
        raise AssertionError("counted again")

    monkeypatch.setattr(mutate.subprocess, "Popen", no_process)
    assert mutate.counts_for([SMALL], source, ROOT, 1, cache) == counts  # from the cache
    with pytest.raises(AssertionError, match="counted again"):  # another source: counted anew
        mutate.counts_for([SMALL], {SMALL: "0" * 40}, ROOT, 1, cache)


def test_a_rerun_keeps_what_the_next_rerun_checks():
    # a --since run's summary, then the summary its --again writes: the second --again compares the same files
    # (it compared package names, which a --since run does not record, and refused unchanged code)
    files = ["posenc.stats", "posenc.checks"]
    run = {"commit": "c", "src_tree": mutate.source_of(files), "sampled": ["posenc.stats.x_f__mutmut_1"],
           "modules": ["posenc"], "since": "2026-11-25", "files": files, "total_mutants": 99,
           "drawn_as": {"posenc.stats.x_f__mutmut_1": "posenc.stats:x_f:1", "posenc.checks.x_g__mutmut_2":
                        "posenc.checks:x_g:2"}}
    assert mutate.changed_since_run(run) == []
    rerun = {"modules": ["posenc"], **mutate.carried_over(run)}
    assert {k: rerun[k] for k in mutate.SINCE_FIELDS} == {k: run[k] for k in mutate.SINCE_FIELDS}
    assert mutate.changed_since_run(rerun) == []
    moved = {**rerun, "src_tree": {**rerun["src_tree"], "posenc.checks": "0" * 40}}
    assert mutate.changed_since_run(moved) == ["posenc.checks"]
