"""Every formula the explorer draws, computed by posenc in float64, and the golden table the page checks itself with.

Each entry of :data:`FUNCTIONS` is ``name -> fn(args) -> list[float]``; ``explore.js`` has a function of the same
name taking the same ``args`` (a dict of plain numbers and strings) and returning the same list. The page shows
numbers computed by its own JS, and :func:`golden_table` ships posenc's answers at a grid of settings inside the
page, which compares them on load. The browser test reads what the page shows after moving its controls and asks
:func:`evaluate` for posenc's value at the same settings.

The random queries and keys of the RoPE panel come from one generator both sides run (:func:`normal_vectors`:
mulberry32 and Box-Muller), so q and k are the same numbers in Python and in the page.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from posenc.encodings.alibi import alibi_slopes
from posenc.encodings.fire import fire_inputs
from posenc.encodings.kerple import kerple_curve
from posenc.encodings.naive import BinaryPE, IntegerPE, NormalizedPE
from posenc.encodings.rope import rope_angles
from posenc.encodings.rope_scaling import compute_inv_freq, default_inv_freq, yarn_correction_range, yarn_ramp
from posenc.encodings.sinusoidal import sinusoidal_frequencies, sinusoidal_table
from posenc.encodings.t5 import t5_bucket
from posenc.errors import PosencError
from posenc.properties.precision import first_aliased_position

__all__ = ["FUNCTIONS", "evaluate", "golden_table", "normal_vectors", "mulberry32", "PRECISIONS"]

_MASK = 0xFFFFFFFF
#: the low-precision formats of the precision panel
PRECISIONS = {"bfloat16": torch.bfloat16, "float16": torch.float16}


def mulberry32(seed: int) -> Callable[[], float]:
    """A 32-bit generator of uniform floats in [0, 1), the same sequence as ``mulberry32`` in explore.js."""
    state = seed & _MASK

    def imul(a: int, b: int) -> int:
        return (a * b) & _MASK

    def draw() -> float:
        nonlocal state
        state = (state + 0x6D2B79F5) & _MASK
        t = imul(state ^ (state >> 15), 1 | state)
        t = ((t + imul(t ^ (t >> 7), 61 | t)) & _MASK) ^ t
        return ((t ^ (t >> 14)) & _MASK) / 4294967296.0

    return draw


#: each seed's normals drawn so far (the stream only grows: a longer request extends it)
_STREAMS: dict[int, tuple[Callable[[], float], list[float]]] = {}


def normal_vectors(seed: int, count: int, dim: int) -> torch.Tensor:
    """``[count, dim]`` standard normals (Box-Muller over :func:`mulberry32`), float64, as explore.js draws them:
    the first ``count * dim`` values of the seed's stream."""
    draw, out = _STREAMS.setdefault(seed, (mulberry32(seed), []))
    while len(out) < count * dim:
        u1, u2 = 1.0 - draw(), draw()
        out.append(math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2))
    return torch.tensor(out[: count * dim], dtype=torch.float64).reshape(count, dim)


def _positions(n: int) -> torch.Tensor:
    return torch.arange(int(n))


# -- 1. naive encodings ----------------------------------------------------------------------------------------------
def naive(args: dict[str, Any]) -> list[float]:
    """integer / normalized: channel 0 at positions 0..n-1; binary: the table ``[n, dim]`` row by row."""
    kind, n = args["kind"], int(args["n"])
    if kind == "integer":
        table = IntegerPE(dim=1).encode(_positions(n), dtype=torch.float64)
    elif kind == "normalized":
        table = NormalizedPE(dim=1).encode(_positions(n), dtype=torch.float64)
    elif kind == "binary":
        return BinaryPE(dim=int(args["dim"])).encode(_positions(n), dtype=torch.float64).flatten().tolist()
    else:
        raise PosencError(f"naive: kind must be integer, normalized or binary, got {kind!r}")
    return table[:, 0].tolist()


# -- 2. the sinusoid -------------------------------------------------------------------------------------------------
def sinusoid(args: dict[str, Any]) -> list[float]:
    """``PE [n, d]`` (interleaved: sin in even channels, cos in odd ones) row by row."""
    return sinusoidal_table(_positions(args["n"]), int(args["d"]), float(args["base"]), torch.float64).flatten().tolist()


def sinusoid_dot(args: dict[str, Any]) -> list[float]:
    """``PE[p] . PE[q]`` for q = 0..n-1."""
    table = sinusoidal_table(_positions(max(int(args["n"]), int(args["p"]) + 1)), int(args["d"]), float(args["base"]),
                             torch.float64)
    return (table[: int(args["n"])] @ table[int(args["p"])]).tolist()


def sinusoid_pair(args: dict[str, Any]) -> list[float]:
    """``[PE[p] (d values), PE[q] (d values), PE[p] . PE[q]]``."""
    table = sinusoidal_table(torch.tensor([int(args["p"]), int(args["q"])]), int(args["d"]), float(args["base"]),
                             torch.float64)  # [2, d]
    return [*table[0].tolist(), *table[1].tolist(), float(table[0] @ table[1])]


# -- 3. relative position is a rotation ------------------------------------------------------------------------------
def rotation(args: dict[str, Any]) -> list[float]:
    """``[PE[p]_2i, PE[p]_2i+1, PE[p+k]_2i, PE[p+k]_2i+1, M00, M01, M10, M11]`` with ``PE[p+k] = M(k) PE[p]`` on the
    pair i: ``M(k) = [[cos k w_i, sin k w_i], [-sin k w_i, cos k w_i]]`` (sin first, as the table stores it)."""
    d, base, i, p, k = int(args["d"]), float(args["base"]), int(args["i"]), int(args["p"]), int(args["k"])
    table = sinusoidal_table(torch.tensor([p, p + k]), d, base, torch.float64)  # [2, d]
    w = float(sinusoidal_frequencies(d, base)[i])
    c, s = math.cos(k * w), math.sin(k * w)
    return [*table[0, 2 * i: 2 * i + 2].tolist(), *table[1, 2 * i: 2 * i + 2].tolist(), c, s, -s, c]


# -- 4. RoPE ---------------------------------------------------------------------------------------------------------
def _rotate(x: torch.Tensor, position: int, inv_freq: torch.Tensor) -> torch.Tensor:
    """``x [..., dim]`` rotated at ``position`` with half pairing (channel i with i + dim/2), float64."""
    theta = rope_angles(torch.tensor([position]), inv_freq)[0]  # [dim/2]
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * theta.cos() - b * theta.sin(), a * theta.sin() + b * theta.cos()], dim=-1)


def rope_score(args: dict[str, Any]) -> list[float]:
    """``q_m . k_n`` for the first draw of :func:`normal_vectors` (q then k)."""
    dim = int(args["dim"])
    inv_freq, _ = default_inv_freq(dim, float(args["base"]))
    q, k = normal_vectors(int(args["seed"]), 2, dim)
    return [float(_rotate(q, int(args["m"]), inv_freq) @ _rotate(k, int(args["n"]), inv_freq))]


def rope_angles_table(args: dict[str, Any]) -> list[float]:
    """Angles ``p * theta_i`` ``[n, dim/2]`` row by row."""
    inv_freq, _ = default_inv_freq(int(args["dim"]), float(args["base"]))
    return rope_angles(_positions(args["n"]), inv_freq).flatten().tolist()


def rope_decay(args: dict[str, Any]) -> list[float]:
    """Mean then standard deviation (over ``samples`` random q, with k = q: the same content at two positions) of
    ``q_r . k_0`` for r = 0..n-1: RoFormer's long-term decay, ``E = 2 sum_i cos(r theta_i)`` for standard normals.
    Sample s uses draw 2s of :func:`normal_vectors` (draw 2s + 1 is left for a k of its own)."""
    dim, n, samples = int(args["dim"]), int(args["n"]), int(args["samples"])
    inv_freq, _ = default_inv_freq(dim, float(args["base"]))
    draws = normal_vectors(int(args["seed"]), 2 * samples, dim).reshape(samples, 2, dim)
    q, k = draws[:, 0], _rotate(draws[:, 0], 0, inv_freq)  # [S, dim]: k = q, at position 0
    scores = torch.stack([(_rotate(q, r, inv_freq) * k).sum(-1) for r in range(n)], dim=1)  # [S, n]: q at r
    return [*scores.mean(0).tolist(), *scores.std(0, unbiased=False).tolist()]


# -- 5. scalings -----------------------------------------------------------------------------------------------------
def scaling(args: dict[str, Any]) -> list[float]:
    """``[inv_freq_0 .. inv_freq_{dim/2-1}, attention_factor]`` of ``{"type": ..., **params}`` at ``seq_len``."""
    spec = {"type": args["type"], **args.get("params", {})}
    inv_freq, factor = compute_inv_freq(int(args["dim"]), float(args["base"]), spec, args.get("seq_len"))
    return [*inv_freq.tolist(), float(factor)]


def yarn_gamma(args: dict[str, Any]) -> list[float]:
    """YaRN's ramp per pair (1 = interpolated, 0 = kept) and its range: ``[gamma..., low, high]``."""
    dim = int(args["dim"])
    low, high = yarn_correction_range(dim, float(args["base"]), int(args["original_max_len"]),
                                      float(args["beta_fast"]), float(args["beta_slow"]))
    return [*yarn_ramp(low, high, dim // 2).tolist(), float(low), float(high)]


# -- 6. bias encodings -----------------------------------------------------------------------------------------------
def alibi(args: dict[str, Any]) -> list[float]:
    """The head slopes ``[heads]`` (the bias of head h is ``-slope_h |i - j|``)."""
    return alibi_slopes(int(args["heads"])).tolist()


def t5(args: dict[str, Any]) -> list[float]:
    """T5's bucket of each relative position ``r = key - query`` for r = -(n-1)..n-1."""
    relative = torch.arange(-int(args["n"]) + 1, int(args["n"]))
    return t5_bucket(relative, bool(args["bidirectional"]), int(args["buckets"]),
                     int(args["max_distance"])).double().tolist()


def kerple(args: dict[str, Any]) -> list[float]:
    """KERPLE's bias at distances 0..n-1: ``-r1 log(1 + r2 d)`` or ``-r1 d^r2``."""
    one = torch.tensor([float(args["r1"])], dtype=torch.float64), torch.tensor([float(args["r2"])], dtype=torch.float64)
    distance = _positions(args["n"]).double()
    return kerple_curve(distance, *one, args["kernel"]).tolist()


def fire(args: dict[str, Any]) -> list[float]:
    """FIRE's normalised input ``psi(|i - j|) / psi(max(L, i))`` ``[n, n]`` row by row (posenc computes it in float32;
    the MLP on top is learned, so the page draws its input)."""
    n = _positions(args["n"])
    return fire_inputs(n, n, float(args["c"]), float(args["L"])).double().flatten().tolist()


def sandwich(args: dict[str, Any]) -> list[float]:
    """Sandwich's ``sum_i cos(r w_i / rho_h) - d'/2`` ``[heads, n]`` at offsets r = 0..n-1, with Sandwich's
    ``rho_h = 8 h / H`` when compressed (else 1), float64 over posenc's sinusoid frequencies."""
    heads, dim = int(args["heads"]), int(args["dim"])
    rho = (8.0 * torch.arange(1, heads + 1, dtype=torch.float64) / heads if args["compress"]
           else torch.ones(heads, dtype=torch.float64))
    w = sinusoidal_frequencies(dim)  # [d'/2]
    r = _positions(args["n"]).double()
    return ((r[None, :, None] * w / rho[:, None, None]).cos().sum(-1) - dim / 2).flatten().tolist()


# -- 7. precision ----------------------------------------------------------------------------------------------------
def precision(args: dict[str, Any]) -> list[float]:
    """``round_dtype(p theta_i) - p theta_i`` at the given positions for pair i (the angle table stored in a low
    precision, as ``posenc check``'s precision property rounds it)."""
    inv_freq, _ = default_inv_freq(int(args["dim"]), float(args["base"]))
    exact = rope_angles(torch.tensor([int(p) for p in args["positions"]]), inv_freq)[:, int(args["i"])]
    return (exact.to(PRECISIONS[args["dtype"]]).double() - exact).tolist()


def first_aliased(args: dict[str, Any]) -> list[float]:
    """The first position whose whole angle row equals its predecessor's in the dtype, or -1 below ``limit``."""
    inv_freq, _ = default_inv_freq(int(args["dim"]), float(args["base"]))
    found = first_aliased_position(inv_freq, PRECISIONS[args["dtype"]], int(args["limit"]))
    return [-1.0 if found is None else float(found)]


FUNCTIONS: dict[str, Callable[[dict[str, Any]], list[float]]] = {
    "naive": naive, "sinusoid": sinusoid, "sinusoid_dot": sinusoid_dot, "sinusoid_pair": sinusoid_pair,
    "rotation": rotation,
    "rope_score": rope_score, "rope_angles": rope_angles_table, "rope_decay": rope_decay, "scaling": scaling,
    "yarn_gamma": yarn_gamma, "alibi": alibi, "t5": t5, "kerple": kerple, "fire": fire, "sandwich": sandwich,
    "precision": precision, "first_aliased": first_aliased,
}


def evaluate(name: str, args: dict[str, Any]) -> list[float]:
    """posenc's values of the formula ``name`` at ``args`` (float64)."""
    if name not in FUNCTIONS:
        raise PosencError(f"unknown explorer formula {name!r}; known: {', '.join(FUNCTIONS)}")
    return [float(v) for v in FUNCTIONS[name](args)]


def _longrope_factors(dim: int) -> dict[str, list[float]]:
    half = dim // 2
    return {"short_factor": [1.0 + 0.05 * i for i in range(half)],
            "long_factor": [1.0 + 0.5 * i for i in range(half)]}


#: the settings the page checks itself at: (formula, args)
def _grid() -> list[tuple[str, dict[str, Any]]]:
    cases: list[tuple[str, dict[str, Any]]] = []
    for kind in ("integer", "normalized"):
        for n in (3, 16, 100):
            cases.append(("naive", {"kind": kind, "n": n}))
    cases += [("naive", {"kind": "binary", "n": 20, "dim": 5}), ("naive", {"kind": "binary", "n": 9, "dim": 3})]
    for d, base in ((4, 10000.0), (16, 100.0), (64, 10000.0)):
        cases.append(("sinusoid", {"d": d, "base": base, "n": 12}))
        cases.append(("sinusoid_dot", {"d": d, "base": base, "p": 5, "n": 40}))
        cases.append(("sinusoid_pair", {"d": d, "base": base, "p": 1, "q": 5}))
    for i, p, k in ((0, 0, 1), (1, 7, 3), (3, 50, 20)):
        cases.append(("rotation", {"d": 16, "base": 10000.0, "i": i, "p": p, "k": k}))
    for m, n, seed in ((0, 0, 1), (5, 2, 1), (100, 40, 7)):
        cases.append(("rope_score", {"dim": 64, "base": 10000.0, "m": m, "n": n, "seed": seed}))
    cases.append(("rope_angles", {"dim": 8, "base": 10000.0, "n": 10}))
    cases.append(("rope_decay", {"dim": 32, "base": 10000.0, "n": 50, "samples": 20, "seed": 3}))
    dim = 32
    scaled = [("default", {}, None), ("linear", {"factor": 4.0}, None), ("ntk", {"factor": 4.0}, None),
              ("dynamic", {"factor": 4.0, "original_max_len": 2048}, 6000),
              ("dynamic", {"factor": 4.0, "original_max_len": 2048}, 1000),
              ("yarn", {"factor": 8.0, "original_max_len": 4096}, None),
              ("yarn", {"factor": 40.0, "original_max_len": 4096, "mscale": 1.0, "mscale_all_dim": 0.707}, None),
              ("llama3", {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_len": 8192}, None),
              ("longrope", {"factor": 8.0, "original_max_len": 4096, **_longrope_factors(dim)}, 8000),
              ("longrope", {"factor": 8.0, "original_max_len": 4096, **_longrope_factors(dim)}, 100),
              ("proportional", {"factor": 2.0, "partial_rotary_factor": 0.25}, None)]
    for kind, params, seq_len in scaled:
        for base in (10000.0, 500000.0):
            cases.append(("scaling", {"type": kind, "dim": dim, "base": base, "params": params, "seq_len": seq_len}))
    cases.append(("yarn_gamma", {"dim": 64, "base": 10000.0, "original_max_len": 4096, "beta_fast": 32.0,
                                 "beta_slow": 1.0}))
    cases += [("alibi", {"heads": h}) for h in (1, 8, 12)]
    cases += [("t5", {"n": 200, "buckets": 32, "max_distance": 128, "bidirectional": b}) for b in (True, False)]
    cases += [("kerple", {"n": 30, "r1": 1.5, "r2": 0.5, "kernel": kern}) for kern in ("log", "power")]
    cases.append(("fire", {"n": 12, "c": 1.0, "L": 4.0}))
    cases += [("sandwich", {"n": 20, "dim": 16, "heads": 4, "compress": c}) for c in (True, False)]
    for dtype in PRECISIONS:
        cases.append(("precision", {"dim": 64, "base": 10000.0, "i": 0, "positions": [1, 255, 1000, 4097, 30000],
                                    "dtype": dtype}))
        cases.append(("first_aliased", {"dim": 16, "base": 10000.0, "dtype": dtype, "limit": 4096}))
    return cases


def golden_table() -> list[dict[str, Any]]:
    """``[{"f": name, "args": args, "out": values}]`` at every setting of the grid, computed by posenc."""
    return [{"f": name, "args": args, "out": evaluate(name, args)} for name, args in _grid()]
