"""Head statistics on hand-built attention patterns, and hooks that capture the same weights the model returns."""

import numpy as np
import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from posenc.probe.capture import attention_modules, capture
from posenc.probe.heads import HeadAccumulator, distance_bins, voita_fractions

T = 20


def _offset_head(offset: int) -> torch.Tensor:
    """All weight on key i + offset (on itself where that falls outside the sequence)."""
    a = torch.zeros(T, T)
    for i in range(T):
        j = i + offset
        a[i, j if 0 <= j < T else i] = 1.0
    return a


def _uniform_causal_head() -> torch.Tensor:
    return torch.ones(T, T).tril() / torch.arange(1, T + 1)[:, None]


def test_pure_previous_token_head_fires_and_uniform_does_not():
    acc = HeadAccumulator(n_layers=1, n_heads=3, max_len=T)
    acc.add(0, torch.stack([_offset_head(-1), _uniform_causal_head(), _offset_head(+1)]))  # [H, T, T]
    out = acc.summary()
    # offset -1: every query 1..T-1 (T-1 of them, all that have a previous token) has its max at -1
    assert out["voita_offset"][0][0] == -1 and out["voita_fraction"][0][0] == pytest.approx(1.0)
    assert out["positional"][0] == [True, False, True]
    assert out["voita_offset"][0][2] == +1
    # uniform causal: each query's argmax is the first key (ties -> index 0), a different offset for each query
    assert out["voita_fraction"][0][1] < 0.2
    # Clark et al.: previous-token attention is 1 for the offset -1 head, next 0; the reverse for +1
    assert out["previous"][0][0] == pytest.approx(1.0) and out["next"][0][0] == pytest.approx(0.0)
    assert out["next"][0][2] == pytest.approx(1.0)
    assert out["previous_heads_over_half"] == [[0, 0]] and out["next_heads_over_half"] == [[0, 2]]


def test_mass_by_distance_by_hand():
    acc = HeadAccumulator(n_layers=1, n_heads=2, max_len=T)
    acc.add(0, torch.stack([_offset_head(-1), _uniform_causal_head()]))
    out = acc.summary()
    mass = np.asarray(out["mass_by_distance"])[0]  # [H, bins]
    # offset -1 head: query 0 keeps its weight at distance 0, the other T-1 queries at distance 1
    assert mass[0, 0] == pytest.approx(1 / T) and mass[0, 1] == pytest.approx((T - 1) / T)
    assert out["mean_distance"][0][0] == pytest.approx((T - 1) / T)
    # uniform causal: query i spreads 1/(i+1) over distances 0..i, mean distance i/2; averaged over i: (T-1)/4
    assert out["mean_distance"][0][1] == pytest.approx((T - 1) / 4)
    np.testing.assert_allclose(mass.sum(-1), 1.0)


def test_voita_counts_only_queries_with_the_offset_inside():
    hits, valid = voita_fractions(_offset_head(-3)[None], max_offset=4)
    offsets = list(range(-4, 5))
    assert valid[offsets.index(-3)] == T - 3 and valid[offsets.index(0)] == T
    assert hits[0, offsets.index(-3)] == T - 3 and hits[0, offsets.index(0)] == 3


def test_distance_bins():
    assert distance_bins(20) == [0, 1, 2, 3, 4, 6, 8, 12, 16, 24]


def test_hooks_capture_what_output_attentions_returns():
    """Layer-by-layer capture gives the same statistics as all layers' weights returned at once."""
    config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=3,
                         num_attention_heads=4, num_key_value_heads=2)
    model = LlamaForCausalLM(config).eval()
    model.set_attn_implementation("sdpa")  # capture switches to eager and back
    ids = torch.randint(0, 64, (1, 24))
    hooked = HeadAccumulator(3, 4, max_len=24)
    with capture(model, hooked.add), torch.no_grad():
        model(ids)
    assert model.config._attn_implementation == "sdpa"
    model.set_attn_implementation("eager")
    reference = HeadAccumulator(3, 4, max_len=24)
    with torch.no_grad():
        for layer, weights in enumerate(model(ids, output_attentions=True).attentions):
            reference.add(layer, weights)
    a, b = hooked.summary(), reference.summary()
    for key in ("voita_fraction", "previous", "next", "mass_by_distance", "mean_distance"):
        np.testing.assert_allclose(a[key], b[key], atol=1e-6)
    assert len(attention_modules(model)) == 3
