"""posenc's values that the explorer ships and checks itself against, recomputed by hand (numpy) or from values
derived in the comments."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc.errors import PosencError
from posenc.explore.golden import FUNCTIONS, evaluate, golden_table, mulberry32, normal_vectors


def test_naive_by_hand():
    assert evaluate("naive", {"kind": "integer", "n": 4}) == [1, 2, 3, 4]  # the seed marks the first token 1
    assert evaluate("naive", {"kind": "normalized", "n": 3}) == [0, 0.5, 1]  # tutorial 000: [0, 0.5, 1]
    bits = evaluate("naive", {"kind": "binary", "n": 4, "dim": 3})  # rows 0..3, bit 0 first
    assert bits == [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0]


def test_the_sinusoid_worked_example():
    # position 2, d = 4, base 10000: w = (1, 10000^(-1/2) = 0.01): PE[2] = (sin 2, cos 2, sin 0.02, cos 0.02)
    table = evaluate("sinusoid", {"d": 4, "base": 10000.0, "n": 3})
    assert table[8:12] == pytest.approx([math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)], rel=1e-15)


@pytest.mark.parametrize("d, base, p", [(16, 10000.0, 5), (64, 100.0, 0), (8, 500000.0, 30)])
def test_the_dot_product_depends_on_the_distance(d, base, p):
    w = base ** (-np.arange(0, d, 2) / d)
    want = [np.cos((p - q) * w).sum() for q in range(40)]  # sin a sin b + cos a cos b = cos(a - b)
    assert evaluate("sinusoid_dot", {"d": d, "base": base, "p": p, "n": 40}) == pytest.approx(want, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("i, p, k", [(0, 0, 1), (1, 7, 3), (7, 50, 20)])
def test_the_rotation_maps_pe_p_to_pe_p_plus_k(i, p, k):
    v = evaluate("rotation", {"d": 16, "base": 10000.0, "i": i, "p": p, "k": k})
    m = np.array(v[4:]).reshape(2, 2)
    assert m @ np.array(v[:2]) == pytest.approx(v[2:4], abs=1e-14)
    w = 10000.0 ** (-2 * i / 16)
    assert v[:4] == pytest.approx([math.sin(p * w), math.cos(p * w), math.sin((p + k) * w), math.cos((p + k) * w)])
    assert m @ m.T == pytest.approx(np.eye(2), abs=1e-15)  # a rotation: orthogonal


def _rope_numpy(x, position, dim, base):
    theta = base ** (-np.arange(0, dim, 2) / dim)
    z = (x[: dim // 2] + 1j * x[dim // 2:]) * np.exp(1j * position * theta)  # half pairing: (i, i + dim/2)
    return np.concatenate([z.real, z.imag])


def test_rope_score_by_complex_numbers_and_its_shift_invariance():
    q, k = normal_vectors(7, 2, 32).numpy()
    for m, n in ((0, 0), (5, 2), (100, 40)):
        want = _rope_numpy(q, m, 32, 10000.0) @ _rope_numpy(k, n, 32, 10000.0)
        got = evaluate("rope_score", {"dim": 32, "base": 10000.0, "m": m, "n": n, "seed": 7})[0]
        assert got == pytest.approx(want, rel=1e-12)
        shifted = evaluate("rope_score", {"dim": 32, "base": 10000.0, "m": m + 300, "n": n + 300, "seed": 7})[0]
        assert shifted == pytest.approx(got, rel=1e-9)


def test_rope_decay_by_hand():
    dim, n, samples = 8, 12, 5
    draws = normal_vectors(3, 2 * samples, dim).numpy().reshape(samples, 2, dim)
    scores = np.array([[_rope_numpy(q, r, dim, 10000.0) @ _rope_numpy(q, 0, dim, 10000.0) for r in range(n)]
                       for q, _ in draws])  # k = q
    got = evaluate("rope_decay", {"dim": dim, "base": 10000.0, "n": n, "samples": samples, "seed": 3})
    assert got[:n] == pytest.approx(scores.mean(0), rel=1e-10, abs=1e-12)
    assert got[n:] == pytest.approx(scores.std(0), rel=1e-10, abs=1e-12)
    theta = 10000.0 ** (-np.arange(0, 32, 2) / 32)  # many draws: the mean nears 2 sum_i cos(r theta_i), the decay
    many = evaluate("rope_decay", {"dim": 32, "base": 10000.0, "n": 200, "samples": 2000, "seed": 4})
    expected = 2 * np.cos(np.arange(200)[:, None] * theta).sum(1)
    assert np.abs(np.array(many[:200]) - expected).max() < 0.1 * expected[0]
    assert many[0] > 2 * abs(np.mean(many[100:200]))  # near positions score higher than far ones
    angles = evaluate("rope_angles", {"dim": dim, "base": 10000.0, "n": 3})
    assert angles[4:8] == pytest.approx(10000.0 ** (-np.arange(0, dim, 2) / dim))  # row 1: theta itself


#: the first four draws of explore.js's ``mulberry32`` for three seeds, computed by that file's function under Node
#: 20.20 (2026-11-29); each is a multiple of 2^-32, so the Python generator must give them exactly
MULBERRY32_IN_JS = {
    1: [0.6270739405881613, 0.002735721180215478, 0.5274470399599522, 0.9810509674716741],
    2026: [0.45540769933722913, 0.30849614599719644, 0.6611574492417276, 0.6184752183035016],
    2 ** 32 - 1: [0.8964226141106337, 0.189478256739676, 0.7156526781618595, 0.9440599093213677],
}


@pytest.mark.parametrize("seed", sorted(MULBERRY32_IN_JS))
def test_the_generator_draws_what_the_explorers_does(seed):
    draw = mulberry32(seed)
    assert [draw() for _ in range(4)] == MULBERRY32_IN_JS[seed]


def test_the_random_draws():
    draw = mulberry32(1)
    values = [draw() for _ in range(20000)]
    assert all(0 <= v < 1 for v in values) and abs(np.mean(values) - 0.5) < 0.01
    z = normal_vectors(2, 100, 100).numpy()
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03
    assert normal_vectors(2, 3, 4).flatten().tolist() == normal_vectors(2, 6, 2).flatten()[:12].tolist()  # one stream


@pytest.mark.parametrize("kind, params, want", [
    ("default", {}, lambda w: w),
    ("linear", {"factor": 4.0}, lambda w: w / 4),  # PI: positions squeezed by s
    ("ntk", {"factor": 4.0}, lambda w: (10000.0 * 4 ** (32 / 30)) ** (-np.arange(0, 32, 2) / 32)),
    ("proportional", {"factor": 2.0, "partial_rotary_factor": 0.25}, lambda w: np.where(np.arange(16) < 4, w / 2, 0)),
])
def test_scalings_by_hand(kind, params, want):
    w = 10000.0 ** (-np.arange(0, 32, 2) / 32)
    got = evaluate("scaling", {"type": kind, "dim": 32, "base": 10000.0, "params": params, "seq_len": None})
    assert got[:-1] == pytest.approx(want(w), rel=1e-12) and got[-1] == 1.0


def test_attention_factors_by_hand():
    yarn = evaluate("scaling", {"type": "yarn", "dim": 32, "base": 10000.0,
                                "params": {"factor": 8.0, "original_max_len": 4096}, "seq_len": None})
    assert yarn[-1] == pytest.approx(0.1 * math.log(8) + 1)
    assert yarn[0] == pytest.approx(1.0)  # the fastest pair turns far more than beta_fast times: kept
    assert yarn[15] == pytest.approx(10000.0 ** (-30 / 32) / 8)  # the slowest is interpolated
    long = {"factor": 8.0, "original_max_len": 4096, "short_factor": [1.0] * 16, "long_factor": [2.0] * 16}
    got = evaluate("scaling", {"type": "longrope", "dim": 32, "base": 10000.0, "params": long, "seq_len": 8000})
    assert got[-1] == pytest.approx(math.sqrt(1 + math.log(8) / math.log(4096)))
    assert got[1] == pytest.approx(10000.0 ** (-2 / 32) / 2)  # past L0: long_factor


def test_llama3_bands_by_hand():
    # Llama 3.1: wavelength < 8192/4 kept, > 8192/1 divided by 8, in between smoothed
    got = evaluate("scaling", {"type": "llama3", "dim": 128, "base": 500000.0, "params": {
        "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_len": 8192}, "seq_len": None})
    w = 500000.0 ** (-np.arange(0, 128, 2) / 128)
    wavelength = 2 * np.pi / w
    smooth = (8192 / wavelength - 1) / 3
    want = np.where(wavelength < 2048, w, np.where(wavelength > 8192, w / 8, (1 - smooth) * w / 8 + smooth * w))
    assert got[:-1] == pytest.approx(want, rel=1e-12)


def test_yarn_ramp_by_hand():
    # d(r) = 64 ln(4096 / (2 pi r)) / (2 ln 10000): r = 32 -> 10.47 -> 10 (floor), r = 1 -> 22.5 -> 23 (ceil)
    got = evaluate("yarn_gamma", {"dim": 64, "base": 10000.0, "original_max_len": 4096, "beta_fast": 32.0,
                                  "beta_slow": 1.0})
    assert got[-2:] == [10.0, 23.0]
    assert got[:32] == pytest.approx(np.clip((np.arange(32) - 10) / 13, 0, 1))


def test_bias_encodings_by_hand():
    assert evaluate("alibi", {"heads": 8}) == [2.0 ** -h for h in range(1, 9)]
    twelve = evaluate("alibi", {"heads": 12})  # 8 powers of two, then every other of the 16-head slopes
    assert twelve == pytest.approx([2.0 ** -h for h in range(1, 9)] + [2.0 ** (-h / 2) for h in (1, 3, 5, 7)])
    buckets = evaluate("t5", {"n": 201, "buckets": 32, "max_distance": 128, "bidirectional": True})
    at = {r: buckets[r + 200] for r in (0, -3, 3, -8, -200)}
    assert at == {0: 0, -3: 3, 3: 19, -8: 8, -200: 15}  # t5_bucket's hand example
    kerple = evaluate("kerple", {"n": 5, "r1": 1.5, "r2": 0.5, "kernel": "log"})
    assert kerple == pytest.approx([-1.5 * math.log1p(0.5 * d) for d in range(5)])
    power = evaluate("kerple", {"n": 5, "r1": 1.5, "r2": 0.5, "kernel": "power"})
    assert power == pytest.approx([-1.5 * d ** 0.5 for d in range(5)])
    fire = np.array(evaluate("fire", {"n": 6, "c": 2.0, "L": 3.0})).reshape(6, 6)
    i, j = np.meshgrid(np.arange(6), np.arange(6), indexing="ij")
    assert fire == pytest.approx(np.log1p(2 * abs(i - j)) / np.log1p(2 * np.maximum(i, 3)), rel=1e-6)
    sandwich = evaluate("sandwich", {"n": 4, "dim": 2, "heads": 1, "compress": False})
    assert sandwich == pytest.approx([math.cos(r) - 1 for r in range(4)])  # d' = 2: cos(r) - 1


def _bfloat16(x: np.ndarray) -> np.ndarray:
    """float64 -> float32 -> bfloat16 (round half to even on the upper 16 bits), back to float64."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)


def test_precision_by_numpy():
    positions = [1, 255, 1000, 4097, 30000, 70000]
    exact = np.array(positions, dtype=np.float64) * (1.0 / 10000.0 ** (2 * 3 / 64))  # theta_3 as posenc writes it
    with np.errstate(over="ignore"):
        half = exact.astype(np.float32).astype(np.float16).astype(np.float64) - exact
    args = {"dim": 64, "base": 10000.0, "i": 3, "positions": positions}
    assert evaluate("precision", {**args, "dtype": "float16"}) == half.tolist()
    assert evaluate("precision", {**args, "dtype": "bfloat16"}) == (_bfloat16(exact) - exact).tolist()
    pair0 = evaluate("precision", {**args, "i": 0, "positions": [65504, 70000], "dtype": "float16"})
    assert pair0[0] == 0 and pair0[1] == math.inf  # float16 holds 65504 and overflows past it


def test_first_aliased_by_brute_force():
    w = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    rows = _bfloat16(np.arange(4096)[:, None] * w)
    same = np.flatnonzero((rows[1:] == rows[:-1]).all(axis=1))
    want = float(same[0] + 1) if same.size else -1.0
    assert evaluate("first_aliased", {"dim": 16, "base": 10000.0, "dtype": "bfloat16", "limit": 4096}) == [want]


def test_the_golden_table():
    table = golden_table()
    assert {row["f"] for row in table} == set(FUNCTIONS)  # every formula is checked by the page
    assert sum(len(row["out"]) for row in table) > 2000
    with pytest.raises(PosencError, match="unknown explorer formula 'nope'; known: naive"):
        evaluate("nope", {})
