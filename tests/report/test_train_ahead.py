"""A local report trains ahead (posenc.report.executors.TrainAhead): the lab sweeps and seed runs start in the background
while the cheap experiments run. The foreground's numbers must not depend on it: the background draws nothing from
this process's random generator, and the claims it prepares read the same runs."""

from __future__ import annotations

import json

import pytest
import torch
from agreement import close

from posenc.report.executors import TrainAhead
from posenc.report.experiments.base import Context
from posenc.report.measurement import Measurement
from posenc.report.run import run_report
from posenc.store import ResultStore


@pytest.mark.slow  # trains a sweep of three runs in two fresh worker processes (about 12 s)
def test_preparing_a_sweep_leaves_this_process_random_state_alone(tmp_path):
    ctx = Context(quick=True, seeds=1, store_path=tmp_path / "results.sqlite")  # 1 seed: the smallest sweep
    ResultStore(ctx.store_path)
    torch.manual_seed(1234)
    before = torch.random.get_rng_state()
    ahead = TrainAhead(["lab_alibi_shape"], ctx)
    assert ahead.done, "training ahead needs a store and two cores"
    ahead.wait("lab_alibi_shape")
    ahead.close()
    assert torch.equal(torch.random.get_rng_state(), before)
    runs = list(ResultStore(ctx.store_path).runs("lab"))
    assert len(runs) == 3 and all(r.status == "done" for r in runs)  # 3 encodings x 1 seed, stored for the claim


@pytest.mark.slow  # trains a sweep twice (about 22 s)
def test_a_claim_beside_training_equals_the_claim_alone(tmp_path):
    alone = run_report(tmp_path / "alone", quick=True, progress=False, claims=["word-order"])
    beside = run_report(tmp_path / "beside", quick=True, progress=False, claims=["word-order", "alibi-table"])
    a = json.loads(alone.report_json.read_text())["claims"][0]
    b = json.loads(beside.report_json.read_text())["claims"][0]
    # same seeds, same draws; the foreground computes on one thread while training runs, so float round-off only
    for case, values in a["numbers"]["cases"].items():
        for key, value in values.items():
            assert close(value, b["numbers"]["cases"][case][key]), (case, key)
    assert beside.computed == ["word-order", "alibi-table"]


def test_an_exclusive_experiment_starts_after_the_training_on_every_core(tmp_path, monkeypatch):
    """An experiment marked exclusive (the context extension) waits for the background training, so it does not
    spend its whole length on the one thread a foreground experiment gets beside training. Here word-order stands
    in for it, and a slow stand-in preparation for the ALiBi table's sweep (ledger order runs word-order first)."""
    import time

    from posenc.report import executors as schedule
    from posenc.report.experiments import base

    seen: dict[str, object] = {}

    def slow_training(ctx):
        time.sleep(1.5)
        seen["trained"] = True

    def spy(name, ctx):
        if name == "word_order":
            seen["trained_before_start"] = seen.get("trained", False)
            seen["threads"] = torch.get_num_threads()
            return real(name, ctx)
        return schedule.Outcome(None, 0.0, {}, "not run in this test")

    real = schedule.run_here
    threads = torch.get_num_threads()
    import dataclasses

    monkeypatch.setitem(base.EXPERIMENTS, "lab_alibi_shape", dataclasses.replace(
        base.EXPERIMENTS["lab_alibi_shape"], prepare=slow_training, prepare_here=True))
    monkeypatch.setitem(base.EXPERIMENTS, "word_order", dataclasses.replace(base.EXPERIMENTS["word_order"],
                                                                           exclusive=True))
    monkeypatch.setattr(schedule, "run_here", spy)
    result = run_report(tmp_path / "r", quick=True, progress=False, claims=["word-order", "alibi-table"])
    assert [r.claim.id for r in result.results] == ["word-order", "alibi-table"]
    assert seen["trained_before_start"] is True and seen["threads"] == threads


def test_one_thread_gives_the_thread_count_back():
    """The foreground's one thread while training runs is given back whole afterwards (threadpoolctl's limits apply
    as they are made, so a count read after them was 1, and the report kept one thread to its end)."""
    import threading

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        ahead = TrainAhead([], Context(quick=True))
        ahead.done = {"training": threading.Event()}  # still running
        with ahead.one_thread():
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        ahead.done["training"].set()
        with ahead.one_thread():  # training finished: every thread
            assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_an_experiment_waits_for_the_training_it_reads(tmp_path, monkeypatch):
    """run_experiments holds an experiment back until its own preparation has finished (not only an exclusive
    one): it must find the runs its training stores. A stand-in experiment that reads a stand-in training of half a
    second, started ahead in this process's thread; run at once, it would see nothing trained."""
    import time

    from posenc import resources
    from posenc.report.executors import run_experiments
    from posenc.report.experiments import base

    events: list[str] = []

    def training(ctx):
        time.sleep(0.5)
        events.append("trained")

    def reads_training(ctx):
        events.append("ran")
        return Measurement({"trained_first": events[0] == "trained"})

    monkeypatch.setitem(base.EXPERIMENTS, "test_reads_training",
                        base.Experiment("test_reads_training", reads_training, prepare=training, prepare_here=True))
    monkeypatch.setattr(resources, "usable_cores", lambda: 2)  # training ahead needs two cores; the wait is tested
    finished = {}
    run_experiments(["test_reads_training"], Context(quick=True, store_path=tmp_path / "results.sqlite"),
                    lambda name, outcome: finished.setdefault(name, outcome))
    assert finished["test_reads_training"].error is None
    assert finished["test_reads_training"].measurement.numbers == {"trained_first": True}
    assert events == ["trained", "ran"]
