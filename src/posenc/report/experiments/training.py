"""Experiments that train small models (:mod:`posenc.lab`): train short, test long.

Two sweeps, shared by several claims and cached in the report's store by the lab itself (kind ``lab``):

- tasks: synthetic tasks (copy, reverse, ...) x encodings, a causal decoder trained on sizes ``1..L`` and tested at
  ``L/2, L, 2L`` (Kazemnejad et al. 2023 train up to 20 and test up to 40);
- char-LM: a character-level Shakespeare language model trained at context ``L`` and scored at ``L..8L``
  (the shape of the ALiBi paper's table, Press et al. 2022).

Quick mode trains for a few hundred steps only: the numbers show the direction, not converged models.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from posenc.errors import PosencError
from posenc.report.experiments.base import Context, Measurement, Row, experiment

TASK_ENCODINGS = ["nope", "t5", "alibi", "rope", "sinusoidal", "learned"]
LM_ENCODINGS = ["sinusoidal", "rope", "alibi"]


def task_sweep(quick: bool) -> dict[str, Any]:
    """The lab sweep (a dict for :func:`posenc.lab.run_sweep`) over tasks x encodings."""
    if quick:
        base = {"d_model": 32, "n_layers": 2, "n_heads": 4, "train_len": 6, "eval_lengths": [3, 6, 12],
                "steps": 400, "batch_size": 32, "lr": 3e-3, "warmup": 30, "eval_samples": 64}
        tasks = ["copy", "reverse"]
    else:
        base = {"d_model": 64, "n_layers": 2, "n_heads": 4, "train_len": 10, "eval_lengths": [5, 10, 20],
                "steps": 1500, "batch_size": 32, "lr": 1e-3, "warmup": 100, "eval_samples": 256}
        tasks = ["copy", "reverse", "sort", "addition", "parity", "duplicate"]
    return {"name": "report-tasks" + ("-quick" if quick else ""), "base": base,
            "grid": {"task": tasks, "encoding": TASK_ENCODINGS}, "seeds": [0]}


def lm_sweep(quick: bool) -> dict[str, Any]:
    """The char-LM sweep: perplexity by evaluation length for a few encodings."""
    if quick:
        base = {"task": "charlm", "d_model": 32, "n_layers": 2, "n_heads": 4, "train_len": 32, "steps": 150,
                "batch_size": 16, "lr": 3e-3, "warmup": 15, "eval_tokens": 2048, "protocols": ["nonoverlap"]}
    else:
        base = {"task": "charlm", "d_model": 64, "n_layers": 2, "n_heads": 4, "train_len": 128, "steps": 1500,
                "batch_size": 32, "lr": 1e-3, "warmup": 100, "eval_tokens": 16384, "protocols": ["nonoverlap"]}
    encodings = LM_ENCODINGS if quick else LM_ENCODINGS + ["t5", "nope"]
    return {"name": "report-charlm" + ("-quick" if quick else ""), "base": base, "grid": {"encoding": encodings},
            "seeds": [0]}


def _workers(quick: bool) -> int:
    """Lab processes for the report: one per usable core in full mode; one (this process) in quick mode, whose runs
    last seconds, about as long as starting a worker process."""
    if quick:
        return 1
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _run(sweep: dict[str, Any], ctx: Context) -> list[Any]:
    """Run (or read from the store) every run of ``sweep``.

    Each run uses one torch thread: these models are tiny, and on a busy machine two OpenMP threads fighting for
    cores are many times slower than one. Full mode runs one process per core (:func:`_workers`). The process's
    thread count is restored afterwards.
    """
    import torch

    from posenc.lab.sweep import run_sweep

    store = ctx.store_path
    if store is None:  # the report runs without a store: keep the lab's runs for this call only
        store = Path(tempfile.mkdtemp(prefix="posenc-lab-")) / "lab.sqlite"
    threads = torch.get_num_threads()
    try:
        results = run_sweep(sweep, store, executor="local", workers=_workers(ctx.quick), progress=ctx.progress,
                            threads=1)
    finally:
        torch.set_num_threads(threads)
    errors = [r for r in results if r.status != "done"]
    if len(errors) == len(results):
        raise PosencError(f"every lab run of sweep {sweep['name']} failed; first error: "
                          f"{(errors[0].error or '').splitlines()[0]}")
    return [r for r in results if r.status == "done"]


def _accuracy(entry: Any) -> float:
    """Token accuracy of one evaluation; a model that cannot run the length scores 0."""
    return float(entry["token_accuracy"]) if isinstance(entry, dict) else 0.0


def task_table(ctx: Context) -> tuple[dict[str, dict[str, dict[int, float]]], int, dict[str, Any]]:
    """``acc[task][encoding][length]`` (token accuracy), the trained length L, and the sweep."""
    sweep = task_sweep(ctx.quick)
    acc: dict[str, dict[str, dict[int, float]]] = {}
    for result in _run(sweep, ctx):
        c = result.config
        acc.setdefault(c["task"], {})[c["label"]] = {int(n): _accuracy(e)
                                                     for n, e in result.metrics["by_length"].items()}
    return acc, sweep["base"]["train_len"], sweep


def _setup(sweep: dict[str, Any]) -> str:
    b = sweep["base"]
    tasks = sweep["grid"].get("task")
    return (f"posenc.lab, causal decoder d_model={b['d_model']}, {b['n_layers']} layers, {b['steps']} steps"
            + (f", tasks {', '.join(tasks)}, trained on sizes 1..{b['train_len']}, tested at {b['eval_lengths']}, "
               f"{b['eval_samples']} strings per size; metric: token accuracy" if tasks else
               f", Shakespeare characters, context {b['train_len']}, {b['eval_tokens']} characters scored per length"))


def _by_length_figure(acc: dict[str, dict[str, dict[int, float]]], train_len: int, title: str,
                      encodings: list[str]) -> Figure:
    fig = Figure(figsize=(7.5, 3.2), layout="constrained")
    ax = fig.subplots()
    for enc in encodings:
        lengths = sorted({n for t in acc.values() for n in t.get(enc, {})})
        values = [sum(acc[t][enc][n] for t in acc if enc in acc[t]) / max(1, sum(enc in acc[t] for t in acc))
                  for n in lengths]
        ax.plot(lengths, values, marker="o", label=enc)
    ax.axvline(train_len, color="k", lw=0.8, ls="--")
    ax.text(train_len, 1.02, " trained up to here", fontsize=7, va="bottom")
    ax.set(xlabel="task size n", ylabel="token accuracy (mean over tasks)", title=title, ylim=(0, 1.08))
    ax.legend(fontsize=7, ncol=3)
    return fig


@experiment("lab_learned_vs_fixed")
def lab_learned_vs_fixed(ctx: Context) -> Measurement:
    """Seed 003 §14.8.3: a learned table vs the sinusoid, in distribution (sizes up to the trained length)."""
    acc, L, sweep = task_table(ctx)
    per_task = {}
    for task, by_enc in acc.items():
        if "learned" in by_enc and "sinusoidal" in by_enc:
            per_task[task] = {enc: sum(v for n, v in by_enc[enc].items() if n <= L) /
                              max(1, sum(n <= L for n in by_enc[enc])) for enc in ("learned", "sinusoidal")}
    rows = [Row(f"{t}: learned, token accuracy at sizes <= {L}", r["learned"], r["sinusoidal"], "sinusoid")
            for t, r in per_task.items()]
    fig = Figure(figsize=(6, 3), layout="constrained")
    ax = fig.subplots()
    names = list(per_task)
    x = range(len(names))
    ax.bar([i - 0.2 for i in x], [per_task[t]["learned"] for t in names], width=0.4, label="learned")
    ax.bar([i + 0.2 for i in x], [per_task[t]["sinusoidal"] for t in names], width=0.4, label="sinusoidal")
    ax.set_xticks(list(x), names)
    ax.set(ylabel="token accuracy", title="in distribution: learned vs fixed", ylim=(0, 1.05))
    ax.legend(fontsize=7)
    return Measurement({"per_task": per_task, "train_len": L}, rows, fig, _setup(sweep))


@experiment("lab_rope_extrapolation")
def lab_rope_extrapolation(ctx: Context) -> Measurement:
    """Seed 003 §14.6.3: RoPE trained on sizes up to L, tested at 2L."""
    acc, L, sweep = task_table(ctx)

    def mean(enc: str, keep) -> float | None:
        values = [v for t in acc.values() if enc in t for n, v in t[enc].items() if keep(n)]
        return sum(values) / len(values) if values else None

    longest = max(n for t in acc.values() for e in t.values() for n in e)
    numbers = {"metric": "token accuracy", "rope_train": mean("rope", lambda n: n <= L),
               "rope_long": mean("rope", lambda n: n > L), "long_factor": longest / L,
               "learned_long": mean("learned", lambda n: n > L), "train_len": L,
               "others_long": {e: mean(e, lambda n: n > L) for e in TASK_ENCODINGS if e != "rope"}}
    if numbers["rope_train"] is None or numbers["rope_long"] is None:
        raise PosencError("the lab sweep returned no RoPE runs at the trained and longer lengths")
    rows = [Row(f"RoPE token accuracy, sizes <= {L}", numbers["rope_train"], None, ""),
            Row(f"RoPE token accuracy, sizes > {L} (up to {longest})", numbers["rope_long"],
                numbers["rope_train"], "RoPE at trained sizes")]
    rows += [Row(f"{e} token accuracy, sizes > {L}", v, numbers["rope_long"], "RoPE")
             for e, v in numbers["others_long"].items() if v is not None]
    fig = _by_length_figure(acc, L, "train short, test long", TASK_ENCODINGS)
    return Measurement(numbers, rows, fig, _setup(sweep))


@experiment("lab_nope_ranking")
def lab_nope_ranking(ctx: Context) -> Measurement:
    """Kazemnejad et al. 2023: rank encodings per task by accuracy past the trained length; mean reciprocal rank."""
    acc, L, sweep = task_table(ctx)
    ranked = [e for e in TASK_ENCODINGS if e != "learned"]  # the paper's five

    def mean_over(by_length: dict[int, float], keep) -> float:
        values = [v for n, v in by_length.items() if keep(n)]
        return sum(values) / len(values) if values else 0.0

    long_acc = {t: {e: mean_over(by_enc[e], lambda n: n > L) for e in ranked if e in by_enc}
                for t, by_enc in acc.items()}
    in_dist = {t: {e: mean_over(by_enc[e], lambda n: n <= L) for e in ranked if e in by_enc}
               for t, by_enc in acc.items()}
    from posenc.report.ledger import NOPE_PAPER_MRR, mean_reciprocal_rank

    mrr = mean_reciprocal_rank(long_acc)
    rows = [Row(f"{e}: mean reciprocal rank (all tasks)", v, NOPE_PAPER_MRR.get(e), "Kazemnejad et al. 2023")
            for e, v in sorted(mrr.items(), key=lambda kv: -kv[1])]
    rows += [Row(f"{t}: best token accuracy at sizes <= {L}", max(scores.values()), None, "did the task train?")
             for t, scores in in_dist.items()]
    fig = _by_length_figure(acc, L, "length generalisation by encoding", ranked)
    return Measurement({"long_accuracy": long_acc, "in_distribution": in_dist, "train_len": L}, rows, fig,
                       _setup(sweep) + "; ranked by token accuracy at sizes > L")


@experiment("lab_alibi_shape")
def lab_alibi_shape(ctx: Context) -> Measurement:
    """Press et al. 2022: perplexity at evaluation lengths past the training context, per encoding."""
    sweep = lm_sweep(ctx.quick)
    L = sweep["base"]["train_len"]
    ppl: dict[str, dict[int, float]] = {}
    for result in _run(sweep, ctx):
        table = result.metrics["by_length"]["nonoverlap"]
        ppl[result.config["label"]] = {int(n): float(e["ppl"]) for n, e in table.items() if isinstance(e, dict)}
    growth = {e: v[max(v)] / v[L] for e, v in ppl.items() if L in v and len(v) > 1}
    longest = max(max(v) for v in ppl.values())
    rows = [Row(f"{e}: perplexity at {max(v)} / at {L}", growth[e], {"sinusoidal": 17.0, "rope": 3.03,
                                                                     "alibi": 0.93}.get(e),
                "ALiBi paper, 10512 / 512") for e, v in ppl.items() if e in growth]
    rows += [Row(f"{e}: perplexity at {L}", v[L], None, "") for e, v in ppl.items() if L in v]
    fig = Figure(figsize=(6.5, 3.2), layout="constrained")
    ax = fig.subplots()
    for e, v in ppl.items():
        lengths = sorted(v)
        ax.plot(lengths, [v[n] for n in lengths], marker="o", label=e)
    ax.axvline(L, color="k", lw=0.8, ls="--")
    ax.set(xscale="log", yscale="log", xlabel="evaluation context (characters)", ylabel="perplexity",
           title=f"char-LM trained at context {L}")
    ax.set_xticks(sorted({n for v in ppl.values() for n in v}), [str(n) for n in sorted({n for v in ppl.values()
                                                                                           for n in v})])
    ax.legend(fontsize=7)
    return Measurement({"ppl": {e: {str(n): p for n, p in v.items()} for e, v in ppl.items()}, "ppl_growth": growth,
                        "train_len": L, "longest": longest}, rows, fig, _setup(sweep))
