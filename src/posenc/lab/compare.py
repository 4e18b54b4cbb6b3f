"""Comparing encodings over a lab sweep's runs (:func:`posenc.lab.sweep.run_sweep` results), per seed.

Task sweeps (the synthetic tasks of :mod:`posenc.lab.string_tasks`), sizes counted in multiples of each task's trained
size L so that tasks trained at different L line up:

- :func:`accuracy_table`: ``table[metric][task][encoding][size / L] -> [value per seed]``; :func:`per_seed`: per seed,
  the mean over some of those sizes;
- :func:`in_distribution` and :func:`learned`: did each model learn its task where it was trained (token accuracy at
  sizes <= L, mean over seeds, at least :data:`LEARNED`)? :func:`has_room`: does a baseline leave room to be beaten by
  more than a tie (:data:`TIE`)?
- :func:`by_size_curves`: accuracy by size per encoding, the mean over tasks per seed, then over seeds;
- :func:`win_share`: the share of tasks on which one encoding beats another in distribution by more than a tie;
- :func:`ranking_rho` and :func:`ranking_estimates`: the Spearman correlation of the encodings' mean reciprocal ranks
  past L with those of Kazemnejad et al. 2023 (:data:`NOPE_PAPER_MRR`), with a two-way bootstrap over tasks and seeds
  and a label-permutation null.

Char-LM sweeps (:mod:`posenc.lab.charlm`): :func:`lm_perplexities` (perplexity by evaluation length per seed, the
non-overlapping protocol), :func:`perplexity_bands` (mean and interval over seeds) and :func:`log_ppl_margins` (per
seed, one encoding's log-perplexity minus the lowest of others').

Every interval over seeds is a Student-t 95% interval (:func:`posenc.stats.over_seeds`), clipped to what the number
can take (accuracies in [0, 1], their differences in [-1, 1], perplexities at or above 1); it needs 3 seeds
(:data:`posenc.stats.MIN_UNITS`): with fewer the numbers have no intervals.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from posenc.errors import PosencError
from posenc.stats import (
    CORRELATION,
    MIN_UNITS,
    POSITIVE,
    SHARE,
    Estimate,
    bootstrap_weights,
    mean_reciprocal_rank,
    observed,
    over_seeds,
)

__all__ = ["LEARNED", "TIE", "ROOM", "METRICS", "ROUND_OFF", "Table", "learned", "accuracy_table", "per_seed",
           "in_distribution", "by_size_curves", "has_room", "win_share", "NOPE_PAPER_MRR", "PERMUTATIONS", "FAILED",
           "ranking_rho", "ranking_estimates", "PERPLEXITY", "lm_perplexities", "perplexity_bands", "log_ppl_margins",
           "margins_past"]

#: a model "learned" a task when its in-distribution token accuracy (sizes <= L), mean over seeds, reaches this;
#: below it an extrapolation number says nothing (the model never solved the task where it was trained)
LEARNED = 0.95
#: two accuracies closer than this are a tie (one point of accuracy)
TIE = 0.01
#: a task leaves room for a win by more than a tie when the accuracy to beat stays below this
ROOM = 1 - TIE
#: what a task run's table holds (:func:`accuracy_table`)
METRICS = ("token_accuracy", "exact_match")
#: round-off forgiven where a mean over seeds meets a bar: three seeds at 0.95 average to 0.9499999999999998
ROUND_OFF = 1e-12


def learned(accuracy: Estimate) -> bool:
    """Whether an in-distribution accuracy (a mean over seeds) reaches :data:`LEARNED`, round-off forgiven."""
    return accuracy.value >= LEARNED - ROUND_OFF


#: ``table[metric][task][encoding][size / L] -> [value per seed]``
Table = dict[str, dict[str, dict[str, dict[float, list[float]]]]]


def _value(entry: Any, metric: str) -> float:
    """One evaluation's metric; a model that cannot run the length scores 0."""
    return float(entry[metric]) if isinstance(entry, dict) else 0.0


def accuracy_table(results: list[Any]) -> Table:
    """``table[metric][task][encoding][size / L] -> [value per seed, in seed order]`` of task runs."""
    table: Table = {m: {} for m in METRICS}
    for result in sorted(results, key=lambda r: r.seed):
        c = result.config
        for metric in METRICS:
            by_length = table[metric].setdefault(c["task"], {}).setdefault(c["label"], {})
            for n, entry in result.metrics["by_length"].items():
                by_length.setdefault(int(n) / c["train_len"], []).append(_value(entry, metric))
    return table


def per_seed(by_length: dict[float, list[float]], keep) -> list[float]:
    """Per seed: the mean over the kept lengths."""
    lengths = [n for n in sorted(by_length) if keep(n)]
    if not lengths:
        return []
    seeds = min(len(by_length[n]) for n in lengths)
    return [sum(by_length[n][s] for n in lengths) / len(lengths) for s in range(seeds)]


def in_distribution(table: Table, L: float, metric: str = "token_accuracy") -> dict[str, dict[str, Estimate]]:
    """``{task: {encoding: accuracy at sizes <= L, over seeds}}``: did each model learn each task?"""
    return {t: {e: over_seeds(per_seed(v, lambda n: n <= L), bounds=SHARE) for e, v in by_enc.items()}
            for t, by_enc in table[metric].items()}


def by_size_curves(table: Table, encodings: list[str], metric: str = "token_accuracy"
                   ) -> dict[str, dict[float, tuple[float, float, float]]]:
    """``{encoding: {size / L: (mean, low, high)}}``: per seed the mean over the tasks that ran the size, then the
    mean and 95% t-interval over seeds (an encoding with no runs is left out; fewer than 3 seeds: infinite ends, which
    the figures draw as no band)."""
    acc = table[metric]
    curves: dict[str, dict[float, tuple[float, float, float]]] = {}
    for enc in encodings:
        lengths = sorted({n for t in acc.values() for n in t.get(enc, {})})
        if not lengths:
            continue
        curves[enc] = {}
        for n in lengths:
            per_seed = [sum(vals) / len(vals) for vals in
                        zip(*(acc[t][enc][n] for t in acc if enc in acc[t] and n in acc[t][enc]), strict=False)]
            e = over_seeds(per_seed, bounds=SHARE)
            curves[enc][n] = (e.value, e.low, e.high)
    return curves


def _share_bounds(wins: int, ties_or_losses: int, total: int, seeds: int) -> Estimate:
    """The share of tasks won, as the interval between counting every undecided task as lost and as won; no
    interval when the per-task differences rest on too few seeds to have intervals of their own."""
    value_low = wins / total
    value_high = (total - ties_or_losses) / total
    value = (value_low + value_high) / 2
    if seeds < MIN_UNITS:
        return Estimate(value, -math.inf, math.inf, seeds, "bounds", SHARE)
    return Estimate(value, value_low, value_high, total, "bounds", SHARE)


def has_room(baseline: Estimate) -> bool:
    """Whether a baseline's in-distribution accuracy leaves room to be beaten by more than :data:`TIE` (the ceiling
    rule): its mean over seeds lies below ``1 - TIE``. At or above it, "the other wins by more than a tie" cannot
    happen on that metric, so the task cannot tell the cases apart."""
    return baseline.value < 1.0 - TIE - ROUND_OFF


def win_share(acc: dict[str, dict[str, dict[float, list[float]]]], tasks: list[str], challenger: str, baseline: str,
              L: float, shift: int = 0) -> tuple[Estimate, dict[str, Estimate], int, int]:
    """The share of ``tasks`` on which ``challenger`` beats ``baseline`` in distribution by more than :data:`TIE`:
    per task the difference of token accuracy at sizes <= L, paired by seed, with a t-interval; a task is won when
    the whole interval is above +TIE, not won when it is wholly at or below +TIE; the share is the interval between
    counting the undecided tasks as lost and as won (:func:`_share_bounds`). Returns (share, per-task difference,
    wins, not-wins).

    ``shift``: pair the challenger's seed ``s`` with the baseline's seed ``s + shift`` (mod the seeds): with the
    baseline as its own challenger and ``shift=1``, the null: an encoding against itself across seeds.
    """
    diffs: dict[str, Estimate] = {}
    for task in tasks:
        a = per_seed(acc[task][challenger], lambda n: n <= L)
        b = per_seed(acc[task][baseline], lambda n: n <= L)
        seeds = min(len(a), len(b))
        diffs[task] = over_seeds([a[s] - b[(s + shift) % seeds] for s in range(seeds)], bounds=(-1.0, 1.0))
    wins = sum(d.low > TIE + ROUND_OFF for d in diffs.values())  # a lead of exactly TIE is a tie
    not_wins = sum(d.high <= TIE + ROUND_OFF for d in diffs.values())
    seeds = min((d.n for d in diffs.values()), default=0)
    share = (_share_bounds(wins, not_wins, len(tasks), seeds) if tasks else observed(float("nan"), seeds, SHARE))
    return share, diffs, wins, not_wins


#: Kazemnejad et al. 2023, mean reciprocal rank over tasks (FACTS.md §4)
NOPE_PAPER_MRR = {"nope": 0.69, "t5": 0.55, "alibi": 0.50, "rope": 0.33, "sinusoidal": 0.22}
#: label permutations for the ranking's null
PERMUTATIONS = 2000
#: an encoding that did not learn a task in distribution scores this there: below every accuracy, so it ranks last
FAILED = -1.0


def _min_ranks(x: np.ndarray) -> np.ndarray:
    """``x [..., n]`` -> ranks ``[..., n]``, highest first, ties sharing the better rank (1 + how many are higher):
    ``scipy.stats.rankdata(-x, method="min")`` along the last axis, for many rows at once."""
    return 1 + (x[..., None, :] > x[..., :, None]).sum(axis=-1)


def _mean_ranks(x: np.ndarray) -> np.ndarray:
    """``x [..., n]`` -> ascending ranks ``[..., n]``, ties sharing their mean rank (``rankdata``'s default)."""
    less = (x[..., None, :] < x[..., :, None]).sum(axis=-1)
    equal = (x[..., None, :] == x[..., :, None]).sum(axis=-1)
    return 1 + less + (equal - 1) / 2


def ranking_rho(scores: np.ndarray, task_weights: np.ndarray | None = None) -> np.ndarray:
    """``scores [..., tasks, encodings]`` (encodings in :data:`NOPE_PAPER_MRR`'s order; one that failed a task scores
    :data:`FAILED` there): the Spearman correlation of each encoding's mean reciprocal rank over tasks (ties share
    the better rank, as :func:`~posenc.stats.mean_reciprocal_rank`; tasks weighted by ``task_weights [..., tasks]``,
    default equal) with the paper's, ``[...]``; NaN where every encoding has the same mean reciprocal rank."""
    scores = np.asarray(scores, dtype=np.float64)
    if task_weights is None:
        task_weights = np.full(scores.shape[:-1], 1.0 / scores.shape[-2])
    mrr = np.einsum("...t,...te->...e", task_weights, 1.0 / _min_ranks(scores))  # [..., encodings]
    a = _mean_ranks(np.round(mrr, 12))  # equal sums of reciprocal ranks tie whatever order they were added in
    b = _mean_ranks(np.array(list(NOPE_PAPER_MRR.values())))
    a = a - a.mean(axis=-1, keepdims=True)
    b = b - b.mean()
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a @ b) / np.sqrt((a * a).sum(axis=-1) * (b @ b))


def ranking_estimates(table: Table, L: float, metric: str, ind: dict[str, dict[str, Estimate]]
                      ) -> tuple[dict[str, Estimate], dict[str, Any]]:
    """The ranking of Kazemnejad et al. 2023 on ``table`` (``ind``: :func:`in_distribution` of the same ``metric``).
    Every one of the paper's five encodings (:data:`NOPE_PAPER_MRR`) ranks on every task that at least one of them
    learned in distribution; one that did not learn it ranks last there (:data:`FAILED`). Per task the encodings are
    ranked by accuracy past L (mean over seeds); the Spearman correlation of their mean reciprocal ranks with the
    paper's (:func:`ranking_rho`), with an interval from a bootstrap that resamples tasks and seeds apart (two-way,
    :func:`~posenc.stats.bootstrap_weights`): no interval with fewer than 3 of either.

    The null, computed by the same function on the same scores: the encodings' labels permuted within each task
    (:data:`PERMUTATIONS` draws, seeded), its value the median and its interval the central 95% of the draws: what
    rank correlation an order unrelated to the encodings gives.
    """
    ranked = list(NOPE_PAPER_MRR)
    acc = table[metric]
    tasks = [t for t in acc if all(e in acc[t] for e in ranked) and any(learned(ind[t][e]) for e in ranked)]
    seeds = min((len(x) for by in acc.values() for lengths in by.values() for x in lengths.values()), default=0)
    if not tasks:
        return ({"ranked_tasks": observed(0, seeds, POSITIVE), "tasks_with_room": observed(0, seeds, POSITIVE),
                 "rank_correlation": observed(math.nan, seeds, CORRELATION),
                 "rank_correlation_null": observed(math.nan, seeds, CORRELATION)}, {"tasks": []})
    past = {t: {e: per_seed(acc[t][e], lambda n: n > L) for e in ranked} for t in tasks}
    seeds = min(len(past[t][e]) for t in tasks for e in ranked)
    failed = np.array([[not learned(ind[t][e]) for e in ranked] for t in tasks])  # [tasks, encodings]
    by_seed = np.array([[[past[t][e][s] for e in ranked] for t in tasks] for s in range(seeds)])  # [S, T, E]

    def scores_for(seed_weights: np.ndarray) -> np.ndarray:  # seed_weights [..., S] -> scores [..., T, E]
        return np.where(failed, FAILED, np.einsum("...s,ste->...te", seed_weights, by_seed))

    def statistic(task_w: np.ndarray, seed_w: np.ndarray) -> np.ndarray:  # [r, T], [r, S] -> [r]
        return ranking_rho(scores_for(seed_w), task_w)

    (estimate,) = bootstrap_weights((len(tasks), seeds), statistic, bounds=CORRELATION)
    mean_scores = scores_for(np.full(seeds, 1.0 / seeds))  # [T, E]
    rng = np.random.default_rng(0)
    order = np.array([[rng.permutation(len(ranked)) for _ in tasks] for _ in range(PERMUTATIONS)])  # [P, T, E]
    draws = ranking_rho(np.take_along_axis(np.broadcast_to(mean_scores, order.shape), order, axis=-1))
    draws = draws[~np.isnan(draws)]
    low, mid, high = np.quantile(draws, [0.025, 0.5, 0.975])
    null = Estimate(float(mid), float(low), float(high), len(tasks), "permutation", CORRELATION)
    mrr = mean_reciprocal_rank({t: {e: float(v) for e, v in zip(ranked, row, strict=True)}
                                for t, row in zip(tasks, mean_scores, strict=True)})
    # the ceiling rule: a task whose five encodings all sit within the tie of the ceiling past L orders nothing
    room = [t for t, row in zip(tasks, mean_scores, strict=True) if (row < 1.0 - TIE - ROUND_OFF).any()]
    return ({"ranked_tasks": observed(len(tasks), seeds, POSITIVE), "tasks_with_room": observed(len(room), seeds, POSITIVE),
             "rank_correlation": estimate, "rank_correlation_null": null},
            {"tasks": tasks, "failed": {t: [e for e, f in zip(ranked, row, strict=True) if f]
                                        for t, row in zip(tasks, failed, strict=True)}, "mrr": mrr})


#: what a perplexity can take: at least 1
PERPLEXITY = (1.0, math.inf)


def lm_perplexities(results: list[Any]) -> dict[str, dict[int, list[float]]]:
    """``{encoding label: {evaluation length: [perplexity per seed, in seed order]}}`` of char-LM runs, from the
    non-overlapping protocol; a length a model cannot run is left out."""
    ppl: dict[str, dict[int, list[float]]] = {}
    for result in sorted(results, key=lambda r: r.seed):
        for n, e in result.metrics["by_length"]["nonoverlap"].items():
            if isinstance(e, dict):
                ppl.setdefault(result.config["label"], {}).setdefault(int(n), []).append(float(e["ppl"]))
    return ppl


def perplexity_bands(ppl: dict[str, dict[int, list[float]]]) -> dict[str, dict[int, tuple[float, float, float]]]:
    """``{encoding: {length: (mean, low, high)}}`` over seeds (perplexities, at least 1: :data:`PERPLEXITY`), for
    :func:`~posenc.plots.lab.perplexity_by_length_figure`."""
    bands = {e: {n: over_seeds(v[n], bounds=PERPLEXITY) for n in sorted(v)} for e, v in ppl.items()}
    return {e: {n: (x.value, x.low, x.high) for n, x in by.items()} for e, by in bands.items()}


def log_ppl_margins(ppl: dict[str, dict[int, list[float]]], n: int, encoding: str, others: list[str]) -> list[float]:
    """Per seed: ``log ppl(encoding, n) - min over others of log ppl(other, n)`` (< 0: ``encoding`` is lower than
    every other); seeds paired by position in the lists."""
    seeds = min(len(ppl[e][n]) for e in [encoding, *others])
    return [math.log(ppl[encoding][n][s]) - min(math.log(ppl[o][n][s]) for o in others) for s in range(seeds)]


def margins_past(ppl: dict[str, dict[int, list[float]]], train_len: int,
                 margins: dict[str, tuple[str, list[str]]]) -> tuple[dict[str, dict[str, Estimate]], dict[str, Any]]:
    """A char-LM comparison past the trained length: each named margin ``name: (encoding, others)``
    (:func:`log_ppl_margins`, mean and t-interval over seeds) at every length RoPE was evaluated at past
    ``train_len``, keyed by that length in multiples of it (``"2L"``, ``"4L"``, ...; the longest last); and the numbers
    a report keeps: the perplexities (lengths as strings), ``train_len`` and the longest length. Refuses runs missing
    at ``train_len`` (every seed of an encoding failed), naming them.

    >>> ppl = {"rope": {8: [4.0, 4.0, 4.0], 16: [8.0, 8.0, 8.0]}, "fire": {8: [4.0, 4.0, 4.0], 16: [4.0, 4.0, 4.0]}}
    >>> variants, numbers = margins_past(ppl, 8, {"fire_minus_rope": ("fire", ["rope"])})
    >>> round(variants["2L"]["fire_minus_rope"].value, 4), numbers["longest"]  # log(4 / 8)
    (-0.6931, 16)
    """
    missing = [e for e in dict.fromkeys(e for encoding, others in margins.values() for e in [encoding, *others])
               if train_len not in ppl.get(e, {})]
    if missing:
        raise PosencError(f"the char-LM runs of {', '.join(missing)} are missing; every run failed")
    lengths = sorted(n for n in ppl["rope"] if n > train_len)
    variants = {f"{n // train_len}L": {name: over_seeds(log_ppl_margins(ppl, n, encoding, others))
                                       for name, (encoding, others) in margins.items()} for n in lengths}
    numbers = {"ppl": {e: {str(n): p for n, p in v.items()} for e, v in ppl.items()}, "train_len": train_len,
               "longest": max(lengths)}
    return variants, numbers
