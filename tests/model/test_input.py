import math

import pytest
import torch

import posenc
from posenc.errors import PosencError
from posenc.model import TransformerInput


def test_tutorial_003_dimension_tracking():
    # tutorial 003 §14.7.2: ids [4, 16] -> token embedding [4, 16, 512]; PE [16, 512] broadcast -> [4, 16, 512]
    layer = TransformerInput(1000, 512, posenc.build("learned", dim=512, max_len=64))
    ids = torch.randint(0, 1000, (4, 16))
    out = layer(ids)
    assert out.shape == (4, 16, 512)
    expected = layer.token_embedding(ids) + layer.encoding.weight[:16]
    torch.testing.assert_close(out, expected)


def test_scale_multiplies_token_embeddings_by_sqrt_d():
    layer = TransformerInput(10, 16, posenc.build("nope"), scale=True)
    ids = torch.tensor([[1, 2]])
    torch.testing.assert_close(layer(ids), layer.token_embedding(ids) * math.sqrt(16))


def test_concat_widens_add_keeps_width():
    add = TransformerInput(10, 32, posenc.build("sinusoidal", dim=32))
    concat = TransformerInput(10, 32, posenc.build("sinusoidal", dim=32, combine="concat"))
    ids = torch.randint(0, 10, (2, 5))
    assert add(ids).shape == (2, 5, 32) and add.output_dim == 32
    assert concat(ids).shape == (2, 5, 64) and concat.output_dim == 64


def test_dropout_is_applied_in_training_only():
    layer = TransformerInput(10, 64, posenc.build("sinusoidal"), dropout=0.5)
    ids = torch.randint(0, 10, (2, 8))
    layer.eval()
    plain = layer(ids)
    torch.testing.assert_close(layer(ids), plain)  # eval: no dropout, the same output twice
    layer.train()
    dropped = layer(ids)
    kept = dropped != 0
    assert 0 < int(kept.sum()) < kept.numel()  # some entries dropped, some kept
    # inverted dropout with p = 0.5: every kept entry is the plain one times 1 / (1 - 0.5) = 2
    torch.testing.assert_close(dropped[kept], 2 * plain[kept], rtol=1e-6, atol=1e-6)


def test_bad_ids_shape():
    with pytest.raises(PosencError, match=r"\[batch, seq\]"):
        TransformerInput(10, 8, posenc.build("nope"))(torch.zeros(3, dtype=torch.long))
