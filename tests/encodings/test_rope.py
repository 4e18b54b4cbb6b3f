"""RoPE: against Hugging Face's rotary, against a float64 evaluation of the formula, and its properties."""

import math

import pytest
import torch
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

import posenc
from posenc.encodings.rope import convert_qk_weights
from posenc.errors import PosencError


def rope64(q: torch.Tensor, positions: torch.Tensor, base: float, rotary_dim: int, pairing: str,
           inv_freq: torch.Tensor | None = None, factor: float = 1.0) -> torch.Tensor:
    """Float64 evaluation of RoFormer's rotation, written independently of posenc's code path."""
    q = q.double()
    if inv_freq is None:
        inv_freq = torch.tensor([base ** (-2 * i / rotary_dim) for i in range(rotary_dim // 2)], dtype=torch.float64)
    theta = positions.double()[..., None] * inv_freq.double()  # [(B,) T, R/2]
    if theta.dim() == 3:
        theta = theta[:, None]
    c, s = theta.cos() * factor, theta.sin() * factor
    out = q.clone()
    if pairing == "half":
        i1, i2 = torch.arange(rotary_dim // 2), torch.arange(rotary_dim // 2) + rotary_dim // 2
    else:
        i1, i2 = torch.arange(0, rotary_dim, 2), torch.arange(1, rotary_dim, 2)
    x1, x2 = q[..., i1], q[..., i2]
    out[..., i1] = x1 * c - x2 * s
    out[..., i2] = x2 * c + x1 * s
    return out


def _hf_rotary(head_dim: int, base: float, positions: torch.Tensor, rope_parameters: dict | None = None):
    params = {"rope_type": "default", "rope_theta": base, **(rope_parameters or {})}
    config = LlamaConfig(hidden_size=head_dim * 2, num_attention_heads=2, max_position_embeddings=8192,
                         rope_parameters=params)
    emb = LlamaRotaryEmbedding(config)
    x = torch.zeros(1, positions.shape[-1], head_dim)
    return emb(x, positions.reshape(1, -1) if positions.dim() == 1 else positions)


@pytest.mark.parametrize("offset", [0, 1000])
def test_equals_hugging_face_rotary_to_positions_4095(offset):
    head_dim, T = 64, 4096 - offset
    positions = torch.arange(offset, offset + T)
    q, k = torch.randn(1, 2, T, head_dim), torch.randn(1, 2, T, head_dim)
    cos, sin = _hf_rotary(head_dim, 10000.0, positions)
    hf_q, hf_k = apply_rotary_pos_emb(q, k, cos, sin)
    ours_q, ours_k = posenc.build("rope", head_dim=head_dim).rotate(q, k, positions, positions)
    assert (ours_q - hf_q).abs().max() < 2e-3 and (ours_k - hf_k).abs().max() < 2e-3


@pytest.mark.parametrize("params", [
    {"rope_type": "linear", "factor": 4.0},
    {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048},
    {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
     "original_max_position_embeddings": 1024},
    {"rope_type": "dynamic", "factor": 2.0},
])
def test_scaled_rotary_equals_hugging_face(params):
    head_dim = 64
    positions = torch.arange(0, 4096, 7)
    q, k = torch.randn(1, 2, positions.numel(), head_dim), torch.randn(1, 2, positions.numel(), head_dim)
    cos, sin = _hf_rotary(head_dim, 10000.0, positions, params)
    hf_q, hf_k = apply_rotary_pos_emb(q, k, cos, sin)
    config = LlamaConfig(hidden_size=head_dim * 2, num_attention_heads=2, max_position_embeddings=8192,
                         rope_parameters={"rope_theta": 10000.0, **params})
    rope = posenc.from_hf_config(config)
    ours_q, ours_k = rope.rotate(q, k, positions, positions)
    assert (ours_q - hf_q).abs().max() < 2e-3 and (ours_k - hf_k).abs().max() < 2e-3


@pytest.mark.parametrize("pairing", ["half", "interleaved"])
@pytest.mark.parametrize("rotary_dim", [32, 16])
def test_equals_float64_formula(pairing, rotary_dim):
    q, k = torch.randn(2, 4, 9, 32), torch.randn(2, 2, 9, 32)
    positions = torch.tensor([[0, 1, 2, 3, 4, 5, 6, 7, 8], [40, 41, 42, 43, 44, 45, 46, 47, 48]])  # per-row offsets
    rope = posenc.build("rope", head_dim=32, rotary_dim=rotary_dim, pairing=pairing)
    ours_q, ours_k = rope.rotate(q, k, positions, positions)
    torch.testing.assert_close(ours_q.double(), rope64(q, positions, 10000.0, rotary_dim, pairing), rtol=0, atol=1e-5)
    torch.testing.assert_close(ours_k.double(), rope64(k, positions, 10000.0, rotary_dim, pairing), rtol=0, atol=1e-5)
    # partial rotary: the last head_dim - rotary_dim channels are untouched
    assert torch.equal(ours_q[..., rotary_dim:], q[..., rotary_dim:])


def test_precision_up_to_2_pow_24():
    positions = torch.tensor([0, 1, 2 ** 20 + 3, 2 ** 23 - 1, 2 ** 24 - 5, 2 ** 24])
    q, k = torch.randn(1, 2, positions.numel(), 64), torch.randn(1, 2, positions.numel(), 64)
    rope = posenc.build("rope", head_dim=64)
    reference = rope64(q, positions, 10000.0, 64, "half")
    ours, _ = rope.rotate(q, k, positions, positions)
    assert (ours.double() - reference).abs().max() < 1e-5
    # bfloat16 tensors, float32 math: within 1e-2 relative of the float64 reference of the bf16 input
    qb, kb = q.bfloat16(), k.bfloat16()
    ours_b, _ = rope.rotate(qb, kb, positions, positions)
    reference_b = rope64(qb, positions, 10000.0, 64, "half")
    rel = (ours_b.double() - reference_b).norm() / reference_b.norm()
    assert ours_b.dtype == torch.bfloat16 and rel < 1e-2


def test_hugging_face_float32_angles_drift_where_posenc_does_not():
    # the reason for float64 tables: HF builds angles in float32 and is far off at 2^24
    positions = torch.tensor([2 ** 24])
    q = torch.randn(1, 1, 1, 64)
    cos, sin = _hf_rotary(64, 10000.0, positions)
    hf_q, _ = apply_rotary_pos_emb(q, q, cos, sin)
    ours, _ = posenc.build("rope", head_dim=64).rotate(q, q, positions, positions)
    reference = rope64(q, positions, 10000.0, 64, "half")
    assert (hf_q.double() - reference).abs().max() > 100 * (ours.double() - reference).abs().max()


def test_logits_depend_on_offset_only():
    rope = posenc.build("rope", head_dim=16)
    q, k = torch.randn(1, 1, 1, 16), torch.randn(1, 1, 1, 16)
    logits = []
    for start in (0, 17, 1000):
        qr, _ = rope.rotate(q, q, torch.tensor([start + 5]), torch.tensor([start + 5]))
        _, kr = rope.rotate(k, k, torch.tensor([start]), torch.tensor([start]))
        logits.append(float((qr * kr).sum()))
    assert max(logits) - min(logits) < 1e-4


def test_per_row_positions_equal_rows_done_one_by_one():
    rope = posenc.build("rope", head_dim=16)
    q, k = torch.randn(3, 2, 5, 16), torch.randn(3, 2, 5, 16)
    positions = torch.tensor([[0, 1, 2, 3, 4], [7, 8, 9, 10, 11], [0, 0, 0, 1, 2]])  # offset; left padding
    both_q, both_k = rope.rotate(q, k, positions, positions)
    for b in range(3):
        one_q, one_k = rope.rotate(q[b:b + 1], k[b:b + 1], positions[b], positions[b])
        torch.testing.assert_close(both_q[b:b + 1], one_q)
        torch.testing.assert_close(both_k[b:b + 1], one_k)


def test_kv_cache_offsets_match_the_full_sequence():
    rope = posenc.build("rope", head_dim=16)
    q, k = torch.randn(1, 2, 10, 16), torch.randn(1, 2, 10, 16)
    full_q, full_k = rope.rotate(q, k, torch.arange(10), torch.arange(10))
    last_q, _ = rope.rotate(q[:, :, 9:], k, torch.tensor([9]), torch.arange(10))
    torch.testing.assert_close(last_q, full_q[:, :, 9:])


def test_inplace_writes_into_the_inputs():
    rope = posenc.build("rope", head_dim=16)
    q, k = torch.randn(1, 2, 4, 16), torch.randn(1, 1, 4, 16)
    expected_q, expected_k = rope.rotate(q, k, torch.arange(4), torch.arange(4))
    out_q, out_k = rope.rotate(q, k, torch.arange(4), torch.arange(4), inplace=True)
    assert out_q.data_ptr() == q.data_ptr() and out_k.data_ptr() == k.data_ptr()
    torch.testing.assert_close(q, expected_q)
    torch.testing.assert_close(k, expected_k)


@pytest.mark.parametrize("rotary_dim", [64, 32])
def test_pairing_conversion_gives_identical_logits(rotary_dim):
    n_heads, head_dim, d = 4, 64, 96
    x = torch.randn(2, 7, d)
    w_q, w_k = torch.randn(n_heads * head_dim, d), torch.randn(n_heads * head_dim, d)
    positions = torch.arange(7)

    def logits(wq, wk, pairing):
        rope = posenc.build("rope", head_dim=head_dim, rotary_dim=rotary_dim, pairing=pairing)
        q = (x @ wq.T).view(2, 7, n_heads, head_dim).transpose(1, 2)  # [B, H, T, Dh]
        k = (x @ wk.T).view(2, 7, n_heads, head_dim).transpose(1, 2)
        q, k = rope.rotate(q, k, positions, positions)
        return q @ k.transpose(-1, -2)

    half = logits(w_q, w_k, "half")
    converted = logits(convert_qk_weights(w_q, n_heads, head_dim, "half", "interleaved", rotary_dim),
                       convert_qk_weights(w_k, n_heads, head_dim, "half", "interleaved", rotary_dim), "interleaved")
    torch.testing.assert_close(converted, half, rtol=1e-5, atol=1e-3)
    # and back again is the identity on the weights
    there = convert_qk_weights(w_q, n_heads, head_dim, "half", "interleaved", rotary_dim)
    assert torch.equal(convert_qk_weights(there, n_heads, head_dim, "interleaved", "half", rotary_dim), w_q)
    # without the conversion the logits differ: the mismatch is silent garbage
    assert (logits(w_q, w_k, "interleaved") - half).abs().max() > 1.0


def test_errors():
    with pytest.raises(PosencError, match="even"):
        posenc.build("rope", head_dim=63)
    with pytest.raises(PosencError, match="cannot exceed head_dim"):
        posenc.build("rope", head_dim=32, rotary_dim=64)
    with pytest.raises(PosencError, match="pairing"):
        posenc.build("rope", pairing="zigzag")
    rope = posenc.build("rope", head_dim=16)
    q = torch.randn(2, 2, 4, 16)
    with pytest.raises(PosencError, match="same batch"):
        rope.rotate(q, torch.randn(3, 2, 4, 16), torch.arange(4), torch.arange(4))
    with pytest.raises(PosencError, match="head_dim"):
        rope.rotate(q, torch.randn(2, 2, 4, 8), torch.arange(4), torch.arange(4))
    with pytest.raises(PosencError, match="integers"):
        rope.rotate(q, q, torch.arange(4.0), torch.arange(4))
    with pytest.raises(PosencError, match=">= 0"):
        rope.rotate(q, q, torch.arange(4) - 1, torch.arange(4))
    with pytest.raises(PosencError, match="4 tokens"):
        rope.rotate(q, q, torch.arange(5), torch.arange(4))
    with pytest.raises(PosencError, match="multiple"):
        rope.rotate(torch.randn(2, 3, 4, 16), torch.randn(2, 2, 4, 16), torch.arange(4), torch.arange(4))


def test_errors_name_the_argument():
    from posenc.encodings.rope import pairing_permutation

    rope = posenc.build("rope", head_dim=8)
    q = torch.randn(1, 1, 3, 8)
    with pytest.raises(PosencError, match="^q_positions has 2 entries but the sequence has 3 tokens"):
        rope.rotate(q, q, torch.arange(2), torch.arange(3))
    with pytest.raises(PosencError, match="^source pairing must be 'half' or 'interleaved', got 'zigzag'"):
        pairing_permutation(8, 8, "zigzag", "half")
    with pytest.raises(PosencError, match="^target pairing must be 'half' or 'interleaved', got 'zigzag'"):
        pairing_permutation(8, 8, "half", "zigzag")


def test_yarn_attention_factor_scales_the_output():
    rope = posenc.build("rope", head_dim=16, scaling={"type": "yarn", "factor": 8, "original_max_len": 64})
    q = torch.randn(1, 1, 1, 16)
    out, _ = rope.rotate(q, q, torch.tensor([0]), torch.tensor([0]))
    torch.testing.assert_close(out, q * (0.1 * math.log(8) + 1))


def _tables_by_hand(positions: list[int], head_dim: int = 8, base: float = 10000.0):
    """cos and sin of p * base^(-2i/head_dim) in Python floats, rounded to float32 once."""
    angles = [[p * base ** (-2 * i / head_dim) for i in range(head_dim // 2)] for p in positions]
    return (torch.tensor([[math.cos(a) for a in row] for row in angles]),
            torch.tensor([[math.sin(a) for a in row] for row in angles]))


@pytest.mark.parametrize(("top", "cached"), [(255, 256), (256, 256), (257, 512), (1 << 17, 1 << 17),
                                             ((1 << 17) + 1, None)])
def test_the_table_cache_at_its_size_steps_and_its_limit(top, cached):
    """The cache holds max(256, the next power of two of the largest position + 1) rows up to 2^17 positions, and is
    skipped past it: either side of each step, the tables equal cos and sin worked in Python floats."""
    from posenc.encodings import rope as rope_module

    assert rope_module._CACHE_LIMIT == 1 << 17
    rope = posenc.build("rope", head_dim=8)
    positions = [0, 1, top - 2, top - 1]  # the largest position is top - 1
    cos, sin = rope.tables(torch.tensor(positions))
    want_cos, want_sin = _tables_by_hand(positions)
    torch.testing.assert_close(cos, want_cos, rtol=0, atol=1e-6)
    torch.testing.assert_close(sin, want_sin, rtol=0, atol=1e-6)
    assert (rope._cache is None if cached is None else rope._cache[0].shape == (cached, 4))
