"""Evaluation by length: window coverage, perplexity of a uniform model, "cannot run" for a learned table."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.lab.evaluate import CANNOT_RUN, evaluate_lm, lm_windows
from posenc.model import Transformer, TransformerConfig


@settings(max_examples=60, deadline=None)
@given(length=st.integers(1, 64), stride=st.integers(1, 64), chunks=st.integers(1, 6),
       protocol=st.sampled_from(["nonoverlap", "sliding"]))
def test_windows_score_every_target_once(length, stride, chunks, protocol):
    stride = min(stride, length)
    n_tokens = length * chunks
    scored = []
    for start, n in lm_windows(n_tokens, length, protocol, stride):
        assert start >= 0 and 1 <= n <= length
        # the window reads x[start:start+length] and scores targets start+length-n+1 .. start+length
        scored.extend(range(start + length - n + 1, start + length + 1))
        if protocol == "sliding" and start > 0:
            assert length - n >= length - stride  # every later scored token sees >= length - stride context
    assert sorted(scored) == list(range(1, n_tokens + 1))


def test_nonoverlapping_windows_tile_the_text_and_sliding_ones_step_by_the_stride():
    # 12 targets, windows of 4: three disjoint windows, each scoring all 4 of its predictions
    assert lm_windows(12, 4, "nonoverlap", 1) == [(0, 4), (4, 4), (8, 4)]
    assert lm_windows(12, 4, "nonoverlapping", 1) == [(0, 4), (4, 4), (8, 4)]  # the alias
    # sliding with stride 2: the first window scores 4, each later one moves by 2 and scores its last 2
    assert lm_windows(12, 4, "sliding", 2) == [(0, 4), (2, 2), (4, 2), (6, 2), (8, 2)]


def _uniform_model(encoding="nope", max_len=16, vocab=12):
    model = Transformer(TransformerConfig(vocab_size=vocab, d_model=16, n_heads=2, n_layers=1, encoding=encoding,
                                          max_len=max_len))
    torch.nn.init.zeros_(model.head.weight)  # logits all zero -> uniform prediction
    return model


def test_uniform_model_has_perplexity_vocab_size():
    # uniform over V: nll = ln V per character, ppl = V, bpc = log2 V (12 -> 3.585)
    model = _uniform_model()
    text = torch.randint(0, 12, (400,))
    out = evaluate_lm(model, text, [8, 16, 32], max_tokens=128)
    for protocol in ("nonoverlap", "sliding"):
        for length in ("8", "16", "32"):
            cell = out[protocol][length]
            assert cell["ppl"] == pytest.approx(12, rel=1e-5)
            assert cell["bpc"] == pytest.approx(math.log2(12), rel=1e-5)
            assert cell["tokens"] == 128


def test_learned_table_cannot_run_past_its_rows():
    model = _uniform_model("learned", max_len=16)
    out = evaluate_lm(model, torch.randint(0, 12, (300,)), [8, 16, 32, 64], max_tokens=128)
    for protocol in ("nonoverlap", "sliding"):
        assert isinstance(out[protocol]["16"], dict)
        assert out[protocol]["32"] == CANNOT_RUN and out[protocol]["64"] == CANNOT_RUN


def test_sliding_window_matches_a_direct_computation():
    # reference: with window 8 and stride 2 over 32 targets, target t (1-based) is scored by the window ending at
    # e = 8 for t <= 8, else e = 8 + 2 * ceil((t - 8) / 2); that window reads x[e-8:e] and predicts t at index t-1-(e-8).
    torch.manual_seed(0)
    model = Transformer(TransformerConfig(vocab_size=12, d_model=16, n_heads=2, n_layers=1, encoding="rope")).eval()
    text = torch.randint(0, 12, (40,))
    total = 0.0
    with torch.no_grad():
        for t in range(1, 33):
            e = 8 if t <= 8 else 8 + 2 * math.ceil((t - 8) / 2)
            logp = torch.log_softmax(model(text[None, e - 8:e])[0], -1)  # [8, V]
            total -= float(logp[t - 1 - (e - 8), text[t]])
    out = evaluate_lm(model, text, [8], protocols=("sliding",), max_tokens=32, stride=2)
    assert out["sliding"]["8"]["nll"] == pytest.approx(total / 32, rel=1e-5)
