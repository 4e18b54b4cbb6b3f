"""Applying RoPE to queries and keys: one dispatcher over the available paths.

``apply_rope(q, k, q_cos, q_sin, k_cos, k_sin, pairing=..., inplace=...)`` is the only entry point the encodings use.
Paths: ``reference`` (plain torch, always available). Faster paths register themselves in :mod:`posenc.kernels.dispatch`.
"""

from posenc.kernels.dispatch import apply_rope, available_providers
from posenc.kernels.reference import rope_apply_reference

__all__ = ["apply_rope", "available_providers", "rope_apply_reference"]
