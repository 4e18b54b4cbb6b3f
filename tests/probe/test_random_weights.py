"""The pretrained model's null: random weights of the trained weights' norms; a decoder's null, its transformer alone."""

import pytest
import torch

from posenc.errors import PosencError
from posenc.probe.random_weights import matched_norm_copy, null_model


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Embedding(50, 16), torch.nn.LayerNorm(16), torch.nn.Linear(16, 8))


def test_every_row_keeps_its_norm_and_every_vector_its_values():
    model = _model()
    with torch.no_grad():
        model[1].weight.copy_(torch.arange(16.0))  # a LayerNorm scale with distinct values, to see the permutation
    twin = matched_norm_copy(model, seed=1)
    for (name, a), (_, b) in zip(model.named_parameters(), twin.named_parameters(), strict=True):
        assert a.shape == b.shape, name
        if a.dim() >= 2:
            assert torch.allclose(a.norm(dim=1), b.norm(dim=1), rtol=1e-5), name
        else:
            assert torch.equal(a.sort().values, b.sort().values), name
    assert not torch.equal(model[1].weight, twin[1].weight)  # 16! orders, one of them the original
    # the original is untouched (a deep copy)
    assert torch.equal(model[1].weight, torch.arange(16.0))


def test_directions_are_random():
    """Rows of the copy point anywhere: their cosine with the original row averages about 0 (the mean of 50 cosines
    of independent random directions in 16 dimensions has standard deviation 1/sqrt(16 * 50) = 0.035)."""
    model = _model()
    twin = matched_norm_copy(model, seed=2)
    cos = torch.nn.functional.cosine_similarity(model[0].weight, twin[0].weight, dim=1)
    assert abs(float(cos.mean())) < 0.15
    assert float(cos.abs().max()) < 0.99


def test_seeded_and_restricted_by_prefix():
    model = _model()
    a, b, c = matched_norm_copy(model, 3), matched_norm_copy(model, 3), matched_norm_copy(model, 4)
    assert torch.equal(a[0].weight, b[0].weight) and not torch.equal(a[0].weight, c[0].weight)
    only = matched_norm_copy(model, 3, only=("0.",))
    assert not torch.equal(only[0].weight, model[0].weight)
    assert torch.equal(only[2].weight, model[2].weight) and torch.equal(only[1].bias, model[1].bias)
    with pytest.raises(PosencError, match="no parameter"):
        matched_norm_copy(model, 3, only=("encoder.",))
    with pytest.raises(PosencError, match="torch.nn.Module"):
        matched_norm_copy("model", 3)
    with pytest.raises(PosencError, match="seed"):
        matched_norm_copy(model, 1.5)


def test_the_null_has_the_models_norms_and_other_weights(tiny_llama):
    model = tiny_llama.model
    twin = null_model(model)
    assert not any(n.startswith("lm_head") for n, _ in twin.named_parameters())  # the transformer alone
    original = dict(model.model.named_parameters())
    for name, param in twin.named_parameters():
        mine = original[name]
        if param.dim() >= 2:
            torch.testing.assert_close(param.norm(dim=1), mine.norm(dim=1))
            assert not torch.allclose(param, mine)
        else:  # a vector keeps its values in another order
            torch.testing.assert_close(param.sort().values, mine.sort().values)
    again = null_model(model)
    assert all(torch.equal(a, b) for a, b in zip(twin.parameters(), again.parameters(), strict=True))
