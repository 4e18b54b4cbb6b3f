"""Word/position geometry: the tutorial's statistics against an independent computation, baselines, subspaces."""

import math

import numpy as np
import pytest
import torch
from transformers import LlamaConfig, LlamaModel

from posenc.errors import PosencError
from posenc.probe.geometry import (
    ORTHOGONAL_ENRICHMENT,
    cosine_matrix,
    embedding_tables,
    format_tutorial_layout,
    frequent_rows,
    gaussian_baseline,
    geometry,
    initial_table_orthogonality,
    near_orthogonal_margin,
    orthogonality,
    orthogonality_against_chance,
    pair_stats,
    placeholder_rows,
    principal_angles,
    subspace_comparison,
    subspace_share,
    trained_rows,
    verdict,
)


def _independent_stats(words, positions):
    """Cosines pair by pair with math.acos, as the tutorial's formulas read (no vectorised code shared with posenc)."""
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
    assert geo["orthogonality"]["nearly_orthogonal"] == "no"
    assert "not nearly orthogonal" in verdict(geo)
    # the subspace sentence reports the middle sizes of the comparison (k = 5, 10, 20), not its ends (1 and 50)
    said = verdict(geo)
    assert {s["k"] for s in geo["subspace"]["k"]} == {1, 5, 10, 20, 50}
    assert all(f"k={k}: overlap" in said for k in (5, 10, 20)) and "k=1:" not in said and "k=50:" not in said


def test_minilm_geometry_against_torch(minilm_tables):
    """posenc's numbers on MiniLM equal torch's cosine_similarity on the same rows (words 100..1099 x 512)."""
    words, positions = minilm_tables
    geo = geometry(words, positions)
    w = words[100:1100].double()
    normalize = torch.nn.functional.normalize
    cos = normalize(w, dim=-1) @ normalize(positions.double(), dim=-1).T  # [1000, 512], torch's own normalisation
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
    layout = format_tutorial_layout(geo)
    assert f"{geo['raw']['angle_mean']:.2f}" in layout and "word10 / pos5" in layout


def test_rope_model_has_no_position_table():
    model = LlamaModel(LlamaConfig(vocab_size=50, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                   num_attention_heads=2))
    with pytest.raises(PosencError, match="probes that do apply are the attention heads"):
        embedding_tables(model)


def test_too_small_tables_are_refused():
    with pytest.raises(PosencError, match="vocabulary"):
        geometry(np.ones((50, 8)), np.ones((10, 8)))


def test_margin_by_hand():
    # one random pair's cosine has std 1/sqrt(d): 1/sqrt(384) = 0.05103, asin of it = 2.925 degrees
    assert near_orthogonal_margin(384) == pytest.approx(math.degrees(math.asin(1 / math.sqrt(384))))
    assert near_orthogonal_margin(384) == pytest.approx(2.925, abs=1e-3)
    assert near_orthogonal_margin(768) == pytest.approx(2.068, abs=1e-3)
    with pytest.raises(PosencError, match="dimension"):
        near_orthogonal_margin(1)


def test_orthogonality_against_an_independent_two_way_bootstrap():
    """The mean angle by loops over pairs, and its interval from resampling words and positions by index."""
    rng = np.random.default_rng(3)
    words, positions = rng.standard_normal((40, 16)) + 0.2, rng.standard_normal((25, 16))
    got = orthogonality(words, positions)
    angles = np.array([[math.degrees(math.acos(np.dot(w, p) / (np.linalg.norm(w) * np.linalg.norm(p))))
                        for p in positions] for w in words])
    assert got["angle_mean"].value == pytest.approx(angles.mean(), abs=1e-9)
    assert got["angle_offset"].value == pytest.approx(abs(angles.mean() - 90), abs=1e-9)
    check = np.random.default_rng(99)
    means = np.array([angles[np.ix_(check.integers(0, 40, 40), check.integers(0, 25, 25))].mean()
                      for _ in range(4000)])
    low, high = np.quantile(means, [0.025, 0.975])
    se = means.std()
    assert got["angle_mean"].low == pytest.approx(low, abs=0.15 * se)
    assert got["angle_mean"].high == pytest.approx(high, abs=0.15 * se)
    # a one-way bootstrap over words alone would be narrower: positions are sampled units too
    words_only = np.array([angles[check.integers(0, 40, 40)].mean() for _ in range(4000)])
    assert words_only.std() < 0.9 * se


def test_orthogonality_judgement_at_the_margin():
    """Orthogonal supports: yes; a shared offset: no; a margin inside the interval of |mean - 90|: undecided."""
    d = 16
    eye = np.eye(d)
    words = np.repeat(eye[:8], 3, axis=0) * np.arange(1, 25)[:, None]  # 24 rows in the first 8 coordinates
    positions = np.repeat(eye[8:], 2, axis=0)  # 16 rows in the last 8
    exact = orthogonality(words, positions)
    assert exact["angle_mean"].value == pytest.approx(90.0) and exact["nearly_orthogonal"] == "yes"
    assert orthogonality(words + 2.0, positions + 2.0)["nearly_orthogonal"] == "no"
    rng = np.random.default_rng(0)
    noisy_words, noisy_positions = rng.standard_normal((30, d)) + 0.15, rng.standard_normal((20, d)) + 0.15
    offset = orthogonality(noisy_words, noisy_positions)["angle_offset"]
    assert offset.low < offset.value < offset.high
    for margin, answer in ((offset.low - 1e-6, "no"), ((offset.low + offset.high) / 2, "undecided"),
                           (offset.high + 1e-6, "yes")):
        assert orthogonality(noisy_words, noisy_positions, margin=margin)["nearly_orthogonal"] == answer


def test_bert_sized_initial_tables_give_the_seeds_numbers():
    """Tutorial 001 §4.1's BERT statistics are what N(0, 0.02^2) tables of BERT-base's size give before any training:
    cosine std 1/sqrt(768) (printed 0.0354), mean |cos| sqrt(2/pi)/sqrt(768) (0.0281), angle std about 2.07 deg
    (2.03), mean angle 90 (90.57). The printed mean cosine (-0.0099) is further from 0 than chance alone gives."""
    init = initial_table_orthogonality(1000, 512, 768)
    stats = init["stats"]
    assert stats["cos_std"] == pytest.approx(0.035428, rel=0.03)
    assert stats["cos_abs_mean"] == pytest.approx(0.028139, rel=0.03)
    assert stats["angle_std"] == pytest.approx(2.03, rel=0.03)
    assert stats["angle_mean"] == pytest.approx(90.57, abs=0.6)
    assert abs(stats["cos_mean"]) < 0.001
    assert init["nearly_orthogonal"] == "yes"


def test_placeholders_of_the_minilm_vocabulary(minilm):
    """994 [unusedN] rows, 895 of them among the tutorial's rows 100..1099, read independently from vocab.txt."""
    from posenc.pretrained import minilm_dir

    lines = (minilm_dir() / "vocab.txt").read_text(encoding="utf-8").splitlines()
    unused = [i for i, token in enumerate(lines) if token.startswith("[unused") and token.endswith("]")]
    rows = placeholder_rows(minilm.tokenizer)
    assert rows.tolist() == unused and len(rows) == 994
    assert sum(100 <= i < 1100 for i in unused) == 895
    trained = trained_rows(minilm.tokenizer, len(lines))
    assert len(trained) == len(lines) - 994 and not set(trained) & set(unused)


def test_frequent_rows_by_hand(minilm):
    tokenizer = minilm.tokenizer
    text = "the cat and the dog and the bird"
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    counts = {i: ids.count(i) for i in ids}
    top = sorted(sorted(counts, key=lambda i: (-counts[i], i))[:2])
    assert frequent_rows(tokenizer, [text], 2).tolist() == top  # "the" (3), "and" (2)
    with pytest.raises(PosencError, match="distinct tokens"):
        frequent_rows(tokenizer, [text], 50)


def test_minilm_trained_rows_are_nearly_orthogonal_but_the_tutorial_sample_is_not(minilm_tables, minilm):
    """The tutorial's rows 100..1099 (895 placeholders) miss 90 degrees by more than the margin; the word pieces among
    them and all trained rows do not (FACTS §1: 82.7, 90.5 and 88.7 degrees)."""
    words, positions = minilm_tables
    seed = orthogonality(words, positions, np.arange(100, 1100))
    assert seed["angle_mean"].value == pytest.approx(82.71, abs=0.01) and seed["nearly_orthogonal"] == "no"
    real = np.setdiff1d(np.arange(100, 1100), placeholder_rows(minilm.tokenizer))
    assert orthogonality(words, positions, real)["nearly_orthogonal"] == "yes"


PAIR_KEYS = {"cos_mean", "cos_std", "cos_abs_mean", "angle_mean", "angle_std", "angle_min", "angle_max"}
EXAMPLE_KEYS = {"word0_pos0", "word0_pos1", "word10_pos5", "word10_all_positions", "pos5_all_words"}


def test_geometry_result_has_exactly_the_documented_keys():
    """Every key, nested ones included, of the dict probe.json stores (renaming one breaks readers)."""
    rng = np.random.default_rng(0)
    geo = geometry(rng.standard_normal((30, 8)), rng.standard_normal((10, 8)), word_rows=(2, 20))
    assert set(geo) == {"dim", "word_rows", "n_positions", "raw", "examples", "baseline", "centred", "mean_vectors",
                        "subspace", "norms", "orthogonality"}
    assert set(geo["raw"]) == PAIR_KEYS
    assert set(geo["examples"]) == EXAMPLE_KEYS
    assert set(geo["baseline"]) == {"gaussian", "gaussian_expected", "shuffled_positions", "other_words"}
    assert geo["baseline"]["gaussian_expected"] == {"cos_mean": 0.0, "cos_std": 1 / math.sqrt(8), "angle_mean": 90.0}
    for name in ("gaussian", "shuffled_positions", "other_words"):
        assert set(geo["baseline"][name]) == PAIR_KEYS
    assert set(geo["centred"]) == PAIR_KEYS | {"examples"} and set(geo["centred"]["examples"]) == EXAMPLE_KEYS
    assert set(geo["mean_vectors"]) == {"cos_word_mean_position_mean", "word_mean_norm_share",
                                        "position_mean_norm_share"}
    assert set(geo["norms"]) == {"word_mean", "word_std", "word_vocab_mean", "position_mean", "position_std"}
    assert set(geo["subspace"]) == {"dim", "k"} and [s["k"] for s in geo["subspace"]["k"]] == [1, 5]
    for entry in geo["subspace"]["k"]:
        assert set(entry) == {"k", "angles", "angle_min", "angle_mean", "overlap", "random_overlap_mean",
                              "random_overlap_std", "random_overlap_expected", "word_variance_share",
                              "position_variance_share"}
        assert entry["random_overlap_expected"] == entry["k"] / 8
    assert set(geo["orthogonality"]) == {"angle_mean", "angle_offset", "cos_mean", "margin_deg", "nearly_orthogonal",
                                         "n_words", "n_positions", "dim", "stats", "rows_label"}
    assert set(geo["orthogonality"]["stats"]) == PAIR_KEYS


def test_mean_vector_norm_shares_by_hand():
    """|mean row| / mean |row|: positions (1, 0) and (0, 1) repeated have mean (1/2, 1/2), norm share sqrt(2)/2."""
    rng = np.random.default_rng(1)
    positions = np.tile(np.eye(2), (4, 1))  # 8 rows
    words = rng.standard_normal((20, 2))
    geo = geometry(words, positions, word_rows=(0, 12))
    w = words[:12]
    assert geo["mean_vectors"]["position_mean_norm_share"] == pytest.approx(math.sqrt(2) / 2)
    assert geo["mean_vectors"]["word_mean_norm_share"] == pytest.approx(
        np.linalg.norm(w.mean(0)) / np.mean([np.linalg.norm(row) for row in w]))


def test_geometry_judges_the_seed_rows_by_default():
    """Without judged_rows the judgement is on word rows lo..hi-1 themselves, labelled so."""
    rng = np.random.default_rng(2)
    words, positions = rng.standard_normal((40, 6)) + 0.3, rng.standard_normal((9, 6))
    judged = geometry(words, positions, word_rows=(5, 25))["orthogonality"]
    assert judged["n_words"] == 20 and judged["rows_label"] == "tutorial-sample rows 5..24"
    assert judged["angle_mean"] == orthogonality(words, positions, np.arange(5, 25))["angle_mean"].as_dict()


def test_geometry_statistics_are_float64_for_float32_input():
    """A float32 table gives the numbers of the same values in float64 (every statistic is computed in float64)."""
    rng = np.random.default_rng(3)
    words, positions = rng.standard_normal((30, 8)).astype(np.float32), rng.standard_normal((10, 8)).astype(np.float32)
    low = geometry(words, positions, word_rows=(2, 20))
    wide = geometry(words.astype(np.float64), positions.astype(np.float64), word_rows=(2, 20))
    for part in ("norms", "centred", "mean_vectors"):
        for key, value in wide[part].items():
            if key != "examples":
                assert low[part][key] == pytest.approx(value, rel=1e-14, abs=1e-15), (part, key)
    for a, b in zip(low["subspace"]["k"], wide["subspace"]["k"], strict=True):
        assert a["word_variance_share"] == pytest.approx(b["word_variance_share"], rel=1e-13)


def test_orthogonality_needs_two_rows_of_each_kind():
    rng = np.random.default_rng(4)
    words, positions = rng.standard_normal((5, 4)), rng.standard_normal((5, 4))
    with pytest.raises(PosencError, match="at least 2 word rows and 2 position rows, got 1 and 5"):
        orthogonality(words[:1], positions)
    with pytest.raises(PosencError, match="got 5 and 1"):
        orthogonality(words, positions[:1])
    two = orthogonality(words[:2], positions[:2])  # the smallest accepted
    assert (two["n_words"], two["n_positions"], two["dim"]) == (2, 2, 4)


def test_subspace_random_baseline_is_seeded_with_fifty_draws():
    """The random-subspace overlap is reproducible from the seed, and the default is 50 pairs of subspaces."""
    rng = np.random.default_rng(5)
    words, positions = rng.standard_normal((30, 6)), rng.standard_normal((12, 6))
    default = subspace_comparison(words, positions, ks=(2,))
    assert default == subspace_comparison(words, positions, ks=(2,), n_random=50, seed=0)
    assert default != subspace_comparison(words, positions, ks=(2,), n_random=51, seed=0)



def test_subspace_share_against_numpy():
    """The positions' variance inside the words' principal subspace, redone with numpy's SVD: orthogonal tables give
    0, isotropic random ones about k/d (enrichment about 1), a position table inside the subspace 1/chance."""
    from posenc.probe.geometry import principal_k, subspace_share

    rng = np.random.default_rng(0)
    d = 24
    scales = np.linspace(3.0, 0.5, d)
    words = rng.normal(size=(400, d)) * scales  # principal directions: the coordinate axes, by falling scale
    got = subspace_share(words, rng.normal(size=(300, d)), level=0.5)
    centred = words - words.mean(0)
    _, sv, vt = np.linalg.svd(centred, full_matrices=False)
    var = sv ** 2 / (sv ** 2).sum()
    k = int(np.argmax(np.cumsum(var) >= 0.5)) + 1
    assert got["k"] == k == principal_k(var, 0.5)
    assert got["chance"] == k / d and 0.6 < got["enrichment"].value < 1.4
    positions = rng.normal(size=(300, d))
    p = positions - positions.mean(0)
    share = ((p @ vt[:k].T) ** 2).sum() / (p ** 2).sum()
    assert subspace_share(words, positions)["share"].value == pytest.approx(share, rel=1e-9)
    inside = positions @ vt[:k].T @ vt[:k]  # the positions projected on the words' subspace, and off it
    assert subspace_share(words, positions - inside)["enrichment"].value == pytest.approx(0.0, abs=1e-12)
    assert subspace_share(words, inside)["enrichment"].value == pytest.approx(d / k, rel=1e-9)
    assert principal_k(np.array([0.5, 0.3, 0.2]), 0.8) == 2 and principal_k(np.array([0.5, 0.3, 0.2]), 0.81) == 3


def test_orthogonality_against_chance_counts_chance_overlap_as_not_orthogonal():
    """The shared definition: orthogonal only when more orthogonal than random vectors of the dimension.

    Hand-built: words vary in dimensions 0..3 only (their top principal subspace is spanned by those), positions in
    4..7 only, so the positions' share inside is 0 (enrichment 0: orthogonal). Positions drawn in all 8 dimensions
    put about k/d of their variance inside (enrichment about 1: chance, not orthogonal), and so does the null the
    function draws itself (the same statistic on N(0, std^2) tables of the same shapes)."""
    rng = np.random.default_rng(3)
    words = np.concatenate([rng.normal(size=(500, 4)), np.zeros((500, 4))], axis=1)
    apart = np.concatenate([np.zeros((64, 4)), rng.normal(size=(64, 4))], axis=1)
    out = orthogonality_against_chance(words, apart)
    assert out["enrichment"].value == pytest.approx(0.0, abs=1e-12) and out["orthogonal"] == "yes"
    assert out["k"] <= 4 and out["chance"] == out["k"] / 8
    assert out["null"]["enrichment"].value == pytest.approx(1.0, abs=0.5)
    assert out["null_orthogonal"] == "no" and out["bar"] == ORTHOGONAL_ENRICHMENT == 0.5
    chance = orthogonality_against_chance(words, rng.normal(size=(512, 8)))
    assert chance["orthogonal"] == "no"
    assert chance["enrichment"].value == pytest.approx(1.0, abs=0.25)
    # the null is the same code on the drawn tables: drawing them from the same generator reproduces it
    draw = np.random.default_rng(7)
    again = subspace_share(draw.normal(0.0, 0.02, words.shape), draw.normal(0.0, 0.02, apart.shape), 0.5)
    assert orthogonality_against_chance(words, apart, rng=np.random.default_rng(7))["null"]["enrichment"].value \
        == pytest.approx(again["enrichment"].value, rel=1e-12)
