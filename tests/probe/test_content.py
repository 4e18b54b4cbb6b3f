"""Swapping words at fixed positions (posenc.probe.content): the swap by hand, the distance by hand, and a head
that attends by position alone, which must not move; the statistics of a head pass's change, and bad input."""

import numpy as np
import pytest
import torch

from posenc.errors import PosencError
from posenc.probe.content import (
    content_change,
    content_estimates,
    content_statistics,
    swap_words,
    total_variation,
)
from posenc.probe.heads import decoder_heads, head_pass


def test_swap_words_keeps_the_special_tokens_and_the_length():
    windows = [[101, 1, 2, 102], [101, 3, 4, 102], [101, 5, 6, 102]]
    assert swap_words(windows, 1, 1) == [[101, 3, 4, 102], [101, 5, 6, 102], [101, 1, 2, 102]]
    # special tokens that differ between windows stay with their own window, at both ends
    ends = [[7, 1, 2, 3, 8], [9, 4, 5, 6, 10]]
    assert swap_words(ends, 1, 1) == [[7, 4, 5, 6, 8], [9, 1, 2, 3, 10]]
    assert swap_words(ends, 2, 2) == [[7, 1, 5, 3, 8], [9, 4, 2, 6, 10]]
    assert swap_words(ends, 0, 0) == [ends[1], ends[0]]
    with pytest.raises(PosencError):
        swap_words([[1, 2, 3]], 1, 1)
    with pytest.raises(PosencError):
        swap_words([[1, 2, 3], [1, 2]], 1, 1)


def test_total_variation_by_hand():
    a = torch.tensor([[1.0, 0.0], [0.5, 0.5]])
    b = torch.tensor([[0.0, 1.0], [0.5, 0.5]])
    assert total_variation(a, b).item() == pytest.approx(0.5)  # query 1: 1, query 2: 0


def test_content_change_is_zero_for_the_same_words_and_positive_otherwise(minilm):
    windows = [[101, 2023, 2003, 1037, 3231, 102], [101, 1996, 4937, 2938, 2006, 102]]
    same = content_change(minilm.model, windows, windows)
    assert same.shape == (2, 6, 12) and np.abs(same).max() == 0.0
    moved = content_change(minilm.model, windows, swap_words(windows, 1, 1))
    assert moved.min() >= 0 and moved.max() <= 1 and moved.mean() > 0.01


def _windows(count: int = 4) -> list[list[int]]:
    rng = np.random.default_rng(0)
    return [[1] + rng.integers(2, 60, 10).tolist() + [1] for _ in range(count)]


def test_content_statistics_are_minilms_on_the_pass(tiny_llama):
    body = tiny_llama.model.model
    windows = _windows(3)
    run = head_pass(body, windows, swap_words(windows, 1, 1))
    judged = decoder_heads(run)
    mine, _ = content_statistics(run, judged)
    theirs, _ = content_estimates(run["change"], judged.positional)
    assert repr(mine) == repr(theirs)  # NaN where no head is positional, in both


def test_bad_input_is_refused_with_what_was_given(tiny_llama):
    body = tiny_llama.model.model
    with pytest.raises(PosencError, match="swapped windows"):
        content_statistics({"per_window": {}, "query_offsets": None}, None)
    with pytest.raises(PosencError, match=r"\[W, L, H\], got shape \[2, 3\]"):
        content_estimates(np.zeros((2, 3)), [])
    with pytest.raises(PosencError, match="on_original must be a function"):
        content_change(body, [[1, 2]], [[1, 2]], on_original="heads")
