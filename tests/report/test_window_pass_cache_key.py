"""The caches of MiniLM's window pass and of its four-term null (``pretrained._window_pass``, ``_null_split``, kept
per process and shared by six claims): each argument that changes the windows (their length, their count) changes
what a call returns, so no claim is served another length's or another mode's windows, and the same arguments are
served the same object."""

import numpy as np
import pytest

from posenc.report.experiments import pretrained


@pytest.fixture
def cached(minilm, monkeypatch):
    monkeypatch.setattr(pretrained, "minilm", lambda: minilm)
    for cache in (pretrained._window_pass, pretrained._null_split, pretrained._null_models):
        cache.cache_clear()
    yield
    for cache in (pretrained._window_pass, pretrained._null_split, pretrained._null_models):
        cache.cache_clear()


def test_window_pass_keys_on_length_and_count(cached):
    two = pretrained._window_pass(24, 2)
    three = pretrained._window_pass(24, 3)
    longer = pretrained._window_pass(32, 2)
    assert (two["windows"], three["windows"], longer["windows"]) == (2, 3, 2)
    assert two["argmax"].shape[-1] == 24 and longer["argmax"].shape[-1] == 32  # [W, L, H, T]
    assert list(two["entries"]) == [24.0 ** 2] * 2 and list(longer["entries"]) == [32.0 ** 2] * 2
    # the quick mode's windows are the first of the full mode's: the same sums for the windows they share
    np.testing.assert_array_equal(three["sums"][:2], two["sums"])
    assert not np.array_equal(longer["sums"], two["sums"])
    assert pretrained._window_pass(24, 2) is two  # the same arguments: the cached pass


def test_null_split_keys_on_length_and_count_and_reads_the_same_windows(cached):
    two = pretrained._null_split(24, 2)
    three = pretrained._null_split(24, 3)
    longer = pretrained._null_split(32, 2)
    assert len(two) == len(three) == len(longer) == pretrained.NULL_DRAWS
    for short, more, long in zip(two, three, longer, strict=True):
        assert (len(short["sums"]), len(more["sums"]), len(long["sums"])) == (2, 3, 2)
        np.testing.assert_array_equal(more["sums"][:2], short["sums"])
        assert list(long["entries"]) == [32.0 ** 2] * 2
    # each draw is its own random model, and none is the trained one on the same windows
    measured = pretrained._window_pass(24, 2)["sums"]
    assert not np.allclose(two[0]["sums"], two[1]["sums"])
    assert all(not np.allclose(draw["sums"], measured) for draw in two)
    assert pretrained._null_split(24, 2) is two
