"""The layer schedule: spans by hand, the description, the dict form, and which layers share a module."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import posenc
from posenc.encodings.schedule import Layer, LayerSchedule, visible_keys
from posenc.errors import PosencError


def test_a_window_by_hand():
    seen = visible_keys(torch.arange(5), torch.arange(5), window=2)
    # |i - j| < 2: the token itself and its neighbours
    want = torch.tensor([[1, 1, 0, 0, 0],
                         [1, 1, 1, 0, 0],
                         [0, 1, 1, 1, 0],
                         [0, 0, 1, 1, 1],
                         [0, 0, 0, 1, 1]], dtype=torch.bool)
    assert torch.equal(seen, want)


def test_a_chunk_by_hand():
    seen = visible_keys(torch.arange(5), torch.arange(5), chunk=2)
    want = torch.tensor([[1, 1, 0, 0, 0],
                         [1, 1, 0, 0, 0],
                         [0, 0, 1, 1, 0],
                         [0, 0, 1, 1, 0],
                         [0, 0, 0, 0, 1]], dtype=torch.bool)
    assert torch.equal(seen, want)
    assert visible_keys(torch.arange(3), torch.arange(3)) is None


@given(st.lists(st.integers(0, 40), min_size=1, max_size=6), st.lists(st.integers(0, 40), min_size=1, max_size=6),
       st.one_of(st.none(), st.integers(1, 8)), st.one_of(st.none(), st.integers(1, 8)))
def test_spans_agree_with_their_definition_pair_by_pair(qs, ks, window, chunk):
    seen = visible_keys(torch.tensor(qs), torch.tensor(ks), window, chunk)
    if window is None and chunk is None:
        assert seen is None
        return
    for a, i in enumerate(qs):
        for b, j in enumerate(ks):
            want = (window is None or abs(i - j) < window) and (chunk is None or i // chunk == j // chunk)
            assert bool(seen[a, b]) == want


def test_batched_positions_give_a_span_per_row():
    positions = torch.tensor([[0, 1, 2], [5, 6, 7]])
    seen = visible_keys(positions, positions, chunk=2)
    assert seen.shape == (2, 3, 3)
    assert torch.equal(seen[1], visible_keys(torch.tensor([5, 6, 7]), torch.tensor([5, 6, 7]), chunk=2))


def test_cycle_describe_and_ranges():
    local, wide = Layer("rope", {"base": 1e4}, window=4), Layer("rope", {"base": 1e6})
    schedule = LayerSchedule.cycle(12, [local] * 5 + [wide])
    assert len(schedule) == 12 and schedule[5] == wide and schedule[11] == wide and schedule[6] == local
    assert schedule.describe() == [("0-4, 6-10", "rope(base=10000) · window 4"), ("5, 11", "rope(base=1e+06)")]
    assert not schedule.is_uniform and LayerSchedule.uniform(3, "alibi").is_uniform
    assert Layer("nope", chunk=8).describe() == "nope · chunk 8"
    assert Layer("rope", qk_norm=1e-5).describe() == "rope · qk-norm"


def test_dict_form_round_trips_and_bad_rows_are_refused():
    schedule = LayerSchedule.cycle(4, [Layer("rope", {"base": 500000.0}, chunk=8), Layer("temperature",
                                                                                       {"floor_scale": 16})])
    rows = schedule.as_dict()
    assert rows[0] == {"encoding": "rope", "options": {"base": 500000.0}, "chunk": 8}
    assert LayerSchedule.from_dict(rows) == schedule
    with pytest.raises(PosencError, match="layer 1 of the schedule must be a dict with 'encoding'"):
        LayerSchedule.from_dict([{"encoding": "rope"}, {"windw": 3}])
    with pytest.raises(PosencError, match="a list of layers"):
        LayerSchedule.from_dict({"encoding": "rope"})
    with pytest.raises(PosencError, match="unknown encoding 'ropee'"):
        Layer("ropee")
    with pytest.raises(PosencError, match="window must be a positive integer or None, got 0"):
        Layer("rope", window=0)
    with pytest.raises(PosencError, match="qk_norm is the epsilon of its query/key norm"):
        Layer("rope", qk_norm=-1.0)
    assert LayerSchedule.from_dict([{"encoding": "rope", "qk_norm": 1e-5}])[0].qk_norm == 1e-5
    with pytest.raises(PosencError, match="one Layer per layer"):
        LayerSchedule(())
    with pytest.raises(PosencError, match="takes no options"):
        Layer(posenc.build("rope", head_dim=8), {"base": 1.0})


def test_equal_layers_share_a_module_and_sizes_are_filled_in():
    schedule = LayerSchedule.cycle(4, [Layer("rope", {"base": 1e4}), Layer("rope", {"base": 1e4}, window=2),
                                       Layer("alibi"), Layer("rope", {"base": 1e6})])
    built = schedule.build(d_model=32, n_heads=4, head_dim=8, max_len=16)
    assert built[0] is built[1] and built[0] is not built[3]  # the span is not part of the module
    assert built[0].head_dim == 8 and built[2].n_heads == 4 and built[3].base == 1e6
    own = schedule.build(d_model=32, n_heads=4, head_dim=4)  # an option wins over the model size
    assert own[0].head_dim == 4
    explicit = LayerSchedule.uniform(2, "rope", {"head_dim": 2}).build(head_dim=8)
    assert explicit[0].head_dim == 2


def test_a_built_encoding_is_used_as_it_is():
    rope = posenc.build("rope", head_dim=8, base=123.0)
    schedule = LayerSchedule((Layer(rope), Layer(rope, window=3), Layer("nope")))
    built = schedule.build(head_dim=16)
    assert built[0] is rope and built[1] is rope and built[2].name == "nope"
    assert schedule[1].name == "rope" and schedule[1].describe().endswith("· window 3")
    assert "base=123" in schedule[0].describe()
