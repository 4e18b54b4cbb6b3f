"""Is position decodable from a position embedding? (Wang & Chen 2020, "What Do Position Embeddings Learn? An
Empirical Study of Pre-Trained Language Model Positional Encoding", EMNLP, §3.)

- Absolute position: linear regression from the embedding ``p_t [d]`` to ``t``, 5-fold cross-validation; the error is
  the mean absolute error of the rounded prediction (the paper: 0.0 for the sinusoid, about 166 for random vectors
  over 512 positions, which is chance).
- Relative order: logistic regression on the concatenation ``[p_i; p_j]`` predicting whether ``i < j``, 5-fold
  cross-validation over sampled pairs; the error rate in percent (the paper: about 5% for the sinusoid). Also with
  folds over positions (``relative_error_pct_unseen_positions``): held-out pairs use only held-out positions.

Both errors are reported as measured; ``absolute_mae_clipped`` also clips predictions to ``[0, P-1]`` (an unclipped
linear fit on random vectors extrapolates far outside the table, so its raw error exceeds chance), and
``absolute_mae_by_range`` splits the error by position range (a model trained on short inputs leaves its late rows
nearly untrained).

Controls: the sinusoid of the same shape (Vaswani et al. 2017) and Gaussian random vectors (chance).
Shapes: ``table [P, d]``.

By block of dimensions (tutorial 002: trained models may keep position in low dimensions and meaning in high ones):
:func:`block_position_decoding` reads position from one block of the input ``words[w] + positions[t]`` (sampled
word/position pairs) with the same held-out linear regression, keeping each pair's squared error so that an interval
can be drawn over the pairs; :func:`position_variance_share` gives, per dimension, the share of the input's variance
that comes from position rather than from the word.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from posenc.encodings.sinusoidal import sinusoidal_table
from posenc.errors import PosencError

__all__ = ["absolute_predictions", "absolute_error", "relative_error", "decodability", "dimension_blocks",
           "block_position_decoding", "position_variance_share"]


def _kfold(n: int, folds: int, rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(train, test)`` index pairs of ``folds``-fold cross-validation over ``n`` items shuffled by ``rng``
    (scikit-learn's ``KFold`` over the shuffled order: ``folds`` test blocks of sizes differing by at most one)."""
    from sklearn.model_selection import KFold

    order = rng.permutation(n)
    return [(np.sort(order[train]), order[test]) for train, test in KFold(folds).split(order)]


def absolute_predictions(table: np.ndarray, folds: int = 5, seed: int = 0) -> np.ndarray:
    """Held-out ``round(linear_regression(p_t))`` for every position ``t`` (each from the fold that left it out)."""
    from sklearn.linear_model import LinearRegression

    x = np.asarray(table, dtype=np.float64)
    y = np.arange(x.shape[0], dtype=np.float64)
    predicted = np.empty_like(y)
    for train, test in _kfold(len(y), folds, np.random.default_rng(seed)):
        predicted[test] = np.rint(LinearRegression().fit(x[train], y[train]).predict(x[test]))
    return predicted


def _regression_predictions(x: np.ndarray, y: np.ndarray, folds: int, seed: int) -> np.ndarray:
    """Held-out linear-regression predictions of ``y`` from ``x [N, k]`` (unrounded; each from the fold that left it
    out)."""
    from sklearn.linear_model import LinearRegression

    predicted = np.empty_like(y)
    for train, test in _kfold(len(y), folds, np.random.default_rng(seed)):
        predicted[test] = LinearRegression().fit(x[train], y[train]).predict(x[test])
    return predicted


def dimension_blocks(dim: int, count: int = 4) -> list[tuple[int, int]]:
    """``count`` contiguous blocks ``(start, stop)`` of ``dim`` dimensions, lowest first (quarters by default)."""
    if count < 1 or dim < count:
        raise PosencError(f"cannot split {dim} dimensions into {count} blocks")
    edges = np.linspace(0, dim, count + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def block_position_decoding(words: np.ndarray, positions: np.ndarray, blocks: list[tuple[int, int]],
                            n_samples: int = 4096, folds: int = 5, seed: int = 0) -> dict[str, Any]:
    """How well position ``t`` is read from each block of dimensions of ``words[w] + positions[t]``.

    ``n_samples`` pairs are drawn (word row and position each uniform, seeded); for each block a linear regression
    from the pair's input restricted to the block to ``t`` is fitted with ``folds``-fold cross-validation. Returns
    ``t [N]``, ``squared_error [N, B]`` (each pair's held-out squared error per block, so that an R^2 and its
    interval can be drawn over pairs), ``r2 [B]`` (held-out R^2 on the sums) and ``table_r2 [B]`` (the same
    regression on the position table alone, every position once). ``words [V, d]`` (the rows to sample),
    ``positions [P, d]``.
    """
    with threadpool_limits(limits=1, user_api="blas"):
        w = np.asarray(words, dtype=np.float64)
        p = np.asarray(positions, dtype=np.float64)
        if w.shape[1] != p.shape[1]:
            raise PosencError(f"word rows have {w.shape[1]} dimensions, position rows {p.shape[1]}")
        if p.shape[0] < 20:
            raise PosencError(f"the position table has {p.shape[0]} rows; decoding positions needs at least 20")
        rng = np.random.default_rng(seed)
        word_ids = rng.integers(0, w.shape[0], n_samples)
        t = rng.integers(0, p.shape[0], n_samples)
        x = w[word_ids] + p[t]  # [N, d]
        y = t.astype(np.float64)
        table_y = np.arange(p.shape[0], dtype=np.float64)
        errors, r2, table_r2 = [], [], []
        for a, b in blocks:
            e = (_regression_predictions(x[:, a:b], y, folds, seed) - y) ** 2
            errors.append(e)
            r2.append(1.0 - e.sum() / ((y - y.mean()) ** 2).sum())
            te = (_regression_predictions(p[:, a:b], table_y, folds, seed) - table_y) ** 2
            table_r2.append(1.0 - te.sum() / ((table_y - table_y.mean()) ** 2).sum())
    return {"t": y, "squared_error": np.stack(errors, axis=1), "r2": np.array(r2), "table_r2": np.array(table_r2),
            "blocks": list(blocks), "n_samples": n_samples, "folds": folds}


def position_variance_share(words: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Per dimension ``k``: ``var_t(positions[:, k]) / (var_t(positions[:, k]) + var_w(words[:, k]))``, the share of
    the variance of ``words[w] + positions[t]`` (word and position drawn independently) that comes from position.
    Returns ``[d]``."""
    pv, wv = np.asarray(positions, np.float64).var(0), np.asarray(words, np.float64).var(0)
    return pv / (pv + wv)


def absolute_error(table: np.ndarray, folds: int = 5, seed: int = 0, clip: bool = False) -> float:
    """Mean absolute error of the rounded held-out prediction against ``t``; ``clip`` first clips the prediction to
    the table's range ``[0, P-1]`` (a prediction outside the table names no position)."""
    predicted = absolute_predictions(table, folds, seed)
    if clip:
        predicted = np.clip(predicted, 0, len(predicted) - 1)
    return float(np.abs(predicted - np.arange(len(predicted))).mean())


def relative_error(table: np.ndarray, n_pairs: int = 2000, folds: int = 5, seed: int = 0,
                   unseen_positions: bool = False) -> float:
    """Error rate (%) of logistic regression on ``[p_i; p_j]`` predicting ``i < j``, over held-out folds.

    ``unseen_positions=False`` (the paper's setting) folds the pairs: a test pair's positions also occur in training
    pairs, so a decoder can learn one score per position, which any ``P`` vectors in ``d >= P``-ish dimensions allow,
    random ones included. ``True`` folds the positions: training pairs use only training positions and test pairs
    only held-out ones, so only an order that generalises across positions scores.
    """
    from sklearn.linear_model import LogisticRegression

    x = np.asarray(table, dtype=np.float64)
    rng = np.random.default_rng(seed)
    x = (x - x.mean(0)) / (x.std(0) + 1e-12)  # logistic regression is not scale invariant: standardise each channel

    def pairs(pool: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        i, j = rng.choice(pool, size=4 * count), rng.choice(pool, size=4 * count)
        keep = np.nonzero(i != j)[0][:count]
        return i[keep], j[keep]

    def fit_and_count(train: tuple[np.ndarray, np.ndarray], test: tuple[np.ndarray, np.ndarray]) -> tuple[int, int]:
        model = LogisticRegression(max_iter=1000)
        model.fit(np.concatenate([x[train[0]], x[train[1]]], axis=1), train[0] < train[1])  # [N, 2d]
        predicted = model.predict(np.concatenate([x[test[0]], x[test[1]]], axis=1))
        return int((predicted != (test[0] < test[1])).sum()), len(test[0])

    wrong = total = 0
    if unseen_positions:
        for kept, held in _kfold(x.shape[0], folds, rng):
            w, n = fit_and_count(pairs(kept, n_pairs * (folds - 1) // folds), pairs(held, n_pairs // folds))
            wrong, total = wrong + w, total + n
    else:
        i, j = pairs(np.arange(x.shape[0]), n_pairs)
        for train, test in _kfold(len(i), folds, rng):
            w, n = fit_and_count((i[train], j[train]), (i[test], j[test]))
            wrong, total = wrong + w, total + n
    return 100.0 * wrong / total


def decodability(table: torch.Tensor | np.ndarray, n_pairs: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Absolute MAE and relative error (%) for the model's table, the sinusoid and random vectors of its shape."""
    with threadpool_limits(limits=1, user_api="blas"):  # small matrices: more BLAS threads only contend
        return _decodability(table, n_pairs, seed)


def _decodability(table: torch.Tensor | np.ndarray, n_pairs: int, seed: int) -> dict[str, Any]:
    x = np.asarray(table.detach().double().numpy() if isinstance(table, torch.Tensor) else table, dtype=np.float64)
    n, d = x.shape
    if n < 20:
        raise PosencError(f"the position table has {n} rows; decoding positions needs at least 20")
    controls = {"model": x,
                "sinusoid": sinusoidal_table(torch.arange(n), d + d % 2).numpy()[:, :d].astype(np.float64),
                "random": np.random.default_rng(seed).standard_normal((n, d))}
    out: dict[str, Any] = {"n_positions": n, "dim": d, "folds": 5, "n_pairs": n_pairs,
                           "chance_absolute_mae": float(np.mean(np.abs(np.arange(n)[:, None] - np.arange(n)[None])))}
    t = np.arange(n)
    ranges = [(lo, min(2 * lo if lo else 128, n)) for lo in (0, 128, 256, 512, 1024, 2048) if lo < n]
    for name, values in controls.items():
        predicted = absolute_predictions(values, seed=seed)
        error, clipped = np.abs(predicted - t), np.abs(np.clip(predicted, 0, n - 1) - t)
        out[name] = {"absolute_mae": float(error.mean()), "absolute_mae_clipped": float(clipped.mean()),
                     "absolute_mae_by_range": {f"{lo}-{hi - 1}": float(error[lo:hi].mean()) for lo, hi in ranges},
                     "relative_error_pct": relative_error(values, n_pairs=n_pairs, seed=seed),
                     "relative_error_pct_unseen_positions": relative_error(values, n_pairs=n_pairs, seed=seed,
                                                                           unseen_positions=True)}
    return out
