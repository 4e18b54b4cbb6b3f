"""Random RoPE problems for the kernel tests: shapes, memory layouts and tables drawn by hypothesis."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from hypothesis import strategies as st

from posenc.kernels.reference import rope_apply_reference

LAYOUTS = ("contiguous", "transposed", "offset", "channel-strided")
TOLERANCE = {torch.float32: (1e-5, 1e-5), torch.bfloat16: (1e-5, 1e-2), torch.float16: (1e-5, 1e-2)}  # atol, rtol


@dataclass
class Case:
    B: int
    Hk: int
    group: int
    Tq: int
    Tk: int
    R2: int
    D: int
    dtype: torch.dtype
    pairing: str
    q_layout: str
    k_layout: str
    table_batch: bool
    seed: int


def cases(dtypes=(torch.float32, torch.bfloat16, torch.float16), max_t: int = 19, max_r2: int = 9):
    """Odd and even lengths, GQA groups, partial rotary, per-row tables and non-contiguous views."""
    return st.builds(
        Case, B=st.integers(1, 3), Hk=st.integers(1, 3), group=st.integers(1, 3), Tq=st.integers(1, max_t),
        Tk=st.integers(1, max_t), R2=st.integers(1, max_r2), D=st.integers(0, 5), dtype=st.sampled_from(dtypes),
        pairing=st.sampled_from(("half", "interleaved")), q_layout=st.sampled_from(LAYOUTS),
        k_layout=st.sampled_from(LAYOUTS), table_batch=st.booleans(), seed=st.integers(0, 2**16))


def laid_out(values: torch.Tensor, layout: str) -> torch.Tensor:
    """The same values ``[B, H, T, D]`` in the given memory layout (a view for all but contiguous)."""
    B, H, T, D = values.shape
    if layout == "contiguous":
        return values.contiguous()
    if layout == "transposed":  # [B, T, H, D] storage, the usual projection output
        return values.transpose(1, 2).contiguous().transpose(1, 2)
    if layout == "offset":  # storage offset and row stride != D
        big = torch.zeros(B, H, T + 3, D + 2, dtype=values.dtype)
        big[:, :, 2:2 + T, 1:1 + D] = values
        return big[:, :, 2:2 + T, 1:1 + D]
    big = torch.zeros(B, H, T, 2 * D, dtype=values.dtype)  # channel-strided: last-dim stride 2
    big[..., ::2] = values
    return big[..., ::2]


def make_problem(case: Case):
    """``q, k, q_cos, q_sin, k_cos, k_sin`` for a case; head_dim is ``2 R2 + D`` (``D`` pass-through channels)."""
    gen = torch.Generator().manual_seed(case.seed)
    head_dim = 2 * case.R2 + case.D
    H = case.Hk * case.group
    q = laid_out(torch.randn(case.B, H, case.Tq, head_dim, generator=gen).to(case.dtype), case.q_layout)
    k = laid_out(torch.randn(case.B, case.Hk, case.Tk, head_dim, generator=gen).to(case.dtype), case.k_layout)

    def tables(T):
        shape = (case.B, T, case.R2) if case.table_batch else (T, case.R2)
        theta = torch.rand(shape, generator=gen, dtype=torch.float64) * 200.0  # angles up to 200 rad
        scale = 0.5 + torch.rand((), generator=gen, dtype=torch.float64)  # an attention factor in [0.5, 1.5)
        return (theta.cos() * scale).float(), (theta.sin() * scale).float()

    return (q, k, *tables(case.Tq), *tables(case.Tk))


def reference64(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, pairing: str) -> torch.Tensor:
    """RoPE with float64 math on the stored values: the yardstick."""
    return rope_apply_reference(x.double(), cos.double(), sin.double(), pairing, math_dtype=torch.float64)


def assert_matches(got: torch.Tensor, expected: torch.Tensor, dtype: torch.dtype) -> None:
    """``|got - expected| <= atol + rtol |expected|`` elementwise, with the dtype's tolerance."""
    atol, rtol = TOLERANCE[dtype]
    assert got.shape == expected.shape
    err = (got.detach().double() - expected).abs() - (atol + rtol * expected.abs())
    assert float(err.max()) <= 0.0 if err.numel() else True, f"max excess {float(err.max()):.3g} for {dtype}"
