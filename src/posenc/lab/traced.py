"""Lab runs traced to a bar: a small model trained on a lab task, validated on a fixed set as it trains, with the
step its validation accuracy crosses a bar and the state of its embeddings at the start and at the bar.

One run (:func:`train_traced`): posenc's causal decoder (:class:`posenc.model.Transformer`, d_model :data:`D_MODEL`,
:data:`N_LAYERS` layers, :data:`N_HEADS` heads) with one of the encodings of :data:`ENCODINGS` (the sinusoid added at
width 32 and 64, concatenated at 16 + 16 and 32 + 32, a learned table, NoPE) on one of three tasks:

- ``copy``: the lab's copy task (:mod:`posenc.lab.string_tasks`), sizes 1..:data:`COPY_LEN`;
- ``local`` and ``back2``: the local-dependency tasks of :mod:`posenc.lab.local`, :data:`LOCAL_LEN` tokens.

It is a lab run (:func:`posenc.lab.train.train_run`, the config of :func:`run_config`: the lab's tasks, model,
batches, AdamW, linear warm-up held constant after, gradient clipping at 1) whose validation callback scores this
module's validation set (:func:`validation_set`, drawn apart from the training batches) every :data:`VAL_EVERY`
steps and stops when token accuracy reaches :data:`BAR` (or at its step cap); the crossing is interpolated between
validations (:func:`steps_to_bar`). A capability run (a task of :data:`CAPABILITY_TASKS` with an encoding of
:data:`CAPABILITY_LABELS`) trains a fixed :data:`CAPABILITY_STEPS` steps and is then scored at each of
:data:`CAPABILITY_LENGTHS`. The callback also takes the word rows (and a learned position table) at the start and at
the bar, for the statistics of :mod:`posenc.lab.embeddings`.

A seed fixes the model's initialisation, the training batches and the validation set, the same for every encoding
(paired comparisons). Statistics over runs ``{(task, label, seed): run}``: :func:`counted_steps` (steps to the bar,
a run that never reached it at its last step), :func:`paired_step_ratio` (the ratio of two encodings' steps, paired
by task and seed) and :func:`reached_share`.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from posenc.lab.embeddings import embedding_cosines, quarter_shares, sparse_dims_share
from posenc.lab.local import back2_batch, local_batch
from posenc.stats import SHARE, Estimate, observed, ratio_over_seeds

__all__ = ["D_MODEL", "N_LAYERS", "N_HEADS", "BATCH", "LR", "WARMUP", "VAL_EVERY", "BAR", "CAP", "NOPE_CAP",
           "COPY_LEN", "LOCAL_LEN", "VAL_PER_SIZE", "VALIDATION_SEED", "ENCODINGS", "CAPABILITY_TASKS",
           "CAPABILITY_LABELS", "CAPABILITY_STEPS", "CAPABILITY_LENGTHS", "local_task_batch", "validation_set",
           "steps_to_bar", "run_config", "learned_rows", "train_traced", "random_move", "counted_steps",
           "paired_step_ratio", "reached_share"]

D_MODEL, N_LAYERS, N_HEADS = 32, 2, 4
BATCH, LR, WARMUP = 32, 3e-3, 30
VAL_EVERY = 20  #: steps between validations
BAR = 0.95  #: in-distribution token accuracy the runs time (the lab's bar, :data:`posenc.lab.compare.LEARNED`)
CAP = 600  #: most steps of a run
NOPE_CAP = 300  #: most steps of the NoPE control (it only has to show that the local task needs positions)
COPY_LEN = 6  #: copy: sizes 1..6 (sequences of up to 12 tokens)
LOCAL_LEN = 12  #: local: sequences of 12 tokens
VAL_PER_SIZE = 32
VALIDATION_SEED = 10_000  #: validation sets are drawn from seeds offset by this, apart from the training batches

#: label -> (registry name, encoding options, d_model): concatenation gives the position its own channels, so the
#: blocks work at d_model + dim. "sinusoidal-concat" doubles the width (32 + 32 = 64, the document's setting, about
#: four times the blocks' parameters); "sinusoidal-concat-half" keeps the blocks at the added model's width
#: (16 + 16 = 32); "sinusoidal-wide" adds at width 64, the parameters of "sinusoidal-concat" but for a wider token
#: table
ENCODINGS = {"learned": ("learned", {}, D_MODEL), "sinusoidal": ("sinusoidal", {}, D_MODEL),
             "sinusoidal-concat": ("sinusoidal", {"combine": "concat", "dim": D_MODEL}, D_MODEL),
             "sinusoidal-concat-half": ("sinusoidal", {"combine": "concat", "dim": D_MODEL // 2}, D_MODEL // 2),
             "sinusoidal-wide": ("sinusoidal", {}, 2 * D_MODEL), "nope": ("nope", {}, D_MODEL),
}
#: the capability runs: the learned table and the sinusoid on the two local tasks train a fixed number of steps
#: (their crossing of the bar is read from the validation curve, and their embeddings are taken there), then token
#: accuracy at the trained length and past it. The learned table has rows for the longest length tested (the rows
#: past the trained length stay as initialised: what a learned table has)
CAPABILITY_TASKS = ("local", "back2")
CAPABILITY_LABELS = ("learned", "sinusoidal")
CAPABILITY_STEPS = 400
CAPABILITY_LENGTHS = (LOCAL_LEN, 2 * LOCAL_LEN)


def local_task_batch(task: str, batch: int, length: int, generator: torch.Generator
                     ) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch of one of the local-dependency tasks (``"local"``: :func:`local_batch`; ``"back2"``:
    :func:`back2_batch`)."""
    return (local_batch if task == "local" else back2_batch)(batch, length, generator)


def _copy_batch(batch: int, n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    from posenc.lab.string_tasks import format_batch, get_task

    return format_batch(*get_task("copy").sample(batch, n, generator), "decoder")  # [B, 2n] each


def validation_set(task: str, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The fixed in-distribution validation set of one seed: copy, 32 strings of every size 1..6, right-padded to
    12 tokens (a causal decoder's earlier outputs do not see the padding; padded targets are ignored); local and
    back2, 128 sequences."""
    from posenc.lab.string_tasks import IGNORE, PAD

    generator = torch.Generator().manual_seed(VALIDATION_SEED + seed)
    if task in CAPABILITY_TASKS:
        return local_task_batch(task, 4 * VAL_PER_SIZE, LOCAL_LEN, generator)
    ids, targets = [], []
    for n in range(1, COPY_LEN + 1):
        a, b = _copy_batch(VAL_PER_SIZE, n, generator)  # [32, 2n]
        pad = 2 * COPY_LEN - a.shape[1]
        ids.append(F.pad(a, (0, pad), value=PAD))
        targets.append(F.pad(b, (0, pad), value=IGNORE))
    return torch.cat(ids), torch.cat(targets)  # [192, 12]


def steps_to_bar(curve: list[list[float]], bar: float = BAR) -> float | None:
    """The step at which a validation curve ``[[step, accuracy], ...]`` (starting at step 0) first reaches ``bar``,
    interpolated linearly between the two validations around the crossing; ``None`` if it never does."""
    for (s0, a0), (s1, a1) in zip(curve, curve[1:], strict=False):
        if a1 >= bar > a0:
            return s0 + (bar - a0) / (a1 - a0) * (s1 - s0)
    if curve and curve[0][1] >= bar:
        return float(curve[0][0])
    return None


def _word_rows(task: str) -> list[int]:
    """The token ids a task's training uses (rows that training never touches would stay random)."""
    from posenc.lab.string_tasks import SEP, SYMBOL0

    return list(range(SYMBOL0, SYMBOL0 + 10)) + ([SEP] if task == "copy" else [])


def train_traced(task: str, label: str, seed: int, cap: int | None = None) -> dict[str, Any]:
    """Train one model until its validation token accuracy reaches :data:`BAR` (or ``cap`` steps); a capability run
    (a task of :data:`CAPABILITY_TASKS` with an encoding of :data:`CAPABILITY_LABELS`) trains
    :data:`CAPABILITY_STEPS` steps without stopping and then measures token accuracy at each of
    :data:`CAPABILITY_LENGTHS`. The embedding statistics' end point is the first validation at the bar (the last one
    when the run never reaches it).

    Returns ``{"curve": [[step, accuracy], ...] (from step 0), "steps_to_bar": float | None, "steps": int,
    "trace": [[step, raw |cos|, centred |cos|], ...] (learned tables only), "sparse_share": [start, end]
    (learned tables only, :func:`sparse_dims_share`), "enrichment": [[measured, null] at the start, at the end]
    (learned tables only: :func:`posenc.probe.geometry.orthogonality_against_chance`'s enrichment of the table in the
    word rows' principal subspace, and the same on random tables of the same shapes), "word_quarters": [[low, high]
    at the start, at the end]
    (:func:`quarter_shares`), "word_change": the used word rows' relative change ``|E_end - E_start| / |E_start|``,
    "accuracy": {str(length): accuracy} (capability runs), "params": int, "cpu_s": float}``.

    Runs on one torch thread (these models are tiny, and on a busy machine two threads fighting for cores are many
    times slower than one); the thread count is restored afterwards.
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _train(task, label, seed, cap)
    finally:
        torch.set_num_threads(threads)


def _accuracy(model: Any, ids: torch.Tensor, targets: torch.Tensor) -> float:
    from posenc.lab.local import token_accuracy

    return token_accuracy(model, ids, targets)


def run_config(task: str, label: str, cap: int | None = None) -> Any:
    """The lab config of one run (:class:`posenc.lab.train.RunConfig`): :data:`BATCH` strings a step, AdamW at
    :data:`LR` after :data:`WARMUP` steps of linear warm-up (all of a shorter run's ``cap``) and constant after,
    gradients clipped at 1; ``cap`` (default :data:`CAP`, :data:`NOPE_CAP` for NoPE, :data:`CAPABILITY_STEPS` for a
    capability run) steps at most. :func:`train_traced` validates every :data:`VAL_EVERY` steps through its callback.
    The lab's own test is left at its smallest (one string at the trained size): a traced run reads its own
    validation and capability sets."""
    from posenc.lab.train import ModelConfig, RunConfig

    name, options, d_model = ENCODINGS[label]
    fixed = task in CAPABILITY_TASKS and label in CAPABILITY_LABELS
    cap = cap or (CAPABILITY_STEPS if fixed else NOPE_CAP if label == "nope" else CAP)
    size = COPY_LEN if task == "copy" else LOCAL_LEN
    length = 2 * COPY_LEN if task == "copy" else LOCAL_LEN
    model = ModelConfig(encoding=name, encoding_options=dict(options), d_model=d_model, n_layers=N_LAYERS,
                        n_heads=N_HEADS)
    return RunConfig(task=task, model=model, label=label, train_len=size, min_train_len=1 if task == "copy" else size,
                     eval_lengths=[size], eval_samples=1, steps=cap, batch_size=BATCH, lr=LR, warmup=min(WARMUP, cap),
                     lr_decay="constant", grad_clip=1.0, max_len=max(CAPABILITY_LENGTHS) if fixed else length)


def learned_rows(model: Any, length: int) -> torch.Tensor | None:
    """The first ``length`` rows of the model's learned position table (a trained ``weight``), or ``None`` when its
    encoding has no table of its own (a sinusoid, RoPE, none)."""
    weight = getattr(model.input.encoding, "weight", None)
    return weight.detach()[:length] if isinstance(weight, torch.nn.Parameter) else None


def _train(task: str, label: str, seed: int, cap: int | None) -> dict[str, Any]:
    from posenc.lab.train import train_run

    config = run_config(task, label, cap)
    fixed = task in CAPABILITY_TASKS and label in CAPABILITY_LABELS
    length = config.sequence_length(config.train_len)
    val_ids, val_targets = validation_set(task, seed)
    rows = _word_rows(task)
    started = time.process_time()
    curve, trace, quarters, sparse, enrichment = [], [], [], [], []
    held: dict[str, Any] = {}

    def tables(model: Any) -> None:
        from posenc.probe.geometry import orthogonality_against_chance

        words = model.input.token_embedding.weight.detach()[rows]
        quarters.append(list(quarter_shares(words)))
        held["last_words"] = words.clone()
        table = learned_rows(model, length)
        if table is not None:
            sparse.append(sparse_dims_share(words, table))
            orth = orthogonality_against_chance(words.double().numpy(), table.double().numpy(), seed=seed)
            enrichment.append([orth["enrichment"].value, orth["null"]["enrichment"].value])

    def validate(model: Any, step: int) -> bool:
        """The lab's validation callback: the run's own set; stop at the bar (capability runs go on)."""
        if step == 0:
            held["model"], held["first_words"] = model, model.input.token_embedding.weight.detach()[rows].clone()
            tables(model)
        accuracy = _accuracy(model, val_ids, val_targets)
        curve.append([step, accuracy])
        table = learned_rows(model, length)
        if table is not None and len(quarters) == 1:  # the trace ends at the bar
            trace.append([step, *embedding_cosines(model.input.token_embedding.weight.detach()[rows], table)])
        if step and accuracy >= BAR and len(quarters) == 1:
            tables(model)  # the embeddings at the bar
            if not fixed:
                held["stopped_at"] = step
                return True
        return False

    result = train_run(config, seed, progress=False, device="cpu", on_validate=validate, validate_every=VAL_EVERY)
    model, first_words = held["model"], held["first_words"]
    step = held.get("stopped_at", config.steps)  # the steps trained
    if len(quarters) == 1:
        tables(model)  # never reached the bar: at the end
    out = {"curve": curve, "steps_to_bar": steps_to_bar(curve), "steps": step, "trace": trace,
           "word_quarters": quarters, "sparse_share": sparse, "enrichment": enrichment,
           "params": result.metrics["params"],
           "word_change": _moved(model.input.token_embedding.weight.detach()[rows], first_words),
           "word_quarters_null": list(quarter_shares(random_move(first_words, held["last_words"], seed)))}
    if fixed:
        test = torch.Generator().manual_seed(2 * VALIDATION_SEED + seed)
        out["accuracy"] = {str(n): _accuracy(model, *local_task_batch(task, 4 * VAL_PER_SIZE, n, test))
                           for n in CAPABILITY_LENGTHS}
    out["cpu_s"] = time.process_time() - started
    return out


def _moved(words: torch.Tensor, first: torch.Tensor) -> float:
    """How far word rows moved from where they started: ``|E - E_0| / |E_0|`` (Frobenius norms)."""
    return float((words - first).norm() / first.norm())


def random_move(first: torch.Tensor, last: torch.Tensor, seed: int) -> torch.Tensor:
    """The division's null: the rows ``first`` moved as far as training moved them (to ``last``), in a random
    direction, ``first + |last - first| g / |g|`` with ``g ~ N(0, I)`` of ``first``'s shape (drawn from its own
    generator, seeded by ``seed``, apart from training's). :func:`quarter_shares` of it against ``first``'s is what a
    move of that size gives with no preference for any dimension."""
    generator = torch.Generator().manual_seed(3 * VALIDATION_SEED + seed)
    first, last = first.double(), last.double()
    draw = torch.randn(first.shape, generator=generator, dtype=torch.float64)
    return first + draw / draw.norm() * (last - first).norm()


def counted_steps(run: dict[str, Any]) -> float:
    """Steps to the bar; a run that never reached it counts at its last step (a lower bound)."""
    return run["steps_to_bar"] if run["steps_to_bar"] is not None else float(run["steps"])


def paired_step_ratio(runs: dict, tasks: tuple[str, ...], numerator: str, denominator: str, seeds: int
                      ) -> tuple[Estimate, list[dict[str, Any]]]:
    """Steps to the bar (:func:`counted_steps`) with ``numerator`` / with ``denominator`` (run labels) over ``runs``
    ``{(task, label, seed): run}``, paired by task and seed: the geometric mean of the ratios with a Student-t interval
    on their logarithms (:func:`posenc.stats.ratio_over_seeds`), and one ``{"task", "seed", numerator, denominator}``
    per pair."""
    units = [(t, s) for t in tasks for s in range(seeds)]
    a = [counted_steps(runs[(t, numerator, s)]) for t, s in units]
    b = [counted_steps(runs[(t, denominator, s)]) for t, s in units]
    detail = [{"task": t, "seed": s, numerator: x, denominator: y} for (t, s), x, y in zip(units, a, b, strict=True)]
    return ratio_over_seeds(a, b), detail


def reached_share(runs: dict, tasks: tuple[str, ...], label: str, seeds: int) -> Estimate:
    """The share of ``label``'s runs that reached the bar, as observed (the requirement reads the runs in hand)."""
    hits = [runs[(t, label, s)]["steps_to_bar"] is not None for t in tasks for s in range(seeds)]
    return observed(float(np.mean(hits)), len(hits), SHARE)
