"""apply_rope's per-pair factors (``q_scale``/``k_scale``, xPos's decay) on every path, forward and backward."""

import pytest
import torch
from hypothesis import given, settings
from kernel_cases import cases, make_problem

from posenc.errors import PosencError
from posenc.kernels import apply_rope, dispatch
from posenc.kernels.triton_rope import triton_available

PROVIDERS = ["reference", *(name for name in dispatch.PROVIDERS if name != "reference")]  # the reference first

# one token, head_dim 5: pairs (x1_0, x2_0) = (1, 3) at 90 degrees and (x1_1, x2_1) = (2, 4) at 0, one pass-through
# channel 7; exact tables, so every number below is exact in float32
COS, SIN = torch.tensor([[0.0, 1.0]]), torch.tensor([[1.0, 0.0]])
X_HALF = torch.tensor([1.0, 2.0, 3.0, 4.0, 7.0]).view(1, 1, 1, 5)  # x1_0, x1_1, x2_0, x2_1, tail
X_INTERLEAVED = torch.tensor([1.0, 3.0, 2.0, 4.0, 7.0]).view(1, 1, 1, 5)  # x1_0, x2_0, x1_1, x2_1, tail
Q_SCALE, K_SCALE = torch.tensor([[0.5, 2.0]]), torch.tensor([[0.25, 1.0]])
# a * (x1 cos - x2 sin, x2 cos + x1 sin): pair 0 -> a0 * (-3, 1), pair 1 -> a1 * (2, 4); the tail is not scaled
Q_HALF = [-1.5, 4.0, 0.5, 8.0, 7.0]
K_HALF = [-0.75, 2.0, 0.25, 4.0, 7.0]
Q_INTERLEAVED = [-1.5, 0.5, 4.0, 8.0, 7.0]
K_INTERLEAVED = [-0.75, 0.25, 2.0, 4.0, 7.0]


@pytest.fixture
def provider(request, monkeypatch):
    name = request.param
    if name == "cpp":
        request.getfixturevalue("cpp_kernel")
    if name == "triton":
        if not triton_available():
            pytest.skip("triton is not installed")
        monkeypatch.setenv("TRITON_INTERPRET", "1")  # the Triton kernel on CPU tensors, in Triton's interpreter
    return name


@pytest.mark.parametrize("provider", PROVIDERS, indirect=True)
@pytest.mark.parametrize("pairing, x, q_expected, k_expected", [
    ("half", X_HALF, Q_HALF, K_HALF), ("interleaved", X_INTERLEAVED, Q_INTERLEAVED, K_INTERLEAVED)])
def test_scale_multiplies_each_rotated_pair_by_hand(provider, pairing, x, q_expected, k_expected):
    qo, ko = apply_rope(x.clone(), x.clone(), COS, SIN, COS, SIN, pairing=pairing, provider=provider,
                        q_scale=Q_SCALE, k_scale=K_SCALE)
    assert qo.flatten().tolist() == q_expected
    assert ko.flatten().tolist() == k_expected


@pytest.mark.parametrize("provider", PROVIDERS, indirect=True)
def test_backward_is_the_scaled_inverse_rotation_by_hand(provider):
    # d/dx of <g, a R(theta) x> is a R(-theta) g: pair 0 gets 0.5 * R(-90 degrees) (1, 0) = (0, -0.5), the tail 1
    q = X_HALF.clone().requires_grad_(True)
    k = X_HALF.clone().requires_grad_(True)
    qo, ko = apply_rope(q, k, COS, SIN, COS, SIN, provider=provider, q_scale=Q_SCALE, k_scale=K_SCALE)
    g = torch.tensor([1.0, 0.0, 0.0, 0.0, 1.0]).view(1, 1, 1, 5)
    gq, gk = torch.autograd.grad((qo * g).sum() + (ko * g).sum(), (q, k))
    assert gq.flatten().tolist() == [0.0, 0.0, -0.5, 0.0, 1.0]
    assert gk.flatten().tolist() == [0.0, 0.0, -0.25, 0.0, 1.0]


@pytest.mark.parametrize("provider", ["reference", "cpp"])
@settings(max_examples=30, deadline=None)
@given(case=cases())
def test_scale_equals_tables_multiplied_by_it(cpp_kernel, provider, case):
    # the factor is folded into the tables: the same numbers, bit for bit, as scaling cos and sin first
    q, k, qc, qs, kc, ks = make_problem(case)
    gen = torch.Generator().manual_seed(case.seed)
    q_scale = torch.rand(qc.shape, generator=gen) * 2
    k_scale = torch.rand(kc.shape, generator=gen) * 2
    got = apply_rope(q, k, qc, qs, kc, ks, pairing=case.pairing, provider=provider, q_scale=q_scale, k_scale=k_scale)
    want = apply_rope(q, k, qc * q_scale, qs * q_scale, kc * k_scale, ks * k_scale, pairing=case.pairing,
                      provider=provider)
    assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])


def test_one_scale_leaves_the_other_tensor_a_plain_rotation():
    qo, ko = apply_rope(X_HALF, X_HALF, COS, SIN, COS, SIN, provider="reference", q_scale=Q_SCALE)
    assert qo.flatten().tolist() == Q_HALF
    assert ko.flatten().tolist() == [-3.0, 2.0, 1.0, 4.0, 7.0]


def test_bad_scales_are_rejected_with_what_to_pass():
    with pytest.raises(PosencError, match=r"q scale has shape \[1, 1\] but its cos/sin tables have \[1, 2\]"):
        apply_rope(X_HALF, X_HALF, COS, SIN, COS, SIN, q_scale=Q_SCALE[:, :1])
    with pytest.raises(PosencError, match="k_scale must be a floating-point tensor, got torch.int64"):
        apply_rope(X_HALF, X_HALF, COS, SIN, COS, SIN, k_scale=torch.ones(1, 2, dtype=torch.long))
    with pytest.raises(PosencError, match="q_scale must be a torch.Tensor, got list"):
        apply_rope(X_HALF, X_HALF, COS, SIN, COS, SIN, q_scale=[[0.5, 2.0]])
