"""The Triton kernel, run on CPU tensors by Triton's interpreter (``TRITON_INTERPRET=1``), small shapes only."""

import pytest
import torch
from hypothesis import given, settings
from kernel_cases import assert_matches, cases, make_problem, reference64

from posenc.kernels import apply_rope, available_providers, rope_apply_reference, select_provider
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
