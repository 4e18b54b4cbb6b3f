"""run_report: the store caches every claim (a second run computes nothing), bad output folders fail before any
experiment runs, an unusable store still gives a page (and says so), a broken experiment fails only its claim."""

from __future__ import annotations

import json
import sqlite3

import pytest

from posenc.errors import PosencError
from posenc.report.claim import Claim, Test
from posenc.report.experiments.base import EXPERIMENTS, Context, Experiment
from posenc.report.measurement import Measurement, Row
from posenc.report.run import run_report, store_config
from posenc.stats import exact
from posenc.store import ResultStore

FAST_CLAIMS = ["unit-interval-positions", "sin-bounded"]



def read(path):
    return path.read_text(encoding="utf-8")


def test_second_run_reads_everything_from_the_store(tmp_path):
    claims = FAST_CLAIMS[:2]
    first = run_report(tmp_path / "a", quick=True, progress=False, claims=claims)
    assert first.computed == claims
    assert first.store_path == tmp_path / "a" / "results.sqlite"  # store_path=None: the store beside the page
    assert not any(r.cached for r in first.results)
    second = run_report(tmp_path / "a", quick=True, progress=False, claims=claims)
    assert second.computed == []
    assert all(r.cached for r in second.results)
    for a, b in zip(first.results, second.results, strict=True):
        assert a.measurement.numbers == b.measurement.numbers
        assert a.verdict == b.verdict
        assert a.measurement.figure_png == b.measurement.figure_png
    # the store holds one row per claim, keyed by experiment, revision, mode and version
    store = ResultStore(tmp_path / "a" / "results.sqlite")
    kinds = sorted(r.kind for r in store.runs())
    assert kinds == sorted(f"report:{c}" for c in claims)
    # the key written out by hand: claim, experiment, revision, mode and posenc version (no seeds or dtype given)
    import posenc

    key = {"claim": "sin-bounded", "experiment": "sinusoid_bounded", "revision": first.results[1].claim.revision,
           "quick": True, "posenc": posenc.__version__}
    record = store.get("report:sin-bounded", key)
    assert record is not None and record.config == key


def test_quick_and_full_results_are_stored_apart(tmp_path):
    run_report(tmp_path, quick=True, progress=False, claims=["unit-interval-positions"])
    full = run_report(tmp_path, quick=False, progress=False, claims=["unit-interval-positions"])
    assert full.computed == ["unit-interval-positions"]  # quick results are not reused for the full report
    assert json.loads(read(full.report_json))["quick"] is False


def test_output_path_that_is_a_file_fails_before_running(tmp_path):
    target = tmp_path / "taken"
    target.write_text("x")
    with pytest.raises(PosencError, match="is a file"):
        run_report(target, progress=False, claims=["sin-bounded"])
    with pytest.raises(PosencError, match="cannot write the report"):
        run_report(target / "sub", progress=False, claims=["sin-bounded"])


def test_foreign_store_file_still_renders_and_says_so(tmp_path):
    foreign = tmp_path / "notes.sqlite"
    foreign.write_text("these are my notes, not a database")
    result = run_report(tmp_path / "out", progress=False, claims=["sin-bounded"], store_path=foreign)
    assert result.store_path is None
    assert "SQLite cannot read it" in result.store_note and "untouched" in result.store_note
    page = read(result.index_html)
    assert "nothing was cached" in page and 'data-verdict="supported"' in page
    assert foreign.read_text() == "these are my notes, not a database"  # left untouched


def test_store_of_an_older_schema_still_renders_and_says_so(tmp_path):
    path = tmp_path / "old.sqlite"
    ResultStore(path)
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value='0' WHERE key='schema_version'")
    con.commit()
    con.close()
    result = run_report(tmp_path / "out", progress=False, claims=["sin-bounded"], store_path=path)
    assert "schema version 0" in result.store_note
    assert "schema version 0" in read(result.index_html)
    assert result.results[0].verdict.status == "supported"


def test_broken_experiment_fails_only_its_claim(small_report, broken_claim):
    statuses = {r.claim.id: r.verdict.status for r in small_report.results}
    assert statuses["broken-claim"] == "failed"
    assert [s for c, s in statuses.items() if c != "broken-claim"] == ["supported"] * 4
    broken = next(r for r in small_report.results if r.claim.id == "broken-claim")
    assert "RuntimeError: the probe model file is missing" in broken.verdict.reason
    data = json.loads(read(small_report.report_json))
    assert data["counts"]["failed"] == 1
    assert next(c for c in data["claims"] if c["id"] == "broken-claim")["numbers"] is None


def test_failed_claims_are_not_cached(tmp_path, broken_claim):
    run_report(tmp_path, progress=False, claims=[broken_claim])
    again = run_report(tmp_path, progress=False, claims=[broken_claim])
    assert again.results[0].verdict.status == "failed" and not again.results[0].cached


def test_claim_that_reads_an_absent_statistic_fails_but_keeps_the_numbers(tmp_path):
    def experiment(ctx: Context) -> Measurement:
        return Measurement({"value": 1.0}, [Row("value", 1.0)])

    EXPERIMENTS["test_numbers_only"] = Experiment("test_numbers_only", experiment)
    try:
        claim = Claim("criterion-breaks", "test", "tutorial", "t", "c", "test_numbers_only",
                      (Test("missing", ">", 0, "needs a statistic the experiment does not give", "none"),))
        result = run_report(tmp_path, progress=False, claims=[claim])
    finally:
        EXPERIMENTS.pop("test_numbers_only")
    r = result.results[0]
    assert r.verdict.status == "failed" and "gave no estimate for missing" in r.verdict.reason
    assert r.measurement.numbers == {"value": 1.0}


def test_bad_seed_count_and_unknown_claims_fail_before_any_work(tmp_path):
    for bad in (0, -1, 1.5, True):
        with pytest.raises(PosencError, match="seeds must be a whole number"):
            run_report(tmp_path / "x", progress=False, claims=["sin-bounded"], seeds=bad)
    with pytest.raises(PosencError, match="at most 20"):
        run_report(tmp_path / "x", progress=False, claims=["sin-bounded"], seeds=1000)
    with pytest.raises(PosencError, match="unknown claim"):
        run_report(tmp_path / "x", progress=False, claims=["no-such-claim"])
    assert not (tmp_path / "x").exists()  # refused before the output folder was made


def test_seed_count_is_part_of_the_store_key(tmp_path):
    run_report(tmp_path, progress=False, claims=["sin-bounded"])
    other = run_report(tmp_path, progress=False, claims=["sin-bounded"], seeds=4)
    assert other.computed == ["sin-bounded"]
    assert json.loads(read(other.report_json))["seeds"] == 4


def test_same_command_twice_gives_identical_numbers(tmp_path):
    claims = ["add-vs-concat", "word-order"]
    a = run_report(tmp_path / "a", progress=False, claims=claims)
    b = run_report(tmp_path / "b", progress=False, claims=claims)
    ja, jb = (json.loads(read(r.report_json))["claims"] for r in (a, b))
    for x, y in zip(ja, jb, strict=True):
        assert x["estimates"] == y["estimates"] and x["verdict"] == y["verdict"]


def test_a_claim_past_the_time_budget_runs_only_when_asked(tmp_path, monkeypatch):
    """The research encodings' claims train past the hour: without --extended they show as not run (with the command
    that runs them) and nothing is stored, so a later --extended run computes them; named with --claim they run."""
    from types import SimpleNamespace

    from posenc.report import run as rr
    from posenc.report.ledger import get_claim
    from posenc.stats import Estimate

    calls = []

    def fake(ctx):
        calls.append(ctx.extended)
        return Measurement({}, estimates={"prope_minus_rope": Estimate(0.0, -0.01, 0.01, 3, "t")})

    import dataclasses

    # the real record's schedule (past the budget), with a stand-in function and no background training
    monkeypatch.setitem(EXPERIMENTS, "lab_prope", dataclasses.replace(EXPERIMENTS["lab_prope"], fn=fake, prepare=None))
    claim = get_claim("p-rope-in-distribution")
    store = ResultStore(tmp_path / "s.sqlite")
    bar = SimpleNamespace(update=lambda n: None, set_postfix_str=lambda s: None)
    out = rr._measure_all([claim], Context(quick=True, store_path=store.path), store, bar, None)
    measurement = out[claim.id][0]
    assert calls == [] and measurement.missing
    assert "posenc report --extended" in measurement.missing and "5 min of one core" in measurement.missing
    assert store.get(f"report:{claim.id}", store_config(claim, True)) is None
    verdict = rr.judge_claim(claim, measurement, quick=True)[0]
    assert verdict.status == "not run" and verdict.command == f"posenc report --claim {claim.id}"  # never inconclusive

    out = rr._measure_all([claim], Context(quick=True, store_path=store.path, extended=True), store, bar, None)
    assert calls == [True] and out[claim.id][0].missing is None
    result = run_report(tmp_path / "named", quick=True, progress=False, claims=[claim.id])
    assert calls == [True, True] and result.results[0].verdict.status == "supported"


def test_a_stored_claim_computed_by_another_transformers_is_recomputed_and_the_page_says_what_computed_it(tmp_path):
    import transformers

    from posenc.store import package_versions

    first = run_report(tmp_path, progress=False, claims=["sin-bounded"])
    now = package_versions()
    assert first.results[0].provenance["versions"] == now
    con = sqlite3.connect(tmp_path / "results.sqlite")
    stored = json.loads(con.execute("SELECT versions FROM runs").fetchone()[0])
    con.execute("UPDATE runs SET versions=?", (json.dumps({**stored, "transformers": "5.23.0"}),))
    con.commit()
    con.close()
    again = run_report(tmp_path, progress=False, claims=["sin-bounded"])
    assert again.computed == ["sin-bounded"] and not again.results[0].cached  # not reused as valid
    third = run_report(tmp_path, progress=False, claims=["sin-bounded"])
    assert third.results[0].cached and third.results[0].provenance["versions"]["transformers"] == \
        transformers.__version__
    report = json.loads(read(third.report_json))
    assert report["versions"]["transformers"] == transformers.__version__
    assert report["claims"][0]["provenance"]["versions"] == now
    page = read(third.index_html)
    assert f"transformers {transformers.__version__}" in page.split("<section")[0]  # the header
    section = page.split('id="sin-bounded"')[1]
    assert f"read from the results store (posenc {now['posenc']}, torch {now['torch']}" in section


def test_report_json_says_what_ran_it_so_it_can_serve_as_a_reference(small_report):
    """Date, commit, machine and library versions: what the page's full and extended columns read back."""
    import os

    from posenc.report.reference import source_commit

    data = json.loads(read(small_report.report_json))
    assert data["commit"] == source_commit() and data["machine"]["cpus"] == os.cpu_count()
    assert data["created_at"].endswith("Z") and data["versions"]["posenc"] == data["posenc"]
    assert data["quick"] is True and data["extended"] is False
    assert set(data["counts"]) >= {"not run", "not decided in quick mode", "inconclusive"}


def test_report_json_carries_each_claims_titles_in_both_languages(small_report):
    """report.json holds the Chinese title the page shows beside the English one, as the claim record has them."""
    data = json.loads(read(small_report.report_json))
    records = {r.claim.id: r.claim for r in small_report.results}
    assert {c["id"]: (c["title"], c["title_zh"]) for c in data["claims"]} == {
        i: (c.title, c.title_zh) for i, c in records.items()}


def test_report_json_counts_the_claims_by_verdict(small_report):
    """The counts beside the claims: each status's tally over the claims' own verdicts (0 for a status none got)."""
    from collections import Counter

    from posenc.report.run import _report_json
    from posenc.report.verdict import STATUSES

    data = json.loads(json.dumps(_report_json(small_report)))
    tally = Counter(c["verdict"]["status"] for c in data["claims"])
    assert tally == {"supported": 4, "failed": 1}  # the 4 fast claims hold; the broken one failed
    # every status named, in the summary's order, 0 for those no claim got
    assert list(data["counts"].items()) == [("supported", 4), ("qualified", 0), ("refuted", 0), ("inconclusive", 0),
                                            ("not testable", 0), ("not decided in quick mode", 0), ("not run", 0),
                                            ("failed", 1)]
    assert list(data["counts"]) == list(STATUSES)


def test_a_device_experiment_in_another_dtype_is_stored_apart_from_float32(tmp_path, monkeypatch):
    """A claim whose experiment computes on the report's device, measured in bfloat16, is read back by a bfloat16
    run only: a float32 run computes its own."""
    import dataclasses
    from types import SimpleNamespace

    from posenc.report import run as rr
    from posenc.report.ledger import get_claim

    calls = []

    def fake(ctx):  # a measurement of every option of the claim's choice, as the real experiment's
        calls.append(ctx.dtype)
        return Measurement({"computed_in": ctx.dtype}, variants={o: {} for o in claim.choice.options})

    monkeypatch.setitem(EXPERIMENTS, "lab_alibi_shape", dataclasses.replace(EXPERIMENTS["lab_alibi_shape"], fn=fake,
                                                                            prepare=None))
    claim = get_claim("alibi-table")
    store = ResultStore(tmp_path / "s.sqlite")
    bar = SimpleNamespace(update=lambda n: None, set_postfix_str=lambda s: None)

    def measure(dtype):
        ctx = Context(quick=True, store_path=store.path, dtype=dtype)
        measurement, cached, *_ = rr._measure_all([claim], ctx, store, bar, None)[claim.id]
        return measurement.numbers["computed_in"], cached

    assert measure("bfloat16") == ("bfloat16", False)
    assert measure("float32") == ("float32", False)
    assert measure("bfloat16") == ("bfloat16", True) and measure("float32") == ("float32", True)
    assert calls == ["bfloat16", "float32"]


@pytest.mark.parametrize("seeds", [1, 20])
def test_one_to_twenty_seeds_are_taken_and_reach_the_experiment(tmp_path, seeds):
    seen = []

    def experiment(ctx: Context) -> Measurement:
        seen.append(ctx.seed_count)
        return Measurement({"value": 1.0}, [Row("value", 1.0)])

    EXPERIMENTS["test_seed_count"] = Experiment("test_seed_count", experiment)
    try:
        claim = Claim("seed-count", "test", "tutorial", "t", "c", "test_seed_count",
                      (Test("value", ">", 0, "the value is positive", "by hand"),))
        result = run_report(tmp_path, progress=False, claims=[claim], seeds=seeds)
    finally:
        EXPERIMENTS.pop("test_seed_count")
    assert seen == [seeds] and result.seeds == seeds


def test_twenty_one_seeds_are_one_too_many(tmp_path):
    with pytest.raises(PosencError, match="seeds=21 would train 21 copies.*at most 20"):
        run_report(tmp_path / "x", progress=False, claims=["sin-bounded"], seeds=21)
    assert not (tmp_path / "x").exists()


def test_the_seed_count_defaults_to_three_in_both_modes():
    # three: the fewest seeds a t-interval rests on (MIN_UNITS), so quick mode's lab numbers have intervals too
    assert (Context(quick=True).seed_count, Context(quick=False).seed_count) == (3, 3)
    assert Context(quick=False, seeds=5).seed_count == 5  # a count given wins in either mode
    assert Context().quick is True


def test_store_key_by_hand():
    """store_config's key for each input: seeds only when given, dtype only when not float32 and only for an
    experiment that computes on the report's device (alibi-table's lab sweep does, sin-bounded's table does not)."""
    import posenc
    from posenc.report.ledger import get_claim

    table, lab = get_claim("sin-bounded"), get_claim("alibi-table")
    base = {"claim": "sin-bounded", "experiment": "sinusoid_bounded", "revision": table.revision,
            "posenc": posenc.__version__}
    assert store_config(table, True) == {**base, "quick": True}
    assert store_config(table, 0) == {**base, "quick": False}  # the mode as a bool, whatever was passed
    assert store_config(table, False, seeds=3) == {**base, "quick": False, "seeds": 3}  # given: kept even at the default
    assert store_config(table, True, dtype="bfloat16") == {**base, "quick": True}
    lab_base = {"claim": "alibi-table", "experiment": "lab_alibi_shape", "revision": lab.revision,
                "posenc": posenc.__version__, "quick": True}
    assert store_config(lab, True, dtype="bfloat16") == {**lab_base, "dtype": "bfloat16"}
    assert store_config(lab, True, dtype="float32") == lab_base


def test_a_stored_result_of_an_older_revision_is_computed_again(tmp_path):
    """A claim's revision joins its store key: a row stored under revision 1 is not read for revision 2, and both
    rows stay, each read back by its own revision."""
    import dataclasses

    calls = []

    def experiment(ctx: Context) -> Measurement:
        from posenc.stats import exact

        calls.append(len(calls) + 1)
        return Measurement({"call": len(calls)}, [Row("call", len(calls))], estimates={"call": exact(len(calls))})

    EXPERIMENTS["test_revised"] = Experiment("test_revised", experiment)
    try:
        old = Claim("revised", "test", "tutorial", "t", "c", "test_revised",
                    (Test("call", ">", 0, "the value is positive", "by hand"),))
        new = dataclasses.replace(old, revision=2)
        first = run_report(tmp_path, progress=False, claims=[old])
        second = run_report(tmp_path, progress=False, claims=[new])
        again_old = run_report(tmp_path, progress=False, claims=[old])
        again_new = run_report(tmp_path, progress=False, claims=[new])
    finally:
        EXPERIMENTS.pop("test_revised")
    assert calls == [1, 2]
    assert (first.computed, second.computed, again_old.computed, again_new.computed) == (["revised"], ["revised"],
                                                                                         [], [])
    assert again_old.results[0].measurement.numbers == {"call": 1}  # revision 1's own row
    assert again_new.results[0].measurement.numbers == {"call": 2}
    assert [r.results[0].verdict.status for r in (first, second, again_old, again_new)] == ["supported"] * 4


def test_a_stored_measurement_without_an_option_of_the_claims_choice_is_computed_again(tmp_path):
    """A store written when the choice's options had other names (an older posenc) holds variants this claim
    cannot judge: the claim is computed again, never failed on the old row."""
    from posenc.report.claim import Choice

    calls = []

    def experiment(ctx: Context) -> Measurement:
        calls.append(1)
        return Measurement({"value": 1.0}, [Row("value", 1.0)], variants={"new name": {"value": exact(1.0)},
                                                                         "other": {"value": exact(2.0)}})

    EXPERIMENTS["test_renamed_option"] = Experiment("test_renamed_option", experiment)
    try:
        claim = Claim("renamed-option", "test", "tutorial", "t", "c", "test_renamed_option",
                      (Test("value", ">", 0, "the value is positive", "by hand"),),
                      choice=Choice("rows", ("new name", "other"), "new name", "fixed before the run"))
        store = ResultStore(tmp_path / "results.sqlite")
        old = Measurement({"value": 1.0}, [Row("value", 1.0)], variants={"old name": {"value": exact(1.0)},
                                                                        "other": {"value": exact(2.0)}})
        store.put("report:renamed-option", store_config(claim, True), 0, old.to_json(), 0.1)
        result = run_report(tmp_path, progress=False, claims=[claim])
        again = run_report(tmp_path, progress=False, claims=[claim])  # now stored under the new names: read
    finally:
        EXPERIMENTS.pop("test_renamed_option")
    assert calls == [1]
    assert result.results[0].verdict.status == "supported" and not result.results[0].cached
    assert again.results[0].cached
