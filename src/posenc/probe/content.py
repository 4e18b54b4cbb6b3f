"""Does a head's attention depend on the words, or on the positions alone? The same windows with their words
swapped for another window's, at the same positions: a head that attends by position alone puts its attention in
the same places; the change is the total-variation distance between the two attention distributions of each
query, ``0.5 x sum_k |a[q, k] - a'[q, k]|`` (0: the same distribution, 1: disjoint), averaged over the queries.

:func:`content_estimates` summarises the change over the positional heads found (and over every other head, the
positive control) with bootstrap intervals over windows; :func:`content_statistics` does so for a
:func:`posenc.probe.heads.head_pass` run with swapped windows.

Shapes: attention ``[B, H, T, T]``; distances ``[W, L, H]`` (windows, layers, heads).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from posenc.errors import PosencError
from posenc.stats import Estimate, bootstrap, exact

__all__ = ["swap_words", "total_variation", "content_change", "content_estimates", "content_statistics"]


def swap_words(windows: Sequence[Sequence[int]], prefix: int, suffix: int) -> list[list[int]]:
    """Each window with the tokens between its first ``prefix`` and last ``suffix`` (the special tokens) taken from
    the next window (the last from the first): the same length and positions, other words."""
    if len(windows) < 2:
        raise PosencError("swap_words needs at least two windows to swap words between")
    lengths = {len(w) for w in windows}
    if len(lengths) != 1:
        raise PosencError(f"swap_words needs windows of one length, got lengths {sorted(lengths)}")
    out = []
    for i, window in enumerate(windows):
        other = windows[(i + 1) % len(windows)]
        end = len(window) - suffix
        out.append(list(window[:prefix]) + list(other[prefix:end]) + list(window[end:]))
    return out


def total_variation(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Mean over queries of ``0.5 x sum_k |a - b|`` for attention ``[..., T, T]`` -> ``[...]`` (float64)."""
    return 0.5 * (a.double() - b.double()).abs().sum(-1).mean(-1)


def content_change(model: Any, windows: Sequence[Sequence[int]], swapped: Sequence[Sequence[int]],
                   on_original: Callable[[int, torch.Tensor], None] | None = None) -> np.ndarray:
    """``[W, L, H]``: each head's :func:`total_variation` between its attention on window ``w`` and on
    ``swapped[w]``, for a model whose attention :func:`posenc.probe.capture.capture` reads.

    ``on_original(layer, weights [1, H, T, T])``, if given, sees every layer's attention on the original windows
    (not on the swapped ones), in window order: a head probe fed from the same forward passes
    (:meth:`posenc.probe.heads.HeadAccumulator.add`) needs no pass of its own."""
    from posenc.probe.capture import capture

    if len(windows) != len(swapped):
        raise PosencError(f"content_change pairs windows: got {len(windows)} and {len(swapped)}")
    if on_original is not None and not callable(on_original):
        raise PosencError(f"on_original must be a function (layer, weights) -> None, got {type(on_original).__name__}")
    current: dict[int, torch.Tensor] = {}
    original = [True]  # whether the forward running now reads an original window

    def on_attention(layer: int, weights: torch.Tensor) -> None:
        current[layer] = weights[0]  # [H, T, T]
        if on_original is not None and original[0]:
            on_original(layer, weights)

    out = []
    with torch.no_grad(), capture(model, on_attention):
        for ids, other in zip(windows, swapped, strict=True):
            original[0] = True
            batch = torch.tensor([ids])
            model(input_ids=batch, attention_mask=torch.ones_like(batch))
            first = dict(current)
            original[0] = False
            batch = torch.tensor([other])
            model(input_ids=batch, attention_mask=torch.ones_like(batch))
            out.append(torch.stack([total_variation(first[layer], current[layer]) for layer in sorted(first)]))
    return torch.stack(out).numpy()  # [W, L, H]


def content_estimates(change: np.ndarray, positional: list[tuple[int, int, int]]
                      ) -> tuple[dict[str, Estimate], dict[str, Any]]:
    """The statistics of each head's attention change under the word swap ``change [W, L, H]``
    (:func:`content_change`) for the positional heads ``(layer, head, offset)`` found
    (:func:`posenc.probe.heads.positional_heads`), for any model: ``positional_heads_found`` (exact), ``content_change``
    (the positional heads' mean change per window, bootstrap over windows; NaN when none was found) and
    ``other_heads_content_change`` (the same over every other head: the positive control); and the numbers shown
    (each positional head's mean change, the other heads' mean)."""
    change = np.asarray(change, dtype=float)
    if change.ndim != 3:
        raise PosencError(f"content_estimates needs the change per window, layer and head [W, L, H], got shape "
                          f"{list(change.shape)}")
    found = [(layer, head) for layer, head, _ in positional]
    mask = np.zeros(change.shape[1:], dtype=bool)
    for layer, head in found:
        mask[layer, head] = True
    numbers = {"positional_heads": [list(x) for x in positional], "positional_heads_found": len(found),
               "windows": int(change.shape[0]),
               "per_head": {f"L{l}H{h}": float(change[:, l, h].mean()) for l, h in found},
               "other_heads_mean": float(change[:, ~mask].mean())}
    estimates = {"positional_heads_found": exact(len(found)),
                 # the positive control: the same measure on the heads that are not positional
                 "other_heads_content_change": bootstrap(change[:, ~mask].mean(axis=1))}
    if found:
        estimates["content_change"] = bootstrap(change[:, mask].mean(axis=1))
    else:
        estimates["content_change"] = exact(float("nan"))
    return estimates, numbers


def content_statistics(pass_: dict[str, Any], judgement: Any) -> tuple[dict[str, Estimate], dict[str, Any]]:
    """:func:`content_estimates` of a :func:`posenc.probe.heads.head_pass` run with swapped windows (its
    ``change``), for the positional heads ``judgement`` (a :class:`posenc.probe.heads.HeadJudgement`) found."""
    if "change" not in pass_:
        raise PosencError("content_statistics needs a head_pass run with swapped windows (its 'change')")
    return content_estimates(pass_["change"], judgement.positional)
