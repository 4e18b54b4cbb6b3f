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
