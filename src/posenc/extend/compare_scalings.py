"""Comparing RoPE scalings on a context-extension run's results (:func:`posenc.extend.run.run_extend`).

- :func:`window_ppl`: perplexity ``exp(mean window loss)`` over non-overlapping windows, with a percentile-bootstrap
  interval over windows (the windows are the independent units);
- :func:`paired_ppl_ratio`: the perplexity ratio of two scalings (or of a scaling and the native model) paired by
  window, ``exp(mean_w (nll[w] - reference[w]))``, with the Student-t interval of the mean log-ratio over windows;
- :func:`passkey_cells`, :func:`passkey_counts`: ``(correct, trials)`` for every passkey cell (scaling, length,
  depth), for a Wilson interval (:func:`posenc.stats.wilson`) and the heatmap.

``nll[w]`` is window ``w``'s mean token loss (``window_nll`` of a perplexity cell); every interval needs 3 windows
(:data:`posenc.stats.MIN_UNITS`): with fewer the numbers have no interval.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from posenc.errors import PosencError
from posenc.stats import Estimate, bootstrap, over_seeds

__all__ = ["PERPLEXITY", "window_ppl", "paired_ppl_ratio", "passkey_cells", "passkey_counts"]

#: what a perplexity can take: at least 1
PERPLEXITY = (1.0, float("inf"))


def window_ppl(window_nll: list[float] | np.ndarray) -> Estimate:
    """Perplexity ``exp(mean window loss)`` with a 95% percentile-bootstrap interval over windows (at least 1)."""
    return bootstrap(np.asarray(window_nll, dtype=np.float64), lambda x: float(np.exp(np.mean(x))), bounds=PERPLEXITY)


def paired_ppl_ratio(nll: list[float] | np.ndarray, reference: list[float] | np.ndarray) -> Estimate:
    """``exp(mean_w (nll[w] - reference[w]))``, the perplexity ratio paired by window, with the Student-t 95%
    interval of the mean log-ratio over windows (:func:`posenc.stats.over_seeds` on the log scale: a mean over
    independent units, above 0)."""
    a, b = np.asarray(nll, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise PosencError(f"paired windows must be two 1-D arrays of one length, got {a.shape} and {b.shape}")
    return over_seeds(np.exp(a - b), log=True)


def passkey_cells(passkey: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> dict[str, dict[tuple[int, float],
                                                                                            tuple[int, int]]]:
    """``{scaling: {(length, depth): (correct, trials)}}`` from run_extend's ``passkey`` table (or several merged):
    each cell's counts where the table has them (``by_depth_counts``), else its trials counted.

    >>> passkey_cells({"yarn": {"4096": {"trials": [{"depth": 0.5, "correct": True},
    ...                                             {"depth": 0.5, "correct": False}]}}})
    {'yarn': {(4096, 0.5): (1, 2)}}
    """
    out: dict[str, dict[tuple[int, float], tuple[int, int]]] = {}
    for scaling, by_length in passkey.items():
        cells = out.setdefault(scaling, {})
        for length, cell in by_length.items():
            if "by_depth_counts" in cell:
                for depth, c in cell["by_depth_counts"].items():
                    cells[(int(length), float(depth))] = (int(c["correct"]), int(c["n"]))
                continue
            for trial in cell.get("trials", []):
                k, n = cells.get((int(length), float(trial["depth"])), (0, 0))
                cells[(int(length), float(trial["depth"]))] = (k + bool(trial["correct"]), n + 1)
    return out


def passkey_counts(passkey: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> dict[tuple[str, int, float],
                                                                                     tuple[int, int]]:
    """``{(scaling, length, depth): (correct, trials)}`` for every passkey cell run (``passkey``: ``{scaling:
    {length: cell}}``, the ``"passkey"`` of :func:`~posenc.extend.run.run_extend`'s result)."""
    return {(s, n, d): kn for s, cells in passkey_cells(passkey).items() for (n, d), kn in cells.items()}
