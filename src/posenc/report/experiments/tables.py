"""Experiments on position tables alone (no model): the naive encodings of tutorial 000 §2.1-2.3, and the sinusoid's
boundedness, uniqueness, relative linearity, local/global split and extrapolation (seeds 001 §3, 002, 003 §14.8.3).
Their pages: :mod:`posenc.report.present.tables`.

Shapes: a table ``PE`` is ``[T, d]`` (positions x channels).
"""

from __future__ import annotations

import torch

import posenc
from posenc.properties.relative import relative_map_residual, relative_residual
from posenc.report.experiments.base import Context, Measured, Mode, exacts, experiment

#: sinusoid_bounded: the positions 0..n-1 checked (besides the far ones) in each mode
BOUNDED_POSITIONS = Mode(quick=4096, full=65536)
#: sinusoid_unique: the positions compared pairwise in each mode
UNIQUE_LENGTH = Mode(quick=1024, full=8192)
#: sinusoid_relative_linear: the positions the maps are fitted on in each mode
RELATIVE_LENGTH = Mode(quick=512, full=2048)


def _table(name: str, length: int, dim: int, **options) -> torch.Tensor:
    """``PE[0..length-1]`` of encoding ``name`` as float64 ``[length, dim]``."""
    return posenc.build(name, dim=dim, **options).table(length, dim).detach().to(torch.float64)


def _property_check(name: str, prop: str, d_model: int, length: int) -> tuple[dict, str]:
    """The same claim checked by :mod:`posenc.properties` (an independent implementation): its verdict and numbers,
    and its reason (what the page's row shows)."""
    from posenc.properties import check_encoding

    result = check_encoding(name, d_model=d_model, length=length, properties=[prop]).results[0]
    return {"verdict": result.verdict, "numbers": result.numbers}, result.reason


@experiment("naive_integer")
def naive_integer(ctx: Context) -> Measured:
    """Tutorial 000 §2.1: PE[p] = p + 1 grows without bound, swamps a unit-scale embedding, and has no relative map."""
    dim, train_len, test_len = 16, 64, 512
    pe = _table("integer", test_len, dim)  # [T, d]
    token_rms = 1.0  # nn.Embedding's default init N(0, 1): RMS 1 per channel (posenc.model's token embedding)
    rms_train = float(pe[:train_len].pow(2).mean().sqrt())
    rms_test = float(pe.pow(2).mean().sqrt())
    unseen = float((pe[:, 0] > pe[:train_len, 0].max()).double().mean())
    residual, _ = relative_map_residual(pe, 1)
    sin_residual, _ = relative_map_residual(_table("sinusoidal", test_len, dim), 1)
    numbers = {"max_value_train": float(pe[:train_len].max()), "max_value_test": float(pe.max()),
               "rms_ratio_train": rms_train / token_rms, "rms_ratio_test": rms_test / token_rms,
               "unseen_fraction_test": unseen, "relative_map_residual": residual,
               "sinusoid_relative_map_residual": sin_residual, "train_len": train_len, "test_len": test_len}
    numbers["property_check"], reason = _property_check("integer", "growth", dim, test_len)
    numbers["growth_test_over_train"] = numbers["max_value_test"] / numbers["max_value_train"]
    numbers["residual_over_sinusoid"] = residual / max(sin_residual, 1e-12)
    return Measured(numbers, exacts(numbers, "growth_test_over_train", "rms_ratio_test", "unseen_fraction_test",
                                    "residual_over_sinusoid"),
                    shown={"dim": dim, "property_reason": reason, "values": pe[:, 0].numpy()})


@experiment("naive_normalized")
def naive_normalized(ctx: Context) -> Measured:
    """Tutorial 000 §2.2: p / (n - 1) in [0, 1] makes the step between neighbours depend on the sequence length n."""
    dim = 4
    lengths = [3, 10, 100, 1000]
    steps, codes_of_2 = {}, {}
    for n in lengths:
        pe = _table("normalized", n, dim)  # [n, d]; length defaults to the call's n
        steps[n] = float((pe[1:, 0] - pe[:-1, 0]).mean())
        codes_of_2[n] = float(pe[2, 0])
    numbers = {"step_by_length": {str(n): s for n, s in steps.items()},
               "code_of_position_2_by_length": {str(n): c for n, c in codes_of_2.items()},
               "step_ratio_shortest_longest": steps[lengths[0]] / steps[lengths[-1]]}
    numbers["property_check"], reason = _property_check("normalized", "length_independence", dim, 64)
    codes = {n: _table("normalized", n, dim)[:, 0].numpy() for n in (3, 10, 100)}
    return Measured(numbers, exacts(numbers, "step_ratio_shortest_longest"),
                    shown={"dim": dim, "lengths": lengths, "property_reason": reason, "codes": codes})


@experiment("naive_binary")
def naive_binary(ctx: Context) -> Measured:
    """Tutorial 000 §2.3: binary codes jump between neighbours (p -> p+1 may flip many bits) and have no relative map."""
    dim, length = 10, 1024
    pe = _table("binary", length, dim)  # [T, d]
    jumps = (pe[1:] - pe[:-1]).norm(dim=-1)  # [T-1]: distance between neighbours (sqrt of flipped bits)
    sin = _table("sinusoidal", length, dim)
    sin_jumps = (sin[1:] - sin[:-1]).norm(dim=-1)
    residual, _ = relative_map_residual(pe, 1)
    sin_residual, _ = relative_map_residual(sin, 1)
    numbers = {"neighbour_distance_min": float(jumps.min()), "neighbour_distance_max": float(jumps.max()),
               "neighbour_distance_cv": float(jumps.std() / jumps.mean()),
               "sinusoid_neighbour_distance_cv": float(sin_jumps.std() / sin_jumps.mean()),
               "relative_map_residual": residual, "sinusoid_relative_map_residual": sin_residual,
               "dim": dim, "length": length}
    numbers["property_check"], reason = _property_check("binary", "continuity", dim, length)
    numbers["neighbour_distance_max_over_min"] = numbers["neighbour_distance_max"] / numbers["neighbour_distance_min"]
    return Measured(numbers, exacts(numbers, "neighbour_distance_max_over_min", "neighbour_distance_cv",
                                    "relative_map_residual"),
                    shown={"property_reason": reason, "codes": pe[:64].numpy(), "jumps": jumps[:128].numpy(),
                           "sinusoid_jumps": sin_jumps[:128].numpy()})


@experiment("sinusoid_bounded")
def sinusoid_bounded(ctx: Context) -> Measured:
    """Tutorial 001 §3.1: every sin/cos value lies in [-1, 1], at any position."""
    dim = 512
    near = torch.arange(0, BOUNDED_POSITIONS.of(ctx))
    far = torch.tensor([10**5, 10**6, 10**7, 10**8, 10**9, 2**40])
    enc = posenc.build("sinusoidal", dim=dim)
    values = torch.cat([enc.encode(near, dim).flatten(), enc.encode(far, dim).flatten()]).to(torch.float64)
    integer_max = float(_table("integer", len(near), 4).max())
    numbers = {"max_abs": float(values.abs().max()), "min": float(values.min()), "max": float(values.max()),
               "positions_checked": int(len(near) + len(far)), "largest_position": int(far.max()),
               "integer_max_same_positions": integer_max, "dim": dim}
    numbers["property_check"], reason = _property_check("sinusoidal", "bounded", dim, len(near))
    return Measured(numbers, exacts(numbers, "max_abs"),
                    shown={"property_reason": reason, "first": enc.encode(torch.arange(256), dim).numpy(),
                           "values": values.numpy()})


@experiment("sinusoid_unique")
def sinusoid_unique(ctx: Context) -> Measured:
    """Tutorial 001 §3.2: no two positions share a vector (smallest pairwise distance, float32 table)."""
    dim, length = 512, UNIQUE_LENGTH.of(ctx)
    pe = posenc.build("sinusoidal", dim=dim).table(length, dim)  # float32 [T, d]
    nearest = torch.full((length,), float("inf"), dtype=torch.float64)
    step = 1024
    for start in range(0, length, step):  # chunked pairwise distances: [chunk, T]
        d = torch.cdist(pe[start:start + step].double(), pe.double())
        idx = torch.arange(start, min(start + step, length))
        d[torch.arange(len(idx)), idx] = float("inf")
        nearest[idx] = d.min(dim=1).values
    neighbour = float((pe[1] - pe[0]).double().norm())
    distinct = int(torch.unique(pe, dim=0).shape[0])
    binary_distinct = int(torch.unique(posenc.build("binary", dim=8).table(length, 8), dim=0).shape[0])
    numbers = {"min_pairwise_distance": float(nearest.min()), "closest_position": int(nearest.argmin()),
               "neighbour_distance": neighbour, "distinct_rows_float32": distinct, "length": length, "dim": dim,
               "binary_d8_distinct_rows": binary_distinct}
    numbers["property_check"], reason = _property_check("sinusoidal", "uniqueness", dim, length)
    distances = {anchor: (pe.double() - pe[anchor].double()).norm(dim=1).numpy() for anchor in (0, length // 2)}
    gram = (pe[:128].double() @ pe[:128].double().T).numpy()
    numbers["duplicate_rows_float32"] = length - distinct
    return Measured(numbers, exacts(numbers, "min_pairwise_distance", "duplicate_rows_float32"),
                    shown={"property_reason": reason, "distances": distances, "gram": gram})


@experiment("sinusoid_relative_linear")
def sinusoid_relative_linear(ctx: Context) -> Measured:
    """Tutorial 001 §3.3: PE[p+k] = PE[p] M_k with one M_k for all p (least squares over every p; M_k vs the rotation)."""
    dim, length = 64, RELATIVE_LENGTH.of(ctx)
    offsets = [1, 4, 16, 64]
    sin = _table("sinusoidal", length, dim)
    gen = torch.Generator().manual_seed(0)
    random_table = torch.randn(length, dim, generator=gen, dtype=torch.float64)  # an untrained learned table
    binary = _table("binary", length, dim)
    w = 1.0 / 10000.0 ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)  # [d/2], Vaswani et al. 2017 §3.5
    results = {}
    for k in offsets:
        residual, m = relative_map_residual(sin, k, paired=True)
        full_residual, _ = relative_map_residual(sin, k)
        half = (length - k) // 2
        _, m_first = relative_map_residual(sin, k, slice(0, half), paired=True)
        _, m_second = relative_map_residual(sin, k, slice(half, None), paired=True)
        # the rotation tutorial 001 derives, acting on row vectors (sin, cos): [s, c] -> [s cos + c sin, c cos - s sin]
        rotation = torch.zeros(dim, dim, dtype=torch.float64)
        c, s = torch.cos(k * w), torch.sin(k * w)
        i = torch.arange(0, dim, 2)
        rotation[i, i], rotation[i, i + 1], rotation[i + 1, i], rotation[i + 1, i + 1] = c, -s, s, c
        results[k] = {"residual": residual, "full_matrix_residual": full_residual,
                      "first_vs_second_half": float((m_first - m_second).abs().max()),
                      "vs_rotation": float((m - rotation).abs().max()),
                      "random_residual": relative_map_residual(random_table, k, paired=True)[0],
                      "binary_residual": relative_map_residual(binary, k, paired=True)[0]}
    numbers = {"by_offset": {str(k): v for k, v in results.items()},
               "max_residual": max(v["residual"] for v in results.values()),
               "max_half_difference": max(v["first_vs_second_half"] for v in results.values()),
               "max_vs_rotation": max(v["vs_rotation"] for v in results.values()),
               "min_random_residual": min(v["random_residual"] for v in results.values()),
               "min_binary_residual": min(v["binary_residual"] for v in results.values()),
               "dim": dim, "length": length}
    numbers["property_check"], reason = _property_check("sinusoidal", "relative", dim, length)
    _, m = relative_map_residual(sin, 4, paired=True)
    return Measured(numbers, exacts(numbers, "max_residual", "max_half_difference", "max_vs_rotation",
                                    "min_random_residual"),
                    shown={"offsets": offsets, "property_reason": reason, "map_4": m[:16, :16].numpy()})


@experiment("sinusoid_local_global")
def sinusoid_local_global(ctx: Context) -> Measured:
    """Tutorial 002: low dimensions (fast) separate neighbours; high dimensions (slow) carry the global position.

    Local: distance between neighbours inside the lowest and the highest quarter of the channels.
    Global: how well a linear read-out (least squares with intercept) recovers the position p from each quarter
    (R^2): a fast channel wraps around many times over the sequence, a slow one moves once, monotonically.
    """
    dim, length = 128, 1024
    pe = _table("sinusoidal", length, dim)  # [T, d]
    quarter = dim // 4
    blocks = {"low": slice(0, quarter), "high": slice(dim - quarter, dim)}
    p = torch.arange(length, dtype=torch.float64)
    out = {}
    for name, cols in blocks.items():
        x = pe[:, cols]
        step = float((x[1:] - x[:-1]).norm(dim=-1).mean())
        design = torch.cat([x, torch.ones(length, 1, dtype=torch.float64)], dim=1)  # [T, d/4 + 1]
        coef = torch.linalg.lstsq(design, p[:, None], driver="gelsd").solution
        r2 = 1 - float(((design @ coef)[:, 0] - p).pow(2).sum() / (p - p.mean()).pow(2).sum())
        crossings = int(((x[1:, 0::2] > 0) != (x[:-1, 0::2] > 0)).sum())  # sin channels changing sign
        out[name] = {"neighbour_step": step, "position_r2": r2, "sign_changes": crossings}
    numbers = {**{f"{b}_{k}": v for b, d in out.items() for k, v in d.items()},
               "step_ratio_low_high": out["low"]["neighbour_step"] / out["high"]["neighbour_step"],
               "dim": dim, "length": length}
    steps = (pe[1:] - pe[:-1]).pow(2).mean(dim=0).sqrt()  # [d]
    return Measured(numbers, exacts(numbers, "step_ratio_low_high", "high_position_r2", "low_position_r2"),
                    shown={"quarter": quarter, "table": pe.numpy(), "steps": steps.numpy()})


@experiment("sinusoid_extrapolation_theory")
def sinusoid_extrapolation_theory(ctx: Context) -> Measured:
    """Tutorial 003 §14.8.3: the formula defines PE at every position, and what holds inside the trained range (bounded,
    distinct, one linear map per offset) holds far past it. A learned table has no row there."""
    dim, train_len = 64, 512
    far_start = 100_000
    sin = posenc.build("sinusoidal", dim=dim)
    inside = sin.encode(torch.arange(train_len), dim).double()  # [L, d]
    far = sin.encode(torch.arange(far_start, far_start + train_len), dim).double()  # [L, d]
    _, m = relative_map_residual(inside, 1, paired=True)  # the 2x2 maps fitted on trained positions only
    transfer = relative_residual(far[1:] - far[:-1] @ m, far[1:])
    distances = torch.cdist(far, far) + torch.eye(train_len, dtype=torch.float64) * 1e9
    learned = posenc.build("learned", dim=dim, max_len=train_len)
    try:
        learned.encode(torch.tensor([far_start]))
        learned_runs = 1
    except posenc.PosencError:
        learned_runs = 0
    numbers = {"far_max_abs": float(far.abs().max()), "far_all_finite": bool(torch.isfinite(far).all()),
               "transfer_residual": transfer, "far_min_distance": float(distances.min()),
               "learned_runs_far": learned_runs, "train_len": train_len, "far_start": far_start, "dim": dim}
    return Measured(numbers, exacts(numbers, "far_max_abs", "transfer_residual", "far_min_distance"),
                    shown={"inside": inside[:, :32].numpy(), "far": far[:, :32].numpy()})


# ---------------------------------------------------------------------------------------------------------------
# bars and settings these experiments read (the claim files name them in their [code] tables too)
# ---------------------------------------------------------------------------------------------------------------
#: a difference below this (relative to the values' scale) is float32 round-off: "the same"
SAME = 1e-5
#: a difference above this is a real difference, far above round-off
DIFFERENT = 1e-3
