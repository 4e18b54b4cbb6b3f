"""Causal attention for long prompts after a KV cache, registered with transformers' ``AttentionInterface``.

transformers' own ``sdpa`` attention handles a full pass well (no mask: PyTorch's fused causal kernel, grouped-query
heads read in place), but ``Tq`` new tokens after ``Tk - Tq`` cached ones (a passkey prompt after its shared prefix)
get a ``[Tq, Tk]`` mask, the key/value heads copied once per query head, and a kernel that computes every pair of the
rectangle. ``benchmarks/bench_extend.py --passkey`` measured that on SmolLM2's shape (2 threads, 2026-11-25): at 16384
tokens one trial took 180 s and 3.2 GB with it against 101 s and 1.5 GB with this function (docs/extend.md).

:func:`causal_attention` computes the same softmax attention with three changes of layout, none of value:

- queries in chunks of :data:`QUERY_CHUNK`, each attending only to the keys it can see (``0 .. Tk - Tq + i``), so the
  work is the causal triangle, and the model's mask is sliced to the same block (padding still applies);
- the ``G = H / Hk`` query heads of a group folded into the query axis (``[B, Hk, G * c, Dh]``), so cached keys and
  values are read in place, never copied per query head;
- a whole sequence without a mask goes to the fused causal kernel, as ``sdpa`` does.

It is registered under :data:`ATTENTION` with transformers' ``sdpa`` mask function (``AttentionMaskInterface``), so
the masks it receives are the ones ``sdpa`` would get. Arguments it does not know are an error, not ignored.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from posenc.errors import PosencError

__all__ = ["ATTENTION", "QUERY_CHUNK", "causal_attention", "register_attention"]

#: the name under which :func:`causal_attention` is registered (``model.set_attn_implementation(ATTENTION)``)
ATTENTION = "posenc_causal"
#: queries per block when several new tokens follow cached ones
QUERY_CHUNK = 1024
#: keyword arguments transformers' attention modules pass on that this function may receive and has no use for:
#: the positions (already applied by the rotary code) and whether the cache is used (it already holds these keys)
_UNUSED = frozenset({"position_ids", "use_cache", "cache_position", "position_embeddings", "output_attentions"})


def _transformers_version() -> str:
    import transformers

    return transformers.__version__


def _check_arguments(module: nn.Module, kwargs: dict[str, Any]) -> None:
    sliding = kwargs.get("sliding_window")
    if sliding is not None:
        raise PosencError(f"{type(module).__name__} asks for sliding-window attention (window {sliding}); posenc's "
                          f"causal attention is full causal attention. Use attn_implementation='sdpa' for this model")
    if kwargs.get("is_causal", True) is False:
        raise PosencError(f"{type(module).__name__} asks for bidirectional attention; posenc's attention is causal")
    unknown = sorted(set(kwargs) - _UNUSED - {"sliding_window", "is_causal"})
    if unknown:
        raise PosencError(f"{type(module).__name__} passed the attention function arguments posenc does not know: "
                          f"{', '.join(unknown)} (transformers {_transformers_version()}); posenc's causal attention "
                          f"was tested with the versions in constraints.txt. Use attn_implementation='sdpa', or "
                          f"install those versions (pip install -c constraints.txt -e .)")


def causal_attention(module: nn.Module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                     attention_mask: torch.Tensor | None, scaling: float | None = None, dropout: float = 0.0,
                     **kwargs: Any) -> tuple[torch.Tensor, None]:
    """Causal attention of ``query [B, H, Tq, Dh]`` (the last ``Tq`` of ``Tk`` tokens) over ``key, value
    [B, Hk, Tk, Dh]``; returns ``([B, Tq, H, Dh], None)`` as transformers' attention functions do.

    ``attention_mask``: ``None`` (causal, nothing padded) or the boolean ``[B, 1, Tq, Tk]`` mask of ``sdpa``
    (``True`` = may attend). Query head ``h`` reads key/value head ``h // G``.
    """
    _check_arguments(module, kwargs)
    b, h, t_q, d = query.shape
    hk, t_k = key.shape[1], key.shape[2]
    if h % hk:
        raise PosencError(f"{h} query heads cannot share {hk} key/value heads evenly")
    g = h // hk
    p = dropout if module.training else 0.0
    if attention_mask is None and t_q == t_k:  # a whole sequence: the fused causal kernel
        out = F.scaled_dot_product_attention(query, key, value, is_causal=t_q > 1, scale=scaling, dropout_p=p,
                                             enable_gqa=g > 1)  # [B, H, T, Dh]
        return out.transpose(1, 2).contiguous(), None
    if attention_mask is not None and attention_mask.dtype != torch.bool:
        raise PosencError(f"posenc's causal attention takes a boolean mask (transformers' sdpa masks), got "
                          f"{attention_mask.dtype}")
    outs = []
    for start in range(0, t_q, QUERY_CHUNK):
        stop = min(start + QUERY_CHUNK, t_q)
        c, visible = stop - start, t_k - t_q + stop  # these queries see keys 0 .. visible - 1
        folded = query[:, :, start:stop].reshape(b, hk, g * c, d)  # [B, Hk, G * c, Dh], row = group * c + i
        if attention_mask is not None:
            block = attention_mask[:, :, start:stop, :visible]  # [B, 1, c, visible]
            block = block.repeat(1, 1, g, 1)  # [B, 1, G * c, visible]
        elif c > 1:
            rows = torch.arange(c, device=query.device)[:, None] + (visible - c)
            block = (torch.arange(visible, device=query.device)[None, :] <= rows).repeat(g, 1)  # [G * c, visible]
        else:
            block = None  # one query after the cache sees every key
        out = F.scaled_dot_product_attention(folded, key[:, :, :visible], value[:, :, :visible], attn_mask=block,
                                             scale=scaling, dropout_p=p)  # [B, Hk, G * c, Dh]
        outs.append(out.reshape(b, h, c, d))  # [B, H, c, Dh]
    return torch.cat(outs, dim=2).transpose(1, 2).contiguous(), None  # [B, Tq, H, Dh]


def register_attention() -> str:
    """Register :func:`causal_attention` (and ``sdpa``'s mask function for it) with transformers; returns its name."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(ATTENTION, causal_attention)
    AttentionMaskInterface.register(ATTENTION, sdpa_mask)
    return ATTENTION
