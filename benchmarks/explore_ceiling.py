"""Which task sizes and model sizes reach the in-distribution bar (validation exact match) within a step budget?

Prints, per (task, settings, encoding, seed): steps trained, best in-distribution validation exact match and token
accuracy, wall time. It reads in-distribution validation only, never the longer test sizes, so a setting chosen from
it is chosen without looking at extrapolation. Runs the grid over a process pool (one torch thread each).

    python benchmarks/explore_ceiling.py --workers 16 --out results.jsonl
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing as mp
import time


def one(job: dict) -> dict:
    import torch

    torch.set_num_threads(1)
    from posenc.lab.train import RunConfig, train_run

    seed = job.pop("seed")
    config = RunConfig.from_dict(job)
    started = time.perf_counter()
    m = train_run(config, seed=seed, progress=False).metrics
    return {**job, "seed": seed, "steps_trained": m["steps_trained"], "best_step": m["best_step"],
            "val_exact": round(m["val_exact_match"], 4), "val_token": round(m["val_token_accuracy"], 4),
            "val_curve": m["val_curve"], "wall_s": round(time.perf_counter() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default="ceiling.jsonl")
    parser.add_argument("--tasks", default="copy,reverse,sort,addition,parity,duplicate")
    parser.add_argument("--encodings", default="nope,t5,alibi,rope,sinusoidal,learned")
    parser.add_argument("--sizes", default="64x2,64x4")
    parser.add_argument("--train-len", default="8", help="largest training size; several: comma-separated")
    parser.add_argument("--steps", type=int, default=6000)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--first-seed", type=int, default=0,
                        help="seeds first-seed.. (apart from the report's 0..2 when choosing its settings)")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--val-every", type=int, default=250)
    parser.add_argument("--patience", type=int, default=6)
    args = parser.parse_args()
    jobs = []
    lengths = [int(n) for n in args.train_len.split(",")]
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    for task, size, length, enc, seed in itertools.product(args.tasks.split(","), args.sizes.split(","), lengths,
                                                           args.encodings.split(","), seeds):
        d, layers = (int(x) for x in size.split("x"))
        jobs.append({"task": task, "encoding": enc, "d_model": d, "n_layers": layers, "n_heads": 4,
                     "train_len": length, "eval_lengths": [length], "steps": args.steps,
                     "batch_size": 32, "lr": args.lr, "warmup": args.warmup, "val_every": args.val_every,
                     "patience": args.patience, "val_samples": 64, "eval_samples": 16, "seed": seed})
    with mp.get_context("spawn").Pool(args.workers) as pool, open(args.out, "w") as out:
        for row in pool.imap_unordered(one, jobs):
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(f"{row['task']:9s} d{row['d_model']}x{row['n_layers']} L{row['train_len']} {row['encoding']:10s} "
                  f"s{row['seed']} "
                  f"steps {row['steps_trained']:5d} best {row['best_step']:5d} exact {row['val_exact']:.3f} "
                  f"token {row['val_token']:.3f} {row['wall_s']:6.1f}s", flush=True)


if __name__ == "__main__":
    main()
