"""A lab training step, measured on the lab's real configurations: time per step, GFLOP/s, and where a step goes.

Configurations (``--config``):

- ``task``: the task model of the lab's runs: copy, RoPE, 4 layers, d_model 64, 4 heads, batches of 32 strings of
  42 tokens (size n = 21, decoder: 21 in, 21 out);
- ``charlm``: the ``alibi-table`` preset's model with RoPE: 4 layers, d_model 64, 4 heads, 32 windows of 64
  characters.

Every number comes from the lab's own loop (:func:`posenc.lab.train.train_run`), through its ``on_validate``
callback called every step: the time per step is the median over steps of the time between two calls (after
``--warmup`` steps); the FLOPs of one step are counted by :class:`torch.utils.flop_counter.FlopCounterMode` on the
lab's model (forward and backward); the profile (:mod:`torch.profiler`) covers ``--profile-steps`` steps of the
loop, after its warm-up, and is summarised by operation (self time).

``--compare-checks`` also times, in the same process and interleaved round by round, a step whose positions are
given (and so checked, every forward: ``check_positions`` reads their minimum) against one whose positions the
model builds (0..T-1, not checked), and prints the ratio of their medians.

    python benchmarks/bench_lab_step.py                         # both configs, one thread
    python benchmarks/bench_lab_step.py --config task --steps 60 --compare-checks --threads 1
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, schedule
from torch.utils.flop_counter import FlopCounterMode

from posenc.encodings.base import default_positions
from posenc.lab.tasks import IGNORE
from posenc.lab.train import RunConfig, build_model, train_run


def lab_config(name: str, steps: int) -> RunConfig:
    """The lab configuration ``name`` (module docstring), ``steps`` steps."""
    model = {"encoding": "rope", "n_layers": 4, "d_model": 64, "n_heads": 4, "batch_size": 32, "steps": steps,
             "warmup": 1, "lr_decay": "constant"}
    if name == "task":
        return RunConfig(task="copy", train_len=21, min_train_len=21, eval_lengths=[21], **model, eval_samples=1)
    return RunConfig(task="charlm", train_len=64, eval_lengths=[64], **model, eval_tokens=64)


def step_flops(config: RunConfig) -> int:
    """Floating-point operations of one training step (forward and backward; AdamW's are not counted)."""
    model = build_model(config, 0)
    ids, targets = config.lab_task.sampler(config)(torch.Generator().manual_seed(0))
    with FlopCounterMode(display=False) as counter:
        loss = F.cross_entropy(model(ids).flatten(0, 1), targets.flatten(), ignore_index=IGNORE)
        loss.backward()
    return counter.get_total_flops()


def step_times(config: RunConfig, warmup: int) -> list[float]:
    """Seconds of each step of the lab's loop after ``warmup`` steps."""
    marks: list[float] = []

    def mark(model, step):
        marks.append(time.perf_counter())
        return False

    train_run(config, 0, progress=False, device="cpu", on_validate=mark)
    return [b - a for a, b in zip(marks[warmup:], marks[warmup + 1:], strict=False)]


def profile_summary(config: RunConfig, warmup: int, active: int, rows: int) -> str:
    """A :mod:`torch.profiler` table of ``active`` steps of the lab's loop, by operation."""
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=0, warmup=warmup, active=active, repeat=1)) as prof:
        def advance(model, step):
            prof.step()
            return False

        train_run(RunConfig(**{**config.as_dict(), "steps": warmup + active + 1}), 0, progress=False, device="cpu",
                  on_validate=advance)
    return prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=rows, max_name_column_width=48)


def compare_checks(config: RunConfig, rounds: int, steps: int) -> tuple[float, float]:
    """Median seconds per training step with positions given (checked every forward) and built by the model (not
    checked), interleaved round by round in this process."""
    model = build_model(config, 0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)
    draw = config.lab_task.sampler(config)
    generator = torch.Generator().manual_seed(0)
    positions = default_positions(config.sequence_length(config.train_len))

    def run(given: bool) -> float:
        started = time.perf_counter()
        for _ in range(steps):
            ids, targets = draw(generator)
            logits = model(ids, positions) if given else model(ids)
            loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        return (time.perf_counter() - started) / steps

    run(True), run(False)  # warm-up
    checked, unchecked = [], []
    for index in range(rounds):
        first, second = (True, False) if index % 2 == 0 else (False, True)
        for given in (first, second):
            (checked if given else unchecked).append(run(given))
    return statistics.median(checked), statistics.median(unchecked)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", choices=["task", "charlm", "both"], default="both")
    parser.add_argument("--steps", type=int, default=40, help="steps timed per config (after --warmup)")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--profile-steps", type=int, default=10)
    parser.add_argument("--rows", type=int, default=12, help="operations in the profile summary")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--compare-checks", action="store_true")
    parser.add_argument("--rounds", type=int, default=7, help="rounds of --compare-checks")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {args.threads} thread(s), CPU")
    for name in (["task", "charlm"] if args.config == "both" else [args.config]):
        config = lab_config(name, args.warmup + args.steps + 1)
        times = step_times(config, args.warmup)
        flops = step_flops(config)
        median = statistics.median(times)
        tokens = config.batch_size * config.sequence_length(config.train_len)
        print(f"\n## {name}: {config.n_layers} layers, d_model {config.d_model}, {config.n_heads} heads, "
              f"{config.batch_size} x {config.sequence_length(config.train_len)} tokens, {config.encoding}")
        print(f"time per step: median {1e3 * median:.2f} ms (quartiles {1e3 * statistics.quantiles(times, n=4)[0]:.2f}"
              f" .. {1e3 * statistics.quantiles(times, n=4)[2]:.2f} ms over {len(times)} steps); "
              f"{tokens / median:,.0f} tokens/s")
        print(f"FLOPs per step (forward + backward): {flops / 1e9:.3f} GFLOP; {flops / median / 1e9:.2f} GFLOP/s")
        print(profile_summary(config, args.warmup, args.profile_steps, args.rows))
        if args.compare_checks:
            checked, unchecked = compare_checks(config, args.rounds, 10)
            print(f"positions checked every forward {1e3 * checked:.2f} ms/step, built by the model "
                  f"{1e3 * unchecked:.2f} ms/step: ratio checked / unchecked {checked / unchecked:.3f}")


if __name__ == "__main__":
    main()
