import torch

from posenc.encodings import rope_scaling as rs


def test_base_stretch_multiplies_the_base():
    expected = torch.tensor([(4 * 10000.0) ** (-2 * i / 16) for i in range(8)], dtype=torch.float64)
    torch.testing.assert_close(rs.compute_inv_freq(16, 10000.0, {"type": "base_stretch", "factor": 4})[0], expected)
