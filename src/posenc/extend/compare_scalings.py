"""Comparing RoPE scalings on a context-extension run's results (:func:`posenc.extend.run.run_extend`).

- :func:`window_ppl`: perplexity ``exp(mean window loss)`` over non-overlapping windows, with a percentile-bootstrap
  interval over windows (the windows are the independent units);
- :func:`paired_ppl_ratio`: the perplexity ratio of two scalings (or of a scaling and the native model) paired by
  window, ``exp(mean_w (nll[w] - reference[w]))``, with the Student-t interval of the mean log-ratio over windows;
- :func:`passkey_counts`: ``(correct, trials)`` for every passkey cell (scaling, length, depth), for a Wilson
  interval (:func:`posenc.stats.wilson`).

``nll[w]`` is window ``w``'s mean token loss (``window_nll`` of a perplexity cell); every interval needs 3 windows
(:data:`posenc.stats.MIN_UNITS`): with fewer the numbers have no interval.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from posenc.errors import PosencError
from posenc.stats import Estimate, bootstrap, over_seeds

__all__ = ["PERPLEXITY", "window_ppl", "paired_ppl_ratio", "passkey_counts"]

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


def passkey_counts(passkey: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> dict[tuple[str, int, float],
                                                                                     tuple[int, int]]:
    """``{(scaling, length, depth): (correct, trials)}`` for every passkey cell run (``passkey``: ``{scaling:
    {length: cell}}``, the ``"passkey"`` of :func:`~posenc.extend.run.run_extend`'s result)."""
    from posenc.plots.extend import passkey_cells  # counts each cell's trials (data; the heatmap reads the same)

    return {(s, n, d): kn for s, cells in passkey_cells(passkey).items() for (n, d), kn in cells.items()}
