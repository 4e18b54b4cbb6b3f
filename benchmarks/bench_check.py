"""How long ``posenc check --all`` takes at d_model=512, length=4096, and what its vectorised kernels save.

Run: ``python benchmarks/bench_check.py [--d-model 512] [--length 4096] [--repeat 1]``.

Prints the wall time of :func:`posenc.properties.check_all` (every registered encoding plus the RoPE scaling
variants; the target is under 10 s on 2 cores) with 1 torch thread (the CLI default) and with 2, the slowest
encodings, and two side-by-side comparisons in the same process on the same inputs (1 thread), each after checking
that both give the same answer:

- smallest pairwise distance: chunked Gram blocks (uniqueness) vs ``torch.cdist`` on the whole table;
- per-pair 2x2 rotation fit over all p: closed-form normal equations (relative) vs batched ``torch.linalg.lstsq``.
"""

from __future__ import annotations

import argparse
import os
import time

import torch

from posenc.properties import check_all
from posenc.properties.relative import fit_pair_blocks
from posenc.properties.uniqueness import min_distance_by_length


def _time(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def _sinusoid(n: int, d: int) -> torch.Tensor:
    w = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    angle = torch.arange(n, dtype=torch.float64)[:, None] * w
    return torch.stack([angle.sin(), angle.cos()], -1).flatten(-2)  # [N, D]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d-model", type=int, default=512)
    parser.add_argument("--length", type=int, default=4096)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    n, d = args.length, args.d_model
    print(f"d_model={d}, length={n}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")

    check_all(d_model=16, length=64, progress=False)  # warm-up: imports, kernel load, table caches
    totals = {}
    for threads in (1, 2):
        totals[threads], reports = _time(lambda t=threads: check_all(d_model=d, length=n, progress=False, threads=t),
                                         args.repeat)
        errors = sum(not r.ok for r in reports)
        slowest = ", ".join(f"{r.label} {r.wall_s:.2f}" for r in sorted(reports, key=lambda r: -r.wall_s)[:3])
        print(f"check_all, {threads} thread(s): {totals[threads]:.2f} s for {len(reports)} encodings "
              f"(best of {args.repeat}; {errors} with errors; slowest: {slowest})")
    print(f"ratio 2 threads / 1 thread: {totals[2] / totals[1]:.2f}")
    torch.set_num_threads(1)

    table = _sinusoid(n, d)
    fast_t, (curve, _) = _time(lambda: min_distance_by_length(table), args.repeat)

    def cdist_min():
        dist = torch.cdist(table, table)  # [N, N]
        dist.fill_diagonal_(float("inf"))
        return dist.min()

    slow_t, slow = _time(cdist_min, args.repeat)
    assert abs(float(curve[-1]) - float(slow)) < 1e-6, (float(curve[-1]), float(slow))
    print(f"min distance {float(curve[-1]):.6f}: gram blocks {fast_t:.3f} s, cdist {slow_t:.3f} s, "
          f"ratio {slow_t / fast_t:.2f}x")

    k = 16
    x = table[:-k].view(n - k, d // 2, 2)  # [m, P, 2]
    y = table[k:].view(n - k, d // 2, 2)
    fast_t, (blocks, _) = _time(lambda: fit_pair_blocks(x, y), args.repeat)
    xs, ys = x.transpose(0, 1).contiguous(), y.transpose(0, 1).contiguous()  # [P, m, 2]
    slow_t, ref = _time(lambda: torch.linalg.lstsq(xs, ys, driver="gelsd").solution, args.repeat)
    assert torch.allclose(blocks, ref, atol=1e-9)
    print(f"2x2 pair fit (k={k}): normal equations {fast_t:.3f} s, lstsq {slow_t:.3f} s, ratio {slow_t / fast_t:.2f}x")


if __name__ == "__main__":
    main()
