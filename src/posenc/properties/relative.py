"""Relative offsets as a linear map (tutorial 001 §3.3; Vaswani et al. 2017 §3.5).

Claim: for every offset k there is one matrix ``M(k)``, the same for every position p, with ``PE[p + k] = PE[p] M(k)``;
for the sinusoid it is block diagonal, each 2x2 block the rotation by ``k w_i``::

    (sin((p+k) w), cos((p+k) w)) = (sin(p w), cos(p w)) [[cos kw, -sin kw], [sin kw, cos kw]]

Measured for offsets k = 1, 16, 256, ... up to N/4, fitting over every p with ``p + k < N``:

- ``block_residual``: ``||Y - X B|| / ||Y||`` for the best block-diagonal map ``B`` (one 2x2 least squares per
  channel pair, closed form on 2x2 normal equations), ``X = PE[0..N-k-1]``, ``Y = PE[k..N-1]``;
- ``rotation_deviation``: ``max_i ||B_i^T B_i / s_i^2 - I||`` with ``s_i^2 = |det B_i|`` (0 for a rotation, or a
  rotation times a scale as xPos has), and ``block_scale`` the range of ``s_i``;
- ``position_dependence``: ``max |B(first half of p) - B(second half)| / max |B|`` (0 when M(k) is independent of p);
- ``linear_residual``: the residual of the best *general* linear map ``M(k)``, one least-squares solve with every
  offset stacked as right-hand sides over the shared rows ``p < N - k_max``. Where the block map already fits exactly,
  the general residual is at most the block residual (a block map is a linear map) and that bound is reported.

Rotary encodings are measured on their rotation table ``(g sin theta, g cos theta)`` (g: attention factor, times xPos'
decay from position 0). Holds when both residuals are below the tolerance (1e-9 on float64 tables, 1e-5 on float32)
and every ``M(k)`` is a (scaled) block rotation independent of p.
"""

from __future__ import annotations

import torch

from posenc.properties.result import FAILS, HOLDS, PropertyResult
from posenc.properties.view import EncodingView

__all__ = ["relative", "offsets_for", "fit_pair_blocks", "pair_angles", "linear_map_residuals", "relative_residual",
           "relative_map_residual"]

CLAIM = "PE[p + k] is a fixed linear map (a block rotation) of PE[p], the same for every p"
SOURCE = "tutorial 001 §3.3; Vaswani et al. 2017 §3.5"


def offsets_for(length: int) -> list[int]:
    """Offsets 1, 16, 256, ... up to ``length // 4``."""
    out, k = [], 1
    while k <= max(length // 4, 1):
        out.append(k)
        k *= 16
    return out


def _pair_sums(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """2x2 normal equations per pair: ``X_i^T X_i`` and ``X_i^T Y_i`` ``[P, 2, 2]`` from ``x, y [m, P, 2]``."""
    x0, x1 = x[..., 0], x[..., 1]  # [m, P]
    g00, g01, g11 = (x0 * x0).sum(0), (x0 * x1).sum(0), (x1 * x1).sum(0)  # [P]
    gram = torch.stack([torch.stack([g00, g01], -1), torch.stack([g01, g11], -1)], -2)  # [P, 2, 2]
    cross = torch.stack([(x0[..., None] * y).sum(0), (x1[..., None] * y).sum(0)], -2)  # [P, 2, 2]
    return gram, cross


def _solve(gram: torch.Tensor, cross: torch.Tensor) -> torch.Tensor:
    return torch.linalg.pinv(gram, hermitian=True, rtol=1e-15) @ cross  # [P, 2, 2]


def relative_residual(residual: torch.Tensor, target: torch.Tensor) -> float:
    """``||residual|| / ||target||`` (Frobenius norms): how much of ``target`` a fitted map leaves unexplained."""
    return float(residual.norm() / target.norm().clamp(min=1e-300))


def _block_residual(x: torch.Tensor, y: torch.Tensor, blocks: torch.Tensor) -> torch.Tensor:
    """``y - x @ B`` pair by pair, ``[m, P, 2]``, for ``x, y [m, P, 2]`` and blocks ``[P, 2, 2]``."""
    return y - x[..., 0, None] * blocks[:, 0] - x[..., 1, None] * blocks[:, 1]


def fit_pair_blocks(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Least-squares 2x2 blocks ``B [P, 2, 2]`` with ``y[:, i] ~ x[:, i] @ B_i``, and the residual ``[m, P, 2]``.

    ``x, y [m, P, 2]``: m positions, P channel pairs. Solved from the 2x2 normal equations (pseudo-inverse, so a pair
    of equal columns gives the minimum-norm block); elementwise, no batched matmul.
    """
    blocks = _solve(*_pair_sums(x, y))
    return blocks, _block_residual(x, y, blocks)


def pair_angles(blocks: torch.Tensor) -> torch.Tensor:
    """Rotation angle of each block ``[P, 2, 2]`` in the ``(sin, cos)`` layout: ``atan2(B[1, 0], B[0, 0])``."""
    return torch.atan2(blocks[:, 1, 0], blocks[:, 0, 0])


def _rotation_deviation(blocks: torch.Tensor) -> tuple[float, float, float]:
    det = torch.linalg.det(blocks)  # [P]
    scale2 = det.abs().clamp(min=1e-300)
    normed = blocks.transpose(1, 2) @ blocks / scale2[:, None, None]  # [P, 2, 2]
    eye = torch.eye(2, dtype=blocks.dtype)
    dev = float((normed - eye).abs().amax()) if bool((det > 0).all()) else float("inf")
    scale = scale2.sqrt()
    return dev, float(scale.min()), float(scale.max())


def linear_map_residuals(table: torch.Tensor, offsets: list[int]) -> list[float]:
    """Relative residual of the best general linear map ``PE[p + k] ~ PE[p] M(k)`` for each offset, fitted over the
    shared rows ``p < N - max(offsets)`` with all offsets stacked as right-hand sides of one least-squares problem.

    Solved through the Gram matrix ``X^T X = V diag(lambda) V^T`` truncated at ``lambda > 1e-13 lambda_max``; the
    residual is ``||Y||^2 - ||U^T Y||^2`` with ``U = X V lambda^(-1/2)``, exact down to about 1e-7 (relative).
    Repeated channels are merged first (weighted by the square root of their count), which changes no residual: the
    integer table, one value in every channel, is a one-channel problem.
    """
    columns, counts = torch.unique(table, dim=1, return_counts=True)  # a channel repeated c times: once, weight sqrt c
    table = columns * counts.to(table.dtype).sqrt()  # same residuals: every norm below is a weighted channel sum
    n, width = table.shape
    kmax = max(offsets)
    x = table[: n - kmax]  # [m, D']
    ys = torch.cat([table[k: n - kmax + k] for k in offsets], dim=1)  # [m, K*D]
    gram = x.T @ x  # [D, D]
    lam, vec = torch.linalg.eigh(gram)
    keep = lam > lam.max() * 1e-13
    proj = (vec[:, keep].T @ (x.T @ ys)) / lam[keep].sqrt()[:, None]  # [r, K*D]: U^T Y
    total = (ys * ys).sum(0).view(len(offsets), width).sum(1)  # [K]
    explained = (proj * proj).sum(0).view(len(offsets), width).sum(1)  # [K]
    return ((total - explained).clamp(min=0) / total.clamp(min=1e-300)).sqrt().tolist()


def relative_map_residual(pe: torch.Tensor, offset: int, rows: slice | None = None,
                          paired: bool = False) -> tuple[float, torch.Tensor]:
    """Least-squares fit of one matrix ``M`` with ``PE[p + k] ~= PE[p] M`` over all ``p`` (tutorial 001 §3.3).

    Returns ``(relative residual ||PE[p+k] - PE[p] M||_F / ||PE[p+k]||_F, M [d, d])``. Zero residual means a single
    linear map, independent of ``p``, moves every position ``k`` steps.

    Args:
        pe: table ``[T, d]`` (float64).
        offset: ``k >= 1``.
        rows: which starting positions to fit on (default all ``p < T - k``).
        paired: fit one 2x2 map per channel pair ``(2i, 2i+1)`` (block-diagonal ``M``), as tutorial 001 derives it.
            A full ``d x d`` fit is ill-conditioned when slow channels barely move over the table (many ``M`` fit
            equally well), so only the paired fit can be compared with the rotation or carried to other positions.
    """
    source, target = pe[:-offset], pe[offset:]  # [T - k, d] each
    if rows is not None:
        source, target = source[rows], target[rows]
    if paired:
        m, dim = source.shape
        blocks, _ = fit_pair_blocks(source.reshape(m, dim // 2, 2), target.reshape(m, dim // 2, 2))  # [d/2, 2, 2]
        solution = torch.block_diag(*blocks)  # [d, d]
    else:
        solution = torch.linalg.lstsq(source, target, driver="gelsd").solution  # [d, d]
    return relative_residual(target - source @ solution, target), solution


def relative(view: EncodingView) -> PropertyResult:
    """Fit ``M(k)`` for each offset and test that it is a block rotation independent of p."""
    if view.family == "rotary":
        table, what = view.rotation_table, "rotation table"
    else:
        view.require("absolute", "a bias already depends on i - j only, there is no vector to map")
        table, what = view.table, f"{view.table_dtype} table"
    n, width = table.shape
    if width % 2:
        table = torch.nn.functional.pad(table, (0, 1))  # an odd width gets a zero channel to pair with
        width += 1
    tol = view.tolerance
    offsets = offsets_for(n)
    block_res, deviation, dependence, scales = [], [], [], []
    for k in offsets:
        x = table[: n - k].view(n - k, width // 2, 2)  # [m, P, 2]
        y = table[k:].view(n - k, width // 2, 2)
        half = (n - k) // 2
        gram_a, cross_a = _pair_sums(x[:half], y[:half])  # first half of the positions
        gram_b, cross_b = _pair_sums(x[half:], y[half:])  # second half
        blocks = _solve(gram_a + gram_b, cross_a + cross_b)  # all positions: the sums add
        block_res.append(relative_residual(_block_residual(x, y, blocks), y))
        dev, s_lo, s_hi = _rotation_deviation(blocks)
        deviation.append(dev)
        scales.append((s_lo, s_hi))
        first, second = _solve(gram_a, cross_a), _solve(gram_b, cross_b)
        dependence.append(float((first - second).abs().amax() / blocks.abs().amax().clamp(min=1e-300)))
    if max(block_res) <= tol:
        linear, bounded_by_block = block_res, True
    else:
        linear, bounded_by_block = linear_map_residuals(table, offsets), False
    numbers = {
        "linear_residual_max": max(linear),
        "offsets": offsets,
        "linear_residual": linear,
        "linear_residual_is_block_bound": bounded_by_block,
        "block_residual": block_res,
        "rotation_deviation_max": max(deviation),
        "position_dependence_max": max(dependence),
        "block_scale_range": [min(s[0] for s in scales), max(s[1] for s in scales)],
    }
    exact = max(linear) <= tol
    rotation = max(deviation) <= 1e-6 and max(dependence) <= 1e-6 and max(block_res) <= tol
    ok = exact and rotation
    if ok:
        lo, hi = numbers["block_scale_range"]
        kind = "rotations" if abs(lo - 1) < 1e-9 and abs(hi - 1) < 1e-9 else f"rotations times scales {lo:.3g}..{hi:.3g}"
        reason = (f"for k in {offsets[0]}..{offsets[-1]} one block-diagonal map of 2x2 {kind} fits every p of the "
                  f"{what}: residual {max(block_res):.2g}")
    elif exact:
        reason = (f"a linear map fits (residual {max(linear):.2g}) but it is not a block rotation independent of p "
                  f"(rotation deviation {max(deviation):.2g}, p-dependence {max(dependence):.2g})")
    else:
        reason = (f"no linear map takes PE[p] to PE[p + k] for all p: the best one leaves {max(linear):.3g} of the "
                  f"{what} unexplained (block map: {max(block_res):.3g})")
    return PropertyResult("relative", HOLDS if ok else FAILS, numbers, reason, CLAIM, SOURCE)
