"""relative_key (Shaw et al. 2018) against transformers' ``relative_key`` attention (``Wav2Vec2BertSelfAttention``,
random-initialised, no download), against hand-worked values, and by its properties."""

from __future__ import annotations

import pytest
import torch

import posenc
from posenc.errors import PosencError
from posenc.model.transformer import Attention

transformers = pytest.importorskip("transformers")
from transformers.models.wav2vec2_bert import modeling_wav2vec2_bert as w2v  # noqa: E402

HEADS, HEAD_DIM, LEFT, RIGHT, T = 2, 4, 3, 2, 7  # T past both clips, L != R so a flipped sign shows


def _reference() -> w2v.Wav2Vec2BertSelfAttention:
    """transformers' relative_key self-attention, random-initialised in float64, its biases zeroed (posenc's
    projections have none) and its distance table drawn large enough to move the attention visibly."""
    config = w2v.Wav2Vec2BertConfig(hidden_size=HEADS * HEAD_DIM, num_attention_heads=HEADS, attention_dropout=0.0,
                                    position_embeddings_type="relative_key", left_max_position_embeddings=LEFT,
                                    right_max_position_embeddings=RIGHT)
    config._attn_implementation = "eager"
    torch.manual_seed(0)
    module = w2v.Wav2Vec2BertSelfAttention(config).double().eval()
    with torch.no_grad():
        for linear in (module.linear_q, module.linear_k, module.linear_v, module.linear_out):
            linear.bias.zero_()
        module.distance_embedding.weight.normal_(0.0, 1.0)
    return module


def _ours(reference: w2v.Wav2Vec2BertSelfAttention) -> tuple[Attention, posenc.PositionalEncoding]:
    """posenc's attention and relative_key with the reference's weights."""
    attention = Attention(HEADS * HEAD_DIM, HEADS, HEADS).double()
    shaw = posenc.build("relative_key", head_dim=HEAD_DIM, max_left=LEFT, max_right=RIGHT).double()
    with torch.no_grad():
        attention.q_proj.weight.copy_(reference.linear_q.weight)
        attention.kv_proj.weight.copy_(torch.cat([reference.linear_k.weight, reference.linear_v.weight]))
        attention.out_proj.weight.copy_(reference.linear_out.weight)
        shaw.table.copy_(reference.distance_embedding.weight)  # row d + L for distance d, as transformers' table
    return attention, shaw


def test_the_logit_bias_equals_transformers_relative_key():
    reference = _reference()
    _, shaw = _ours(reference)
    q, k = torch.randn(2, HEADS, T, HEAD_DIM, dtype=torch.float64), torch.randn(2, HEADS, T, HEAD_DIM,
                                                                              dtype=torch.float64)
    _, expected = w2v._apply_relative_key_position_encoding(reference, q, k)  # [B, H, T, T], scaled
    ours = shaw.contextual_bias(q, k, torch.arange(T), torch.arange(T))
    torch.testing.assert_close(ours, expected, rtol=1e-12, atol=1e-12)


def test_attention_with_it_equals_transformers_attention():
    reference = _reference()
    attention, shaw = _ours(reference)
    x = torch.randn(2, T, HEADS * HEAD_DIM, dtype=torch.float64)
    with torch.no_grad():
        expected, _ = reference(x)
        ours = attention(x, torch.arange(T), shaw, None, causal=False)
        nope = attention(x, torch.arange(T), posenc.build("nope"), None, causal=False)
    torch.testing.assert_close(ours, expected, rtol=1e-10, atol=1e-10)
    assert (ours - nope).abs().max() > 1e-2  # the positions moved the output: the comparison is not vacuous


def test_hand_worked_bias():
    """Dh = 1, L = R = 1, table a[-1], a[0], a[1] = 10, 20, 30; q = 2 at every position, scaled by 1/sqrt(1):
    query 0 sees distances 0, 1, 2 -> clipped 0, 1, 1 -> 40, 60, 60; query 2 sees -2, -1, 0 -> 20, 20, 40."""
    shaw = posenc.build("relative_key", head_dim=1, max_left=1)
    with torch.no_grad():
        shaw.table.copy_(torch.tensor([[10.0], [20.0], [30.0]]))
    q = torch.full((1, 1, 3, 1), 2.0)
    bias = shaw.contextual_bias(q, q, torch.arange(3), torch.arange(3))
    assert bias[0, 0].tolist() == [[40.0, 60.0, 60.0], [20.0, 40.0, 60.0], [20.0, 20.0, 40.0]]


def test_a_kv_cache_query_and_shifted_positions_give_the_full_rows():
    shaw = posenc.build("relative_key", head_dim=HEAD_DIM, max_left=LEFT, max_right=RIGHT)
    q, k = torch.randn(1, HEADS, T, HEAD_DIM), torch.randn(1, HEADS, T, HEAD_DIM)
    full = shaw.contextual_bias(q, k, torch.arange(T), torch.arange(T))
    last = shaw.contextual_bias(q[:, :, -1:], k, torch.tensor([T - 1]), torch.arange(T))
    torch.testing.assert_close(last, full[:, :, -1:])
    shifted = shaw.contextual_bias(q, k, torch.arange(T)[None] + 5, torch.arange(T)[None] + 5)  # [B, T] positions
    torch.testing.assert_close(shifted, full)


def test_it_declares_a_contextual_bias_and_nothing_else():
    info = posenc.get_class("relative_key").info
    assert info.family == "contextual" and set(info.hooks) == {"contextual_bias"}
    assert (info.length_limited, info.randomized, info.constant_across_channels, info.per_layer) == (
        False, False, False, False)
    assert "relative_key" in posenc.available()


@pytest.mark.parametrize("options, fragment", [({"max_left": 0}, "positive integer max_left, got 0"),
                                               ({"head_dim": 2.5}, "positive integer head_dim, got 2.5"),
                                               ({"max_right": -1}, "positive integer max_right, got -1")])
def test_bad_sizes_are_refused(options, fragment):
    with pytest.raises(PosencError, match=fragment):
        posenc.build("relative_key", **options)


def test_a_query_of_another_width_is_refused():
    shaw = posenc.build("relative_key", head_dim=8)
    q = torch.randn(1, 2, 3, 4)
    with pytest.raises(PosencError, match="built for head_dim 8"):
        shaw.contextual_bias(q, q, torch.arange(3), torch.arange(3))


def test_a_model_holds_one_table_shared_by_its_layers():
    """(L + R + 1) x Dh learned values, once: d_model 32, 4 heads (Dh 8), L = R = 64 -> 129 * 8."""
    from posenc.model import Transformer, TransformerConfig

    model = Transformer(TransformerConfig(vocab_size=20, d_model=32, n_heads=4, n_layers=3, encoding="relative_key"))
    assert len({id(e) for e in model.encodings}) == 1
    nope = Transformer(TransformerConfig(vocab_size=20, d_model=32, n_heads=4, n_layers=3, encoding="nope"))
    assert sum(p.numel() for p in model.parameters()) - sum(p.numel() for p in nope.parameters()) == 129 * 8
