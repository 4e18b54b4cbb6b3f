"""A forward reads nothing back from the device per layer: the model checks its positions and memory once at its
entry, and the hooks of its layers trust it (posenc.encodings.base.checked_entry).

Reads are counted with a real ``torch.overrides.TorchFunctionMode``: every ``.item()``, ``.tolist()``, ``bool()``,
``int()``, ``float()`` or ``__index__`` of a tensor passes through it. On a GPU each is a wait for the device, so the
count of a forward must not grow with the number of layers.
"""

from __future__ import annotations

import pytest
import torch

import posenc
from posenc.device import HostReads
from posenc.encodings.base import checked_entry, position_bounds
from posenc.encodings.schedule import Layer, LayerSchedule
from posenc.errors import PosencError
from posenc.model import Transformer, TransformerConfig


def reads(model: Transformer, ids: torch.Tensor, positions: torch.Tensor | None = None) -> int:
    with torch.no_grad(), HostReads() as counter:
        model(ids, positions=positions)
    return counter.count


def lab_model(layers: int, **options) -> Transformer:
    torch.manual_seed(0)
    return Transformer(TransformerConfig(vocab_size=11, d_model=16, n_heads=2, n_layers=layers, max_len=64, **options))


def test_the_counter_sees_the_reads_it_counts():
    with HostReads() as counter:
        t = torch.arange(5)
        int(t.max()), t.min().item(), bool((t > 2).any()), float(t.sum()), t.tolist(), range(t[1])
    assert counter.count == 6


@pytest.mark.parametrize("name", posenc.available())
def test_a_forward_reads_as_often_with_one_layer_as_with_four(name):
    ids = torch.randint(0, 11, (2, 9), generator=torch.Generator().manual_seed(1))
    for positions in (None, torch.arange(3, 12)):
        one, four = (reads(lab_model(layers, encoding=name), ids, positions) for layers in (1, 4))
        assert four == one, f"{name}: {one} reads with 1 layer, {four} with 4 (positions {positions})"
        assert one <= 8  # the ids' range, the positions' range, what the encoding reads once per forward


def test_a_schedule_of_several_encodings_reads_once_per_encoding_not_per_layer():
    ids = torch.randint(0, 11, (2, 9), generator=torch.Generator().manual_seed(2))
    counts = [reads(lab_model(2 * n, schedule=LayerSchedule.cycle(2 * n, [Layer("rope"), Layer("alibi")])), ids)
              for n in (1, 3)]
    assert counts[0] == counts[1]


def test_a_hook_called_directly_still_checks_its_positions():
    rope = posenc.build("rope", head_dim=4)
    q = torch.randn(1, 1, 3, 4)
    with pytest.raises(PosencError, match="q_positions must be >= 0, got minimum -1"):
        rope.rotate(q, q, torch.tensor([-1, 0, 1]), torch.arange(3))
    with checked_entry():  # inside an entry that checked them, the hook trusts its caller
        rope.rotate(q, q, torch.arange(3), torch.arange(3))


def test_the_model_entry_still_refuses_negative_positions():
    with pytest.raises(PosencError, match="positions must be >= 0"):
        lab_model(2)(torch.zeros(1, 3, dtype=torch.long), positions=torch.tensor([-2, 0, 1]))


def test_position_bounds_read_once_per_tensor_inside_an_entry():
    p = torch.tensor([4, 1, 7])
    assert position_bounds(p) == (1, 7) and position_bounds(torch.zeros(0, dtype=torch.long)) == (0, -1)
    with checked_entry(), HostReads() as counter:
        assert [position_bounds(p) for _ in range(5)] == [(1, 7)] * 5
        assert position_bounds(p + 1) == (2, 8)  # another tensor: read again
    assert counter.count == 2


def test_the_forward_refuses_biases_that_do_not_fit_once_at_its_entry(monkeypatch):
    import posenc.encodings.base as base

    monkeypatch.setattr("posenc.resources.available_memory", lambda device="cpu": 1 << 20)
    monkeypatch.setattr(base, "SMALL_ALLOCATION", 0)
    model = lab_model(2, encoding="alibi")
    with pytest.raises(PosencError, match=r"a forward of 1 x 200 tokens with 2 head\(s\) \(alibi bias\) does not fit"):
        model(torch.zeros(1, 200, dtype=torch.long))
    model(torch.zeros(1, 20, dtype=torch.long))  # 20 x 20 pairs fit in 1 MB
