"""Every encoding, every hook, on an empty sequence (T = 0) and an empty batch (B = 0): empty outputs of the right
shapes, forward and backward. Model sizes: d_model 16, 4 heads of width 8 (2 key/value heads for rotate)."""

import pytest
import torch

import posenc
from posenc.registry import build_for_model

D, H, HK, DH = 16, 4, 2, 8

#: (B, Tq, Tk)
SHAPES = [(2, 0, 0), (0, 5, 5), (0, 0, 0), (2, 0, 6), (2, 6, 0)]


def _build(name: str):
    encoding = build_for_model(name, d_model=D, n_heads=H, head_dim=DH, max_len=32)
    return encoding.train(False)


def _positions(B: int, T: int, per_row: bool) -> torch.Tensor:
    base = torch.arange(3, 3 + T)  # an offset, as after a KV cache
    return base.expand(B, T).clone() if per_row else base


@pytest.mark.parametrize("per_row", [False, True])
@pytest.mark.parametrize("B,T", [(2, 0), (0, 5), (0, 0)])
@pytest.mark.parametrize("name", posenc.available())
def test_embed(name, B, T, per_row):
    encoding = _build(name)
    x = torch.randn(B, T, D, requires_grad=True)
    y = encoding.embed(x, _positions(B, T, per_row))
    assert y.shape == (B, T, encoding.output_dim(D))
    (grad,) = torch.autograd.grad(y.sum(), x, allow_unused=True)
    assert grad is None or grad.shape == x.shape


@pytest.mark.parametrize("per_row", [False, True])
@pytest.mark.parametrize("B,Tq,Tk", SHAPES)
@pytest.mark.parametrize("name", posenc.available())
def test_rotate(name, B, Tq, Tk, per_row):
    encoding = _build(name)
    q = torch.randn(B, H, Tq, DH, requires_grad=True)
    k = torch.randn(B, HK, Tk, DH, requires_grad=True)
    qo, ko = encoding.rotate(q, k, _positions(B, Tq, per_row), _positions(B, Tk, per_row))
    width = encoding.rotated_dim(DH)  # the head width unless the encoding widens q and k (PoPE)
    assert qo.shape == (*q.shape[:-1], width) and ko.shape == (*k.shape[:-1], width)
    dq, dk = torch.autograd.grad((qo.sum() + ko.sum(),), (q, k), allow_unused=True)
    for grad, x in ((dq, q), (dk, k)):
        assert grad is None or grad.shape == x.shape


@pytest.mark.parametrize("per_row", [False, True])
@pytest.mark.parametrize("B,Tq,Tk", SHAPES)
@pytest.mark.parametrize("name", posenc.available())
def test_bias(name, B, Tq, Tk, per_row):
    encoding = _build(name)
    bias = encoding.bias(_positions(B, Tq, per_row), _positions(B, Tk, per_row))
    if bias is None:
        assert "bias" not in encoding.info.hooks
        return
    assert bias.shape == ((B, H, Tq, Tk) if per_row else (H, Tq, Tk))
    params = [p for p in encoding.parameters() if p.requires_grad]
    if params:  # a learned bias (t5): its table gets a gradient of its own shape, all zero from an empty bias
        grads = torch.autograd.grad(bias.sum(), params, allow_unused=True)
        for grad, param in zip(grads, params, strict=True):
            assert grad is None or grad.shape == param.shape
            assert grad is None or bias.numel() or not grad.any()


@pytest.mark.parametrize("name", ["rope", "xpos"])
def test_an_empty_side_leaves_the_other_side_as_it_would_be(name):
    # rotate with no query tokens rotates k exactly as it does beside queries at its own last position; with dynamic
    # NTK the angles depend on the longest position, so an empty q must not make the length 1 (nor crash for k)
    options = {"scaling": {"type": "dynamic", "factor": 2.0, "original_max_len": 16}} if name == "rope" else {}
    encoding = posenc.build(name, head_dim=DH, **options)
    k_positions = torch.arange(40)  # past original_max_len: the dynamic scaling is in force
    q = torch.randn(1, H, 1, DH)
    k = torch.randn(1, HK, 40, DH)
    _, k_alone = encoding.rotate(q[:, :, :0], k, torch.arange(0), k_positions)
    _, k_beside = encoding.rotate(q, k, torch.tensor([39]), k_positions)
    torch.testing.assert_close(k_alone, k_beside, rtol=0, atol=0)
    q_alone, _ = encoding.rotate(q, k[:, :, :0], torch.tensor([39]), torch.arange(0))
    q_beside, _ = encoding.rotate(q, k, torch.tensor([39]), k_positions)
    if name == "rope":
        torch.testing.assert_close(q_alone, q_beside, rtol=0, atol=0)
    else:  # xPos centres its factors on the call's positions: a query alone sits at the centre, with factor 1
        plain, _ = posenc.build("rope", head_dim=DH).rotate(q, k[:, :, :0], torch.tensor([39]), torch.arange(0))
        torch.testing.assert_close(q_alone, plain, rtol=0, atol=0)
    if name == "rope":  # the check has teeth: without the scaling's length (seq_len 1), k comes out otherwise
        _, k_short = posenc.build("rope", head_dim=DH).rotate(q, k, torch.tensor([39]), k_positions)
        assert (k_short - k_beside).abs().max() > 1e-2
