"""Fused RoPE in Triton: q and k in one launch, forward and backward, in place or out of place.

Each program takes a block of ``BLOCK_T`` tokens of one batch row, loads the float32 angle tables for those tokens
once, and rotates a group of up to ``HEADS`` heads of q (or of k) with them (heads unrolled, so their loads overlap):

    (x1', x2') = (x1 cos - s x2 sin, x2 cos + s x1 sin),   s = +1 forward, -1 backward (rotation by -theta)

``half`` pairing reads the two halves ``[0, R/2)`` and ``[R/2, R)`` as two contiguous tiles; ``interleaved`` reads
``[0, R)`` as one tile and splits it into even and odd channels in registers (``reshape`` + ``split``). Channels
``R..Dh-1`` are copied when the output is a new tensor and left alone in place. Every load and store is one pass over
memory, so the kernel is bound by bandwidth (Liger-Kernel and flash-attn's rotary use the same one-pass plan).

On a machine without a GPU the same kernel runs on CPU tensors in Triton's interpreter when ``TRITON_INTERPRET=1`` is
set (``triton.jit`` reads the variable when it decorates a function, so this module builds the interpreted variant
itself, on demand, whatever the order of imports). The interpreter executes the kernel with numpy: use it for
correctness on small shapes only. Found with triton 3.9: CPU tensors work as they are (no copies, no special
handling); its float32 -> bfloat16 cast truncates where the GPU rounds to nearest even (at most 1 bfloat16 ulp,
2^-7 relative, apart), so interpreter results in bfloat16 can differ from the C++ kernel's by that much.
"""

from __future__ import annotations

import functools
import os

import torch

__all__ = ["triton_available", "interpreter_requested", "rope_triton", "TRITON_DTYPES"]

TRITON_DTYPES = (torch.float32, torch.bfloat16, torch.float16)


@functools.cache
def _triton():
    try:
        import triton
        import triton.language as tl
    except Exception:  # not installed, or broken on this platform
        return None
    return triton, tl


def triton_available() -> bool:
    """Triton imports in this process."""
    return _triton() is not None


def interpreter_requested() -> bool:
    """``TRITON_INTERPRET=1``: run the kernel in Triton's interpreter on CPU tensors."""
    return os.environ.get("TRITON_INTERPRET", "").lower() in ("1", "true", "on", "yes")


def _kernel_source(tl):
    def rope_kernel(q_ptr, k_ptr, qo_ptr, ko_ptr, qc_ptr, qs_ptr, kc_ptr, ks_ptr,
                    Tq, Tk, Hq, Hk, Gq,
                    q_sb, q_sh, q_st, k_sb, k_sh, k_st,
                    qo_sb, qo_sh, qo_st, ko_sb, ko_sh, ko_st,
                    qc_sb, qc_st, kc_sb, kc_st,
                    R2: tl.constexpr, D: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_R2: tl.constexpr,
                    BLOCK_TAIL: tl.constexpr, HEADS: tl.constexpr, INTERLEAVED: tl.constexpr,
                    INVERSE: tl.constexpr, COPY_TAIL: tl.constexpr):
        pid_t = tl.program_id(0)
        b = tl.program_id(1).to(tl.int64)
        g = tl.program_id(2)
        # the program's tensor (q for groups [0, Gq), k after), its head range and its strides
        if g < Gq:
            x_ptr, o_ptr, c_ptr, s_ptr = q_ptr, qo_ptr, qc_ptr, qs_ptr
            T, h0, h1 = Tq, g * HEADS, tl.minimum(g * HEADS + HEADS, Hq)
            x_sb, x_sh, x_st = q_sb.to(tl.int64), q_sh.to(tl.int64), q_st.to(tl.int64)
            o_sb, o_sh, o_st = qo_sb.to(tl.int64), qo_sh.to(tl.int64), qo_st.to(tl.int64)
            c_sb, c_st = qc_sb.to(tl.int64), qc_st.to(tl.int64)
        else:
            x_ptr, o_ptr, c_ptr, s_ptr = k_ptr, ko_ptr, kc_ptr, ks_ptr
            T, h0, h1 = Tk, (g - Gq) * HEADS, tl.minimum((g - Gq) * HEADS + HEADS, Hk)
            x_sb, x_sh, x_st = k_sb.to(tl.int64), k_sh.to(tl.int64), k_st.to(tl.int64)
            o_sb, o_sh, o_st = ko_sb.to(tl.int64), ko_sh.to(tl.int64), ko_st.to(tl.int64)
            c_sb, c_st = kc_sb.to(tl.int64), kc_st.to(tl.int64)
        if pid_t * BLOCK_T < T:
            t = pid_t * BLOCK_T + tl.arange(0, BLOCK_T)  # [BLOCK_T]
            t_ok = t < T
            t64 = t.to(tl.int64)
            i = tl.arange(0, BLOCK_R2)  # [BLOCK_R2]
            tab_mask = t_ok[:, None] & (i < R2)[None, :]  # [BLOCK_T, BLOCK_R2]
            tab_off = b * c_sb + t64[:, None] * c_st + i[None, :]
            cos = tl.load(c_ptr + tab_off, mask=tab_mask, other=0.0).to(tl.float32)
            sin = tl.load(s_ptr + tab_off, mask=tab_mask, other=0.0).to(tl.float32)
            if INVERSE:
                sin = -sin
            if INTERLEAVED:
                j = tl.arange(0, 2 * BLOCK_R2)  # [2 BLOCK_R2] channels 0..R-1
            # heads unrolled at compile time so the loads of all HEADS rows can be in flight together
            for hh in tl.static_range(HEADS):
                h = h0 + hh
                # tokens of this head to touch: all of the block's, or none past the group's last head
                t_h = t < tl.where(h < h1, T, 0)  # [BLOCK_T]
                x_row = x_ptr + b * x_sb + h * x_sh + t64[:, None] * x_st  # [BLOCK_T, 1] row starts
                o_row = o_ptr + b * o_sb + h * o_sh + t64[:, None] * o_st
                if INTERLEAVED:
                    m = t_h[:, None] & (j < 2 * R2)[None, :]
                    x = tl.load(x_row + j[None, :], mask=m, other=0.0).to(tl.float32)
                    x1, x2 = tl.split(tl.reshape(x, (BLOCK_T, BLOCK_R2, 2)))  # even, odd: [BLOCK_T, BLOCK_R2]
                    y = tl.reshape(tl.join(x1 * cos - x2 * sin, x2 * cos + x1 * sin), (BLOCK_T, 2 * BLOCK_R2))
                    tl.store(o_row + j[None, :], y.to(o_ptr.dtype.element_ty), mask=m)
                else:
                    m = t_h[:, None] & (i < R2)[None, :]
                    x1 = tl.load(x_row + i[None, :], mask=m, other=0.0).to(tl.float32)
                    x2 = tl.load(x_row + R2 + i[None, :], mask=m, other=0.0).to(tl.float32)
                    tl.store(o_row + i[None, :], (x1 * cos - x2 * sin).to(o_ptr.dtype.element_ty), mask=m)
                    tl.store(o_row + R2 + i[None, :], (x2 * cos + x1 * sin).to(o_ptr.dtype.element_ty), mask=m)
                if COPY_TAIL:
                    e = 2 * R2 + tl.arange(0, BLOCK_TAIL)  # pass-through channels R..Dh-1
                    e_mask = t_h[:, None] & (e < D)[None, :]
                    tail = tl.load(x_row + e[None, :], mask=e_mask)
                    tl.store(o_row + e[None, :], tail, mask=e_mask)

    return rope_kernel


@functools.cache
def _kernel(interpret: bool):
    triton, tl = _triton()
    fn = _kernel_source(tl)
    if interpret:
        from triton.runtime.interpreter import InterpretedFunction

        return InterpretedFunction(fn)
    return triton.jit(fn, do_not_specialize=_INT_ARGS)


def _next_pow2(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


def _tables3(cos: torch.Tensor, sin: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, int, int]:
    cos3 = (cos if cos.dim() == 3 else cos[None]).to(torch.float32)  # [B|1, T, R/2]
    sin3 = (sin if sin.dim() == 3 else sin[None]).to(torch.float32)
    if cos3.stride(-1) != 1 or cos3.stride() != sin3.stride():
        cos3, sin3 = cos3.contiguous(), sin3.contiguous()
    return cos3, sin3, (cos3.stride(0) if cos3.shape[0] > 1 else 0), cos3.stride(1)


def _unit_last(x: torch.Tensor) -> torch.Tensor:
    return x if x.stride(-1) == 1 or x.shape[-1] == 1 else x.contiguous()


_INT_ARGS = ["Tq", "Tk", "Hq", "Hk", "Gq", "q_sb", "q_sh", "q_st", "k_sb", "k_sh", "k_st", "qo_sb", "qo_sh",
             "qo_st", "ko_sb", "ko_sh", "ko_st", "qc_sb", "qc_st", "kc_sb", "kc_st"]


def _launch(q, k, q_out, k_out, q_tables, k_tables, Hq: int, Hk: int, *, interleaved: bool, inverse: bool,
            heads: int | None = None, block_t: int | None = None, num_warps: int | None = None) -> None:
    B, _, Tq, D = q.shape
    Tk = k.shape[2]
    qc, qs, qc_sb, qc_st = q_tables
    kc, ks, kc_sb, kc_st = k_tables
    R2 = qc.shape[-1]
    block_r2 = _next_pow2(R2)
    t_max = max(Tq if Hq else 1, Tk if Hk else 1)
    if block_t is None:
        # a tile of at most 2048 elements per head, 1024 for interleaved pairing, whose reshape and split into even
        # and odd channels cost registers: on an H100 (bfloat16, q [1, 32, T, 128], k [1, 8, T, 128], 8 heads per
        # program) interleaved moved 1885 GB/s at T = 8192 and 2042 at 32768 with 16 tokens per block, 2327 and 2540
        # with 8; half pairing moved the same with either (2353 / 2549 GB/s and 2335 / 2562)
        tile = 1024 if interleaved else 2048
        block_t = max(1, min(16, tile // (2 * block_r2), _next_pow2(t_max)))
    # heads per program: more reuse of the table tile and more loads in flight, while keeping the grid wide
    t_blocks = -(-t_max // block_t) * B
    if heads is None:
        heads = 8 if t_blocks >= 256 else 4 if t_blocks >= 32 else 1
    gq, gk = -(-Hq // heads), -(-Hk // heads)
    in_place = q_out.data_ptr() == q.data_ptr() if Hq else k_out.data_ptr() == k.data_ptr()
    copy_tail = int(2 * R2 < D and not in_place)
    grid = (-(-t_max // block_t), B, gq + gk)
    if 0 in grid:  # an empty batch, sequence or head range: nothing to launch (CUDA refuses a zero grid)
        return
    _kernel(q.device.type == "cpu")[grid](
        q, k, q_out, k_out, qc, qs, kc, ks,
        Tq, Tk, Hq, Hk, gq,
        *q.stride()[:3], *k.stride()[:3], *q_out.stride()[:3], *k_out.stride()[:3],
        qc_sb, qc_st, kc_sb, kc_st,
        R2=R2, D=D, BLOCK_T=block_t, BLOCK_R2=block_r2, BLOCK_TAIL=_next_pow2(max(1, D - 2 * R2)), HEADS=heads,
        INTERLEAVED=int(interleaved), INVERSE=int(inverse), COPY_TAIL=copy_tail,
        **({} if num_warps is None else {"num_warps": num_warps}),
    )


def rope_triton(q: torch.Tensor | None, k: torch.Tensor | None, q_cos: torch.Tensor, q_sin: torch.Tensor,
                k_cos: torch.Tensor, k_sin: torch.Tensor, *, interleaved: bool, inverse: bool,
                q_out: torch.Tensor | None, k_out: torch.Tensor | None,
                heads_per_program: int | None = None, block_tokens: int | None = None,
                num_warps: int | None = None) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """Rotate ``q [B, H, Tq, Dh]`` into ``q_out`` and ``k [B, Hk, Tk, Dh]`` into ``k_out``, in one launch when they
    share dtype and rotary width (two otherwise). Either may be ``None`` (only the other is rotated).

    Outputs may be the inputs (in place). Strides over batch, heads and tokens are used as they are; a strided last
    dimension is made contiguous first. An empty tensor (a zero batch, head or sequence size) launches nothing.
    ``heads_per_program``, ``block_tokens`` (a power of two) and ``num_warps`` override the launch heuristic (tests,
    tuning).
    """
    pairs = []
    for x, out in ((q, q_out), (k, k_out)):
        if x is None or x.numel() == 0:  # an empty tensor has nothing to rotate (and no data pointer to compare)
            continue
        if out.stride(-1) != 1 and out.shape[-1] > 1:  # rotate into a contiguous buffer, then copy into place
            tmp = torch.empty_like(out, memory_format=torch.contiguous_format)
            rope_triton(x, None, q_cos if x is q else k_cos, q_sin if x is q else k_sin, k_cos, k_sin,
                        interleaved=interleaved, inverse=inverse, q_out=tmp, k_out=None,
                        heads_per_program=heads_per_program, block_tokens=block_tokens, num_warps=num_warps)
            out.copy_(tmp)
            continue
        pairs.append((x is q, _unit_last(x), out))
    if not pairs:
        return q_out, k_out
    tables = {True: _tables3(q_cos, q_sin), False: _tables3(k_cos, k_sin)}
    flags = {"interleaved": interleaved, "inverse": inverse, "heads": heads_per_program, "block_t": block_tokens,
             "num_warps": num_warps}
    if len(pairs) == 2 and q.dtype == k.dtype and q_cos.shape[-1] == k_cos.shape[-1] \
            and q.shape[-1] == k.shape[-1] and (q_out.data_ptr() == q.data_ptr()) == (k_out.data_ptr() == k.data_ptr()):
        (_, qx, qo), (_, kx, ko) = pairs
        _launch(qx, kx, qo, ko, tables[True], tables[False], qx.shape[1], kx.shape[1], **flags)
    else:
        for is_q, x, out in pairs:  # one launch each: the other tensor's head range is empty
            _launch(x, x, out, out, tables[is_q], tables[is_q], x.shape[1], 0, **flags)
    return q_out, k_out
