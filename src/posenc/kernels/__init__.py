"""Applying RoPE to queries and keys: one rotation, one validation, one dispatcher over the available paths.

``apply_rope(q, k, q_cos, q_sin, k_cos, k_sin, pairing=..., inplace=..., provider=..., q_scale=..., k_scale=...)`` is
the one rotation every rotary encoding uses. It validates its arguments with :func:`validate_rope_inputs`
(:mod:`posenc.kernels.validate`, whose :func:`check_qk` the encodings call before building their tables), then
dispatches. Paths: ``cpp`` (fused C++ kernel on CPU, built on first use from ``rope_cpu.cpp``, shipped in this
package), ``triton`` (fused Triton kernel on CUDA) and ``reference`` (plain torch, always available);
:func:`available_providers` lists those usable here. Packed sequences: :func:`apply_rope_packed` and
:func:`positions_from_cu_seqlens`.
"""

from posenc.kernels.dispatch import PROVIDERS, apply_rope, apply_rope_packed, available_providers, select_provider
from posenc.kernels.packed import check_cu_seqlens, positions_from_cu_seqlens
from posenc.kernels.reference import rope_apply_reference
from posenc.kernels.validate import PAIRINGS, check_pairing, check_qk, validate_rope_inputs

__all__ = ["PROVIDERS", "PAIRINGS", "apply_rope", "apply_rope_packed", "available_providers", "select_provider",
           "validate_rope_inputs", "check_pairing", "check_qk", "check_cu_seqlens", "positions_from_cu_seqlens",
           "rope_apply_reference"]
