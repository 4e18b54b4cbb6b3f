"""What ``posenc show`` draws for the encodings without a table or a fixed bias."""

import math

import torch

import posenc
from posenc.plots.heatmap import encoding_matrix


def test_a_temperature_draws_its_factor_by_position():
    matrix, title, _, _ = encoding_matrix(posenc.build("temperature", attn_scale=0.5, floor_scale=2), 4, 8)
    want = [1.0, 1 + 0.5 * math.log(2), 1 + 0.5 * math.log(2), 1 + 0.5 * math.log(3)]
    torch.testing.assert_close(matrix[:, 0], torch.tensor(want))
    assert "factor" in title


def test_pope_draws_the_cosine_of_each_channels_phase():
    matrix, _, _, _ = encoding_matrix(posenc.build("pope", head_dim=4, n_heads=1), 3, 4)
    theta = torch.tensor([10000.0 ** (-c / 4) for c in range(4)], dtype=torch.float64)
    torch.testing.assert_close(matrix.double(), (torch.arange(3.0, dtype=torch.float64)[:, None] * theta).cos(),
                               rtol=1e-6, atol=1e-7)


def test_content_encodings_say_they_have_no_table():
    for name in ("fox", "dape", "cope"):
        encoding = posenc.build_for_model(name, d_model=8, n_heads=2, head_dim=4)
        assert "positions from content" in encoding_matrix(encoding, 4, 8)[1]
    assert "no position information" in encoding_matrix(posenc.build("nope"), 4, 8)[1]
