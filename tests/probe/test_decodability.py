"""Position decodability (Wang & Chen 2020): exact on tables that encode position linearly, chance on noise."""

import numpy as np
import pytest

from posenc.errors import PosencError
from posenc.probe.decodability import absolute_error, decodability, relative_error


def test_linear_table_is_decoded_exactly():
    # column 0 is the position itself: linear regression recovers t exactly; i < j is linear in [p_i; p_j], though the
    # L2-regularised logistic fit softens the margin, so pairs only a position or two apart can still be missed
    rng = np.random.default_rng(0)
    table = np.concatenate([np.arange(200)[:, None], rng.standard_normal((200, 5))], axis=1)
    assert absolute_error(table) == 0.0
    assert relative_error(table, n_pairs=600) < 5.0


def test_noise_is_not_decoded():
    """4 random dimensions cannot carry 300 positions: the clipped error is near a uniform guess's (~n/3)."""
    table = np.random.default_rng(1).standard_normal((300, 4))
    assert absolute_error(table, clip=True) > 60
    assert relative_error(table, n_pairs=1000) > 35


def test_report_has_the_controls():
    rng = np.random.default_rng(2)
    table = np.cumsum(rng.standard_normal((64, 16)), axis=0)  # a random walk: nearby positions are similar
    out = decodability(table, n_pairs=400)
    assert out["sinusoid"]["absolute_mae"] == 0.0
    for name in ("model", "sinusoid", "random"):
        assert set(out[name]) >= {"absolute_mae", "absolute_mae_clipped", "relative_error_pct"}
        assert out[name]["absolute_mae_clipped"] <= out[name]["absolute_mae"]
    # a uniform guess over 64 positions: mean |i - j| = (n^2 - 1) / (3n) = 21.33
    assert out["chance_absolute_mae"] == pytest.approx((64 ** 2 - 1) / (3 * 64))


def test_tiny_table_is_refused():
    with pytest.raises(PosencError, match="at least 20"):
        decodability(np.ones((5, 4)))


def test_block_decoding_finds_the_block_that_holds_position():
    """Position written into dimensions 0..3 only (word noise everywhere): the low block decodes it, the high one
    does not; the variance share is high in the low block and near zero in the high one."""
    from posenc.probe.decodability import block_position_decoding, dimension_blocks, position_variance_share

    rng = np.random.default_rng(3)
    t = np.arange(100, dtype=float)
    positions = np.zeros((100, 8))
    positions[:, :4] = (t[:, None] / 100) * np.array([1.0, -1.0, 0.5, 2.0])
    words = 0.05 * rng.standard_normal((400, 8))
    blocks = dimension_blocks(8, 2)
    assert blocks == [(0, 4), (4, 8)]
    out = block_position_decoding(words, positions, blocks, n_samples=800)
    assert out["squared_error"].shape == (800, 2)
    assert out["r2"][0] > 0.95 and out["r2"][1] < 0.05
    assert out["table_r2"][0] == pytest.approx(1.0)
    share = position_variance_share(words, positions)
    assert share[:4].min() > 0.8 and share[4:].max() == 0.0
    with pytest.raises(PosencError, match="blocks"):
        dimension_blocks(3, 4)


def test_error_by_range_names_each_range_by_its_first_and_last_position():
    # 200 positions: ranges [0, 128) and [128, 200), named by their first and last rows; each is the mean there
    table = np.concatenate([np.arange(200)[:, None], np.random.default_rng(4).standard_normal((200, 3))], axis=1)
    out = decodability(table, n_pairs=100)
    assert out["model"]["absolute_mae_by_range"] == {"0-127": 0.0, "128-199": 0.0}  # decoded exactly
    noise = out["random"]["absolute_mae_by_range"]
    assert set(noise) == {"0-127", "128-199"}
    assert (128 * noise["0-127"] + 72 * noise["128-199"]) / 200 == pytest.approx(out["random"]["absolute_mae"])


def test_unseen_positions_of_noise_are_ordered_at_chance():
    # random vectors carry no order that generalises to held-out positions: about half the pairs are wrong
    table = np.random.default_rng(5).standard_normal((100, 8))
    assert 30 < relative_error(table, n_pairs=500, unseen_positions=True) < 70


def test_block_decoding_reports_its_settings():
    from posenc.probe.decodability import block_position_decoding

    rng = np.random.default_rng(6)
    out = block_position_decoding(rng.standard_normal((10, 4)), rng.standard_normal((20, 4)), [(0, 2), (2, 4)],
                                  n_samples=60, folds=3)
    assert (out["blocks"], out["n_samples"], out["folds"]) == ([(0, 2), (2, 4)], 60, 3)
    assert out["t"].shape == (60,) and out["squared_error"].shape == (60, 2)


def test_relative_order_ignores_a_shift_of_the_whole_table():
    """Each channel is standardised first, so adding a large constant to the table changes no prediction."""
    rng = np.random.default_rng(7)
    table = np.concatenate([np.arange(60)[:, None] / 60, rng.standard_normal((60, 3))], axis=1)
    assert relative_error(table + 1e6, n_pairs=200) == relative_error(table, n_pairs=200)
