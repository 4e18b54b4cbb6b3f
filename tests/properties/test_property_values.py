"""Properties against values derived by hand or by an independent float64 numpy computation (derivations inline)."""

import math

import numpy as np
import pytest
import torch

import posenc
from posenc.encodings.base import AbsoluteEncoding, EncodingInfo
from posenc.properties import (
    EncodingView,
    bounded,
    check_encoding,
    decay,
    first_aliased_position,
    first_duplicate_length,
    linear_map_residuals,
    precision,
    relative,
    relative_map_residual,
    translation,
    uniqueness,
    wavelength,
)
from posenc.properties.relative import fit_pair_blocks, pair_angles
from tolerance import bound


def _sinusoid(n: int, d: int) -> np.ndarray:
    """Vaswani et al. 2017 §3.5 in float64 numpy: PE[p, 2i] = sin(p w_i), PE[p, 2i+1] = cos(p w_i), w_i = 1e4^(-2i/d)."""
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    angle = np.arange(n)[:, None] * w
    table = np.empty((n, d))
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    return table


def _view(name: str, d_model: int, length: int, **options) -> EncodingView:
    enc = posenc.build_for_model(name, d_model=d_model, head_dim=d_model, n_heads=8, max_len=length, **options)
    return EncodingView(enc, length, d_model)


def test_seed002_position_2_with_d4():
    # tutorial 002: w_0 = 1, w_1 = 10000^(-2/4) = 0.01, so position 2 is (sin 2, cos 2, sin 0.02, cos 0.02)
    view = _view("sinusoidal", 4, 8)
    expected = torch.tensor([math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)], dtype=torch.float64)
    assert torch.allclose(view.table[2], expected, rtol=0, atol=1e-15)
    # the hook, stored float32: the frequency (a power), the angle, the sine: 3 float32 steps on values <= 1
    assert torch.allclose(view.table32[2].double(), expected, rtol=0, atol=bound(torch.float32, 3))


def test_sinusoidal_smallest_distance_matches_brute_force_and_facts():
    # FACTS §3: n = 1024, d = 512 gives 3.71. Brute force in numpy over all pairs: |a|^2 + |b|^2 - 2 a.b on the
    # float64 table, then the distance of the closest pair recomputed directly.
    n, d = 1024, 512
    table = _sinusoid(n, d)
    sq = (table**2).sum(1)
    d2 = sq[:, None] + sq[None, :] - 2 * table @ table.T
    np.fill_diagonal(d2, np.inf)
    p, q = np.unravel_index(np.argmin(d2), d2.shape)
    brute = np.linalg.norm(table[p] - table[q])
    # neighbours are equally far apart: |PE[p+1] - PE[p]|^2 = sum_i (2 - 2 cos w_i)
    neighbour = math.sqrt(sum(2 - 2 * math.cos(10000.0 ** (-i / d)) for i in range(0, d, 2)))
    result = uniqueness(_view("sinusoidal", d, n))
    assert result.verdict == "holds"
    assert result.numbers["min_distance"] == pytest.approx(brute, rel=1e-9)
    assert result.numbers["min_distance"] == pytest.approx(neighbour, rel=1e-9)
    assert round(result.numbers["min_distance"], 2) == 3.71
    assert result.numbers["first_duplicate_length_float32"] is None


def test_sinusoidal_relative_residual_and_recovered_frequencies():
    # FACTS §3: the rotation residual is far below 1e-9 at n = 1024, d = 512; the fitted block of pair i for offset 1
    # is the rotation by w_i = 10000^(-2i/d) (angles compared modulo 2 pi)
    n, d = 1024, 512
    view = _view("sinusoidal", d, n)
    result = relative(view)
    assert result.verdict == "holds"
    assert result.numbers["linear_residual_max"] < 1e-9
    assert result.numbers["rotation_deviation_max"] < 1e-9
    table = view.table
    blocks, _ = fit_pair_blocks(table[:-1].view(n - 1, d // 2, 2), table[1:].view(n - 1, d // 2, 2))
    w = torch.tensor(10000.0 ** (-np.arange(0, d, 2) / d))
    diff = torch.remainder(pair_angles(blocks) - w + math.pi, 2 * math.pi) - math.pi
    assert diff.abs().max() < 1e-9


@pytest.mark.parametrize("name", ["integer", "normalized", "binary", "learned"])
def test_naive_and_learned_tables_have_no_linear_map(name):
    result = relative(_view(name, 32, 256))
    assert result.verdict == "fails"
    assert result.numbers["linear_residual_max"] > 1e-3


def test_integer_linear_residual_matches_closed_form():
    # integer PE[p] = (p + 1) in every channel, so M(k) can only scale: the best c fits b = a + k with a = p + 1, and
    # the relative residual is sqrt(1 - (a.b)^2 / (|a|^2 |b|^2)) over the shared rows p < N - k_max
    n, d, offsets = 128, 8, [1, 16]
    table = _view("integer", d, n).table
    rows = n - max(offsets)
    a = np.arange(1, rows + 1, dtype=np.float64)
    expected = [math.sqrt(1 - (a @ (a + k)) ** 2 / ((a @ a) * ((a + k) @ (a + k)))) for k in offsets]
    got = linear_map_residuals(table, offsets)
    assert got == pytest.approx(expected, rel=1e-4)


def test_rope_decay_bound_facts_values():
    # RoFormer bound at d = 128 computed by the definition with explicit loops in numpy:
    # B(r) = (1/64) sum_{j=1}^{64} |sum_{i<j} e^{i r theta_i}|, theta_i = 10000^(-2i/128); B(0) = (64 + 1)/2 = 32.5
    theta = 10000.0 ** (-np.arange(0, 128, 2) / 128)

    def bound(r):
        total, partial = 0.0, 0j
        for t in theta:
            partial += np.exp(1j * r * t)
            total += abs(partial)
        return total / len(theta)

    result = decay(_view("rope", 128, 1024))
    assert result.verdict == "holds"
    assert result.numbers["at_0"] == pytest.approx(32.5, abs=1e-12)
    for r, facts in ((10, 18.0), (100, 10.2), (250, 6.5)):
        assert result.numbers[f"at_{r}"] == pytest.approx(bound(r), rel=1e-12)
        assert result.numbers[f"at_{r}"] == pytest.approx(facts, abs=0.1)  # FACTS §3 quotes them rounded
    assert result.numbers["monotonic"] is False  # RoFormer: the bound falls but not monotonically


def test_alibi_decay_per_head():
    # 8 heads: slopes 2^(-h), h = 1..8; the weight exp(-m r) first drops below 1/e at r = 1/m + 1 = 2^h + 1
    result = decay(_view("alibi", 64, 1024))
    assert result.verdict == "holds"
    assert result.numbers["distance_to_1_over_e_per_head"] == [2**h + 1 for h in range(1, 9)]
    assert result.numbers["at_10"] == pytest.approx(np.mean([math.exp(-(2.0**-h) * 10) for h in range(1, 9)]))


def test_xpos_decays_faster_than_rope():
    # xPos damps every term of the RoFormer sum by zeta_i^(r/512) < 1, so its curve is below RoPE's beyond r = 0
    rope, xpos = decay(_view("rope", 64, 2048)), decay(_view("xpos", 64, 2048))
    assert xpos.numbers["at_0"] == rope.numbers["at_0"] == pytest.approx(16.5)
    assert xpos.numbers["at_1000"] < rope.numbers["at_1000"]


def test_first_aliased_position_in_bfloat16():
    # bfloat16 holds 8 significant bits: 257 rounds to 256 (ties to even), so with w = 1 positions 256 and 257 share
    # an angle; float32 keeps integers exact up to 2^24
    one = torch.tensor([1.0], dtype=torch.float64)
    assert first_aliased_position(one, torch.bfloat16, 4096) == 257
    assert first_aliased_position(one, torch.float32, 4096) is None


def test_first_aliased_position_matches_a_full_scan():
    # independent scan: the whole bf16 angle table, first row equal to its predecessor
    inv_freq = 10000.0 ** (-torch.arange(0, 16, 2, dtype=torch.float64) / 16)
    angles = (torch.arange(20000, dtype=torch.float64)[:, None] * inv_freq).to(torch.bfloat16)
    same = (angles[1:] == angles[:-1]).all(dim=1).nonzero()
    expected = int(same[0]) + 1 if same.numel() else None
    assert first_aliased_position(inv_freq, torch.bfloat16, 20000) == expected
    assert expected is not None


def test_duplicate_rows():
    # binary with 4 bits repeats after 16 positions: row 16 equals row 0, so the first duplicate length is 17
    assert first_duplicate_length(_view("binary", 4, 32).table32) == 17
    # integer values p + 1: bfloat16(257) = 256 (ties to even), so position 256 repeats position 255: length 257
    view = _view("integer", 8, 512)
    assert first_duplicate_length(view.table32.to(torch.bfloat16)) == 257
    assert first_duplicate_length(view.table32) is None
    assert first_duplicate_length(torch.tensor([[0.0, 1.0], [-0.0, 1.0]])) == 2  # -0.0 equals 0.0


def test_report_numbers_for_the_naive_encodings():
    n, d = 64, 16
    integer = check_encoding("integer", d_model=d, length=n)
    # values 1..N; largest norm in the second half N sqrt(d), in the first (N/2) sqrt(d): ratio 2
    assert integer["bounded"].numbers["max_abs_value"] == n
    assert integer["bounded"].verdict == "fails"
    assert integer["growth"].numbers["norm_ratio_second_half"] == pytest.approx(2.0)
    assert integer["growth"].verdict == "fails"
    normalized = check_encoding("normalized", d_model=d, length=n)
    # p/(N-1) against p/(N/2-1): largest gap at p = N/2-1, 1 - (N/2-1)/(N-1); the step grows by (N-1)/(N/2-1)
    li = normalized["length_independence"]
    assert li.verdict == "fails"
    assert li.numbers["max_difference"] == pytest.approx(1 - (n / 2 - 1) / (n - 1), rel=1e-6)
    assert li.numbers["step_ratio"] == pytest.approx((n - 1) / (n / 2 - 1), rel=1e-6)
    binary = check_encoding("binary", d_model=d, length=n)
    # 31 -> 32 flips six bits (011111 -> 100000): the largest neighbour distance sqrt(6), the smallest 1
    assert binary["continuity"].numbers["jump_ratio"] == pytest.approx(math.sqrt(6))
    assert binary["continuity"].numbers["largest_jump_at"] == [31, 32]
    assert binary["continuity"].verdict == "fails"
    # bit j has wavelength 2^(j+1): 2, 4, 8, 16, 32 are local (< 64); bit 5 flips once, higher bits never
    wl = binary["wavelength"].numbers
    assert wl["wavelengths"][:6] == [2.0, 4.0, 8.0, 16.0, 32.0, "inf"]
    assert wl["n_local"] == 5 and binary["wavelength"].verdict == "holds"


def test_sinusoidal_bounded_norm_and_wavelengths():
    n, d = 4096, 512
    report = check_encoding("sinusoidal", d_model=d, length=n, properties=["bounded", "wavelength", "translation"])
    # sin^2 + cos^2 = 1 per pair, so every norm is sqrt(d/2)
    assert report["bounded"].numbers["norm_min"] == pytest.approx(math.sqrt(d / 2), rel=1e-12)
    assert report["bounded"].numbers["norm_max"] == pytest.approx(math.sqrt(d / 2), rel=1e-12)
    # pair i is local when 2 pi 10000^(2i/d) < N
    local = sum(2 * math.pi * 10000.0 ** (i / d) < n for i in range(0, d, 2))
    assert report["wavelength"].numbers["n_local"] == local
    assert report["wavelength"].verdict == "holds"
    # PE[p] . PE[p + r] = sum_i cos(r w_i), independent of p; the mean cosine similarity is that sum over d/2
    tr = report["translation"]
    assert tr.verdict == "holds" and tr.numbers["spread_max"] < 1e-9
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    for r, cos in zip(tr.numbers["distances"], tr.numbers["cosine_similarity_by_distance"], strict=True):
        assert cos == pytest.approx(np.cos(r * w).sum() / (d / 2), abs=1e-12)


def test_llama3_ramp_counts():
    # Llama 3 (FACTS §3): wavelength 2 pi / f below L0/high = 2048 keeps f, above L0/low = 8192 divides by s = 8
    report = check_encoding("rope", d_model=128, length=1024, properties=["scaling_ramp"],
                            options={"base": 500000.0, "scaling": {"type": "llama3", "factor": 8.0}})
    wavelength = 2 * math.pi * 500000.0 ** (np.arange(0, 128, 2) / 128)
    ramp = report["scaling_ramp"]
    assert ramp.verdict == "holds"
    assert ramp.numbers["n_kept"] == int((wavelength < 2048).sum())
    assert ramp.numbers["n_divided"] == int((wavelength > 8192).sum())
    assert ramp.numbers["ratio_last"] == pytest.approx(1 / 8)


def test_yarn_gain_is_the_attention_factor():
    # YaRN attention factor 0.1 ln s + 1 multiplies cos and sin: the rotation gain at every position
    report = check_encoding("rope", d_model=64, length=256, properties=["bounded", "scaling_ramp"],
                            options={"scaling": {"type": "yarn", "factor": 4.0}})
    assert report["bounded"].numbers["gain_min"] == pytest.approx(0.1 * math.log(4) + 1)
    assert report["bounded"].verdict == "holds"
    assert report["scaling_ramp"].numbers["ratio_first"] == pytest.approx(1.0)
    assert report["scaling_ramp"].numbers["ratio_last"] == pytest.approx(0.25)


def test_xpos_gain_at_first_and_last_position_by_hand():
    # xPos, R = 4: zeta = (2i + 0.4 R) / (1.4 R) = (1.6/5.6, 3.6/5.6); the gain of pair i at p is zeta_i^((p - c)/512)
    # with c = N/2 = 4. Before c the smallest zeta gains most, after c the largest: the largest gain per position
    zeta = np.array([1.6, 3.6]) / 5.6
    numbers = bounded(_view("xpos", 4, 8)).numbers
    assert numbers["gain_at_first_position"] == pytest.approx(max(zeta ** (-4 / 512)), rel=1e-12)
    assert numbers["gain_at_last_position"] == pytest.approx(max(zeta ** (3 / 512)), rel=1e-12)
    assert numbers["gain_max"] == pytest.approx(zeta[0] ** (-4 / 512), rel=1e-12)
    assert numbers["gain_min"] == pytest.approx(zeta[0] ** (3 / 512), rel=1e-12)


def test_precision_reason_names_the_bfloat16_table():
    # integer values p + 1 in bfloat16: 257 rounds to 256, so position 256 repeats position 255
    aliased = precision(_view("integer", 2, 300))
    assert aliased.reason == "from position 256 the bfloat16 table holds a row equal to an earlier one"
    assert aliased.numbers["first_aliased_position_bfloat16"] == 256
    assert precision(_view("sinusoidal", 16, 64)).reason == "no two positions share a row of the bfloat16 table below 64"


def _pair_block_fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``[P, 2, 2]``: numpy least squares of each channel pair of ``y`` on the same pair of ``x`` (rows p)."""
    return np.stack([np.linalg.lstsq(x[:, i:i + 2], y[:, i:i + 2], rcond=None)[0] for i in range(0, x.shape[1], 2)])


def test_relative_numbers_of_a_random_table_against_numpy():
    # a learned table set to fixed random values: the block maps of the two halves of p differ; both the residual
    # of the block fit and the p-dependence max |B(first half) - B(second half)| / max |B| recomputed in numpy
    n, d = 64, 4
    values = np.random.default_rng(0).standard_normal((n, d)).astype(np.float32)
    enc = posenc.build("learned", dim=d, max_len=n)
    with torch.no_grad():
        enc.weight.copy_(torch.from_numpy(values))
    table = values.astype(np.float64)
    result = relative(EncodingView(enc, n, d))
    assert set(result.numbers) == {"linear_residual_max", "offsets", "linear_residual", "linear_residual_is_block_bound",
                                   "block_residual", "rotation_deviation_max", "position_dependence_max",
                                   "block_scale_range"}
    assert result.numbers["offsets"] == [1, 16]
    residuals, dependence = [], []
    for k in (1, 16):
        x, y = table[: n - k], table[k:]
        half = (n - k) // 2
        blocks = _pair_block_fit(x, y)
        fitted = np.concatenate([x[:, i:i + 2] @ blocks[i // 2] for i in range(0, d, 2)], axis=1)
        residuals.append(np.linalg.norm(y - fitted) / np.linalg.norm(y))
        first, second = _pair_block_fit(x[:half], y[:half]), _pair_block_fit(x[half:], y[half:])
        dependence.append(np.abs(first - second).max() / np.abs(blocks).max())
    assert result.numbers["block_residual"] == pytest.approx(residuals, rel=1e-6)
    assert result.numbers["position_dependence_max"] == pytest.approx(max(dependence), rel=1e-6)
    assert result.verdict == "fails"


def test_paired_relative_map_of_the_sinusoid_is_the_block_rotation():
    # tutorial 001 §3.3: PE[p + k] = PE[p] M(k), M(k) block diagonal with the rotation by k w_i per pair (row vectors)
    table = torch.from_numpy(_sinusoid(32, 4))  # w = (1, 0.01)
    residual, m = relative_map_residual(table, 2, paired=True)
    assert residual < 1e-12
    expected = np.zeros((4, 4))
    for i, w in enumerate((1.0, 0.01)):
        c, s = math.cos(2 * w), math.sin(2 * w)
        expected[2 * i: 2 * i + 2, 2 * i: 2 * i + 2] = [[c, -s], [s, c]]
    assert np.allclose(m.numpy(), expected, rtol=0, atol=1e-9)


def test_scaling_ramp_number_keys():
    ramp = check_encoding("rope", d_model=4, length=64, properties=["scaling_ramp"],
                          options={"scaling": {"type": "linear", "factor": 2.0}})["scaling_ramp"]
    assert set(ramp.numbers) == {"n_kept", "n_divided", "n_ramp", "factor", "ratio_first", "ratio_last", "ratio_min",
                                 "attention_factor", "scaling", "ratio"}
    assert ramp.numbers["ratio_min"] == 0.5  # linear: every frequency halves


def test_rope_self_logit_curve_is_the_cosine_of_the_offset():
    # one pair turning 1 rad per position: <R(p + r) q, R(p) q> = |q|^2 cos r for every p
    curve = translation(_view("rope", 2, 16)).numbers["self_logit_by_distance"]
    # each float32 rotation (the sine or cosine, two products, a sum: 3 steps relative to |q|), two of them in each
    # logit and in the base it is divided by: 12 steps
    want = [1.0, math.cos(1), math.cos(2), math.cos(4), math.cos(8)]
    assert curve == pytest.approx(want, abs=bound(torch.float32, 12))


def test_rotary_translation_spread_is_relative_to_the_attention_factor():
    # an attention factor of 2 doubles cos and sin exactly in float32, so every logit is 4 times larger; relative to
    # |q| |k| g^2 the spread is unchanged
    def spread(factor):
        options = {"scaling": {"type": "yarn", "factor": 4.0, "original_max_len": 2048, "attention_factor": factor}}
        report = check_encoding("rope", d_model=8, length=32, properties=["translation"], options=options)
        return report["translation"].numbers["spread"]

    one = spread(1.0)
    assert max(one) > 0  # float32 rounding moves the logit a little with p
    assert spread(2.0) == one


def test_translation_reports_the_distance_with_the_largest_spread():
    # integer table, N = 8, d = 2: PE[p] = (p + 1, p + 1), so PE[p] . PE[p + r] = 2 (p + 1)(p + 1 + r); mean |PE|^2 =
    # 2 * 204 / 8 = 51. The spread (max - min over p) / 51 shrinks with r: r = 0 gives (128 - 2) / 51
    result = translation(_view("integer", 2, 8))
    assert result.numbers["spread"] == pytest.approx([126 / 51, (2 * 7 * 8 - 2 * 2) / 51, (2 * 6 * 8 - 2 * 3) / 51,
                                                      (2 * 4 * 8 - 2 * 5) / 51])
    assert result.numbers["spread_max"] == pytest.approx(126 / 51)
    assert result.reason == "PE[p] . PE[p + r] changes with p: at distance 0 it spreads by 2.47 (relative)"


def test_rope_wavelengths_are_rounded_to_six_decimals():
    # RoFormer with R = 4: inv_freq = (1, 0.01), wavelengths 2 pi and 200 pi; 2 pi < 64 is local, 200 pi global
    result = wavelength(_view("rope", 4, 64))
    assert set(result.numbers) == {"n_local", "n_global", "unit", "first_global_index", "wavelength_min",
                                   "wavelength_max_finite", "nondecreasing", "wavelengths"}
    assert result.numbers["unit"] == "pair"
    assert result.numbers["wavelengths"] == [6.283185, 628.318531]
    assert result.numbers["wavelength_max_finite"] == pytest.approx(200 * math.pi)


class _FixedColumn(AbsoluteEncoding):
    """A float64 table ``PE[p] = (values[p], 0)``: chosen distances between positions."""

    name = "fixed_column"
    info = EncodingInfo(family="absolute", paper="test", hooks=("embed",))

    def __init__(self, values: list[float]):
        super().__init__(dim=2)
        self.values = torch.tensor(values, dtype=torch.float64)

    def encode(self, positions, dim=None, dtype=torch.float32):
        column = self.values[positions]
        return torch.stack([column, torch.zeros_like(column)], dim=-1).to(dtype)


def test_uniqueness_distance_equal_to_the_tolerance_is_rounding():
    # rows 0 and 1 are 1e-9 apart, every other pair at least 0.125; the mean norm is below 1, so the threshold is the
    # float64 tolerance 1e-9 itself: a distance of exactly the tolerance is not "beyond rounding"
    view = EncodingView(_FixedColumn([0.0, 1e-9, 0.25, -0.25, 0.5, -0.5, 0.125, -0.125]), 8, 2)
    result = uniqueness(view)
    assert view.tolerance == 1e-9
    assert result.numbers["min_distance"] == 1e-9 and result.numbers["closest_pair"] == [0, 1]
    assert result.numbers["first_duplicate_length_float32"] is None
    assert result.verdict == "fails"


# -- the verdict thresholds of the naive flaws, at the threshold and either side ----------------------------------------
# growth: largest norm over positions [4, 8) against [0, 4) must be <= 1.25 (first half max 4, second 5: exactly 1.25);
# continuity: largest over smallest neighbour distance <= 2 (steps 0.25 and 0.5: exactly 2). Values in binary fractions,
# so every ratio is exact in float64.
@pytest.mark.parametrize(("last", "verdict"), [(4.9990234375, "holds"), (5.0, "holds"), (5.0009765625, "fails")])
def test_growth_at_its_limit_of_1_25(last, verdict):
    from posenc.properties import growth
    from posenc.properties.naive_flaws import GROWTH_LIMIT

    assert GROWTH_LIMIT == 1.25
    result = growth(EncodingView(_FixedColumn([1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, last]), 8, 2))
    assert result.numbers["norm_ratio_second_half"] == last / 4
    assert result.verdict == verdict


@pytest.mark.parametrize(("jump", "verdict"), [(0.4990234375, "holds"), (0.5, "holds"), (0.5009765625, "fails")])
def test_continuity_at_its_limit_of_2(jump, verdict):
    from posenc.properties import continuity
    from posenc.properties.naive_flaws import JUMP_LIMIT

    assert JUMP_LIMIT == 2.0
    values = [0.0, 0.25, 0.5, 0.75, 0.75 + jump, 1.0 + jump, 1.25 + jump, 1.5 + jump]  # steps 0.25 but one
    result = continuity(EncodingView(_FixedColumn(values), 8, 2))
    assert result.numbers["jump_ratio"] == jump / 0.25 and result.numbers["largest_jump_at"] == [3, 4]
    assert result.verdict == verdict


@pytest.mark.parametrize("chunk", [255, 256, 257])
@pytest.mark.parametrize(("limit", "expected"), [(257, None), (258, 257)])
def test_first_aliased_position_at_its_chunk_edges_and_search_limit(monkeypatch, chunk, limit, expected):
    # bfloat16 keeps 8 significant bits, so with w = 1 position 257 is the first to round onto its predecessor: found
    # whether it is the last of a chunk (256 positions from 1), the first of the next (255) or inside one (257); the
    # search covers 1..limit - 1, so a limit of 257 stops just before it
    import importlib

    precision_module = importlib.import_module("posenc.properties.precision")  # the package exports the function

    monkeypatch.setattr(precision_module, "_CHUNK", chunk)
    one = torch.tensor([1.0], dtype=torch.float64)
    assert first_aliased_position(one, torch.bfloat16, limit) == expected


@pytest.mark.parametrize(("length", "searched"), [(64, 1 << 15), ((1 << 15) + 8, (1 << 15) + 8)])
def test_the_rotary_precision_search_runs_to_the_longer_of_the_length_and_2_to_the_15(length, searched):
    from posenc.properties.precision import SEARCH_LIMIT

    assert SEARCH_LIMIT == 1 << 15
    result = precision(EncodingView(posenc.build("rope", head_dim=4), length, 4))
    assert result.numbers["searched_up_to"] == searched
