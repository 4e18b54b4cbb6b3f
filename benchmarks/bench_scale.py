"""Scale: the full report's training grid on a Ray cluster of 1 and of 2 workers on this machine, side by side.

    python benchmarks/bench_scale.py                      # the whole grid (the task sweep and the char-LM sweep)
    python benchmarks/bench_scale.py --runs 8             # the first 8 runs of the task sweep, seed 0 (minutes)
    python benchmarks/bench_scale.py --sweep charlm --runs 2
    python benchmarks/bench_scale.py --device cuda        # on a GPU machine: every run asks Ray for a GPU (the
                                                          # 2-worker row then needs 2 GPUs, or runs one at a time)

For each worker count: a private Ray started with that many CPUs (its start-up timed apart), the same runs in a new
store through ``run_sweep(executor="ray")``, and where the time went: the sum of the runs' own training time (each
run's ``wall_s``, measured on its worker) against the wall time times the workers (the rest is Ray's scheduling,
worker start-up, process imports, and cores shared with the driver and Ray's own processes), by task. The speed-up
is the 1-worker wall time over the 2-worker one, on the same runs, and every run's metrics must be the same with 1
and with 2 workers (the script says how many are). Ray must be installed (``pip install 'posenc[ray]'``).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # a private Ray: no token written to ~/.ray

from posenc.errors import PosencError  # noqa: E402
from posenc.lab.sweep import run_sweep  # noqa: E402
from posenc.report.experiments.training import lm_sweep, task_sweep  # noqa: E402


def grid(which: str, seeds: int) -> list[dict]:
    """The full report's sweeps (full mode), as :func:`run_sweep` takes them."""
    sweeps = {"tasks": [task_sweep(False, seeds)], "charlm": [lm_sweep(False, seeds)]}
    sweeps["all"] = sweeps["tasks"] + sweeps["charlm"]
    return sweeps[which]


def timed(workers: int, sweeps: list[dict], runs: int | None, device: str) -> dict:
    import ray

    store = Path(tempfile.mkdtemp(prefix=f"posenc-scale-{workers}-")) / "runs.sqlite"
    start = time.perf_counter()
    ray.init(num_cpus=workers, num_gpus=None if device.startswith("cuda") else 0, include_dashboard=False,
             log_to_driver=False, logging_level="ERROR", configure_logging=False)
    started = time.perf_counter() - start
    try:
        start = time.perf_counter()
        results = []
        for sweep in sweeps:
            results += run_sweep(sweep, store, executor="ray", progress=False, limit=runs, device=device)
        wall = time.perf_counter() - start
    finally:
        ray.shutdown()
    done = [r for r in results if not r.skipped]
    failed = [r for r in done if r.status != "done"]
    if failed:
        raise PosencError(f"{len(failed)} runs failed; first: {(failed[0].error or '').splitlines()[0]}")
    by_task: dict[str, float] = {}
    for r in done:
        by_task[r.config["task"]] = by_task.get(r.config["task"], 0.0) + r.wall_s
    return {"workers": workers, "ray_start_s": started, "wall_s": wall, "runs": len(done),
            "train_s": sum(r.wall_s for r in done), "by_task": by_task,
            "per_run": {name(r): r.wall_s for r in done}, "metrics": {name(r): r.metrics for r in done}}


def name(r) -> str:
    """A run's name in the tables: task/encoding/seed."""
    return f"{r.config['task']}/{r.config['label']}/seed {r.seed}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", choices=("tasks", "charlm", "all"), default="all")
    parser.add_argument("--runs", type=int, default=None, help="the first N runs of each sweep (default: all)")
    parser.add_argument("--seeds", type=int, default=3, help="seeds per configuration (the full report's 3)")
    parser.add_argument("--device", default="cpu", help="cpu or cuda (each run asks Ray for a GPU)")
    args = parser.parse_args()
    if args.runs is not None and args.runs < 1:
        parser.error(f"--runs must be >= 1, got {args.runs}")
    if args.seeds < 1:
        parser.error(f"--seeds must be >= 1, got {args.seeds}")
    sweeps = grid(args.sweep, args.seeds)
    print(f"the full report's {args.sweep} grid, {args.seeds} seed(s), "
          f"{'all runs' if args.runs is None else f'first {args.runs} runs of each sweep'}, on {args.device}; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    rows = [timed(w, sweeps, args.runs, args.device) for w in (1, 2)]
    print(f"\n{'workers':>7s} {'ray start':>10s} {'wall':>9s} {'runs':>5s} {'training':>9s} {'busy':>6s}")
    for r in rows:
        busy = r["train_s"] / (r["wall_s"] * r["workers"])
        print(f"{r['workers']:7d} {r['ray_start_s']:9.1f}s {r['wall_s']:8.1f}s {r['runs']:5d} {r['train_s']:8.1f}s "
              f"{busy:6.0%}")
    one, two = rows
    print(f"\nspeed-up with 2 workers: {one['wall_s'] / two['wall_s']:.2f}x (ideal 2x); a run's training time with 2 "
          f"workers against 1: {two['train_s'] / one['train_s']:.2f}x (cores shared with the other worker)")
    same = sum(one["metrics"][k] == two["metrics"].get(k) for k in one["metrics"])
    print(f"the same metrics with 1 and 2 workers: {same} of {len(one['metrics'])} runs")
    print("\ntraining time by task (s, sum over runs), 1 worker | 2 workers:")
    for task, seconds in one["by_task"].items():
        print(f"  {task:28s} {seconds:7.1f} | {two['by_task'].get(task, float('nan')):7.1f}")
    print("\nper run (s), 1 worker | 2 workers:")
    for run, seconds in one["per_run"].items():
        print(f"  {run:28s} {seconds:7.1f} | {two['per_run'].get(run, float('nan')):7.1f}")


if __name__ == "__main__":
    main()
