"""The one RoPE rotation: validate the inputs (:mod:`posenc.kernels.validate`), then run the fastest correct path.

Every rotary encoding reaches the kernels through :func:`apply_rope` (RoPE and its scalings, xPos with its per-pair
scale, M-RoPE and axial RoPE, and through RoPE's ``rotate`` the Hugging Face attention of :mod:`posenc.extend.patch`).

Paths (``provider=``):

- ``"cpp"``: fused C++/OpenMP kernel for CPU tensors (:mod:`posenc.kernels.cpu`), built on first use;
- ``"triton"``: fused Triton kernel for CUDA tensors (:mod:`posenc.kernels.triton_rope`); on CPU tensors only when
  asked for by name with ``TRITON_INTERPRET=1`` (Triton's interpreter, for tests);
- ``"reference"``: plain torch (:mod:`posenc.kernels.reference`), always available, also the path for angle tables
  that require gradients and for float64 tensors, which it rotates with float64 math (the fused kernels take
  float32, bfloat16 and float16).

``provider=None`` picks ``cpp`` on CPU when it is built, ``triton`` on CUDA when Triton imports, ``reference``
otherwise. The fused paths go through one autograd operation (:class:`posenc.kernels.autograd.RopeFunction`).
"""

from __future__ import annotations

import torch

from posenc.errors import PosencError
from posenc.kernels import cpu, triton_rope
from posenc.kernels.autograd import RopeFunction, new_output_like
from posenc.kernels.packed import check_cu_seqlens, positions_from_cu_seqlens
from posenc.kernels.reference import rope_apply_reference
from posenc.kernels.validate import validate_rope_inputs
from posenc.names import Registry

__all__ = ["apply_rope", "apply_rope_packed", "available_providers", "select_provider", "PROVIDERS"]

#: every path by name, fastest first, with what it is
PROVIDERS: Registry[str] = Registry("RoPE provider")
PROVIDERS.register("cpp", "the C++ kernel, built on first use (CPU tensors)")
PROVIDERS.register("triton", "the Triton kernel (CUDA, or TRITON_INTERPRET=1 on the CPU)")
PROVIDERS.register("reference", "plain torch operations, any device and dtype")


def _triton_usable(device: torch.device) -> bool:
    if not triton_rope.triton_available():
        return False
    if device.type == "cuda":
        return True
    return device.type == "cpu" and triton_rope.interpreter_requested()


def available_providers() -> list[str]:
    """Names of the RoPE paths usable in this process, fastest first (builds the C++ kernel on the first call).

    ``cpp`` when the C++ kernel built; ``triton`` when Triton imports and a CUDA device is present (or
    ``TRITON_INTERPRET=1``); ``reference`` always.
    """
    names = []
    if cpu.load_library() is not None:
        names.append("cpp")
    if triton_rope.triton_available() and (torch.cuda.is_available() or triton_rope.interpreter_requested()):
        names.append("triton")
    names.append("reference")
    return names


def select_provider(device: torch.device | str, dtype: torch.dtype, provider: str | None = None) -> str:
    """The path ``apply_rope`` uses for tensors on ``device`` of ``dtype`` (checks an explicit ``provider``)."""
    device = torch.device(device)
    if provider is None:
        if device.type == "cpu" and cpu.supports(dtype):
            return "cpp"
        if device.type == "cuda" and _triton_usable(device) and dtype in triton_rope.TRITON_DTYPES:
            return "triton"
        return "reference"
    if provider not in PROVIDERS:
        raise PROVIDERS.unknown(provider, also=" (or None: the fastest that applies)")
    if provider == "cpp" and not (device.type == "cpu" and cpu.supports(dtype)):
        why = cpu.build_error() or f"it handles CPU tensors of {list(cpu.CPU_DTYPES)} only"
        raise PosencError(f"provider 'cpp' cannot rotate {dtype} tensors on {device}: {why}; use provider=None")
    if provider == "triton" and not (_triton_usable(device) and dtype in triton_rope.TRITON_DTYPES):
        raise PosencError(f"provider 'triton' cannot rotate {dtype} tensors on {device}: it needs Triton and a CUDA "
                          f"device (or TRITON_INTERPRET=1 for CPU tensors); use provider=None")
    return provider


def _kernel(name: str):
    return cpu.rope_cpu_pair if name == "cpp" else triton_rope.rope_triton


def apply_rope(q: torch.Tensor, k: torch.Tensor, q_cos: torch.Tensor, q_sin: torch.Tensor, k_cos: torch.Tensor,
               k_sin: torch.Tensor, *, pairing: str = "half", inplace: bool = False, provider: str | None = None,
               q_scale: torch.Tensor | None = None,
               k_scale: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Rotate ``q [B, H, Tq, Dh]`` and ``k [B, Hk, Tk, Dh]`` (``H`` a multiple of ``Hk``) by float32 half-width
    tables ``[T, R/2]`` or ``[B, T, R/2]`` (one row per token: offsets and per-row positions are in the tables).

    Precision: float32 math for float32, bfloat16 and float16 tensors; when q or k is float64 the rotation runs on
    the reference path with float64 math (pass float64 tables then, or they limit it to float32's 6e-8).

    ``(x1', x2') = (x1 cos - x2 sin, x2 cos + x1 sin)`` on the first ``R`` channels (Su et al. 2021); channels
    ``R..Dh-1`` pass through. ``inplace=True`` writes into q and k and returns them. Differentiable in q and k on
    every path (backward is the rotation by ``-theta``). Empty inputs (``B = 0``, ``Tq = 0`` or ``Tk = 0``) give
    empty outputs of the same shapes.

    ``q_scale``/``k_scale`` (optional, shaped like their tables): a factor per token and pair that multiplies the
    rotated pair, ``(x1', x2') = a (x1 cos - x2 sin, x2 cos + x1 sin)`` (xPos's decay, Sun et al. 2023). It is
    folded into the tables (``a cos``, ``a sin``), so every path applies it in the same single pass.

    Example::

        >>> import torch
        >>> from posenc.kernels import apply_rope
        >>> theta = torch.arange(5.0)[:, None] * torch.tensor([1.0, 0.01])  # [T, R/2] angles
        >>> q, k = torch.randn(1, 4, 5, 8), torch.randn(1, 2, 5, 8)  # GQA: 4 q heads, 2 k heads, R = 4 of 8
        >>> qr, kr = apply_rope(q, k, theta.cos(), theta.sin(), theta.cos(), theta.sin())
        >>> bool(torch.equal(qr[..., 4:], q[..., 4:]))  # channels past the rotary width pass through
        True
    """
    validate_rope_inputs(q, k, q_cos, q_sin, k_cos, k_sin, pairing, inplace, q_scale=q_scale, k_scale=k_scale)
    if q_scale is not None:
        q_cos, q_sin = q_cos * q_scale, q_sin * q_scale
    if k_scale is not None:
        k_cos, k_sin = k_cos * k_scale, k_sin * k_scale
    name = select_provider(q.device, q.dtype, provider)
    if k.dtype != q.dtype and select_provider(k.device, k.dtype, provider) != name:
        name = "reference"
    tables_need_grad = torch.is_grad_enabled() and any(t.requires_grad for t in (q_cos, q_sin, k_cos, k_sin))
    # an empty problem (a zero batch, or no tokens in q and k) launches no kernel: torch returns empty tensors of
    # the right shapes, differentiable like any others
    empty = q.numel() == 0 and k.numel() == 0
    wide = torch.float64 in (q.dtype, k.dtype)  # float64 in, float64 math: only the reference path has it
    if name == "reference" or tables_need_grad or empty or wide:
        math = torch.float64 if wide else torch.float32
        q_out = rope_apply_reference(q, q_cos, q_sin, pairing, math)
        k_out = rope_apply_reference(k, k_cos, k_sin, pairing, math)
        if inplace:
            return q.copy_(q_out), k.copy_(k_out)
        return q_out, k_out
    if not inplace and not (torch.is_grad_enabled() and (q.requires_grad or k.requires_grad)):
        # nothing to differentiate: the kernel alone, without an autograd node (24-32 us less host time per call,
        # measured on an H100 machine, where the whole call took 133-142 us)
        q_out, k_out = new_output_like(q), new_output_like(k)
        _kernel(name)(q, k, q_cos, q_sin, k_cos, k_sin, interleaved=pairing == "interleaved", inverse=False,
                      q_out=q_out, k_out=k_out)
        return q_out, k_out
    return RopeFunction.apply(q, k, q_cos, q_sin, k_cos, k_sin, pairing == "interleaved", inplace, _kernel(name))


def apply_rope_packed(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                      cu_seqlens: torch.Tensor | list[int], *, pairing: str = "half", inplace: bool = False,
                      provider: str | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """RoPE on packed sequences: ``q [1, H, N, Dh]``, ``k [1, Hk, N, Dh]`` hold several sequences back to back,
    delimited by ``cu_seqlens [S + 1]``; each restarts at position 0 (:mod:`posenc.kernels.packed`).

    ``cos``/``sin`` are ``[L, R/2]`` tables indexed by position (row ``p`` holds the angles of position ``p``),
    ``L`` at least the longest sequence.
    """
    for name, x in (("q", q), ("k", k)):
        if not isinstance(x, torch.Tensor) or x.dim() != 4 or x.shape[0] != 1:
            shape = list(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
            raise PosencError(f"packed {name} must have shape [1, heads, total_tokens, head_dim], got {shape}")
    if q.shape[2] != k.shape[2]:
        raise PosencError(f"packed q and k must hold the same tokens, got {q.shape[2]} and {k.shape[2]}")
    if cos.dim() != 2 or cos.shape != sin.shape:
        raise PosencError(f"packed RoPE takes position-indexed tables cos, sin [L, R/2], got {list(cos.shape)} and "
                          f"{list(sin.shape)}")
    cu = check_cu_seqlens(cu_seqlens, q.shape[2])
    longest = int((cu[1:] - cu[:-1]).max())
    if longest > cos.shape[0]:
        raise PosencError(f"the longest packed sequence has {longest} tokens but the tables cover {cos.shape[0]} "
                          f"positions; build tables for at least {longest} positions")
    positions = positions_from_cu_seqlens(cu, q.shape[2], device=cos.device)  # [N]
    c, s = cos[positions], sin[positions]  # [N, R/2]
    return apply_rope(q, k, c, s, c, s, pairing=pairing, inplace=inplace, provider=provider)
