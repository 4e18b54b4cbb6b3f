"""Order and position read off a model's outputs (posenc.probe.order), by hand."""

from __future__ import annotations

import pytest
import torch

from posenc.probe.order import order_effect, position_gap


def test_order_effect_is_zero_for_an_equivariant_map_and_measures_the_rest():
    h = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    perm = torch.tensor([2, 0, 1])
    assert order_effect(h, h[perm], perm) == 0.0
    moved = h[perm].clone()
    moved[0, 1] += 0.7  # one output off by 0.7; mean |h| = 3.5
    assert order_effect(h, moved, perm) == pytest.approx(0.7 / 3.5)


def test_position_gap_is_the_closest_pair_of_neighbours():
    h = torch.tensor([[0.0, 2.0], [1.0, 2.0], [1.0, 2.25], [3.0, 2.0]])  # neighbour gaps (max-abs) 1, 0.25, 2
    assert position_gap(h) == pytest.approx(0.25 / h.abs().mean().item())
