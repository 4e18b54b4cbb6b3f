"""The Triton kernel, run on CPU tensors by Triton's interpreter (``TRITON_INTERPRET=1``), small shapes only."""

import pytest
import torch
from hypothesis import given, settings
from kernel_cases import assert_matches, cases, make_problem, reference64

from posenc.kernels import apply_rope, apply_rope_packed, available_providers, rope_apply_reference, select_provider
from posenc.kernels.triton_rope import rope_triton, triton_available

pytestmark = [pytest.mark.triton_interpret,
              pytest.mark.skipif(not triton_available(), reason="triton is not installed")]

# the interpreter executes every program with numpy: keep problems tiny
SMALL = cases(max_t=7, max_r2=5)


@pytest.fixture(autouse=True)
def _interpret(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")


def test_interpreter_makes_triton_available_but_never_automatic_on_cpu():
    assert "triton" in available_providers()
    assert select_provider("cpu", torch.float32) != "triton"
    assert select_provider("cpu", torch.bfloat16, "triton") == "triton"


@settings(max_examples=25, deadline=None)
@given(case=SMALL)
def test_out_of_place_matches_float64_reference(case):
    q, k, qc, qs, kc, ks = make_problem(case)
    q0, k0 = q.clone(), k.clone()
    qo, ko = apply_rope(q, k, qc, qs, kc, ks, pairing=case.pairing, provider="triton")
    assert_matches(qo, reference64(q0, qc, qs, case.pairing), case.dtype)
    assert_matches(ko, reference64(k0, kc, ks, case.pairing), case.dtype)
    assert torch.equal(q, q0) and torch.equal(k, k0)


@settings(max_examples=20, deadline=None)
@given(case=SMALL)
def test_in_place_matches_float64_reference(case):
    q, k, qc, qs, kc, ks = make_problem(case)
    q0, k0 = q.clone(), k.clone()
    qo, ko = apply_rope(q, k, qc, qs, kc, ks, pairing=case.pairing, inplace=True, provider="triton")
    assert qo is q and ko is k
    assert_matches(q, reference64(q0, qc, qs, case.pairing), case.dtype)
    assert_matches(k, reference64(k0, kc, ks, case.pairing), case.dtype)


@pytest.mark.parametrize("pairing", ["half", "interleaved"])
def test_backward_is_rotation_by_minus_theta(pairing):
    # GQA (4 q heads, 2 k heads), partial rotary (R = 6 of 10), per-row tables, a transposed q
    q = torch.randn(2, 5, 4, 10).transpose(1, 2).requires_grad_(True)
    k = torch.randn(2, 2, 3, 10, requires_grad=True)
    theta_q, theta_k = torch.rand(2, 5, 3, dtype=torch.float64) * 40, torch.rand(3, 3, dtype=torch.float64) * 40
    qc, qs, kc, ks = theta_q.cos().float(), theta_q.sin().float(), theta_k.cos().float(), theta_k.sin().float()
    qo, ko = apply_rope(q, k, qc, qs, kc, ks, pairing=pairing, provider="triton")
    gq, gk = torch.randn_like(qo), torch.randn_like(ko)
    dq, dk = torch.autograd.grad((qo, ko), (q, k), (gq, gk))
    torch.testing.assert_close(dq, rope_apply_reference(gq, qc, -qs, pairing), rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(dk, rope_apply_reference(gk, kc, -ks, pairing), rtol=1e-6, atol=1e-6)
    # only k needs a gradient: the kernel runs for k alone
    dk_only = torch.autograd.grad(apply_rope(q.detach(), k, qc, qs, kc, ks, pairing=pairing,
                                             provider="triton")[1], k, gk)[0]
    torch.testing.assert_close(dk_only, dk, rtol=0, atol=0)


@pytest.mark.parametrize("heads", [4, 8])
@pytest.mark.parametrize("pairing", ["half", "interleaved"])
@pytest.mark.parametrize("inplace", [False, True])
def test_head_groups_with_a_partial_last_group(heads, pairing, inplace):
    # 6 q heads in groups of 4 or 8 leave a partly filled group; 3 k heads, 5 q tokens vs 7 k tokens, a tail
    q, k = torch.randn(2, 6, 5, 12), torch.randn(2, 3, 7, 12)
    theta_q, theta_k = torch.rand(5, 4, dtype=torch.float64) * 30, torch.rand(2, 7, 4, dtype=torch.float64) * 30
    qc, qs, kc, ks = theta_q.cos().float(), theta_q.sin().float(), theta_k.cos().float(), theta_k.sin().float()
    q0, k0 = q.clone(), k.clone()
    q_out, k_out = (q, k) if inplace else (torch.empty_like(q), torch.empty_like(k))
    rope_triton(q, k, qc, qs, kc, ks, interleaved=pairing == "interleaved", inverse=False, q_out=q_out, k_out=k_out,
                heads_per_program=heads)
    torch.testing.assert_close(q_out, rope_apply_reference(q0, qc, qs, pairing), rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(k_out, rope_apply_reference(k0, kc, ks, pairing), rtol=1e-6, atol=1e-6)


def _angles(*shape, scale=40.0):
    theta = torch.rand(*shape, dtype=torch.float64) * scale
    return theta.cos().float(), theta.sin().float()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("pairing", ["half", "interleaved"])
@pytest.mark.parametrize("head_dim, rotary", [(97, 96), (75, 18), (65, 64), (7, 2), (12, 12)])
def test_odd_head_sizes_and_partial_rotary_forward_and_backward(head_dim, rotary, pairing, dtype):
    # GQA 6 q heads over 3 k heads, 5 query tokens against 7 keys, per-row query tables
    q = torch.randn(2, 6, 5, head_dim).to(dtype).requires_grad_(True)
    k = torch.randn(2, 3, 7, head_dim).to(dtype).requires_grad_(True)
    qc, qs = _angles(2, 5, rotary // 2)
    kc, ks = _angles(7, rotary // 2)
    qo, ko = apply_rope(q, k, qc, qs, kc, ks, pairing=pairing, provider="triton")
    assert_matches(qo, reference64(q.detach(), qc, qs, pairing), dtype)
    assert_matches(ko, reference64(k.detach(), kc, ks, pairing), dtype)
    # channels past the rotary width pass through bit for bit
    assert torch.equal(qo[..., rotary:], q.detach()[..., rotary:])
    gq, gk = torch.randn_like(qo), torch.randn_like(ko)
    dq, dk = torch.autograd.grad((qo, ko), (q, k), (gq, gk))
    assert_matches(dq, reference64(gq, qc, -qs, pairing), dtype)
    assert_matches(dk, reference64(gk, kc, -ks, pairing), dtype)


@pytest.mark.parametrize("pairing", ["half", "interleaved"])
def test_packed_sequences_forward_and_backward(pairing):
    # four sequences (one empty) back to back, each from position 0; partial rotary (R = 6 of 10), GQA 4/2
    lengths = [3, 0, 5, 1]
    cu = torch.tensor([0, 3, 3, 8, 9])
    cos, sin = _angles(6, 3)  # position-indexed tables [L, R/2], L longer than any sequence
    q = torch.randn(1, 4, 9, 10, requires_grad=True)
    k = torch.randn(1, 2, 9, 10, requires_grad=True)
    qo, ko = apply_rope_packed(q, k, cos, sin, cu, pairing=pairing, provider="triton")
    gq, gk = torch.randn_like(qo), torch.randn_like(ko)
    dq, dk = torch.autograd.grad((qo, ko), (q, k), (gq, gk))
    start = 0
    for n in lengths:
        part = slice(start, start + n)
        c, s = cos[:n], sin[:n]
        for got, x, sign in ((qo, q.detach(), 1), (ko, k.detach(), 1), (dq, gq, -1), (dk, gk, -1)):
            assert_matches(got[:, :, part], reference64(x[:, :, part], c, sign * s, pairing), torch.float32)
        start += n


@pytest.mark.parametrize("pairing", ["half", "interleaved"])
def test_default_launch_with_several_token_blocks(pairing):
    # head_dim 128: 16 tokens per block for half pairing, 8 for interleaved; 19 tokens leave a partial last block
    q, k = torch.randn(1, 4, 19, 128), torch.randn(1, 2, 19, 128)
    c, s = _angles(19, 64)
    qo, ko = apply_rope(q, k, c, s, c, s, pairing=pairing, provider="triton")
    assert_matches(qo, reference64(q, c, s, pairing), torch.float32)
    assert_matches(ko, reference64(k, c, s, pairing), torch.float32)
