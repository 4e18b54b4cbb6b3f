"""Time the bias encodings building their bias for T = 4096 and 32 heads, side by side with ALiBi, as ratios.

Run by hand (never a timed test):
    .venv/bin/python benchmarks/bench_bias.py [--length 4096] [--heads 32] [--repeat 3] [--rounds 1] [--no-cope]

Every encoding builds ``bias(arange(T), arange(T))`` -> ``[H, T, T]`` float32 in one process, same positions,
median of ``--repeat`` runs after one warm-up, under ``torch.no_grad()``. With ``--rounds N`` every encoding is timed
once per round, in turn, and each round's times are divided by that round's ALiBi: on a shared machine the load moves
between rounds, so the ratio per round (and its median, printed) is what to read. CoPE has no fixed bias: it is timed
on its ``contextual_bias`` from q and k ``[1, H, T, Dh]`` (Dh = 64), per layer (``--no-cope`` skips it).
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

import posenc


def _time(fn, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=4096)
    parser.add_argument("--heads", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=1, help="time every encoding once per round, in turn")
    parser.add_argument("--cope-length", type=int, default=2048, help="CoPE length (its [B, H, T, T] floats)")
    parser.add_argument("--no-cope", action="store_true", help="skip CoPE")
    args = parser.parse_args()
    torch.manual_seed(0)
    T, H = args.length, args.heads
    pos = torch.arange(T)
    encodings = []
    for name, options in (("alibi", {}), ("alibi", {"heads": list(range(0, H, 2))}), ("t5", {"scale": 0.5}),
                          ("kerple", {"kernel": "log"}), ("kerple", {"kernel": "power"}), ("sandwich", {}),
                          ("fire", {})):
        encodings.append((f"{name} {options}" if options else name, posenc.build(name, n_heads=H, **options)))
    times: dict[str, list[float]] = {label: [] for label, _ in encodings}
    with torch.no_grad():
        for _ in range(args.rounds):
            for label, enc in encodings:
                times[label].append(_time(lambda enc=enc: enc.bias(pos, pos), args.repeat))
    base = times[encodings[0][0]]
    print(f"bias [H={H}, T={T}, T] float32, torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"{args.rounds} round(s)")
    for label, seconds in times.items():
        ratios = [s / b for s, b in zip(seconds, base, strict=True)]
        per_round = "" if args.rounds == 1 else "   rounds: " + " ".join(f"{r:.2f}" for r in ratios)
        print(f"  {label:40s} {statistics.median(seconds) * 1e3:9.1f} ms   {statistics.median(ratios):6.2f} x alibi"
              f"{per_round}")
    if args.no_cope:
        return
    with torch.no_grad():
        cope = posenc.build("cope", head_dim=64, max_len=T)
        Tc = args.cope_length
        q, k = torch.randn(2, 1, H, Tc, 64)
        pc = torch.arange(Tc)
        cope_s = _time(lambda: cope.contextual_bias(q, k, pc, pc), args.repeat)
        logits_s = _time(lambda: q @ k.transpose(-1, -2), args.repeat)
    print(f"cope contextual_bias at T={Tc}, H={H}, Dh=64: {cope_s * 1e3:.1f} ms = {cope_s / logits_s:.1f} x the "
          f"q k^T of attention ({logits_s * 1e3:.1f} ms); {cope_s / Tc * 1e6:.1f} us per query token per layer")


if __name__ == "__main__":
    main()
