"""Property-based tests (Hypothesis) of the encoding contract of ``posenc.encodings.base``.

Every example draws its own shapes (empty batches and empty sequences included), dtype (float32, float64, bfloat16
with a loose tolerance), position offsets, shared ``[T]`` or per-row ``[B, T]`` positions, grouped-query heads, RoPE
pairing (``half`` / ``interleaved``) and partial rotary fraction. The properties:

- every hook of every registered encoding keeps the contract's shapes and the input's dtype, and a hook an encoding
  does not override is the identity (or ``None``);
- converting q/k projection weights between pairings (``convert_qk_weights``) leaves the attention logits unchanged;
- rotary logits are unchanged when query and key positions move together (RoPE with non-length-dependent scalings,
  p-RoPE, xPos, M-RoPE on text positions, axial RoPE by whole grid rows);
- bias encodings (ALiBi, T5, KERPLE, Sandwich, and FIRE below its threshold) give a bias that depends on ``q_pos -
  k_pos`` only: equal under a common shift, and equal to the bias of the same offset taken at another place;
- the fused CPU kernel that ``rotate`` dispatches to equals the plain-torch reference rotation, forward and backward.

How many examples run is the Hypothesis profile's (``tests/hypothesis_profiles.py``: ``HYPOTHESIS_PROFILE=ci`` by
default, ``deep`` for a long search).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import posenc
from posenc.encodings.rope import convert_qk_weights, positions_span
from posenc.kernels import cpu as cpu_kernel
from posenc.kernels import rope_apply_reference, select_provider

D, H = 16, 4  #: model width and query heads of every built encoding
MAX_LEN = 64  #: positions the learned table and CoPE are built for; contract positions stay below it
MAX_T = 9
DTYPES = (torch.float32, torch.float64, torch.bfloat16)
#: elementwise tolerance, relative to the natural scale of a logit sum_i |q_i k_i|: float32 tables and math
#: (RoPE runs in float32 whatever the input, :mod:`posenc.kernels.reference`), bfloat16 outputs rounded to 8 bits
LOGIT_TOLERANCE = {torch.float32: 2e-6, torch.float64: 2e-6, torch.bfloat16: 2e-2}


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """Hundreds of tiny tensors: one torch thread keeps them fast on a small, shared machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# ---------------------------------------------------------------------------------------------------------------
# drawing a problem
# ---------------------------------------------------------------------------------------------------------------
@dataclass
class Problem:
    B: int
    Tq: int
    Tk: int
    group: int  #: query heads per key head
    head_dim: int
    dtype: torch.dtype
    per_row: bool
    q_offsets: list[int]  #: one per row (the first is used for shared positions)
    k_offsets: list[int]
    seed: int

    @property
    def Hk(self) -> int:
        return H // self.group

    def positions(self, T: int, offsets: list[int], shift: int | list[int] = 0) -> torch.Tensor:
        """``[T]`` from the first offset, or ``[B, T]`` one row per offset (``B = 0`` gives ``[0, T]``)."""
        shifts = torch.as_tensor(shift if isinstance(shift, list) else [shift] * len(offsets), dtype=torch.long)
        starts = torch.tensor(offsets, dtype=torch.long) + shifts  # [rows]
        if not self.per_row:
            return torch.arange(T) + starts[0]
        return torch.arange(T)[None, :] + starts[: self.B, None]  # [B, T]

    def qk(self, requires_grad: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        gen = torch.Generator().manual_seed(self.seed)
        q = torch.randn(self.B, H, self.Tq, self.head_dim, generator=gen, dtype=torch.float64).to(self.dtype)
        k = torch.randn(self.B, self.Hk, self.Tk, self.head_dim, generator=gen, dtype=torch.float64).to(self.dtype)
        return q.requires_grad_(requires_grad), k.requires_grad_(requires_grad)


@st.composite
def problems(draw, dtypes=DTYPES, max_offset: int = MAX_LEN - MAX_T, head_dims=(8, 16)) -> Problem:
    B = draw(st.integers(0, 3))
    rows = max(B, 1)
    offsets = st.lists(st.integers(0, max_offset), min_size=rows, max_size=rows)
    return Problem(B=B, Tq=draw(st.integers(0, MAX_T)), Tk=draw(st.integers(0, MAX_T)),
                   group=draw(st.sampled_from((1, 2, 4))), head_dim=draw(st.sampled_from(head_dims)),
                   dtype=draw(st.sampled_from(dtypes)), per_row=draw(st.booleans()), q_offsets=draw(offsets),
                   k_offsets=draw(offsets), seed=draw(st.integers(0, 2**31 - 1)))


def _build(name: str, head_dim: int, **options):
    encoding = posenc.build_for_model(name, d_model=D, n_heads=H, head_dim=head_dim, max_len=MAX_LEN, **options)
    return encoding.train(False)


def _logits(q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(q k^T, |q| |k|^T)`` ``[B, H, Tq, Tk]`` in float64, key heads repeated for grouped-query attention; the
    second is the scale against which rounding is measured."""
    k = k.repeat_interleave(q.shape[1] // k.shape[1], dim=1)
    q, k = q.double(), k.double()
    return q @ k.transpose(-1, -2), q.abs() @ k.abs().transpose(-1, -2)


def _assert_logits_close(got: torch.Tensor, expected: torch.Tensor, scale: torch.Tensor, dtype: torch.dtype) -> None:
    assert got.shape == expected.shape
    if not got.numel():
        return
    excess = (got - expected).abs() - (LOGIT_TOLERANCE[dtype] * scale + 1e-9)
    assert float(excess.max()) <= 0, f"logits differ by up to {float((got - expected).abs().max()):.3g} ({dtype})"


# ---------------------------------------------------------------------------------------------------------------
# the contract: shapes, dtypes, identity hooks
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", posenc.available())
@given(problem=problems())
def test_every_hook_keeps_the_contract_shapes_and_dtype(name, problem):
    p = problem
    encoding = _build(name, p.head_dim)
    hooks = encoding.info.hooks
    q_pos, k_pos = p.positions(p.Tq, p.q_offsets), p.positions(p.Tk, p.k_offsets)

    x = torch.randn(p.B, p.Tq, D, dtype=torch.float64).to(p.dtype)
    y = encoding.embed(x, q_pos)
    assert y.shape == (p.B, p.Tq, encoding.output_dim(D)) and y.dtype == p.dtype
    assert bool(torch.isfinite(y).all())
    if "embed" not in hooks:
        assert torch.equal(y, x)

    q, k = p.qk()
    qo, ko = encoding.rotate(q, k, q_pos, k_pos)
    width = encoding.rotated_dim(p.head_dim)  # the head width unless the encoding widens q and k (PoPE)
    assert qo.shape == (*q.shape[:-1], width) and ko.shape == (*k.shape[:-1], width)
    assert qo.dtype == p.dtype and ko.dtype == p.dtype
    if "rotate" not in hooks:
        assert torch.equal(qo, q) and torch.equal(ko, k)
    else:  # a rotation keeps the norm of every rotated pair (xPos scales it: only finite there)
        assert bool(torch.isfinite(qo).all() and torch.isfinite(ko).all())

    bias = encoding.bias(q_pos, k_pos)
    if "bias" not in hooks:
        assert bias is None
    else:
        assert bias.shape == ((p.B, H, p.Tq, p.Tk) if p.per_row else (H, p.Tq, p.Tk))
        assert bias.is_floating_point() and bool(torch.isfinite(bias).all())

    keys = torch.randn(p.B, p.Tk, D, dtype=torch.float64).to(p.dtype)  # the layer input of the key tokens
    has_input = p.Tq <= p.Tk  # the queries are the last Tq of the Tk tokens: with more queries there is no input
    contextual = (encoding.contextual_bias(qo, ko, q_pos, k_pos, x=keys if has_input else None)
                  if has_input or encoding.name != "fox" else None)  # FoX reads only the input
    if "contextual_bias" not in hooks:
        assert contextual is None
    elif contextual is not None:
        assert contextual.shape == (p.B, H, p.Tq, p.Tk) and bool(torch.isfinite(contextual).all())

    factor = encoding.query_scale(q_pos)
    if "query_scale" not in hooks:  # one number for every query: 1 as built here
        assert not isinstance(factor, torch.Tensor) and factor == 1.0
    else:
        assert factor.shape == q_pos.shape and factor.is_floating_point() and bool((factor > 0).all())


# ---------------------------------------------------------------------------------------------------------------
# RoPE pairings: converted weights give the same logits
# ---------------------------------------------------------------------------------------------------------------
FRACTIONS = (0.25, 0.5, 0.75, 1.0)


def _rotary_dim(head_dim: int, fraction: float, scaling: dict | None = None) -> int:
    """The rotary width of a partial-rotary fraction: even, at least one pair (two for NTK, whose exponent
    ``R / (R - 2)`` needs ``R > 2``: posenc refuses ``R = 2`` with a clear error)."""
    smallest = 4 if scaling and scaling["type"] in ("ntk", "dynamic") else 2
    return max(smallest, 2 * round(fraction * head_dim / 2))


@given(problem=problems(max_offset=5000), source=st.sampled_from(("half", "interleaved")),
       fraction=st.sampled_from(FRACTIONS), d_in=st.integers(1, 12), with_bias=st.booleans())
def test_converted_qk_weights_give_the_same_logits_under_the_other_pairing(problem, source, fraction, d_in,
                                                                           with_bias):
    p = problem
    target = "interleaved" if source == "half" else "half"
    rotary_dim = _rotary_dim(p.head_dim, fraction)
    gen = torch.Generator().manual_seed(p.seed)
    w_q = torch.randn(H * p.head_dim, d_in, generator=gen, dtype=torch.float64)
    w_k = torch.randn(p.Hk * p.head_dim, d_in, generator=gen, dtype=torch.float64)
    b_q = torch.randn(H * p.head_dim, generator=gen, dtype=torch.float64) * with_bias
    b_k = torch.randn(p.Hk * p.head_dim, generator=gen, dtype=torch.float64) * with_bias
    x_q = torch.randn(p.B, p.Tq, d_in, generator=gen, dtype=torch.float64)
    x_k = torch.randn(p.B, p.Tk, d_in, generator=gen, dtype=torch.float64)
    q_pos, k_pos = p.positions(p.Tq, p.q_offsets), p.positions(p.Tk, p.k_offsets)

    def logits(pairing, wq, bq, wk, bk):
        def heads(x, w, b, n):  # [B, T, d_in] -> [B, n, T, Dh]
            return (x @ w.T + b).reshape(p.B, x.shape[1], n, p.head_dim).transpose(1, 2).to(p.dtype)

        rope = posenc.build("rope", head_dim=p.head_dim, pairing=pairing, rotary_dim=rotary_dim)
        qr, kr = rope.rotate(heads(x_q, wq, bq, H), heads(x_k, wk, bk, p.Hk), q_pos, k_pos)
        return _logits(qr, kr)

    def convert(w, n):
        return convert_qk_weights(w, n, p.head_dim, source, target, rotary_dim)

    expected, scale = logits(source, w_q, b_q, w_k, b_k)
    got, _ = logits(target, convert(w_q, H), convert(b_q, H), convert(w_k, p.Hk), convert(b_k, p.Hk))
    _assert_logits_close(got, expected, scale, p.dtype)
    # converting back is the identity, exactly
    assert torch.equal(convert_qk_weights(convert(w_q, H), H, p.head_dim, target, source, rotary_dim), w_q)


# ---------------------------------------------------------------------------------------------------------------
# rotary logits: invariant under a common shift of query and key positions
# ---------------------------------------------------------------------------------------------------------------
SCALINGS = (None, {"type": "linear", "factor": 4.0}, {"type": "ntk", "factor": 2.0},
            {"type": "yarn", "factor": 4.0, "original_max_len": 32},
            {"type": "llama3", "factor": 8.0, "original_max_len": 16})


def _shifted_logits_agree(encoding, problem: Problem, shift: int | list[int]) -> None:
    p = problem
    q, k = p.qk()
    q_pos, k_pos = p.positions(p.Tq, p.q_offsets), p.positions(p.Tk, p.k_offsets)
    expected, scale = _logits(*encoding.rotate(q, k, q_pos, k_pos))
    moved_q, moved_k = p.positions(p.Tq, p.q_offsets, shift), p.positions(p.Tk, p.k_offsets, shift)
    got, _ = _logits(*encoding.rotate(q, k, moved_q, moved_k))
    _assert_logits_close(got, expected, scale, p.dtype)


@given(problem=problems(max_offset=3000), pairing=st.sampled_from(("half", "interleaved")),
       fraction=st.sampled_from(FRACTIONS), scaling=st.sampled_from(SCALINGS), data=st.data())
def test_rope_logits_are_invariant_under_a_common_shift(problem, pairing, fraction, scaling, data):
    rope = posenc.build("rope", head_dim=problem.head_dim, pairing=pairing,
                        rotary_dim=_rotary_dim(problem.head_dim, fraction, scaling), scaling=scaling)
    rows = max(problem.B, 1)
    shift = data.draw(st.integers(0, 3000) | st.lists(st.integers(0, 3000), min_size=rows, max_size=rows))
    _shifted_logits_agree(rope, problem, shift)


ROTARY_FAMILIES = [("p_rope", {"p": 0.5}), ("xpos", {}), ("xpos", {"pairing": "interleaved", "scale_base": 64.0}),
                   ("mrope", {}), ("mrope", {"interleaved": True}), ("videorope", {}), ("videorope", {"temporal": 1}),
                   ("pope", {"n_heads": H, "bias_init": "uniform"})]


@pytest.mark.parametrize("name,options", ROTARY_FAMILIES, ids=lambda v: v if isinstance(v, str) else
                         "-".join(f"{k}={v}" for k, v in v.items()) or "default")
@given(problem=problems(max_offset=600), data=st.data())
def test_other_rotary_logits_are_invariant_under_a_common_shift(name, options, problem, data):
    encoding = posenc.build(name, head_dim=problem.head_dim, **options)
    rows = max(problem.B, 1)
    shift = data.draw(st.integers(0, 600) | st.lists(st.integers(0, 600), min_size=rows, max_size=rows))
    _shifted_logits_agree(encoding, problem, shift)


@given(problem=problems(max_offset=200), rows_moved=st.integers(0, 20), grid_width=st.sampled_from((1, 4, 16)))
def test_axial_rope_logits_are_invariant_under_a_shift_by_whole_grid_rows(problem, rows_moved, grid_width):
    # row-major patch indices: moving every patch by whole rows moves y only, so every (dy, dx) is kept
    encoding = posenc.build("axial_rope", head_dim=problem.head_dim, grid_width=grid_width)
    _shifted_logits_agree(encoding, problem, rows_moved * grid_width)


# ---------------------------------------------------------------------------------------------------------------
# bias encodings: a function of q_pos - k_pos only
# ---------------------------------------------------------------------------------------------------------------
def _randomised(encoding, seed: int):
    """Learned tables and functions away from their initial symmetric values, so equal biases mean something."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in encoding.parameters():
            parameter.copy_(parameter + 0.5 * torch.randn(parameter.shape, generator=gen))
    return encoding


OFFSET_ONLY = [("alibi", {}), ("alibi", {"heads": [1, 3], "slopes": [0.7, 0.05]}), ("t5", {}),
               ("t5", {"bidirectional": False, "num_buckets": 16, "max_distance": 40}), ("kerple", {}),
               ("kerple", {"kernel": "power", "r2": 1.5}), ("sandwich", {}), ("sandwich", {"compress": False, "dim": 8}),
               ("fire", {})]  # FIRE: offset-only while every query sits below its threshold L = 512


@pytest.mark.parametrize("name,options", OFFSET_ONLY, ids=lambda v: v if isinstance(v, str) else
                         "-".join(f"{k}={v}" for k, v in v.items()) or "default")
@given(q_pos=st.lists(st.integers(0, 150), max_size=MAX_T), k_pos=st.lists(st.integers(0, 150), max_size=MAX_T),
       shifts=st.lists(st.integers(0, 150), min_size=1, max_size=3), seed=st.integers(0, 2**16))
def test_bias_depends_only_on_the_offset(name, options, q_pos, k_pos, shifts, seed):
    encoding = _randomised(posenc.build(name, n_heads=H, **options), seed)
    q, k = torch.tensor(q_pos, dtype=torch.long), torch.tensor(k_pos, dtype=torch.long)  # any order, repeats allowed
    with torch.no_grad():
        bias = encoding.bias(q, k)  # [H, Tq, Tk]
        assert bias.shape == (H, len(q_pos), len(k_pos))
        # a common shift, shared and one per row
        torch.testing.assert_close(encoding.bias(q + shifts[0], k + shifts[0]), bias, rtol=1e-6, atol=1e-6)
        rows = torch.tensor(shifts)[:, None]
        per_row = encoding.bias(q[None] + rows, k[None] + rows)  # [S, H, Tq, Tk]
        torch.testing.assert_close(per_row, bias.expand(len(shifts), *bias.shape), rtol=1e-6, atol=1e-6)
        # the same offset taken elsewhere: query at (q_i - k_j) + C, key at C, one pair per row
        offset = (q[:, None] - k[None, :]).flatten()  # [Tq * Tk]
        anchor = int(k.max()) if k.numel() else 0
        pairs = encoding.bias((offset + anchor)[:, None], torch.full_like(offset, anchor)[:, None])  # [M, H, 1, 1]
        elsewhere = pairs[:, :, 0, 0].T.reshape(H, len(q_pos), len(k_pos))
        torch.testing.assert_close(elsewhere, bias, rtol=1e-6, atol=1e-6)


def test_fire_beyond_its_threshold_is_not_offset_only():
    """The property is checked where it should hold: past L, FIRE normalises by the query position (the paper's
    psi(i - j) / psi(i)), so the same offset at another place gives another bias."""
    fire = _randomised(posenc.build("fire", n_heads=H, threshold=0.0), 0)
    with torch.no_grad():
        near, far = fire.bias(torch.tensor([10]), torch.tensor([5])), fire.bias(torch.tensor([400]), torch.tensor([395]))
    assert (near - far).abs().max() > 1e-3


# ---------------------------------------------------------------------------------------------------------------
# the CPU kernel behind rotate: equal to the reference rotation, forward and backward
# ---------------------------------------------------------------------------------------------------------------
@given(problem=problems(dtypes=(torch.float32, torch.bfloat16), max_offset=5000),
       pairing=st.sampled_from(("half", "interleaved")), fraction=st.sampled_from(FRACTIONS),
       scaling=st.sampled_from((*SCALINGS, {"type": "dynamic", "factor": 2.0, "original_max_len": 16})),
       inplace=st.booleans())
def test_cpu_kernel_equals_the_reference_rotation_forward_and_backward(problem, pairing, fraction, scaling, inplace):
    if cpu_kernel.load_library() is None:
        pytest.skip(f"the C++ kernel is not built here: {cpu_kernel.build_error()}")
    p = problem
    assert select_provider("cpu", p.dtype) == "cpp"  # what rotate dispatches to for these tensors
    rope = posenc.build("rope", head_dim=p.head_dim, pairing=pairing,
                        rotary_dim=_rotary_dim(p.head_dim, fraction, scaling), scaling=scaling)
    q_pos, k_pos = p.positions(p.Tq, p.q_offsets), p.positions(p.Tk, p.k_offsets)
    q, k = p.qk(requires_grad=True)
    qi, ki = (q * 1, k * 1) if inplace else (q, k)  # in place needs non-leaf tensors
    qo, ko = rope.rotate(qi, ki, q_pos, k_pos, inplace=inplace)

    seq_len = max(positions_span(q_pos, k_pos), 1)  # what rotate gives length-dependent scalings
    q_ref = rope_apply_reference(q, *rope.tables(q_pos, seq_len), pairing)
    k_ref = rope_apply_reference(k, *rope.tables(k_pos, seq_len), pairing)
    atol, rtol = (1e-6, 1e-5) if p.dtype == torch.float32 else (1e-2, 1e-2)
    torch.testing.assert_close(qo, q_ref, atol=atol, rtol=rtol)
    torch.testing.assert_close(ko, k_ref, atol=atol, rtol=rtol)

    gen = torch.Generator().manual_seed(p.seed + 1)
    gq = torch.randn(q.shape, generator=gen).to(p.dtype)
    gk = torch.randn(k.shape, generator=gen).to(p.dtype)
    dq, dk = torch.autograd.grad((qo, ko), (q, k), (gq, gk), allow_unused=True)
    dq_ref, dk_ref = torch.autograd.grad((q_ref, k_ref), (q, k), (gq, gk), allow_unused=True)
    for got, expected, x in ((dq, dq_ref, q), (dk, dk_ref, k)):
        got = torch.zeros_like(x) if got is None else got  # an empty tensor may get no gradient at all
        expected = torch.zeros_like(x) if expected is None else expected
        assert got.shape == x.shape and got.dtype == x.dtype
        torch.testing.assert_close(got, expected, atol=atol, rtol=rtol)
