"""The positional-head counts split by offset, and the seed of the summary's intervals."""

import torch

from posenc.probe.heads import HeadAccumulator

T = 16


def _offset_head(offset: int) -> torch.Tensor:
    """All weight on key i + offset (on itself where that falls outside the sequence)."""
    a = torch.zeros(T, T)
    for i in range(T):
        j = i + offset
        a[i, j if 0 <= j < T else i] = 1.0
    return a


def test_adjacent_and_other_positional_heads_are_counted_by_offset():
    # three heads on offsets -1, +1 and +3, three identical windows: every query with its offset inside the window
    # hits, so each fraction is the point 1 > 0.9 and all three are positional; offsets +-1 are the adjacent ones
    acc = HeadAccumulator(n_layers=1, n_heads=3, max_len=T)
    for _ in range(3):
        acc.add(0, torch.stack([_offset_head(-1), _offset_head(+1), _offset_head(+3)]))
    estimates = acc.summary()["estimates"]
    assert [estimates[k]["value"] for k in ("positional_heads", "adjacent_positional_heads",
                                            "other_positional_heads")] == [3.0, 2.0, 1.0]


def test_the_summary_s_intervals_follow_its_seed():
    # random attention over five windows: the bootstrap resamples differ from seed to seed, so the intervals do too,
    # while one seed always gives the same intervals
    gen = torch.Generator().manual_seed(0)
    acc = HeadAccumulator(n_layers=1, n_heads=2, max_len=T)
    for _ in range(5):
        acc.add(0, (3 * torch.randn(2, T, T, generator=gen)).softmax(-1))
    first, again, other = acc.summary(seed=1), acc.summary(seed=1), acc.summary(seed=2)
    for key in ("voita_interval", "previous_interval", "next_interval"):
        assert first[key] == again[key]
        assert first[key] != other[key], key
