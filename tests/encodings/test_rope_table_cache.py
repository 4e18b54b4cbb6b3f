"""RoPE's table cache (``RoPE.tables``) keyed by all that changes a table: a call after another with other positions,
another length for a length-dependent scaling, or other options, equals a fresh module's answer."""

import pytest
import torch

import posenc


def _fresh_tables(options, positions, seq_len=None):
    return posenc.build("rope", **options).tables(positions, seq_len)


@pytest.mark.parametrize("first,second", [(10, 300), (300, 10), (256, 257), (5, 5000)])
def test_tables_after_a_call_at_another_length_equal_a_fresh_modules(first, second):
    rope = posenc.build("rope", head_dim=16)
    rope.tables(torch.arange(first))  # fills the cache at this length
    got = rope.tables(torch.arange(second))
    want = _fresh_tables({"head_dim": 16}, torch.arange(second))
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, rtol=0, atol=0)


def test_a_length_dependent_scaling_is_never_served_from_another_lengths_table():
    options = {"head_dim": 16, "scaling": {"type": "dynamic", "factor": 2.0, "original_max_len": 32}}
    rope = posenc.build("rope", **options)
    short = rope.tables(torch.arange(16), seq_len=16)
    long = rope.tables(torch.arange(16), seq_len=128)  # past 32 tokens: a larger base, other tables
    assert (short[1] - long[1]).abs().max() > 1e-3
    torch.testing.assert_close(long[1], _fresh_tables(options, torch.arange(16), 128)[1], rtol=0, atol=0)
    torch.testing.assert_close(rope.tables(torch.arange(16), seq_len=16)[1], short[1], rtol=0, atol=0)


def test_two_modules_with_other_bases_keep_their_own_tables():
    a, b = posenc.build("rope", head_dim=16, base=100.0), posenc.build("rope", head_dim=16, base=10000.0)
    positions = torch.arange(8)
    ta, tb = a.tables(positions), b.tables(positions)
    assert (ta[1] - tb[1]).abs().max() > 1e-2
    torch.testing.assert_close(a.tables(positions)[1], _fresh_tables({"head_dim": 16, "base": 100.0}, positions)[1])


def test_moving_the_module_drops_the_cache():
    rope = posenc.build("rope", head_dim=16)
    rope.tables(torch.arange(10))
    assert rope._cache is not None
    rope.double()
    assert rope._cache is None
