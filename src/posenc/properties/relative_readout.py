"""Can a position-only attention score point at the key ``k`` places back? (tutorial 000 §2.1; tutorial 001 §3.3.)

A relative *map* ``PE[p + k] ~ PE[p] M_k`` (:mod:`posenc.properties.relative`) is not yet a relative *read-out*:
attention compares positions by dot products, and the question is whether some score ``PE[i] . PE[j] M`` (or any
logit affine in each side) gives every query its highest value at the key ``i - k``.

- :func:`shift_match_share`: the share of queries whose best key under ``PE[i] . shifted[j]`` is ``i - k``, for a
  given shifted code (``shifted[j] ~ PE[j + k]``, e.g. ``PE[j] M_k`` with a fitted map);
- :func:`best_affine_share`: for a code of one direction (``PE[p] = c + u_p v``: the integer and the [0, 1] codes),
  the largest share *any* position-only logit affine in each side can reach: a bound over every such logit.

Shapes: a table ``PE`` is ``[T, d]`` (positions x channels).
"""

from __future__ import annotations

import torch

from posenc.errors import PosencError

__all__ = ["shift_match_share", "best_affine_share"]


def shift_match_share(pe: torch.Tensor, shifted: torch.Tensor, offset: int) -> float:
    """Share of queries ``i`` whose highest-scoring key under ``score[i, j] = PE[i] . shifted[j]`` is ``j = i - k``.

    ``shifted[j]`` is the code moved ``k`` places on, ``~ PE[j + k]`` (keys ``j = 0..T-k-1``), so the score asks
    "which key, moved k places on, looks most like me?": a bilinear position-only score that attention can learn
    (``W_Q W_K^T`` = the map). Queries ``i = k..T-1``.
    """
    length = pe.shape[0]
    scores = pe[offset:] @ shifted.T  # [T - k queries, T - k keys]
    hits = scores.argmax(dim=1) == torch.arange(length - offset)
    return float(hits.double().mean())


def best_affine_share(pe: torch.Tensor, offset: int, rank_tolerance: float = 1e-9) -> float:
    """The largest share of queries ``i`` that *any* position-only score affine in each of ``PE[i]`` and ``PE[j]``
    (``PE[i] A PE[j]^T + PE[i] b + c PE[j]^T + e``: attention logits with biases) can point at the key ``i - k``,
    for a code whose rows are ``PE[p] = c + u_p v`` (the integer and [0, 1] codes: one number times one direction).

    For such a code every score is, for a fixed query, ``alpha_i + beta_i u_j``: affine in the key's number ``u_j``.
    Its strict maximum over the keys is therefore the key with the largest or the smallest ``u`` (or there is none,
    when ``beta_i = 0``), whatever ``A``, ``b``, ``c``. A query can point at ``i - k`` only if ``u_{i-k}`` is the
    strict maximum or minimum of ``u`` over all ``T`` keys. Raises if the code is not of that form.
    """
    centred = pe - pe.mean(dim=0)  # [T, d]
    _, s, vh = torch.linalg.svd(centred, full_matrices=False)
    if len(s) > 1 and float(s[1]) > rank_tolerance * float(s[0]):
        raise PosencError(f"best_affine_share needs a code of one direction (centred rank 1); singular values "
                          f"{float(s[0]):.3g}, {float(s[1]):.3g}")
    u = centred @ vh[0]  # [T]: each position's number along the code's one direction
    extreme = torch.zeros(len(u), dtype=torch.bool)
    for value in (u.max(), u.min()):
        where = u == value
        if int(where.sum()) == 1:
            extreme |= where
    targets = torch.arange(offset, len(u)) - offset  # query i = k..T-1 points at key i - k
    return float(extreme[targets].double().mean())
