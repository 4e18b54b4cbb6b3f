"""Time the lab model's forward and one RoPE layer's rotation, side by side with a plain matrix product, as ratios.

Run by hand (never a timed test):
    .venv/bin/python benchmarks/bench_forward.py [--layers 4] [--length 128] [--batch 4] [--repeat 10] [--rounds 5] [--threads 1]
    PYTHONPATH=/tmp/before/src .venv/bin/python benchmarks/bench_forward.py   # the same, against another checkout

Three things are timed in one process, in turn, once per round, each the fastest of ``--repeat`` calls after one
warm-up (the call least disturbed by other work on a shared machine), under ``torch.no_grad()``; on a CPU the
clock is this process's CPU time, which other processes' load does not stretch (a wall clock on a machine with
more runnable processes than cores stretches a long call more than a short one, and their ratio with it):

- ``model``: the lab model (:class:`posenc.model.Transformer`, RoPE, ``--layers`` layers, d_model 128, 4 heads) on
  ``--batch`` x ``--length`` token ids with given positions ``[B, T]`` (the path that checks them);
- ``rope``: one RoPE layer's ``rotate`` of q and k ``[B, 4, T, 32]`` at those positions;
- ``matmul``: a float32 ``[B T, 128] @ [128, 512]`` product, the reference each round's times are divided by (on a
  shared machine the load moves between rounds; the ratio per round, and its median, is what to read).

It also counts the tensor -> host reads of one forward (``.item()``, ``int()``, ``bool()``, ... through a
``TorchFunctionMode``): on a GPU each is a wait for the device. ``--device cuda`` runs it on a GPU (synchronised
before each clock read).
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

import posenc
from posenc.device import HostReads
from posenc.model import Transformer, TransformerConfig


def _time(fn, repeat: int, device: torch.device) -> float:
    """The fastest of ``repeat`` calls: CPU time of this process on a CPU (what other processes' load does not
    stretch), wall time on a GPU (synchronised)."""
    clock = time.perf_counter if device.type == "cuda" else time.process_time
    fn()
    times = []
    for _ in range(repeat):
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        start = clock()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        times.append(clock() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--length", type=int, default=128)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1: steadier on a shared machine)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    torch.manual_seed(0)
    B, T = args.batch, args.length
    model = Transformer(TransformerConfig(vocab_size=256, d_model=128, n_heads=4, n_layers=args.layers,
                                          encoding="rope", max_len=T)).to(device).eval()
    ids = torch.randint(0, 256, (B, T), device=device)
    positions = torch.arange(T, device=device).expand(B, T).contiguous()
    rope = posenc.build("rope", head_dim=32).to(device)
    q, k = torch.randn(B, 4, T, 32, device=device), torch.randn(B, 4, T, 32, device=device)
    a, b = torch.randn(B * T, 128, device=device), torch.randn(128, 512, device=device)
    with torch.no_grad(), HostReads() as counter:
        model(ids, positions=positions)
    forward_reads = counter.count
    with torch.no_grad(), HostReads() as counter:
        rope.rotate(q, k, positions, positions)
    rope_reads = counter.count
    jobs = {"model": lambda: model(ids, positions=positions), "rope": lambda: rope.rotate(q, k, positions, positions),
            "matmul": lambda: a @ b}
    ratios: dict[str, list[float]] = {"model": [], "rope": []}
    seconds: dict[str, list[float]] = {name: [] for name in jobs}
    with torch.no_grad():
        for _ in range(args.rounds):
            got = {name: _time(job, args.repeat, device) for name, job in jobs.items()}
            for name in jobs:
                seconds[name].append(got[name])
            for name in ratios:
                ratios[name].append(got[name] / got["matmul"])
    print(f"posenc at {posenc.__file__}; device {device}, torch {torch.__version__}, "
          f"{torch.get_num_threads()} thread(s)")
    print(f"lab model: {args.layers} layers, d_model 128, 4 heads, rope; batch {B} x {T} tokens with given positions")
    print(f"host reads: {forward_reads} per forward, {rope_reads} per rope.rotate")
    for name in jobs:
        print(f"{name:>6}: {statistics.median(seconds[name]) * 1e3:.3f} ms (median over {args.rounds} rounds of the "
              f"fastest of {args.repeat} calls)")
    for name, values in ratios.items():
        print(f"{name:>6} / matmul: median {statistics.median(values):.2f} "
              f"(rounds {', '.join(f'{v:.2f}' for v in values)})")


if __name__ == "__main__":
    main()
