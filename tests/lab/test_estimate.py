"""The time a run and a sweep are said to take, against real ones: within a factor of 3 either way.

A single measurement on a shared machine varies, which is why the bound is a factor and not a tolerance; the estimate
used to be 2 to 8 times below the real time of small runs (no per-step cost but a small one per layer, and no cost
to start a pool's workers), which this catches. Both estimates come before the work; nothing here is a benchmark.
"""

import time

import torch

from posenc.lab.sweep import estimate_sweep, run_sweep
from posenc.lab.train import RunConfig, estimate_run, train_run

FACTOR = 3.0
SMALL = {"task": "copy", "encoding": "rope", "d_model": 32, "n_layers": 2, "n_heads": 2, "batch_size": 32,
         "train_len": 8, "eval_lengths": [4, 8], "eval_samples": 32, "steps": 150, "warmup": 10}


def _within(measured: float, estimated: float) -> bool:
    return estimated / FACTOR <= measured <= estimated * FACTOR


def test_a_small_run_takes_about_its_estimate():
    config = RunConfig(**SMALL)
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        train_run(RunConfig(**{**SMALL, "steps": 10}), progress=False)  # first calls (kernels, allocator) apart
        started = time.perf_counter()
        train_run(config, progress=False)
        measured = time.perf_counter() - started
    finally:
        torch.set_num_threads(before)
    estimated = estimate_run(config, threads=1).seconds
    assert _within(measured, estimated), f"measured {measured:.2f} s, estimated {estimated:.2f} s"


def test_a_small_sweep_on_two_workers_takes_about_its_estimate(tmp_path):
    configs = [RunConfig(**{**SMALL, "encoding": name}) for name in ("rope", "alibi")]
    estimated = estimate_sweep(configs, threads=1, workers=2)
    started = time.perf_counter()
    results = run_sweep({"base": SMALL, "grid": {"encoding": ["rope", "alibi"]}}, tmp_path / "runs.sqlite",
                        workers=2, progress=False, threads=1)
    measured = time.perf_counter() - started
    assert [r.status for r in results] == ["done", "done"]
    assert _within(measured, estimated), f"measured {measured:.2f} s, estimated {estimated:.2f} s"
