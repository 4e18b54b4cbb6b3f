"""Time the evidence report: a fresh run (empty store) and a re-run (everything from the store), same process.

    python benchmarks/bench_report.py            # quick report (the `make report` target; budget 2 minutes on 2 cores)
    python benchmarks/bench_report.py --full     # full report (budget 60 minutes on 2 cores)
    python benchmarks/bench_report.py --claim sin-bounded --claim word-order
    python benchmarks/bench_report.py --full --store runs/main.sqlite   # reuse what `posenc extend` stored

Prints the wall time of each claim's experiment, the total against the budget, and the re-run's time (the store
makes a re-run compute nothing). Models must already be cached (the offline packages; SmolLM2's float copy).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from posenc.report.run import run_report  # noqa: E402

BUDGET_S = {True: 2 * 60, False: 60 * 60}


def cpu_seconds() -> float:
    """User + system CPU time of this process and its finished children (load-independent, unlike wall time)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="time the full report instead of --quick")
    parser.add_argument("--claim", action="append", help="only these claim ids (repeatable)")
    parser.add_argument("--out", type=Path, default=None, help="report folder (default: a temporary folder)")
    parser.add_argument("--store", type=Path, default=None,
                        help="results store (default: a new one in the report folder); e.g. one that already holds "
                             "`posenc extend`'s windows, whose stored wall times then stand in for that part")
    args = parser.parse_args()
    quick = not args.full
    out = args.out or Path(tempfile.mkdtemp(prefix="posenc-bench-report-"))
    import torch

    print(f"posenc report {'--quick' if quick else '(full)'}: torch threads {torch.get_num_threads()}, "
          f"cpus {os.cpu_count()}, out {out}")
    load = os.getloadavg()[0]
    start, cpu_start = time.perf_counter(), cpu_seconds()
    fresh = run_report(out, quick=quick, progress=False, claims=args.claim, store_path=args.store)
    fresh_s, fresh_cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
    print(f"\n{'claim':28s} {'experiment':32s} {'verdict':14s} {'seconds':>8s}")
    for r in fresh.results:
        print(f"{r.claim.id:28s} {r.claim.experiment:32s} {r.verdict.status:14s} {r.wall_s:8.1f}")
    start = time.perf_counter()
    again = run_report(out, quick=quick, progress=False, claims=args.claim, store_path=args.store)
    again_s = time.perf_counter() - start
    budget = BUDGET_S[quick]
    print(f"\nfresh run: {fresh_s:.1f} s wall (budget {budget} s: {'within' if fresh_s <= budget else 'OVER'}), "
          f"{fresh_cpu:.1f} s CPU; load average {load:.1f} at start, {os.getloadavg()[0]:.1f} at end "
          f"(on a shared machine wall time exceeds CPU time / threads); computed {len(fresh.computed)} claims")
    print(f"re-run from the store: {again_s:.1f} s, computed {len(again.computed)} claims; "
          f"speed-up {fresh_s / max(again_s, 1e-9):.0f}x")
    print(f"counts: {fresh.counts}")
    print(f"page: {fresh.index_html}")


if __name__ == "__main__":
    main()
