"""sparse_dims_share where the word rows' variances tie: the dimensions of equal variance are taken in index order,
so the share does not depend on how a sort orders equal keys."""

from __future__ import annotations

import torch

from posenc.report.experiments import tutorial_training as sr


def test_tied_word_variances_take_the_lower_dimensions_first():
    d = 32
    words = torch.ones(5, d)  # every word row the same: every dimension's variance 0, all tied
    steps = torch.arange(6, dtype=torch.float64)[:, None]  # 6 positions, variance 35/12 wherever they vary
    low = torch.cat([steps.expand(6, d // 2), torch.zeros(6, d // 2, dtype=torch.float64)], dim=1)
    high = low.flip(1)
    # ties in index order: the "sparse" half is dims 0..15, which hold all of `low`'s variance and none of `high`'s
    assert sr.sparse_dims_share(words, low) == 1.0
    assert sr.sparse_dims_share(words, high) == 0.0
    # half the varying dims on each side of 16: 8 * 35/12 of 16 * 35/12
    mixed = torch.cat([low[:, 8:24], low[:, :8], low[:, 24:]], dim=1)
    assert torch.count_nonzero(mixed.var(0)[:16]) == 8
    assert sr.sparse_dims_share(words, mixed) == 0.5
