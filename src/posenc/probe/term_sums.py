"""The four-term split's sums over one window, computed from the projected parts without forming the ``[H, T, T]``
terms (what the report reads of a window: :meth:`~posenc.probe.decompose.FourTermSplit.sums`,
:meth:`~posenc.probe.decompose.FourTermSplit.flatness_sums`, :meth:`~posenc.probe.decompose.FourTermSplit.dimension_sums`).

Every part of the split is a product ``X = s A B^T`` of a query part ``A [T, Dh]`` and a key part ``B [T, Dh]`` (per
head; the remainder is one product too, ``[q_w + q_p, q_r] [k_r, k_w + k_p + k_r]^T`` with the two factors side by
side). With ``Ā``, ``B̄`` the means over positions, ``A_c = A - Ā``, ``B_c = B - B̄`` and ``<M, N> = sum(M * N)``:

    within each query (centred over keys j):    sum_ij (X_ij - mean_j X_ij)^2 = s^2 <A^T A, B_c^T B_c>
    within each key (centred over queries i):   sum_ij (X_ij - mean_i X_ij)^2 = s^2 <A_c^T A_c, B^T B>
    whole (centred over all entries):           sum_ij (X_ij - mean X)^2
                                                = s^2 (<A_c^T A_c, B_c^T B_c> + T |A_c B̄|^2 + T |B_c Ā|^2)

(the last because ``X - mean X = s (A_c B_c^T + A_c B̄ 1^T + 1 Ā^T B_c^T)`` and the three parts are orthogonal). Each
costs ``T Dh^2`` products instead of the ``T^2 Dh`` of the terms themselves: at 512 tokens and ``Dh = 32``, a
sixteenth. The sums equal the terms' own to float64 round-off (``tests/probe/test_term_sums.py``).

Shapes: ``[H, T, Dh]`` parts; the sums as :class:`~posenc.probe.decompose.FourTermSplit` gives them. Over many
windows, :func:`window_sums` stacks each window's sums (``[W, ...]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from posenc.probe.decompose import FOUR, TERMS, ProjectedParts, projected_parts

__all__ = ["TermSums", "four_term_sums", "sums_from_parts", "window_sums"]


@dataclass
class TermSums:
    """One window's sums of the four-term split.

    Attributes:
        sums: ``[H, 6]`` within-query sums of squares of the five parts and of the logits (columns ``TERMS`` then
            ``total``), as :meth:`~posenc.probe.decompose.FourTermSplit.sums`.
        flatness_sums: ``[H, 4]`` wp along key positions, wp whole, pw along query positions, pw whole, as
            :meth:`~posenc.probe.decompose.FourTermSplit.flatness_sums`.
        dimension_sums: ``[H, Dh, 4]`` as :meth:`~posenc.probe.decompose.FourTermSplit.dimension_sums`.
        relative_error: ``||sum of the parts - the model's logits||_F / ||the model's logits||_F``.
    """

    sums: np.ndarray
    flatness_sums: np.ndarray
    dimension_sums: np.ndarray
    relative_error: float


def _gram(x: torch.Tensor) -> torch.Tensor:
    return x.transpose(-1, -2) @ x  # [H, Dh, Dh]


def _centred(x: torch.Tensor) -> torch.Tensor:
    return x - x.mean(-2, keepdim=True)  # over positions: [H, T, Dh]


def _inner(m: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    return (m * n).sum(dim=(-1, -2))  # [H]


def _within_query(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``sum_ij (X_ij - mean_j X_ij)^2`` of ``X = A B^T`` per head (scale left out)."""
    return _inner(_gram(a), _gram(_centred(b)))


def _within_key(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``sum_ij (X_ij - mean_i X_ij)^2`` of ``X = A B^T`` per head."""
    return _inner(_gram(_centred(a)), _gram(b))


def _whole(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``sum_ij (X_ij - mean X)^2`` of ``X = A B^T`` per head."""
    ac, bc = _centred(a), _centred(b)
    t = a.shape[-2]
    a_mean, b_mean = a.mean(-2), b.mean(-2)  # [H, Dh]
    along_b = (ac @ b_mean.unsqueeze(-1)).squeeze(-1)  # [H, T]: A_c B̄
    along_a = (bc @ a_mean.unsqueeze(-1)).squeeze(-1)  # [H, T]: B_c Ā
    return _inner(_gram(ac), _gram(bc)) + t * along_b.pow(2).sum(-1) + t * along_a.pow(2).sum(-1)


def sums_from_parts(parts: ProjectedParts) -> TermSums:
    """The sums of one window's split from its projected parts (the module docstring's identities)."""
    q, k, s2 = parts.q, parts.k, parts.scale ** 2
    factors = {"ww": (q["w"], k["w"]), "wp": (q["w"], k["p"]), "pw": (q["p"], k["w"]), "pp": (q["p"], k["p"]),
               "rest": (torch.cat([q["w"] + q["p"], q["r"]], dim=-1),
                        torch.cat([k["r"], k["w"] + k["p"] + k["r"]], dim=-1))}
    columns = [_within_query(*factors[t]) for t in TERMS] + [_within_query(parts.q_model, parts.k_model)]
    sums = torch.stack(columns, dim=1) * s2  # [H, 6]
    flat = torch.stack([_within_query(*factors["wp"]), _whole(*factors["wp"]),
                        _within_key(*factors["pw"]), _whole(*factors["pw"])], dim=1) * s2  # [H, 4]
    # the same expression as FourTermSplit.dimension_sums (already T Dh per term)
    rows = {a: q[a].pow(2).sum(1) for a in ("w", "p")}  # [H, Dh]
    cols = {b: (k[b] - k[b].mean(1, keepdim=True)).pow(2).sum(1) for b in ("w", "p")}
    dims = torch.stack([rows[t[0]] * cols[t[1]] for t in FOUR], dim=-1).numpy() * parts.scale ** 2
    # the split adds up: every part together is one product, (q_w + q_p + q_r)(k_w + k_p + k_r)^T
    total = (q["w"] + q["p"] + q["r"]) @ (k["w"] + k["p"] + k["r"]).transpose(-1, -2) * parts.scale  # [H, T, T]
    reference = parts.q_model @ parts.k_model.transpose(-1, -2) * parts.scale
    error = float(torch.linalg.norm(total - reference) / torch.linalg.norm(reference))
    return TermSums(sums.numpy(), flat.numpy(), dims, error)


def four_term_sums(model: Any, input_ids: torch.Tensor) -> TermSums:
    """Run ``model`` on one sequence ``input_ids [T]`` and return the sums of its four-term split
    (:func:`~posenc.probe.decompose.projected_parts`, then :func:`sums_from_parts`), without the ``[H, T, T]``
    terms :func:`~posenc.probe.decompose.four_term_split` keeps."""
    return sums_from_parts(projected_parts(model, input_ids))


def window_sums(model: Any, windows: Sequence[Sequence[int]]) -> dict[str, Any]:
    """:func:`four_term_sums` of every window of token ids, stacked over windows: ``sums [W, H, 6]``,
    ``flat_sums [W, H, 4]``, ``dim_sums [W, H, Dh, 4]`` (what :func:`posenc.probe.decompose.split_statistics`
    reads, with the entries per window) and ``split_error``, the largest relative error of the split."""
    sums, flat, dims, errors = [], [], [], []
    for ids in windows:
        split = four_term_sums(model, torch.tensor(ids))
        sums.append(split.sums)
        flat.append(split.flatness_sums)
        dims.append(split.dimension_sums)
        errors.append(split.relative_error)
    return {"sums": np.stack(sums), "flat_sums": np.stack(flat), "dim_sums": np.stack(dims),
            "split_error": float(max(errors))}
