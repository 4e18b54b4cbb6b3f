"""Applying RoPE to queries and keys: one dispatcher over the available paths.

``apply_rope(q, k, q_cos, q_sin, k_cos, k_sin, pairing=..., inplace=..., provider=...)`` is the entry point the
encodings use. Paths: ``cpp`` (fused C++ kernel on CPU, built on first use), ``triton`` (fused Triton kernel on
CUDA) and ``reference`` (plain torch, always available); :func:`available_providers` lists those usable here.
Packed sequences: :func:`apply_rope_packed` and :func:`positions_from_cu_seqlens`.
"""

from posenc.kernels.dispatch import (
    PROVIDERS,
    apply_rope,
    apply_rope_packed,
    available_providers,
    select_provider,
    validate_rope_inputs,
)
from posenc.kernels.packed import check_cu_seqlens, positions_from_cu_seqlens
from posenc.kernels.reference import rope_apply_reference

__all__ = ["PROVIDERS", "apply_rope", "apply_rope_packed", "available_providers", "select_provider",
           "validate_rope_inputs", "check_cu_seqlens", "positions_from_cu_seqlens", "rope_apply_reference"]
