"""posenc's scaling functions against Hugging Face's rope init functions (to 1e-6 relative) and their formulas."""

import math

import pytest
import torch
from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

import posenc
from posenc.encodings import rope_scaling as rs
from posenc.errors import PosencError
from posenc.hf.config import rope_options_from_hf_config
from tolerance import bound

HEAD_DIM = 64
# Hugging Face computes inv_freq in float32 (posenc in float64): its longest chain, YaRN's, is 10 steps (the exponent,
# the power, two reciprocals with the factor, the ramp and its complement, the blend)
HF_FLOAT32 = bound(torch.float32, 10)


def _hf(rope_parameters: dict, max_pos: int = 8192, seq_len: int | None = None, partial: float | None = None):
    kwargs = {}
    if partial is not None:
        rope_parameters = {**rope_parameters, "partial_rotary_factor": partial}
    config = LlamaConfig(hidden_size=HEAD_DIM * 4, num_attention_heads=4, max_position_embeddings=max_pos,
                         rope_parameters=rope_parameters, **kwargs)
    kind = config.rope_parameters.get("rope_type", "default")
    if kind == "default":
        from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

        inv, factor = LlamaRotaryEmbedding.compute_default_rope_parameters(config)
    else:
        inv, factor = ROPE_INIT_FUNCTIONS[kind](config, "cpu", seq_len=seq_len)
    return config, inv.double(), float(factor)


def _ours(config, seq_len=None):
    opts = rope_options_from_hf_config(config)
    return rs.compute_inv_freq(opts["rotary_dim"], opts["base"], opts["scaling"], seq_len)


CASES = [
    ({"rope_type": "default", "rope_theta": 10000.0}, None),
    ({"rope_type": "default", "rope_theta": 100000.0}, None),
    ({"rope_type": "linear", "rope_theta": 10000.0, "factor": 4.0}, None),
    ({"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0}, 4096),  # below L0: unchanged
    ({"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0}, 20000),  # past L0: base grows
    ({"rope_type": "yarn", "rope_theta": 10000.0, "factor": 8.0, "original_max_position_embeddings": 1024}, None),
    ({"rope_type": "yarn", "rope_theta": 500000.0, "factor": 4.0, "original_max_position_embeddings": 2048,
      "beta_fast": 16, "beta_slow": 2}, None),
    ({"rope_type": "yarn", "rope_theta": 10000.0, "factor": 40.0, "original_max_position_embeddings": 4096,
      "mscale": 0.707, "mscale_all_dim": 0.707}, None),
    ({"rope_type": "yarn", "rope_theta": 10000.0, "factor": 16.0, "original_max_position_embeddings": 4096,
      "mscale": 1.0, "mscale_all_dim": 0.5}, None),
    ({"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0, "original_max_position_embeddings": 2048,
      "truncate": False}, None),
    ({"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0, "original_max_position_embeddings": 2048,
      "attention_factor": 1.5}, None),
    ({"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
      "original_max_position_embeddings": 8192}, None),
    ({"rope_type": "llama3", "rope_theta": 10000.0, "factor": 4.0, "low_freq_factor": 2.0, "high_freq_factor": 8.0,
      "original_max_position_embeddings": 1024}, None),
]


@pytest.mark.parametrize("params,seq_len", CASES, ids=lambda v: str(v)[:60])
def test_matches_hugging_face(params, seq_len):
    max_pos = 8192 if params["rope_type"] != "yarn" else params["original_max_position_embeddings"] * int(params["factor"])
    config, hf_inv, hf_factor = _hf(params, max_pos=max_pos, seq_len=seq_len)
    inv, factor = _ours(config, seq_len)
    torch.testing.assert_close(inv, hf_inv, rtol=HF_FLOAT32, atol=0)
    assert math.isclose(factor, hf_factor, rel_tol=1e-6)


@pytest.mark.parametrize("seq_len", [1024, 8192])
def test_longrope_matches_hugging_face(seq_len):
    half = HEAD_DIM // 2
    short = [1.0 + 0.01 * i for i in range(half)]
    long = [1.0 + 0.5 * i for i in range(half)]
    params = {"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": short, "long_factor": long,
              "original_max_position_embeddings": 2048, "factor": 4.0}
    config, hf_inv, hf_factor = _hf(params, max_pos=8192, seq_len=seq_len)
    inv, factor = _ours(config, seq_len)
    torch.testing.assert_close(inv, hf_inv, rtol=HF_FLOAT32, atol=0)
    assert math.isclose(factor, hf_factor, rel_tol=1e-6)
    assert math.isclose(factor, math.sqrt(1 + math.log(4) / math.log(2048)), rel_tol=1e-12)


def test_partial_rotary_uses_the_rotary_width():
    config, hf_inv, _ = _hf({"rope_type": "linear", "rope_theta": 10000.0, "factor": 2.0}, partial=0.25)
    inv, _ = _ours(config)
    assert inv.shape == (HEAD_DIM // 8,)
    torch.testing.assert_close(inv, hf_inv, rtol=HF_FLOAT32, atol=0)


def test_static_ntk_formula():
    # base' = base * s^(d/(d-2)); d=64, s=4: inv_i = (10000 * 4^(64/62))^(-2i/64)
    inv, factor = rs.ntk(64, 10000.0, 4.0)
    new_base = 10000.0 * 4.0 ** (64 / 62)
    expected = torch.tensor([new_base ** (-2 * i / 64) for i in range(32)], dtype=torch.float64)
    torch.testing.assert_close(inv, expected, rtol=1e-12, atol=0)
    assert factor == 1.0
    assert abs(float(inv[0]) - 1.0) < 1e-15 and float(inv[-1]) < float(rs.default_inv_freq(64)[0][-1])


def test_yarn_attention_factor_at_s8():
    _, factor = rs.yarn(64, 10000.0, 8.0, 4096)
    assert abs(factor - (0.1 * math.log(8) + 1)) < 1e-12 and abs(factor - 1.2079) < 1e-4


def test_yarn_mscale_equal_collapses_to_one():
    _, factor = rs.yarn(64, 10000.0, 8.0, 4096, mscale=1.0, mscale_all_dim=1.0)
    assert factor == 1.0


def test_factor_one_equals_default():
    default, _ = rs.default_inv_freq(64)
    for fn in (rs.linear, rs.ntk):
        torch.testing.assert_close(fn(64, 10000.0, 1.0)[0], default, rtol=1e-12, atol=0)
    # dynamic NTK equals the default up to its original length, whatever the factor
    torch.testing.assert_close(rs.dynamic_ntk(64, 10000.0, 8.0, 2048, 2048)[0], default, rtol=1e-12, atol=0)


def test_llama3_keeps_high_and_divides_low_frequencies():
    inv, _ = rs.llama3(128, 500000.0, 8.0, 1.0, 4.0, 8192)
    default, _ = rs.default_inv_freq(128, 500000.0)
    wavelen = 2 * math.pi / default
    high = wavelen < 8192 / 4
    low = wavelen > 8192
    torch.testing.assert_close(inv[high], default[high])
    torch.testing.assert_close(inv[low], default[low] / 8)


@pytest.mark.parametrize("factor", [0.5, 0, -2, float("nan")])
def test_factor_below_one_is_a_clear_error(factor):
    with pytest.raises(PosencError, match=">= 1"):
        rs.RopeScaling.parse({"type": "linear", "factor": factor})


def test_unknown_scaling_and_parameter():
    with pytest.raises(PosencError, match="valid scalings"):
        rs.RopeScaling.parse({"type": "ntk-by-parts"})
    with pytest.raises(PosencError, match="valid parameters"):
        rs.RopeScaling.parse({"type": "linear", "factr": 2})


def test_base_is_not_a_scaling_parameter():
    # base is RoPE's own option (posenc.build("rope", base=...)), never a scaling's: the signature's dim, base and
    # seq_len are filled in by compute_inv_freq
    with pytest.raises(PosencError, match=r"unknown parameter\(s\) 'base' for RoPE scaling 'linear'; valid parameters "
                                          r"are: factor$"):
        rs.RopeScaling.parse({"type": "linear", "factor": 2, "base": 500000.0})


def test_hf_config_with_unknown_rope_type():
    from posenc.hf.config import from_hf_config

    config = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 128,
              "rope_parameters": {"rope_type": "wobbly", "rope_theta": 10000.0}}
    with pytest.raises(PosencError, match="wobbly"):
        from_hf_config(config)


@pytest.mark.parametrize("factor, expected", [(1, True), (1.0, True), (4, True), (2.5, True), (0.99, False), (0, False),
                                              (-2, False), (True, False), (float("inf"), False), (float("nan"), False),
                                              ("2", False), (None, False)])
def test_is_stretch_factor_accepts_finite_numbers_from_one_up(factor, expected):
    from posenc.encodings.rope_scaling import is_stretch_factor

    assert is_stretch_factor(factor) is expected


# -- length-dependent scalings at the length where they switch ------------------------------------------------------
# Hugging Face's dynamic NTK keeps the base up to and including L0 = max_position_embeddings (its seq_len is clamped
# up to L0, so seq_len = L0 gives base * (s - (s - 1))^... = base) and grows it from L0 + 1; LongRoPE uses its short
# factors up to and including L0 = original_max_position_embeddings and its long ones from L0 + 1.


@pytest.mark.parametrize("seq_len", [8191, 8192, 8193, 8194])
def test_dynamic_at_its_switch_matches_hugging_face(seq_len):
    config, hf_inv, hf_factor = _hf({"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 4.0}, 8192, seq_len)
    inv, factor = _ours(config, seq_len)
    torch.testing.assert_close(inv, hf_inv, rtol=HF_FLOAT32, atol=0)
    default, _ = rs.default_inv_freq(HEAD_DIM)
    grown = not torch.allclose(inv, default, rtol=1e-9, atol=0)
    assert grown is (seq_len > 8192)
    if seq_len == 8193:  # base' = 10000 * (4 * 8193 / 8192 - 3)^(64/62), by hand
        new_base = 10000.0 * (4 * 8193 / 8192 - 3) ** (64 / 62)
        assert float(inv[-1]) == pytest.approx(new_base ** (-62 / 64), rel=1e-12)


@pytest.mark.parametrize("seq_len", [2047, 2048, 2049])
def test_longrope_at_its_switch_matches_hugging_face(seq_len):
    half = HEAD_DIM // 2
    params = {"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": [1.0] * half, "long_factor": [3.0] * half,
              "original_max_position_embeddings": 2048, "factor": 4.0}
    config, hf_inv, hf_factor = _hf(params, max_pos=8192, seq_len=seq_len)
    inv, factor = _ours(config, seq_len)
    torch.testing.assert_close(inv, hf_inv, rtol=HF_FLOAT32, atol=0)
    default, _ = rs.default_inv_freq(HEAD_DIM)
    divisor = 3.0 if seq_len > 2048 else 1.0  # the long factors only past L0
    torch.testing.assert_close(inv, default / divisor, rtol=1e-12, atol=0)


@pytest.mark.parametrize("kind", ["dynamic", "longrope"])
@pytest.mark.parametrize("length", [15, 16, 17])
def test_rotation_at_the_switch_equals_the_models_rotary_module(kind, length):
    """The whole path: posenc's RoPE takes the length as 1 + the largest position, as the models' rotary module
    (dynamic_rope_update) does, so at L0 = 16 positions both keep the native frequencies and at 17 both switch."""
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    head_dim = 8
    rope = {"rope_type": kind, "rope_theta": 10000.0, "factor": 4.0}
    if kind == "longrope":
        rope.update(short_factor=[1.0, 1.0, 1.0, 1.0], long_factor=[2.0, 3.0, 5.0, 7.0],
                    original_max_position_embeddings=16)
    config = LlamaConfig(hidden_size=head_dim * 2, num_attention_heads=2, max_position_embeddings=16 if kind ==
                         "dynamic" else 64, rope_parameters=rope)
    module = LlamaRotaryEmbedding(config)
    q = torch.randn(1, 2, length, head_dim, generator=torch.Generator().manual_seed(length))
    positions = torch.arange(length)
    cos, sin = module(q, positions[None])
    want, _ = apply_rotary_pos_emb(q, q, cos, sin)
    encoding = posenc.from_hf_config(config)
    got, _ = encoding.rotate(q, q, positions, positions)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_the_memory_check_starts_at_256_mib_of_frequencies(monkeypatch):
    # 16 bytes per channel: a width of 2^24 channels needs 2^28 bytes (256 MiB), the first width checked
    asked = []
    monkeypatch.setattr(rs, "check_memory", lambda size, what, fix: asked.append(size))
    rs._check_dim(2 ** 24 - 2)
    assert asked == []
    rs._check_dim(2 ** 24)
    assert asked == [2 ** 28]


def test_defaults_of_the_scaling_functions():
    default, _ = rs.default_inv_freq(64)  # base 10000
    # dynamic NTK with its defaults (factor 1, L0 2048) at 8192 tokens: base' = 10000 * (8192 / 2048)^(64/62)
    new_base = 10000.0 * 4.0 ** (64 / 62)
    expected = torch.tensor([new_base ** (-2 * i / 64) for i in range(32)], dtype=torch.float64)
    torch.testing.assert_close(rs.dynamic_ntk(64, seq_len=8192)[0], expected, rtol=1e-12, atol=0)
    ones = [1.0] * 32
    inv, factor = rs.longrope(64, short_factor=ones, long_factor=ones)  # base 10000, factor 1
    torch.testing.assert_close(inv, default, rtol=0, atol=0)
    assert factor == 1.0


def test_longrope_divides_in_float64():
    long = [1.1 + 0.01 * i for i in range(32)]
    inv, _ = rs.longrope(64, short_factor=[1.0] * 32, long_factor=long, original_max_len=64, seq_len=65)
    default, _ = rs.default_inv_freq(64)
    expected = torch.tensor([float(default[i]) / long[i] for i in range(32)], dtype=torch.float64)  # Python floats
    assert inv.dtype == torch.float64
    torch.testing.assert_close(inv, expected, rtol=1e-15, atol=0)


@pytest.mark.parametrize("value", [True, "0.5", -0.1, 1.5])
def test_proportional_refuses_a_fraction_outside_0_1_or_not_a_number(value):
    with pytest.raises(PosencError, match=rf"partial_rotary_factor .* in \[0, 1\], got {value!r}"):
        rs.proportional(64, partial_rotary_factor=value)


@pytest.mark.parametrize(("scaling", "options", "words"), [
    (rs.yarn, {"factor": 2.0, "beta_fast": 0}, "yarn scaling: beta_fast must be a finite number > 0, got 0; the paper "
                                               "uses 32"),
    (rs.yarn, {"factor": 2.0, "beta_slow": -1}, "yarn scaling: beta_slow must be a finite number > 0, got -1; the "
                                                "paper uses 1"),
    (rs.yarn, {"factor": 2.0, "mscale": -1}, "yarn scaling: mscale must be a finite number >= 0, got -1; DeepSeek-V2 "
                                             "uses 0.707 or 1"),
    (rs.longrope, {"short_factor": [1.0] * 4, "long_factor": [1.0] * 4, "attention_factor": 0},
     "longrope scaling: attention_factor must be a finite number > 0, got 0; leave it out for sqrt(1 + ln s / ln L0)"),
])
def test_a_bad_scaling_number_is_named_with_its_scaling_and_an_example(scaling, options, words):
    with pytest.raises(PosencError) as info:
        scaling(8, **options)
    assert str(info.value) == words


# -- YaRN's correction range at its clamps ----------------------------------------------------------------------------
# low = floor(d(beta_fast)) clamped up to 0, high = ceil(d(beta_slow)) clamped down to dim - 1, with
# d(r) = dim ln(L0 / (2 pi r)) / (2 ln base). d(32) = 0 at L0 = 64 pi = 201.06: L0 = 201 gives a raw low just below 0
# (clamped), 202 just above (0.016, kept untruncated). L0 = 6: raw high = 64 ln(6 / 2pi) / (2 ln 10000) = -0.16, ceil 0,
# so low == high == 0 (the ramp's divide-by-zero guard). L0 = 4: high -1 < low 0 (every pair keeps its frequency).
# base 10, L0 4096: raw high = 64 ln(651.9) / (2 ln 10) = 90 > 63 (clamped to dim - 1).
YARN_CLAMPS = [
    (201, 10000.0, True, (0, 13)), (201, 10000.0, False, (0, 12.040)), (202, 10000.0, False, (0.0162, 12.057)),
    (6, 10000.0, True, (0, 0)), (4, 10000.0, True, (0, -1)), (4096, 10.0, True, (41, 63)),
]


@pytest.mark.parametrize(("original", "base", "truncate", "expected"), YARN_CLAMPS, ids=lambda v: str(v))
def test_yarn_at_its_correction_range_clamps_matches_hugging_face(original, base, truncate, expected):
    low, high = rs.yarn_correction_range(HEAD_DIM, base, original, truncate=truncate)
    assert (low, high) == pytest.approx(expected, abs=1e-3)
    params = {"rope_type": "yarn", "rope_theta": base, "factor": 4.0, "original_max_position_embeddings": original,
              "truncate": truncate}
    config, hf_inv, hf_factor = _hf(params, max_pos=4 * original)
    inv, factor = _ours(config)
    torch.testing.assert_close(inv, hf_inv, rtol=HF_FLOAT32, atol=0)
    assert math.isclose(factor, hf_factor, rel_tol=1e-6)


def test_yarn_ramp_by_hand_including_the_single_dimension_guard():
    # gamma_i = clamp((i - 1) / (3 - 1), 0, 1) for i = 0..4: 0, 0, 0.5, 1, 1
    assert rs.yarn_ramp(1, 3, 5).tolist() == [0.0, 0.0, 0.5, 1.0, 1.0]
    # low == high == 2: high becomes 2.001, so (i - 2) / 0.001 clamped: 0, 0, 0, 1
    assert rs.yarn_ramp(2, 2, 4).tolist() == [0.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize(("scale", "expected"), [(0.5, 1.0), (1.0, 1.0), (2.0, 0.1 * math.log(2) + 1),
                                                 (math.e, 1.1)])
def test_yarn_mscale_at_and_around_its_switch_at_one(scale, expected):
    # 1 for s <= 1 (a shrink would otherwise give a temperature below 1), 0.1 ln s + 1 above; at s = e, 1.1
    assert rs.yarn_mscale(scale) == pytest.approx(expected, rel=1e-15)
    assert rs.yarn_mscale(scale, 0.5) == pytest.approx(1.0 if scale <= 1 else 0.05 * math.log(scale) + 1, rel=1e-15)


# -- proportional (p-RoPE) at the ends of p and where p * dim / 2 is not whole ----------------------------------------
# kept pairs = floor(p * 64 / 2): p = 0 -> 0 (no pair turns), 0.25 -> 8, 0.3 -> floor(9.6) = 9, 1 -> 32 (RoFormer / s)


@pytest.mark.parametrize(("p", "kept"), [(0.0, 0), (0.25, 8), (0.3, 9), (1.0, 32)])
def test_proportional_matches_hugging_face_at_the_ends_of_p(p, kept):
    config, hf_inv, hf_factor = _hf({"rope_type": "proportional", "rope_theta": 10000.0, "factor": 2.0}, partial=p)
    inv, factor = _ours(config)
    assert inv.shape == (HEAD_DIM // 2,)  # the whole head's pairs, whatever p
    torch.testing.assert_close(inv, hf_inv, rtol=HF_FLOAT32, atol=0)
    assert factor == hf_factor == 1.0
    default, _ = rs.default_inv_freq(HEAD_DIM)
    assert int((inv > 0).sum()) == kept
    torch.testing.assert_close(inv[:kept], default[:kept] / 2, rtol=1e-12, atol=0)


def test_llama3_bands_by_hand():
    # dim 8, base 10000: f = 1, 0.1, 0.01, 0.001, wavelengths 2 pi / f = 6.28, 62.8, 628.3, 6283. L0 = 1024, low 1,
    # high 4: kept below 1024 / 4 = 256 (pairs 0, 1), divided by s = 8 above 1024 (pair 3), and pair 2 in between with
    # smooth = (1024 / (200 pi) - 1) / (4 - 1) = 0.2099: f' = (1 - smooth) 0.01 / 8 + smooth 0.01
    smooth = (1024 / (200 * math.pi) - 1) / 3
    inv, factor = rs.llama3(8, 10000.0, 8.0, 1.0, 4.0, 1024)
    expected = [1.0, 0.1, (1 - smooth) * 0.01 / 8 + smooth * 0.01, 0.001 / 8]
    torch.testing.assert_close(inv, torch.tensor(expected, dtype=torch.float64), rtol=1e-12, atol=0)
    assert factor == 1.0 and smooth == pytest.approx(0.2099, abs=1e-4)


def test_a_context_of_one_position_is_a_context_length_as_hugging_face_takes_it():
    # dynamic NTK measures against max_position_embeddings; at L0 = 1 and 3 tokens the base grows to
    # base * (s * 3 / 1 - (s - 1))^(d / (d - 2)) = 10000 * 5^(64/62) (s = 2), as Hugging Face's own init computes
    config, hf_inv, _ = _hf({"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0}, max_pos=1, seq_len=3)
    inv, _ = _ours(config, 3)
    torch.testing.assert_close(inv, hf_inv, rtol=HF_FLOAT32, atol=0)
    assert float(inv[-1]) == pytest.approx((10000.0 * 5 ** (64 / 62)) ** (-62 / 64), rel=1e-12)


def test_a_bad_high_freq_factor_names_llamas_value():
    # Llama 3.1's rope_scaling: low_freq_factor 1, high_freq_factor 4 (its config.json)
    with pytest.raises(PosencError, match=r"high_freq_factor must be a finite number > 0, got -4; Llama 3\.1 uses 4$"):
        posenc.build("rope", head_dim=8, scaling={"type": "llama3", "factor": 8, "high_freq_factor": -4,
                                                  "original_max_len": 8192})
