"""Resuming a sweep from its SQLite store: what is finished is kept, everything else runs again.

Four grid points are prepared in the store by hand before the sweep starts: one finished (``done``), one that failed
(``error``, as ``_execute`` records an exception), one left in a status that is not ``done`` (a row another writer
left unfinished) and one missing (a run killed before it was written). Training is replaced by a stub that records
what it is asked to run, so the test sees exactly which runs the resume recomputes.
"""

import json

from posenc.lab import KIND, run_sweep
from posenc.lab import sweep as lab_sweep
from posenc.lab.train import CODE_VERSION, RunConfig, RunResult
from posenc.store import ResultStore

BASE = {"task": "copy", "train_len": 3, "eval_lengths": [3], "d_model": 8, "n_layers": 1, "n_heads": 2,
        "batch_size": 2, "eval_samples": 2, "steps": 2}
SPEC = {"base": BASE, "grid": {"encoding": ["nope", "alibi", "rope", "t5"]}, "seeds": [0]}
#: encoding -> what the store holds before the resume
BEFORE = {"nope": "done", "alibi": "error", "rope": "running", "t5": None}


def _config(encoding: str) -> dict:
    return RunConfig.from_dict({**BASE, "encoding": encoding}).as_dict()


def _rows(path) -> dict[str, tuple]:
    return {r.config["model"]["encoding"]: (r.status, json.dumps(r.metrics, sort_keys=True), r.created_at)
            for r in ResultStore(path).runs(KIND)}


def test_resume_reruns_failed_and_unfinished_runs_and_keeps_finished_ones(tmp_path, monkeypatch):
    path = tmp_path / "runs.sqlite"
    store = ResultStore(path)
    for encoding, status in BEFORE.items():
        if status is not None:
            store.put(KIND, _config(encoding), 0, {"stored": encoding}, 1.5, status, code=CODE_VERSION,
                      error=None if status == "done" else "RuntimeError: killed\n")
    before = _rows(path)
    trained = []

    def stub(config, seed=0, progress=True, position=None, **_):
        config = config if isinstance(config, dict) else config.as_dict()
        trained.append((config["model"]["encoding"], seed))
        return RunResult(config, seed, {"trained": config["model"]["encoding"]}, 0.25)

    monkeypatch.setattr(lab_sweep, "train_run", stub)
    results = run_sweep(SPEC, path, progress=False)

    assert sorted(trained) == [("alibi", 0), ("rope", 0), ("t5", 0)]  # failed, unfinished and missing: run again
    by_encoding = {r.config["model"]["encoding"]: r for r in results}
    assert [r.config["model"]["encoding"] for r in results] == ["nope", "alibi", "rope", "t5"]  # grid order
    finished = by_encoding["nope"]  # not recomputed: the stored metrics come back, marked skipped
    assert finished.skipped and finished.status == "done" and finished.metrics == {"stored": "nope"}
    for encoding in ("alibi", "rope", "t5"):
        result = by_encoding[encoding]
        assert not result.skipped and result.status == "done" and result.metrics == {"trained": encoding}
    after = _rows(path)
    assert after["nope"] == before["nope"]  # the finished row is untouched (same metrics, same write time)
    for encoding in ("alibi", "rope", "t5"):
        assert after[encoding][0] == "done" and json.loads(after[encoding][1]) == {"trained": encoding}

    trained.clear()  # a second resume finds everything finished and runs nothing
    again = run_sweep(SPEC, path, progress=False)
    assert trained == [] and all(r.skipped for r in again)
    assert _rows(path) == after


def test_a_run_that_fails_again_stays_failed_for_the_next_resume(tmp_path, monkeypatch):
    path = tmp_path / "runs.sqlite"
    spec = {**SPEC, "grid": {"encoding": ["nope", "alibi"]}}
    calls = []

    def flaky(config, seed=0, progress=True, position=None, **_):
        config = config if isinstance(config, dict) else config.as_dict()
        calls.append(config["model"]["encoding"])
        if config["model"]["encoding"] == "alibi" and calls.count("alibi") == 1:
            raise RuntimeError("out of memory (simulated)")
        return RunResult(config, seed, {"trained": config["model"]["encoding"]}, 0.25)

    monkeypatch.setattr(lab_sweep, "train_run", flaky)
    first = run_sweep(spec, path, progress=False)
    assert [r.status for r in first] == ["done", "error"] and "out of memory" in first[1].error
    assert _rows(path)["alibi"][0] == "error"
    second = run_sweep(spec, path, progress=False)
    assert calls == ["nope", "alibi", "alibi"]  # only the failed run ran again
    assert [r.status for r in second] == ["done", "done"] and [r.skipped for r in second] == [True, False]
