"""The four-term split's sums from the projected parts equal the sums of its [H, T, T] terms; over windows they
stack each window's own."""

import numpy as np
import torch
from test_decompose import _tiny_bert as tiny_bert  # the split's own tiny model
from transformers import BertModel

from posenc.probe.decompose import four_term_split
from posenc.probe.term_sums import _whole, _within_key, _within_query, four_term_sums, window_sums


def _tiny_bert(seed: int = 0) -> BertModel:
    torch.manual_seed(seed)
    return tiny_bert()


def test_sums_equal_the_terms_own():
    model = _tiny_bert()
    ids = torch.randint(0, 120, (50,), generator=torch.Generator().manual_seed(1))
    split, fast = four_term_split(model, ids), four_term_sums(model, ids)
    np.testing.assert_allclose(fast.sums, split.sums(), rtol=1e-10)
    np.testing.assert_allclose(fast.flatness_sums, split.flatness_sums(), rtol=1e-10)
    np.testing.assert_array_equal(fast.dimension_sums, split.dimension_sums())  # the same expression
    assert fast.relative_error <= 1e-4
    assert abs(fast.relative_error - split.relative_error) <= 1e-9


def test_identities_by_hand():
    """A = [[1], [2], [3]], B = [[1], [0], [2]] (one head, Dh = 1): X = A B^T = [[1, 0, 2], [2, 0, 4], [3, 0, 6]].
    Row means 1, 2, 3: within queries (1-1)^2 + 1 + 1 = 2 per unit of A_i^2, so 2 (1 + 4 + 9) = 28. Column means
    2, 0, 4: within keys 2 (1 + 0 + 4) = 10. Mean of X 2: whole = 1 + 4 + 0 + 0 + 4 + 4 + 1 + 4 + 16 = 34."""
    a = torch.tensor([[[1.0], [2.0], [3.0]]], dtype=torch.float64)
    b = torch.tensor([[[1.0], [0.0], [2.0]]], dtype=torch.float64)
    assert float(_within_query(a, b)[0]) == 28.0
    assert float(_within_key(a, b)[0]) == 10.0
    assert abs(float(_whole(a, b)[0]) - 34.0) < 1e-12


def test_random_products_match_their_matrix():
    gen = torch.Generator().manual_seed(3)
    a = torch.randn(2, 30, 5, generator=gen, dtype=torch.float64) + 2.0  # non-zero means: the cross parts count
    b = torch.randn(2, 30, 5, generator=gen, dtype=torch.float64) - 1.0
    x = a @ b.transpose(-1, -2)  # [H, T, T]
    torch.testing.assert_close(_within_query(a, b), (x - x.mean(-1, keepdim=True)).pow(2).sum(dim=(-1, -2)))
    torch.testing.assert_close(_within_key(a, b), (x - x.mean(-2, keepdim=True)).pow(2).sum(dim=(-1, -2)))
    torch.testing.assert_close(_whole(a, b), (x - x.mean(dim=(-1, -2), keepdim=True)).pow(2).sum(dim=(-1, -2)))


def test_window_sums_stack_each_windows_own():
    model = _tiny_bert()
    gen = torch.Generator().manual_seed(2)
    windows = [torch.randint(0, 120, (20,), generator=gen).tolist() for _ in range(3)]
    got = window_sums(model, windows)
    assert got["sums"].shape == (3, 4, 6) and got["flat_sums"].shape == (3, 4, 4)
    errors = []
    for k, ids in enumerate(windows):
        one = four_term_sums(model, torch.tensor(ids))
        np.testing.assert_array_equal(got["sums"][k], one.sums)
        np.testing.assert_array_equal(got["flat_sums"][k], one.flatness_sums)
        np.testing.assert_array_equal(got["dim_sums"][k], one.dimension_sums)
        errors.append(one.relative_error)
    assert got["split_error"] == max(errors)
