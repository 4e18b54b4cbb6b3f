"""What a head outputs (posenc.probe.head_output): each head's output against the attention-weighted values
computed by hand from the captured attention, on MiniLM and a tiny Llama with grouped-query attention; the query
range by hand; the word probe on features built from the words (it reads them), on noise (it does not) and on the
position-only null (never more than each position's most frequent word); a decoder's output reading through the
shared estimates."""

import math

import numpy as np
import pytest
import torch

from posenc.errors import PosencError
from posenc.probe.capture import capture
from posenc.probe.head_output import (
    decoder_outputs,
    head_outputs,
    output_estimates,
    output_modules,
    position_only,
    query_range,
    word_readout,
)
from posenc.probe.layers import window_folds

WINDOWS = [[101, 2023, 2003, 1037, 3231, 1997, 1996, 102], [101, 1996, 4937, 2938, 2006, 1996, 13523, 102]]


def _by_hand(model, ids, layer, value):
    """Each head's ``sum_k a[q, k] v[k]`` from the captured attention and the value projection of the captured
    input: ``[T, H, dh]``."""
    weights = {}

    def keep(i, w):
        weights[i] = w[0]

    outputs, inputs = head_outputs(model, [ids], [layer])
    x = torch.from_numpy(inputs[layer][0])
    with capture(model, keep), torch.no_grad():
        batch = torch.tensor([ids])
        model(input_ids=batch, attention_mask=torch.ones_like(batch))
        v = value(x)  # [T, Hk * dh]
    heads = weights[layer].shape[0]
    dh = outputs[layer].shape[-1]
    v = v.reshape(v.shape[0], -1, dh)  # [T, Hk, dh]
    v = v.repeat_interleave(heads // v.shape[1], dim=1)  # grouped-query: head h reads kv head h // (H / Hk)
    return outputs[layer][0], torch.einsum("hqk,khd->qhd", weights[layer].double(), v.double()).numpy()


def test_minilm_head_outputs_are_the_attention_weighted_values(minilm):
    model = minilm.model
    for layer in (0, 3):
        got, want = _by_hand(model, WINDOWS[0], layer, model.encoder.layer[layer].attention.self.value)
        assert got.shape == (8, 12, 32)
        np.testing.assert_allclose(got, want, atol=2e-5, rtol=1e-4)


def test_tiny_llama_head_outputs_are_the_attention_weighted_values(tiny_llama):
    model = tiny_llama.model
    got, want = _by_hand(model, WINDOWS[1], 1, model.model.layers[1].self_attn.v_proj)
    assert got.shape == (8, 4, 8)
    np.testing.assert_allclose(got, want, atol=1e-6, rtol=1e-4)
    # the input the heads read is the layer's input after its LayerNorm, not the residual stream itself
    outputs, inputs = head_outputs(model, WINDOWS, [0, 1])
    assert sorted(outputs) == [0, 1] and inputs[0].shape == (2, 8, 32)
    embedded = model.model.embed_tokens(torch.tensor(WINDOWS)).detach()
    normed = model.model.layers[0].input_layernorm(embedded).detach().numpy()
    np.testing.assert_allclose(inputs[0], normed, atol=1e-6)


def test_head_outputs_refuses_what_it_cannot_read(minilm):
    with pytest.raises(PosencError, match="at least one window"):
        head_outputs(minilm.model, [], [0])
    with pytest.raises(PosencError, match="one non-zero length"):
        head_outputs(minilm.model, WINDOWS + [[101, 102]], [0])
    with pytest.raises(PosencError, match=r"0\.\.5, got \[6\]"):
        head_outputs(minilm.model, WINDOWS, [6])
    with pytest.raises(PosencError, match="output projections"):
        output_modules(torch.nn.Linear(2, 2))


def test_query_range_by_hand():
    # 6 tokens: [CLS] w1 w2 w3 w4 [SEP]: words at 1..4
    assert query_range(6, -1, 1, 1) == (2, 5)  # q = 2, 3, 4 read 1, 2, 3
    assert query_range(6, 1, 1, 1) == (1, 4)  # q = 1, 2, 3 read 2, 3, 4
    assert query_range(6, 0, 1, 1) == (1, 5)
    assert query_range(6, -2, 0, 0) == (2, 6)
    with pytest.raises(PosencError, match="offset \\+4"):
        query_range(6, 4, 1, 1)


def _words(offset, noise=0.0, seed=0):
    """Windows of random words, and features at each query that hold the word at ``q + offset`` through a random
    invertible map (plus ``noise``)."""
    rng = np.random.default_rng(seed)
    table = rng.normal(size=(20, 8))
    ids = rng.integers(0, 20, size=(12, 10))
    ids[:, 0], ids[:, -1] = 0, 1  # special tokens at both ends
    start, stop = query_range(10, offset, 1, 1)
    features = rng.normal(size=(12, 10, 8))  # what lies outside the query range is never read
    mix = rng.normal(size=(8, 8))
    features[:, start:stop] = table[ids[:, start + offset:stop + offset]] @ mix
    return table, ids, features + noise * rng.normal(size=features.shape)


@pytest.mark.parametrize("offset", [-1, 0, 2])
def test_the_probe_reads_the_word_at_the_offset_from_features_that_hold_it(offset):
    table, ids, features = _words(offset)
    correct = word_readout(features, ids, offset, 1, 1, table, window_folds(12))
    assert correct.shape == (12, query_range(10, offset, 1, 1)[1] - query_range(10, offset, 1, 1)[0])
    assert correct.mean() == 1.0
    # the word at another offset is not what the features hold
    other = word_readout(features, ids, offset - 1 if offset > -1 else 1, 1, 1, table, window_folds(12))
    assert other.mean() < 0.3


def test_noise_and_the_position_only_null_read_no_more_than_chance_allows():
    table, ids, features = _words(-1)
    rng = np.random.default_rng(1)
    noise = word_readout(rng.normal(size=features.shape), ids, -1, 1, 1, table, window_folds(12))
    assert noise.mean() < 0.25  # 20 words: chance 0.05, a held-out probe on noise stays near it
    null = position_only(features)
    correct = word_readout(null, ids, -1, 1, 1, table, window_folds(12))
    # one vector per position: the probe names one word per position (per fold), so each position's queries are
    # right at most as often as that position's most frequent target word across the windows
    targets = ids[:, 1:8]
    bound = np.mean([np.bincount(targets[:, j]).max() / len(targets) for j in range(targets.shape[1])])
    assert correct.mean() <= bound + 1e-12


def test_position_only_by_hand():
    features = np.arange(12, dtype=float).reshape(2, 3, 2)
    got = position_only(features)
    np.testing.assert_array_equal(got[0], [[3, 4], [5, 6], [7, 8]])
    np.testing.assert_array_equal(got[1], got[0])
    with pytest.raises(PosencError):
        position_only(np.zeros((0, 3, 2)))
    with pytest.raises(PosencError, match="features \\[W, T, d\\] and ids"):
        word_readout(np.zeros((2, 3, 2)), np.zeros((2, 4), dtype=int), 0, 0, 0, np.zeros((5, 2)), [np.array([0])])


def test_decoder_outputs_read_each_head_through_the_shared_estimates(tiny_llama):
    # the SmolLM2 output reading on the tiny Llama: the same windows two_passes reads, the heads given by hand, and
    # the estimates those of output_estimates on head_outputs (no special tokens: Llama's tokenizer here is MiniLM's,
    # which adds [CLS] and [SEP], so both ends are left out of the queries)
    from posenc.corpora import special_tokens, text_windows

    model, tokenizer = tiny_llama.model, tiny_llama.tokenizer
    heads = [(1, 0, -1), (0, 2, 0)]
    estimates, numbers = decoder_outputs(model, tokenizer, 4, 16, heads)
    windows, _ = text_windows(tokenizer, 16, 4)
    prefix, suffix = special_tokens(tokenizer)
    outputs, inputs = head_outputs(model.model, windows, [0, 1])
    table = model.get_input_embeddings().weight.detach().numpy()
    want, _ = output_estimates(outputs, inputs, np.asarray(windows), heads, len(prefix), len(suffix), table)
    assert estimates == want and sorted(numbers["per_head"]) == ["L0H2", "L1H0"]
    assert all(0 <= e.low <= e.value <= e.high <= 1 and e.n == 4 for e in estimates.values())
    empty, _ = decoder_outputs(model, tokenizer, 4, 16, [])
    assert all(math.isnan(e.value) for e in empty.values())
