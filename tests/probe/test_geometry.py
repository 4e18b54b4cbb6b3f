"""Word/position geometry: the seed's statistics against an independent computation, baselines, subspaces."""

import math

import numpy as np
import pytest
import torch
from transformers import LlamaConfig, LlamaModel

from posenc.errors import PosencError
from posenc.probe.geometry import (
    cosine_matrix,
    embedding_tables,
    format_seed_layout,
    gaussian_baseline,
    geometry,
    pair_stats,
    principal_angles,
    subspace_comparison,
    verdict,
)


def _independent_stats(words, positions):
    """Cosines pair by pair with math.acos, as the seed's formulas read (no vectorised code shared with posenc)."""
    cos = []
    for w in words:
        for p in positions:
            cos.append(float(np.dot(w, p) / (math.sqrt(np.dot(w, w)) * math.sqrt(np.dot(p, p)))))
    cos = np.array(cos)
    angles = np.array([math.degrees(math.acos(max(-1.0, min(1.0, c)))) for c in cos])
    return {"cos_mean": cos.mean(), "cos_std": cos.std(), "cos_abs_mean": np.abs(cos).mean(),
            "angle_mean": angles.mean(), "angle_std": angles.std(), "angle_min": angles.min(),
            "angle_max": angles.max()}


def test_pair_stats_match_an_independent_computation():
    rng = np.random.default_rng(1)
    words, positions = rng.standard_normal((13, 7)) + 0.3, rng.standard_normal((9, 7))
    got = pair_stats(cosine_matrix(words, positions))
    want = _independent_stats(words, positions)
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=1e-10), key


def test_cosine_by_hand():
    # (1, 0) vs (1, 1): cos 1/sqrt(2), 45 degrees; (1, 0) vs (0, 2): cos 0, 90 degrees
    cos = cosine_matrix(np.array([[1.0, 0.0]]), np.array([[1.0, 1.0], [0.0, 2.0]]))
    np.testing.assert_allclose(cos, [[1 / math.sqrt(2), 0.0]], atol=1e-15)
    stats = pair_stats(cos)
    assert stats["angle_min"] == pytest.approx(45.0) and stats["angle_max"] == pytest.approx(90.0)


def test_gaussian_baseline_is_chance():
    # independent Gaussian vectors: cosine mean 0, std 1/sqrt(d) (FACTS §2: 0.0510 at d=384), angle mean 90
    stats = gaussian_baseline(400, 300, 384, seed=3)
    assert abs(stats["cos_mean"]) < 0.003
    assert stats["cos_std"] == pytest.approx(1 / math.sqrt(384), rel=0.03)
    assert stats["angle_mean"] == pytest.approx(90.0, abs=0.2)


def test_principal_angles_by_hand():
    e = np.eye(4)
    tilted = (math.cos(math.radians(30)) * e[:, 0] + math.sin(math.radians(30)) * e[:, 1])[:, None]
    assert principal_angles(e[:, :1], tilted)[0] == pytest.approx(30.0)
    np.testing.assert_allclose(principal_angles(e[:, :2], e[:, [1, 0]]), [0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(principal_angles(e[:, :2], e[:, 2:]), [90.0, 90.0])


def test_subspaces_shared_vs_disjoint():
    """Sets living in the same 3 directions overlap fully; sets in disjoint coordinates do not; random is k/d."""
    rng = np.random.default_rng(0)
    d = 40
    basis = np.linalg.qr(rng.standard_normal((d, 3)))[0]  # [d, 3]
    words = rng.standard_normal((500, 3)) * [5, 4, 3] @ basis.T + 0.01 * rng.standard_normal((500, d))
    same = rng.standard_normal((200, 3)) * [5, 4, 3] @ basis.T + 0.01 * rng.standard_normal((200, d))
    shared = subspace_comparison(words, same, ks=(3,), n_random=200)["k"][0]
    assert shared["overlap"] > 0.99
    assert shared["random_overlap_mean"] == pytest.approx(3 / d, rel=0.15)
    other = np.zeros((200, d))
    other[:, :3] = rng.standard_normal((200, 3)) * [5, 4, 3]
    words_far = np.zeros((500, d))
    words_far[:, 10:13] = rng.standard_normal((500, 3)) * [5, 4, 3]
    apart = subspace_comparison(words_far, other, ks=(3,), n_random=10)["k"][0]
    assert apart["overlap"] < 1e-10


def test_centring_removes_a_shared_offset():
    """Gaussian sets plus one common vector: raw cosines are far from 0, centred ones back at chance."""
    rng = np.random.default_rng(0)
    d = 64
    common = 3 * rng.standard_normal(d) / math.sqrt(d) * 2
    words = rng.standard_normal((1200, d)) / math.sqrt(d) + common
    positions = rng.standard_normal((64, d)) / math.sqrt(d) + common
    geo = geometry(words, positions)
    assert geo["raw"]["cos_mean"] > 0.5
    assert abs(geo["centred"]["cos_mean"]) < 0.01
    assert geo["mean_vectors"]["cos_word_mean_position_mean"] > 0.9
    assert "not supported" in verdict(geo)


def test_minilm_geometry_against_torch(minilm_tables):
    """posenc's numbers on MiniLM equal torch's cosine_similarity on the same rows (words 100..1099 x 512)."""
    words, positions = minilm_tables
    geo = geometry(words, positions)
    w = words[100:1100].double()
    cos = torch.cat([torch.nn.functional.cosine_similarity(chunk[:, None, :], positions.double()[None, :, :], dim=-1)
                     for chunk in w.split(50)])  # [1000, 512]
    angles = torch.rad2deg(torch.arccos(cos.clamp(-1, 1)))
    assert geo["raw"]["cos_mean"] == pytest.approx(float(cos.mean()), abs=1e-9)
    assert geo["raw"]["cos_std"] == pytest.approx(float(cos.std(unbiased=False)), abs=1e-9)
    assert geo["raw"]["cos_abs_mean"] == pytest.approx(float(cos.abs().mean()), abs=1e-9)
    assert geo["raw"]["angle_mean"] == pytest.approx(float(angles.mean()), abs=1e-6)
    assert geo["raw"]["angle_min"] == pytest.approx(float(angles.min()), abs=1e-6)
    assert geo["raw"]["angle_max"] == pytest.approx(float(angles.max()), abs=1e-6)
    assert geo["examples"]["word10_pos5"]["cos"] == pytest.approx(float(cos[10, 5]), abs=1e-12)
    assert geo["examples"]["pos5_all_words"]["cos_max"] == pytest.approx(float(cos[:, 5].max()), abs=1e-12)
    assert geo["norms"]["position_mean"] == pytest.approx(float(positions.norm(dim=1).mean()), rel=1e-6)
    # the chance baseline is at this model's dimension
    assert geo["baseline"]["gaussian_expected"]["cos_std"] == pytest.approx(1 / math.sqrt(384))
    layout = format_seed_layout(geo)
    assert f"{geo['raw']['angle_mean']:.2f}" in layout and "word10 / pos5" in layout


def test_rope_model_has_no_position_table():
    model = LlamaModel(LlamaConfig(vocab_size=50, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                   num_attention_heads=2))
    with pytest.raises(PosencError, match="probes that do apply are the attention heads"):
        embedding_tables(model)


def test_too_small_tables_are_refused():
    with pytest.raises(PosencError, match="vocabulary"):
        geometry(np.ones((50, 8)), np.ones((10, 8)))
