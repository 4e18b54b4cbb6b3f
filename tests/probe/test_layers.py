"""Module outputs and held-out linear probes (posenc.probe.layers) against the model's own hidden states and
features that hold the answer linearly."""

import numpy as np
import pytest
import torch

from posenc.errors import PosencError
from posenc.probe.layers import (
    position_probe,
    read_positions,
    ridge_fit,
    sublayer_outputs,
    token_probe,
    window_folds,
)


def test_ridge_fit_is_least_squares_without_a_penalty_and_shrinks_with_one():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 5))
    y = x @ rng.normal(size=(5, 2)) + 3.0
    w, b = ridge_fit(x, y, ridge=0.0)
    design = np.hstack([x, np.ones((200, 1))])
    exact = np.linalg.lstsq(design, y, rcond=None)[0]
    np.testing.assert_allclose(w, exact[:5], atol=1e-9)
    np.testing.assert_allclose(b, exact[5], atol=1e-9)
    shrunk, _ = ridge_fit(x, y, ridge=1.0)
    assert np.linalg.norm(shrunk) < np.linalg.norm(w)


def test_window_folds_partition_the_windows():
    folds = window_folds(10)
    assert sorted(np.concatenate(folds).tolist()) == list(range(10)) and len(folds) == 4
    assert [f.tolist() for f in window_folds(3)] == [[0], [1], [2]]
    with pytest.raises(PosencError):
        window_folds(1)


def test_probes_read_what_the_features_hold_linearly():
    rng = np.random.default_rng(1)
    windows, length, vocab = 6, 16, 20
    table = rng.normal(size=(vocab, 8))
    ids = rng.integers(0, vocab, size=(windows, length))
    onehot = np.tile(np.eye(length), (windows, 1, 1))
    features = np.concatenate([onehot, table[ids]], axis=-1)  # position one-hot and the token's row
    folds = window_folds(windows)
    assert position_probe(features, folds).all()
    assert token_probe(features, ids, table, np.arange(vocab), folds).all()
    noise = rng.normal(size=(windows, length, 24))
    assert position_probe(noise, folds).mean() < 0.3  # chance: 1/16


def test_sublayer_outputs_match_the_hidden_states(minilm):
    ids = torch.tensor([[101, 2023, 2003, 1037, 3231, 102]])
    out = sublayer_outputs(minilm.model, ids)
    assert list(out)[:3] == ["embeddings", "layer 1 attention", "layer 1 FFN"] and len(out) == 13
    with torch.no_grad():
        hidden = minilm.model(input_ids=ids, output_hidden_states=True).hidden_states
    torch.testing.assert_close(out["embeddings"], hidden[0])
    for i in range(1, 7):
        torch.testing.assert_close(out[f"layer {i} FFN"], hidden[i])
    with pytest.raises(PosencError, match="BERT-style"):
        sublayer_outputs(torch.nn.Linear(2, 2), ids)


def test_read_positions_within_a_tolerance():
    """By hand: one window of 4 tokens whose one-hot scores point at positions 0, 3, 1, 3 (true 0, 1, 2, 3)."""
    predicted = np.eye(4)[[0, 3, 1, 3]][None]  # [1, 4, 4]
    assert read_positions(predicted).tolist() == [[True, False, False, True]]
    assert read_positions(predicted, 1).tolist() == [[True, False, True, True]]
    assert read_positions(predicted, 2).tolist() == [[True, True, True, True]]
    with pytest.raises(PosencError, match="tolerance"):
        read_positions(predicted, -1)
