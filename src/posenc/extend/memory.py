"""How much memory a forward pass at a given length needs, estimated from the config alone (before loading).

With PyTorch SDPA's fused kernels (CPU flash attention, CUDA memory-efficient attention) no ``[T, T]`` matrix is
formed, so memory grows linearly with the length ``T``. For one decoder layer at a time (activations of earlier layers
are freed under ``torch.no_grad``), in elements of the compute dtype:

    weights      = V D (+ V D if the output layer is untied) + n_layers (D (H + 2 Hk) Dh + H Dh D + 3 D I + 2 D)
    layer peak   = T (6 D + 3 (H + Hk) Dh + 4 H Dh + 4 I)     # residual/norm copies, q/k/v before and after
                                                            # rotation, repeated k/v, SDPA output, MLP gate/up/act
    kv cache     = n_layers 2 Hk Dh T                         # passkey decoding only (keys kept unrotated)
    output layer = 3 C V                                      # logits + log-softmax of one chunk of C positions
    tables       = 6 T R/2 (float64 angles, float32 cos and sin for q and k)

plus a fixed ``runtime`` (the Python process with torch and transformers imported, about 0.8 GB on CPU), and a safety
margin of 25% on the variable part. :func:`check_fits` refuses a length whose estimate exceeds the available memory
(``MemAvailable`` of ``/proc/meminfo`` on CPU, ``torch.cuda.mem_get_info`` on CUDA) and says by how much.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from posenc.checks import whole_number
from posenc.errors import PosencError
from posenc.hf.fields import ConfigFields
from posenc.resources import GB, available_memory

__all__ = ["MemoryEstimate", "estimate_memory", "available_memory", "check_fits", "GB"]

_RUNTIME_BYTES = int(0.8 * GB)
_MARGIN = 1.25


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes by part for one length (``total`` includes the runtime and the margin)."""

    length: int
    weights: int
    activations: int
    kv_cache: int
    output_layer: int
    runtime: int
    total: int

    def describe(self) -> str:
        return (f"{self.total / GB:.2f} GB at {self.length} tokens (weights {self.weights / GB:.2f}, activations "
                f"{self.activations / GB:.2f}, KV cache {self.kv_cache / GB:.2f}, output layer "
                f"{self.output_layer / GB:.2f}, runtime {self.runtime / GB:.2f}, margin x{_MARGIN})")


def estimate_memory(config: Any, length: int, dtype: torch.dtype = torch.float32, kv_cache: bool = True,
                    logits_chunk: int = 1024, device: str | torch.device = "cpu") -> MemoryEstimate:
    """Peak memory for a forward pass over ``length`` tokens of the model ``config`` describes (see module doc)."""
    if not whole_number(length):
        raise PosencError(f"length must be a positive integer, got {length!r}")
    fields = ConfigFields(config)  # every field checked, and named as config.json spells it
    d = fields.require("hidden_size")
    heads = fields.require("num_attention_heads")
    kv_heads = fields.get("num_key_value_heads", default=heads)
    head_dim = fields.get("head_dim", default=d // heads)
    inter = fields.get("intermediate_size", default=4 * d)
    layers = fields.require("num_hidden_layers")
    vocab = fields.require("vocab_size")
    tied = fields.get("tie_word_embeddings", default=False)
    size = torch.empty((), dtype=dtype).element_size()
    per_layer = d * (heads + 2 * kv_heads) * head_dim + heads * head_dim * d + 3 * d * inter + 2 * d
    weights = size * (vocab * d * (1 if tied else 2) + layers * per_layer + d)
    t = length
    activations = size * t * (6 * d + 3 * (heads + kv_heads) * head_dim + 4 * heads * head_dim + 4 * inter)
    activations += 6 * t * (head_dim // 2) * 8  # angle tables: float64 angles, float32 cos/sin for q and k
    cache = size * layers * 2 * kv_heads * head_dim * t if kv_cache else 0
    output = 4 * 3 * min(logits_chunk, t) * vocab  # logits are upcast to float32
    runtime = _RUNTIME_BYTES if torch.device(device).type == "cpu" else 0
    total = weights + runtime + int(_MARGIN * (activations + cache + output))
    return MemoryEstimate(length, weights, activations, cache, output, runtime, total)


def check_fits(config: Any, lengths: list[int], dtype: torch.dtype = torch.float32, kv_cache: bool = True,
               device: str | torch.device = "cpu", limit_bytes: int | None = None) -> dict[int, MemoryEstimate]:
    """Estimates for every length; raise before anything is loaded if the longest does not fit.

    ``limit_bytes`` caps the memory posenc may use (default: what is available now).
    """
    estimates = {n: estimate_memory(config, n, dtype, kv_cache, device=device) for n in lengths}
    limit = available_memory(device) if limit_bytes is None else int(limit_bytes)
    too_big = [e for e in estimates.values() if e.total > limit]
    if too_big:
        worst = max(too_big, key=lambda e: e.total)
        fits = [n for n, e in estimates.items() if e.total <= limit]
        raise PosencError(f"length {worst.length} does not fit in memory: estimated {worst.describe()}, but only "
                          f"{limit / GB:.2f} GB is available on {torch.device(device)}; drop lengths "
                          f"{sorted(e.length for e in too_big)}"
                          + (f" (these fit: {sorted(fits)})" if fits else "")
                          + " or free memory / raise --max-memory-gb")
    return estimates
