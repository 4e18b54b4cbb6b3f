"""What the Transformer's forward takes and holds: given positions reach the input encoding, positions of the wrong
length are refused, the output layer has no bias, and a query scale keeps a bfloat16 model in bfloat16."""

import pytest
import torch

from posenc.errors import PosencError
from posenc.model import Transformer, TransformerConfig

SIZES = {"vocab_size": 20, "d_model": 32, "n_heads": 4, "n_layers": 2, "max_len": 64}


def _model(encoding, **sizes):
    torch.manual_seed(0)
    return Transformer(TransformerConfig(**{**SIZES, **sizes}, encoding=encoding)).eval()


@pytest.mark.parametrize("encoding", ["learned", "sinusoidal"])
def test_given_positions_reach_an_absolute_encoding(encoding):
    model = _model(encoding)
    ids = torch.randint(0, 20, (1, 6), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        shifted = model(ids, positions=torch.arange(6) + 5)
        assert (shifted - model(ids)).abs().max() > 1e-4
        torch.testing.assert_close(model(ids, positions=torch.arange(6)), model(ids), rtol=0, atol=0)


def test_positions_of_another_length_are_refused():
    model = _model("rope")
    with pytest.raises(PosencError, match="positions"):
        model(torch.zeros(1, 6, dtype=torch.long), positions=torch.arange(7))


def test_the_output_layer_has_no_bias():
    model = _model("nope")
    assert model.head.bias is None
    # embedding 20 x 32; per layer two LayerNorms (2 x 64), q 32x32, kv 32x64, out 32x32, MLP 32x128 + 128 and
    # 128x32 + 32; the final LayerNorm 64; the head 32 x 20 without a bias
    per_layer = 2 * 64 + 32 * 32 + 32 * 64 + 32 * 32 + 32 * 128 + 128 + 128 * 32 + 32
    assert sum(p.numel() for p in model.parameters()) == 20 * 32 + 2 * per_layer + 64 + 32 * 20


def test_a_query_scale_keeps_bfloat16():
    model = _model("temperature", n_layers=1).to(torch.bfloat16)
    ids = torch.randint(0, 20, (1, 5))
    with torch.no_grad():
        assert model(ids).dtype == torch.bfloat16
        hidden = model(ids, return_hidden=True)
    assert hidden.dtype == torch.bfloat16
