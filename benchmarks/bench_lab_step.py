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

``--compare-checks``, ``--compare-precision``, ``--compare-compile`` and ``--compare-optimizer`` each time two ways
of taking the same step, in the same process, interleaved round by round, from the same initial model on the same
batches, and print the ratio of their medians (:func:`compare_steps`): positions given (checked every forward)
against built by the model; float32 against bfloat16 autocast (how ``RunConfig(dtype="bfloat16")`` trains); eager
against ``torch.compile``; AdamW's ``foreach`` path (the lab's) against its fused kernel.

``--ceiling`` asks how much faster any implementation of the report's own lab runs could take a step on this CPU:
for each configuration of the full report's sweeps (:func:`posenc.report.experiments.training.task_sweep` and
``lm_sweep``: copy, reverse and sort share one shape; addition; the char-LM; RoPE, trained every step) it counts the
FLOPs of a step (forward and backward, averaged over the task sizes a batch draws uniformly), measures the lab's
step, and measures this core's peak on one large float32 product (``torch.mm`` of two ``--peak-size`` squares,
before and after the steps). ``FLOPs / peak`` is the time of a step whose every operation ran at that peak with no
overhead, so ``measured / that`` is the most any speed-up of the same computation could reach here (an upper bound:
the step's small products, attention and element-wise operations run far below the peak, and AdamW's FLOPs are not
counted).

    python benchmarks/bench_lab_step.py                         # both configs, one thread
    python benchmarks/bench_lab_step.py --config task --steps 60 --compare-checks --threads 1
    python benchmarks/bench_lab_step.py --no-profile --compare-precision --compare-compile --rounds 9
    python benchmarks/bench_lab_step.py --ceiling --steps 200 --store REPORT/results.sqlite
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
from posenc.lab.string_tasks import IGNORE
from posenc.lab.train import RunConfig, build_model, train_run


def lab_config(name: str, steps: int) -> RunConfig:
    """The lab configuration ``name`` (module docstring), ``steps`` steps."""
    model = {"encoding": "rope", "n_layers": 4, "d_model": 64, "n_heads": 4, "batch_size": 32, "steps": steps,
             "warmup": 1, "lr_decay": "constant"}
    if name == "task":
        return RunConfig.from_dict({"task": "copy", "train_len": 21, "min_train_len": 21, "eval_lengths": [21],
                                    **model, "eval_samples": 1})
    return RunConfig.from_dict({"task": "charlm", "train_len": 64, "eval_lengths": [64], **model, "eval_tokens": 64})


def report_configs(steps: int) -> dict[str, RunConfig]:
    """The full report's lab configurations with RoPE, trained ``steps`` steps (no early stop, constant rate after
    one warm-up step; the evaluation cut to one length and a few samples: only the steps are timed). Copy, reverse
    and sort share one model and one sequence length per size, so copy stands for the three."""
    from posenc.report.experiments.training import lm_sweep, task_sweep

    common = {"encoding": "rope", "steps": steps, "warmup": 1, "lr_decay": "constant"}
    sweep = task_sweep(False, 1)
    configs = {}
    for variant in sweep["grid"]["variant"]:
        if variant["task"] in ("reverse", "sort"):
            continue
        settings = {**sweep["base"], **variant, **common, "val_every": 0, "eval_samples": 1}
        configs[variant["task"]] = RunConfig.from_dict({**{**settings, "eval_lengths": [settings["train_len"]]}})
    lm = {**lm_sweep(False, 1)["base"], **common}
    configs["charlm"] = RunConfig.from_dict({**{**lm, "eval_lengths": [lm["train_len"]],
                                                "eval_tokens": lm["train_len"]}})
    return configs


def mean_step_flops(config: RunConfig) -> float:
    """FLOPs of one training step averaged over the sizes a batch draws (uniformly, ``min_train_len..train_len``;
    the char-LM has one), each counted on the run's own model (:func:`step_flops`)."""
    if config.task == "charlm":
        return float(step_flops(config))
    width = config.sequence_length(config.train_len)  # the model's position range stays the run's
    sizes = range(config.min_train_len, config.train_len + 1)
    return statistics.fmean(step_flops(RunConfig.from_dict({**config.as_dict(), "min_train_len": n, "train_len": n,
                                                            "eval_lengths": [n], "max_len": width})) for n in sizes)


def peak_flops(sizes: list[int], repeats: int = 7) -> float:
    """This core's float32 FLOP/s on large products: for each of ``sizes``, ``torch.mm`` of two squares of that
    side, the median of ``repeats`` timings after one warm-up; the best of the sizes."""
    best = 0.0
    for size in sizes:
        a = torch.randn(size, size)
        b = torch.randn(size, size)
        torch.mm(a, b)
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            torch.mm(a, b)
            times.append(time.perf_counter() - started)
        best = max(best, 2 * size ** 3 / statistics.median(times))
    return best


def lab_seconds(path: str) -> dict[str, float]:
    """Seconds of the stored lab runs of a report's store, by configuration of :func:`report_configs` (copy,
    reverse and sort under ``copy``)."""
    from posenc.store import ResultStore

    seconds: dict[str, float] = {}
    for record in ResultStore(path).runs("lab"):
        task = record.config["task"]
        name = "copy" if task in ("copy", "reverse", "sort") else task
        seconds[name] = seconds.get(name, 0.0) + record.wall_s
    return seconds


def ceiling(steps: int, warmup: int, peak_sizes: list[int], store: str | None) -> None:
    """Print, per report configuration, FLOPs per step, the measured step, the step at this core's peak, and their
    ratio: the most a faster implementation of the same step could gain here. With ``store`` (a full report's
    results store), the lab's own time by configuration weighs these into one bound for the whole lab."""
    before = peak_flops(peak_sizes)
    rows = []
    for name, config in report_configs(warmup + steps + 1).items():
        flops = mean_step_flops(config)
        measured = statistics.median(step_times(config, warmup))
        rows.append((name, config, flops, measured))
    after = peak_flops(peak_sizes)
    peak = max(before, after)
    squares = ", ".join(str(size) for size in peak_sizes)
    print(f"peak of torch.mm on squares of side {squares} (float32, the best side): {before / 1e9:.1f} GFLOP/s "
          f"before the steps, {after / 1e9:.1f} after; the bound uses the larger")
    print("| config | model | GFLOP per step (mean over sizes) | measured ms per step | ms at peak | measured / at peak "
          "(the most a speed-up could reach) |")
    print("|---|---|---|---|---|---|")
    gains = {}
    for name, config, flops, measured in rows:
        bound = flops / peak
        gains[name] = measured / bound
        sizes = (f"sizes {config.min_train_len}..{config.train_len}" if config.task != "charlm"
                 else f"{config.train_len} characters")
        print(f"| {name} | {config.n_layers} layers, d_model {config.d_model}, {config.batch_size} x {sizes} | "
              f"{flops / 1e9:.4f} | {1e3 * measured:.2f} | {1e3 * bound:.2f} | {gains[name]:.1f} |")
    if store is not None:
        seconds = lab_seconds(store)
        unknown = sorted(set(seconds) - set(gains))
        if unknown:
            raise SystemExit(f"{store} holds lab runs of {', '.join(unknown)}, which are not the report's "
                             f"configurations ({', '.join(gains)}): give the store of a full report")
        total = sum(seconds.values())
        at_best = sum(seconds[name] / gains[name] for name in seconds)
        parts = ", ".join(f"{name} {seconds[name]:.0f} s" for name in seconds)
        print(f"\nthe lab of {store}: {total:.0f} s of runs ({parts}); each part at its bound: {at_best:.0f} s; "
              f"the most the whole lab could gain: {total / at_best:.2f}x")


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

        train_run(RunConfig.from_dict({**{**config.as_dict(), "steps": warmup + active + 1}}), 0, progress=False,
                  device="cpu", on_validate=advance)
    return prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=rows, max_name_column_width=48)


def compare_steps(config: RunConfig, variants: list[str], rounds: int, steps: int) -> dict[str, float]:
    """Median seconds per training step of each variant, interleaved round by round in this process (the order
    alternates), each variant with its own copy of one initial model and the same batches:

    - ``checked``: positions given, so checked every forward; ``unchecked``: built by the model (0..T-1);
    - ``float32``: the lab's default; ``bfloat16``: the forward under ``torch.autocast("cpu", torch.bfloat16)``, as
      ``RunConfig(dtype="bfloat16")`` trains (weights and AdamW state stay float32);
    - ``compiled``: the model through ``torch.compile`` (its compile time is in the warm-up, not in the medians);
    - ``fused``: AdamW's fused CPU kernel (``fused=True``) in place of the lab's ``foreach=True`` (``foreach``).
    """
    base = build_model(config, 0)
    positions = default_positions(config.sequence_length(config.train_len))
    draw = config.lab_task.sampler(config)
    runners = {}
    for name in variants:
        model = build_model(config, 0)
        model.load_state_dict(base.state_dict())
        forward = torch.compile(model) if name == "compiled" else model
        kind = {"fused": True} if name == "fused" else {"foreach": True}
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, **kind)
        generator = torch.Generator().manual_seed(0)

        def run(model=model, forward=forward, optimizer=optimizer, generator=generator, name=name) -> float:
            started = time.perf_counter()
            for _ in range(steps):
                ids, targets = draw(generator)
                with torch.autocast("cpu", dtype=torch.bfloat16, enabled=name == "bfloat16"):
                    logits = forward(ids, positions) if name == "checked" else forward(ids)
                    loss = F.cross_entropy(logits.float().flatten(0, 1), targets.flatten(), ignore_index=IGNORE)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
            return (time.perf_counter() - started) / steps

        runners[name] = run
    for run in runners.values():
        run()  # warm-up (and compilation)
    times: dict[str, list[float]] = {name: [] for name in variants}
    for index in range(rounds):
        order = variants if index % 2 == 0 else variants[::-1]
        for name in order:
            times[name].append(runners[name]())
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", choices=["task", "charlm", "both"], default="both")
    parser.add_argument("--steps", type=int, default=40, help="steps timed per config (after --warmup)")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--profile-steps", type=int, default=10)
    parser.add_argument("--rows", type=int, default=12, help="operations in the profile summary")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--compare-checks", action="store_true", help="checked positions against the model's own")
    parser.add_argument("--compare-precision", action="store_true", help="float32 against bfloat16 autocast")
    parser.add_argument("--compare-compile", action="store_true", help="eager against torch.compile")
    parser.add_argument("--compare-optimizer", action="store_true", help="AdamW foreach (the lab's) against fused")
    parser.add_argument("--rounds", type=int, default=7, help="rounds of each comparison")
    parser.add_argument("--no-profile", action="store_true", help="skip the time, FLOPs and profile of a step")
    parser.add_argument("--ceiling", action="store_true",
                        help="the report's lab configurations: measured step against the step at this core's peak")
    parser.add_argument("--peak-sizes", type=int, nargs="+", default=[512, 1024, 2048],
                        help="sides of the squares whose product gives the peak (the best counts)")
    parser.add_argument("--store", help="with --ceiling: a full report's results store, to weigh the bound by the "
                        "lab's own time")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {args.threads} thread(s), CPU")
    if args.ceiling:
        ceiling(args.steps, args.warmup, args.peak_sizes, args.store)
        return
    for name in (["task", "charlm"] if args.config == "both" else [args.config]):
        config = lab_config(name, args.warmup + args.steps + 1)
        tokens = config.batch_size * config.sequence_length(config.train_len)
        print(f"\n## {name}: {config.n_layers} layers, d_model {config.d_model}, {config.n_heads} heads, "
              f"{config.batch_size} x {config.sequence_length(config.train_len)} tokens, {config.encoding}")
        if not args.no_profile:
            times = step_times(config, args.warmup)
            flops = step_flops(config)
            median = statistics.median(times)
            quartiles = statistics.quantiles(times, n=4)
            print(f"time per step: median {1e3 * median:.2f} ms (quartiles {1e3 * quartiles[0]:.2f} .. "
                  f"{1e3 * quartiles[2]:.2f} ms over {len(times)} steps); {tokens / median:,.0f} tokens/s")
            print(f"FLOPs per step (forward + backward): {flops / 1e9:.3f} GFLOP; {flops / median / 1e9:.2f} GFLOP/s")
            print(profile_summary(config, args.warmup, args.profile_steps, args.rows))
        for wanted, pair in ((args.compare_checks, ["checked", "unchecked"]),
                             (args.compare_precision, ["float32", "bfloat16"]),
                             (args.compare_compile, ["eager", "compiled"]),
                             (args.compare_optimizer, ["foreach", "fused"])):
            if wanted:
                try:
                    medians = compare_steps(config, pair, args.rounds, 10)
                except RuntimeError as e:  # torch.compile can fail inside PyTorch; say so and go on
                    print(f"{' against '.join(pair)}: failed with {type(e).__name__}: {str(e).splitlines()[0]}")
                    continue
                a, b = pair
                print(f"{a} {1e3 * medians[a]:.2f} ms/step, {b} {1e3 * medians[b]:.2f} ms/step (medians of "
                      f"{args.rounds} rounds of 10 steps, interleaved): ratio {a} / {b} {medians[a] / medians[b]:.3f}")

if __name__ == "__main__":
    main()
