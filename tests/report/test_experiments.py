"""Experiments that run in about a second, against values derived by hand."""

from __future__ import annotations

import math

import pytest
import torch

from posenc.properties import relative_map_residual
from posenc.report.experiments import Context, get_experiment

QUICK = Context(quick=True)


def test_normalized_step_is_one_over_n_minus_one():
    n = get_experiment("naive_normalized")(QUICK).numbers
    # tutorial 000 §2.2: 3 tokens get 0, 0.5, 1 -> step 1/2; 1000 tokens -> step 1/999
    assert n["step_by_length"]["3"] == pytest.approx(0.5)
    assert n["step_by_length"]["1000"] == pytest.approx(1 / 999)
    assert n["step_ratio_shortest_longest"] == pytest.approx(999 / 2)


def test_unique_min_distance_matches_the_neighbour_formula():
    n = get_experiment("sinusoid_unique")(QUICK).numbers
    # ||PE[p+1] - PE[p]||^2 = sum_i |e^{i w_i} - 1|^2 = sum_i 4 sin^2(w_i / 2), w_i = 10000^(-2i/d), d = 512
    w = [10000 ** (-2 * i / 512) for i in range(256)]
    expected = math.sqrt(sum(4 * math.sin(x / 2) ** 2 for x in w))
    assert n["neighbour_distance"] == pytest.approx(expected, rel=1e-5)
    assert n["min_pairwise_distance"] == pytest.approx(expected, rel=1e-4)  # FACTS: 3.71, nearest are neighbours
    assert n["distinct_rows_float32"] == n["length"]


def test_relative_map_residual_is_zero_for_rotations_and_large_for_noise():
    theta = torch.arange(100, dtype=torch.float64)[:, None] * torch.tensor([0.3, 0.01], dtype=torch.float64)
    table = torch.stack([theta.sin(), theta.cos()], dim=-1).flatten(1)  # [100, 4]: (sin, cos) pairs
    residual, m = relative_map_residual(table, 3, paired=True)
    assert residual < 1e-10
    # the 2x2 block of pair 0 is the rotation by 3 * 0.3 acting on row vectors (sin, cos)
    c, s = math.cos(0.9), math.sin(0.9)
    assert m[:2, :2].flatten().tolist() == pytest.approx([c, -s, s, c], abs=1e-9)
    noise = torch.randn(100, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    assert relative_map_residual(noise, 3, paired=True)[0] > 0.5


def test_ffn_is_blind_and_the_rope_block_is_not():
    n = get_experiment("ffn_position_blind")(QUICK).numbers
    assert n["ffn_permutation_error"] < 1e-6 and n["ffn_same_vector_error"] < 1e-6
    assert n["rope_block_permutation_error"] > 1e-3


def test_add_keeps_width_concat_adds_it():
    n = get_experiment("add_vs_concat")(QUICK).numbers
    assert (n["add_width"], n["concat_width"]) == (64, 128)
    assert n["concat_parameters"] > n["add_parameters"]
    for r in n["readout"].values():  # concatenation keeps both parts apart: token always recoverable
        assert r["concat_token"] >= r["add_token"] - 1e-9
