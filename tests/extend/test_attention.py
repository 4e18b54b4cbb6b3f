"""posenc's causal attention (registered with transformers' AttentionInterface) equals softmax attention computed
by hand, in every layout it takes: a whole sequence, new tokens after a cache in chunks, padding, grouped heads."""

from __future__ import annotations

import math
import re

import pytest
import torch
from extend_models import NATIVE, tiny_llama
from torch import nn

import posenc.extend.attention as attention
from posenc import PosencError
from posenc.extend import patch_model, scaled_rope
from posenc.extend.attention import causal_attention


def by_hand(q, k, v, allowed, scale):
    """softmax(q k^T * scale + mask) v with each query head h reading key head h // G; allowed [B, Tq, Tk]."""
    b, h, t_q, d = q.shape
    g = h // k.shape[1]
    k, v = k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1)  # [B, H, Tk, Dh]
    logits = q.double() @ k.double().transpose(-1, -2) * scale  # [B, H, Tq, Tk]
    logits = logits.masked_fill(~allowed[:, None], float("-inf"))
    return (logits.softmax(-1) @ v.double()).transpose(1, 2).float()  # [B, Tq, H, Dh]


def causal(t_q, t_k, batch=1):
    rows = torch.arange(t_q)[:, None] + (t_k - t_q)
    return (torch.arange(t_k)[None, :] <= rows).expand(batch, t_q, t_k)


def tensors(b=2, h=6, hk=2, t_q=37, t_k=37, d=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(b, h, t_q, d, generator=g), torch.randn(b, hk, t_k, d, generator=g),
            torch.randn(b, hk, t_k, d, generator=g))


MODULE = nn.Module().eval()


def test_a_whole_sequence_is_causal_attention():
    q, k, v = tensors()
    out, weights = causal_attention(MODULE, q, k, v, None, scaling=0.3)
    assert weights is None and out.shape == (2, 37, 6, 8)
    torch.testing.assert_close(out, by_hand(q, k, v, causal(37, 37, 2), 0.3), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("chunk", [1, 5, 16, 1024])
def test_new_tokens_after_a_cache_see_the_keys_before_them(monkeypatch, chunk):
    # 23 new queries after 14 cached keys, with and without the model's mask, in chunks of queries
    monkeypatch.setattr(attention, "QUERY_CHUNK", chunk)
    q, k, v = tensors(t_q=23, t_k=37)
    expected = by_hand(q, k, v, causal(23, 37, 2), 1 / math.sqrt(8))
    torch.testing.assert_close(causal_attention(MODULE, q, k, v, None, scaling=1 / math.sqrt(8))[0], expected,
                               rtol=1e-5, atol=1e-5)
    mask = causal(23, 37, 2)[:, None]  # [B, 1, Tq, Tk], what transformers' sdpa mask gives
    torch.testing.assert_close(causal_attention(MODULE, q, k, v, mask, scaling=1 / math.sqrt(8))[0], expected,
                               rtol=1e-5, atol=1e-5)


def test_padding_in_the_models_mask_is_kept(monkeypatch):
    monkeypatch.setattr(attention, "QUERY_CHUNK", 4)
    q, k, v = tensors(t_q=10, t_k=16)
    allowed = causal(10, 16, 2).clone()
    allowed[0, :, :3] = False  # the first row's first three tokens are left padding
    out = causal_attention(MODULE, q, k, v, allowed[:, None], scaling=0.5)[0]
    torch.testing.assert_close(out, by_hand(q, k, v, allowed, 0.5), rtol=1e-5, atol=1e-5)


def test_one_token_after_the_cache_sees_every_key():
    q, k, v = tensors(t_q=1, t_k=9)
    out = causal_attention(MODULE, q, k, v, None, scaling=0.5)[0]
    torch.testing.assert_close(out, by_hand(q, k, v, torch.ones(2, 1, 9, dtype=torch.bool), 0.5), rtol=1e-5,
                               atol=1e-5)


def test_arguments_it_does_not_know_are_an_error():
    import transformers

    q, k, v = tensors(t_q=3, t_k=3)
    with pytest.raises(PosencError, match=rf"does not know: softcap \(transformers {re.escape(transformers.__version__)}\)"):
        causal_attention(MODULE, q, k, v, None, scaling=0.5, softcap=30.0)
    with pytest.raises(PosencError, match="sliding-window attention \\(window 4\\)"):
        causal_attention(MODULE, q, k, v, None, scaling=0.5, sliding_window=4)
    with pytest.raises(PosencError, match="bidirectional"):
        causal_attention(MODULE, q, k, v, None, scaling=0.5, is_causal=False)
    with pytest.raises(PosencError, match="boolean mask"):
        causal_attention(MODULE, q, k, v, torch.zeros(2, 1, 3, 3), scaling=0.5)
    # what transformers' attention modules pass and the function has no use for is accepted
    causal_attention(MODULE, q, k, v, None, scaling=0.5, position_ids=torch.arange(3), use_cache=True)


def test_the_patched_model_runs_posencs_attention_and_the_library_gives_the_same_logits():
    ids = torch.randint(0, 128, (1, 3 * NATIVE), generator=torch.Generator().manual_seed(2))
    library = tiny_llama()
    ours = patch_model(tiny_llama(), scaled_rope(library.config, "none", 1.0))
    assert ours.config._attn_implementation == attention.ATTENTION
    kept = patch_model(tiny_llama(), scaled_rope(library.config, "none", 1.0), attention=None)
    assert kept.config._attn_implementation == "sdpa"
    with torch.no_grad():
        expected = library(ids).logits
        torch.testing.assert_close(ours(ids).logits, expected, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(kept(ids).logits, expected, rtol=1e-4, atol=1e-4)
