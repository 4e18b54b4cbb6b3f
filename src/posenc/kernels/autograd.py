"""RoPE as one autograd operation over any fused kernel.

RoPE multiplies each pair by a rotation matrix ``R(theta)``; its Jacobian is ``R(theta)`` itself and the
vector-Jacobian product is ``R(theta)^T g = R(-theta) g``. So the backward pass is the same kernel run with ``-sin``
(``inverse=True``): one read and one write of the gradient, no saved activations, only the angle tables.

A kernel is any callable

    kernel(q, k, q_cos, q_sin, k_cos, k_sin, *, interleaved, inverse, q_out, k_out) -> (q_out, k_out)

that rotates ``q`` into ``q_out`` and ``k`` into ``k_out`` (either pair may be ``None``; outputs may be the inputs).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from posenc.kernels.cpu import empty_output

__all__ = ["RopeFunction", "Kernel", "new_output_like"]

Kernel = Callable[..., tuple[torch.Tensor | None, torch.Tensor | None]]


def new_output_like(x: torch.Tensor) -> torch.Tensor:
    """A fresh contiguous ``[B, H, T, Dh]`` output for ``x`` (on CPU in huge pages where possible)."""
    if x.device.type == "cpu":
        return empty_output(x.shape, x.dtype)  # contiguous [B, H, T, Dh], huge pages where possible
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)  # contiguous [B, H, T, Dh]


class RopeFunction(torch.autograd.Function):
    """``(q', k') = (R(theta_q) q, R(theta_k) k)``; backward ``(R(-theta_q) g_q, R(-theta_k) g_k)``.

    The cos/sin tables are constants here (no gradient flows to them); the dispatcher sends tables that require
    gradients to the plain-torch path instead.
    """

    @staticmethod
    def forward(ctx, q, k, q_cos, q_sin, k_cos, k_sin, interleaved: bool, inplace: bool, kernel: Kernel):
        ctx.interleaved, ctx.kernel = interleaved, kernel
        ctx.save_for_backward(q_cos, q_sin, k_cos, k_sin)
        if inplace:
            kernel(q, k, q_cos, q_sin, k_cos, k_sin, interleaved=interleaved, inverse=False, q_out=q, k_out=k)
            ctx.mark_dirty(q, k)
            return q, k
        q_out, k_out = new_output_like(q), new_output_like(k)
        kernel(q, k, q_cos, q_sin, k_cos, k_sin, interleaved=interleaved, inverse=False, q_out=q_out, k_out=k_out)
        return q_out, k_out

    @staticmethod
    def backward(ctx, grad_q, grad_k):
        q_cos, q_sin, k_cos, k_sin = ctx.saved_tensors
        need_q, need_k = ctx.needs_input_grad[0] and grad_q is not None, ctx.needs_input_grad[1] and grad_k is not None
        gq_out = new_output_like(grad_q) if need_q else None
        gk_out = new_output_like(grad_k) if need_k else None
        if need_q or need_k:
            ctx.kernel(grad_q if need_q else None, grad_k if need_k else None, q_cos, q_sin, k_cos, k_sin,
                       interleaved=ctx.interleaved, inverse=True, q_out=gq_out, k_out=gk_out)
        return gq_out, gk_out, None, None, None, None, None, None, None
