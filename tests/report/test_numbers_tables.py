"""The numbers of tables.py's experiments against numpy (issue #19, item 3).

Each experiment runs at its own quick sizes (well under a second) and the statistics its claims read are computed
again here with numpy: tables from the formula or by bit arithmetic, least squares with ``np.linalg.lstsq`` (one
2x2 fit per channel pair where the experiment fits pairs), distances with scipy. Where the experiment's input is a
float32 posenc table whose round-off *is* the measured number (a residual of 1e-8), that same table is the input and
only the statistic is recomputed. ``naive_normalized`` and ``sinusoid_unique`` are checked in test_experiments.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy.spatial.distance import pdist

import posenc
from posenc.report.experiments.base import Context
from posenc.report.experiments.tables import (
    naive_binary,
    naive_integer,
    sinusoid_bounded,
    sinusoid_extrapolation_theory,
    sinusoid_local_global,
    sinusoid_relative_linear,
)

QUICK = Context(quick=True)


pytestmark = pytest.mark.usefixtures("one_thread")


def formula_sinusoid(positions: np.ndarray, dim: int) -> np.ndarray:
    """PE[p, 2i] = sin(p w_i), PE[p, 2i+1] = cos(p w_i), w_i = 10000^(-2i/d), in float64."""
    angle = np.asarray(positions, dtype=np.float64)[:, None] * 10000.0 ** (-np.arange(0, dim, 2) / dim)
    table = np.empty((len(positions), dim))
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    return table


def posenc_sinusoid(positions: np.ndarray, dim: int) -> np.ndarray:
    """posenc's float32 sinusoid at ``positions``, as float64 (the experiments' own input)."""
    return posenc.build("sinusoidal", dim=dim).encode(torch.as_tensor(positions), dim).double().numpy()


def full_residual(table: np.ndarray, k: int) -> float:
    """||PE[p+k] - PE[p] M|| / ||PE[p+k]|| for the best d x d matrix M (numpy least squares)."""
    source, target = table[:-k], table[k:]
    m = np.linalg.lstsq(source, target, rcond=None)[0]
    return float(np.linalg.norm(target - source @ m) / np.linalg.norm(target))


def pair_blocks(source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """One 2x2 least-squares map per channel pair: ``blocks[i]`` with target[:, 2i:2i+2] ~ source[:, 2i:2i+2] B."""
    return np.stack([np.linalg.lstsq(source[:, i:i + 2], target[:, i:i + 2], rcond=None)[0]
                     for i in range(0, source.shape[1], 2)])


def paired_residual(source: np.ndarray, target: np.ndarray, blocks: np.ndarray) -> float:
    predicted = np.concatenate([source[:, 2 * i:2 * i + 2] @ b for i, b in enumerate(blocks)], axis=1)
    return float(np.linalg.norm(target - predicted) / np.linalg.norm(target))


def test_naive_integer_by_hand():
    n = naive_integer(QUICK).numbers
    p = np.arange(512, dtype=np.float64)
    table = np.repeat((p + 1)[:, None], 16, axis=1)  # PE[p] = p + 1 in every channel
    assert n["growth_test_over_train"] == 512 / 64  # largest value 512 at length 512, 64 at 64
    assert n["rms_ratio_test"] == pytest.approx(math.sqrt(513 * 1025 / 6), rel=1e-12)  # sqrt(mean (p+1)^2)
    assert n["rms_ratio_test"] == pytest.approx(np.sqrt((table ** 2).mean()), rel=1e-12)
    assert n["unseen_fraction_test"] == (512 - 64) / 512  # positions 64..511 carry 65..512, above 64
    assert n["relative_map_residual"] == pytest.approx(full_residual(table, 1), rel=1e-6)
    # the best map multiplies by one number c: ||(p+2) - c (p+1)|| / ||p+2|| with c from the normal equation
    c = ((p[:-1] + 1) * (p[:-1] + 2)).sum() / ((p[:-1] + 1) ** 2).sum()
    by_hand = np.linalg.norm(p[:-1] + 2 - c * (p[:-1] + 1)) / np.linalg.norm(p[:-1] + 2)
    assert n["relative_map_residual"] == pytest.approx(by_hand, rel=1e-6)


def test_naive_binary_by_bit_counting():
    n = naive_binary(QUICK).numbers
    p = np.arange(1024)
    flips = np.array([bin(int(a) ^ int(a + 1)).count("1") for a in p[:-1]])  # bits that change p -> p+1
    distances = np.sqrt(flips)
    assert n["neighbour_distance_max_over_min"] == pytest.approx(math.sqrt(10))  # 511 -> 512 flips all 10 bits
    assert n["neighbour_distance_max_over_min"] == pytest.approx(distances.max() / distances.min())
    assert n["neighbour_distance_cv"] == pytest.approx(distances.std(ddof=1) / distances.mean(), rel=1e-12)
    bits = ((p[:, None] >> np.arange(10)) & 1).astype(np.float64)  # [T, 10], channel j = bit j
    assert n["relative_map_residual"] == pytest.approx(full_residual(bits, 1), rel=1e-6)


def test_sinusoid_bounded_against_the_formula():
    n = sinusoid_bounded(QUICK).numbers
    positions = np.concatenate([np.arange(4096), [10**5, 10**6, 10**7, 10**8, 10**9, 2**40]])
    values = formula_sinusoid(positions[:4096], 512)  # exact in float64 where float32 positions are exact
    assert n["max_abs"] == pytest.approx(np.abs(values).max(), abs=1e-6)  # 1: cos(0) at position 0
    assert n["min"] == pytest.approx(values.min(), abs=1e-6)
    assert n["positions_checked"] == len(positions) and n["largest_position"] == 2**40
    assert n["integer_max_same_positions"] == 4096  # the integer code p + 1 at p = 4095


def test_sinusoid_relative_linear_against_numpy_pair_fits():
    n = sinusoid_relative_linear(QUICK).numbers
    dim, length = 64, 512
    table = posenc_sinusoid(np.arange(length), dim)
    random_table = torch.randn(length, dim, generator=torch.Generator().manual_seed(0), dtype=torch.float64).numpy()
    w = 10000.0 ** (-np.arange(0, dim, 2) / dim)
    for k in (1, 4, 16, 64):
        got = n["by_offset"][str(k)]
        blocks = pair_blocks(table[:-k], table[k:])
        assert got["residual"] == pytest.approx(paired_residual(table[:-k], table[k:], blocks), rel=1e-6)
        # the rotation tutorial 001 derives, for row vectors (sin, cos): [[cos kw, -sin kw], [sin kw, cos kw]]
        rotations = np.stack([[[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]] for a in k * w])
        assert got["vs_rotation"] == pytest.approx(np.abs(blocks - rotations).max(), rel=1e-4)
        half = (length - k) // 2
        first = pair_blocks(table[:-k][:half], table[k:][:half])
        second = pair_blocks(table[:-k][half:], table[k:][half:])
        assert got["first_vs_second_half"] == pytest.approx(np.abs(first - second).max(), rel=1e-4)
        noise = pair_blocks(random_table[:-k], random_table[k:])
        assert got["random_residual"] == pytest.approx(paired_residual(random_table[:-k], random_table[k:], noise),
                                                       rel=1e-9)
    assert n["min_random_residual"] == min(v["random_residual"] for v in n["by_offset"].values())
    assert n["max_residual"] == max(v["residual"] for v in n["by_offset"].values())


def test_sinusoid_local_global_against_numpy():
    n = sinusoid_local_global(QUICK).numbers
    dim, length = 128, 1024
    table = formula_sinusoid(np.arange(length), dim)
    p = np.arange(length, dtype=np.float64)
    for name, cols in (("low", slice(0, 32)), ("high", slice(96, 128))):
        x = table[:, cols]
        step = np.linalg.norm(np.diff(x, axis=0), axis=1).mean()
        # every step has the same length: ||PE[p+1] - PE[p]||^2 = sum_i 4 sin^2(w_i / 2) over the block's pairs
        w = 10000.0 ** (-np.arange(0, dim, 2) / dim)[cols.start // 2:cols.stop // 2]
        assert step == pytest.approx(math.sqrt((4 * np.sin(w / 2) ** 2).sum()), rel=1e-9)
        design = np.column_stack([x, np.ones(length)])
        fitted = design @ np.linalg.lstsq(design, p, rcond=None)[0]
        r2 = 1 - ((fitted - p) ** 2).sum() / ((p - p.mean()) ** 2).sum()
        assert n[f"{name}_neighbour_step"] == pytest.approx(step, rel=1e-5)
        assert n[f"{name}_position_r2"] == pytest.approx(r2, abs=1e-5)
    assert n["step_ratio_low_high"] == pytest.approx(n["low_neighbour_step"] / n["high_neighbour_step"])
    assert n["step_ratio_low_high"] > 100 and n["low_position_r2"] < 0.01 < 0.999 < n["high_position_r2"]


def test_sinusoid_extrapolation_theory_against_numpy():
    n = sinusoid_extrapolation_theory(QUICK).numbers
    dim, length, start = 64, 512, 100_000
    inside = posenc_sinusoid(np.arange(length), dim)
    far = posenc_sinusoid(np.arange(start, start + length), dim)
    blocks = pair_blocks(inside[:-1], inside[1:])  # the 1-step maps fitted on the trained range
    assert n["transfer_residual"] == pytest.approx(paired_residual(far[:-1], far[1:], blocks), rel=1e-6)
    assert n["far_min_distance"] == pytest.approx(pdist(far).min(), rel=1e-9)
    assert n["far_max_abs"] == pytest.approx(np.abs(far).max(), abs=0)
    # and the far table is the formula's, to float32 resolution of the angle p w_i (p ~ 1e5)
    assert np.abs(far - formula_sinusoid(np.arange(start, start + length), dim)).max() < 2e-2
    assert n["learned_runs_far"] == 0
