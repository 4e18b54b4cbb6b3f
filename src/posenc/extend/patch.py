"""Put posenc's RoPE into a Hugging Face Llama-family model: its attention then rotates queries and keys with the
encoding's ``rotate`` hook, never with the model library's rotary code.

What :func:`patch_model` changes, in place:

- every decoder layer's ``self_attn`` becomes a :class:`PosencAttention` that reuses the layer's own projections
  (``q_proj``, ``k_proj``, ``v_proj``, ``o_proj`` and, for Qwen3, ``q_norm`` / ``k_norm``) and computes

      q, k, v = x W_q, x W_k, x W_v                       # [B, H, T, Dh], [B, Hk, T, Dh], [B, Hk, T, Dh]
      q, k    = encoding.rotate(q, k, q_positions, k_positions)
      out     = softmax(q k^T / sqrt(Dh) + causal) v W_o  # through torch's scaled_dot_product_attention

- the model's rotary module (``model.model.rotary_emb``) is replaced by one that computes nothing, so the library's
  cos/sin tables are neither built nor used.

The KV cache holds keys after rotation, as in the model library. A length-dependent scaling (dynamic NTK) changes
every layer's hidden states when the length grows, so no cache can reproduce a full pass under it (transformers
#25306 is the key-side symptom). :class:`FixedLengthRope` therefore freezes such a scaling at one length (the target
length of a passkey prompt): prefill and decoding then use the same frequencies, and cached decoding equals a full
forward pass. Attention uses PyTorch SDPA with ``is_causal`` for a full pass, which on CPU and CUDA runs a fused kernel
whose memory grows linearly with length; queries can also be processed in chunks (``query_chunk``). New tokens
after cached ones (decoding, a passkey prompt after its shared prefix) fold each group of query heads into the query
axis, so a grouped-query model's cached keys and values are read in place, not copied once per query head.

Supported: decoder-only models whose attention has the Llama layout (``llama``, ``mistral`` without a sliding window,
``qwen2``, ``qwen3``). Other models raise a :class:`~posenc.errors.PosencError` naming what was found.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from posenc.checks import whole_number
from posenc.encodings.base import EncodingInfo, PositionalEncoding
from posenc.encodings.rope import RoPE
from posenc.errors import PosencError
from posenc.extend.factors import scaling_spec
from posenc.hf import from_hf_config, rope_options_from_hf_config
from posenc.registry import build

__all__ = ["PosencAttention", "FixedLengthRope", "patch_model", "set_encoding", "scaled_rope", "native_length", "check_rope_model",
           "SUPPORTED_MODEL_TYPES"]

SUPPORTED_MODEL_TYPES = ("llama", "mistral", "qwen2", "qwen3")
#: queries per block when several new tokens follow cached ones (a passkey prompt after its shared prefix)
_CACHED_QUERY_CHUNK = 1024


def check_rope_model(config: Any) -> None:
    """Raise a clear error unless ``config`` describes a RoPE decoder posenc can patch."""
    model_type = getattr(config, "model_type", None) or (config.get("model_type") if isinstance(config, dict) else "")
    try:
        encoding = from_hf_config(config)
    except PosencError as exc:
        raise PosencError(f"model type {model_type!r} has no rotary position embedding posenc can read ({exc}); "
                          f"context extension by RoPE scaling needs a RoPE model such as smollm2") from exc
    if not encoding.info.rotates_qk:
        raise PosencError(f"model type {model_type!r} uses {encoding.name!r} positions "
                          f"({type(encoding).info.family} encoding), not RoPE; RoPE scaling does not apply to it. "
                          f"Use a RoPE decoder such as smollm2 (or any {', '.join(SUPPORTED_MODEL_TYPES)} model)")
    if model_type not in SUPPORTED_MODEL_TYPES:
        raise PosencError(f"model type {model_type!r} uses RoPE but its attention layout is not one posenc patches; "
                          f"supported model types are: {', '.join(SUPPORTED_MODEL_TYPES)}")
    layer_types = getattr(config, "layer_types", None) or []
    if "sliding_attention" in layer_types or (model_type == "mistral" and getattr(config, "sliding_window", None)):
        raise PosencError(f"this {model_type} model uses sliding-window attention; posenc's patched attention is full "
                          f"causal attention, so results would not be this model's. Use a model without a sliding "
                          f"window (set sliding_window=None only if the checkpoint was trained that way)")


def native_length(config: Any) -> int:
    """The context the model was trained for: ``original_max_position_embeddings`` if the config scales its RoPE
    already, else ``max_position_embeddings``."""
    params = getattr(config, "rope_parameters", None) or getattr(config, "rope_scaling", None) or {}
    original = params.get("original_max_position_embeddings") if isinstance(params, dict) else None
    value = original or getattr(config, "original_max_position_embeddings", None) or \
        getattr(config, "max_position_embeddings", None)
    if not value:
        raise PosencError("the model config has no max_position_embeddings; pass the native length explicitly")
    return int(value)


def scaled_rope(config: Any, scaling: str, factor: float, native_len: int | None = None) -> PositionalEncoding:
    """posenc's RoPE for a Hugging Face config with the named scaling (see :mod:`posenc.extend.factors`).

    Head width, base, pairing and rotary width come from :func:`posenc.hf.rope_options_from_hf_config`; the scaling
    the config may already carry is replaced by ``scaling`` at ``factor`` relative to ``native_len``.
    """
    check_rope_model(config)
    options = rope_options_from_hf_config(config)
    native = native_len or native_length(config)
    options["scaling"] = scaling_spec(scaling, factor, native)
    return build("rope", **options)


class _NoLibraryRotary(nn.Module):
    """Stands where the model's rotary module was: computes no tables (posenc's attention rotates instead)."""

    def forward(self, x: torch.Tensor, position_ids: torch.Tensor | None = None, *args: Any, **kwargs: Any) -> None:
        return None


def _bottom_right_causal(t_q: int, t_k: int, device: torch.device) -> torch.Tensor:
    """Boolean mask ``[Tq, Tk]``: query ``i`` (the ``Tk - Tq + i``-th token) sees keys ``0 .. Tk - Tq + i``."""
    rows = torch.arange(t_q, device=device)[:, None] + (t_k - t_q)
    return torch.arange(t_k, device=device)[None, :] <= rows


class FixedLengthRope(PositionalEncoding):
    """A RoPE whose length-dependent scaling is evaluated at one fixed length ``seq_len`` for every call.

    ``rotate`` is ``inner.rotate(..., seq_len=seq_len)``, so a dynamic-NTK model decodes with the frequencies of its
    target length throughout (see the module docstring for why).
    """

    info = EncodingInfo(family="rotary", paper="Su et al. 2021, RoFormer (arXiv:2104.09864)", hooks=("rotate",))

    def __init__(self, inner: PositionalEncoding, seq_len: int):
        super().__init__()
        if not isinstance(inner, RoPE):
            raise PosencError(f"FixedLengthRope wraps a RoPE encoding, got {type(inner).__name__}; build one with "
                              f"posenc.build('rope', ...) or scaled_rope(config, scaling, factor)")
        if not whole_number(seq_len):
            raise PosencError(f"seq_len must be a positive integer, got {seq_len!r}")
        self.inner, self.seq_len = inner, seq_len
        self.name = f"{inner.name}@{seq_len}"

    def frequencies(self, seq_len: int | None = None) -> tuple[torch.Tensor, float]:
        return self.inner.frequencies(self.seq_len)

    def rotate(self, q: torch.Tensor, k: torch.Tensor, q_positions: torch.Tensor, k_positions: torch.Tensor,
               inplace: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """Rotate ``q [B, H, Tq, Dh]`` and ``k [B, Hk, Tk, Dh]`` with the frequencies at ``seq_len``: the inner
        RoPE's own ``rotate`` (its checks, tables and the one rotation), evaluated at that length."""
        return self.inner.rotate(q, k, q_positions, k_positions, inplace=inplace, seq_len=self.seq_len)


class PosencAttention(nn.Module):
    """A Llama-layout attention whose positions come from a posenc encoding's ``rotate`` hook.

    Args:
        original: the model's attention module; its projections (and q/k norms, if any) are reused, not copied.
        encoding: a posenc encoding with a ``rotate`` hook (RoPE with any scaling).
        query_chunk: process queries in chunks of this many tokens (``None``: all at once; the fused SDPA kernels
            already keep memory linear in length, chunking only bounds it further).
    """

    def __init__(self, original: nn.Module, encoding: PositionalEncoding, query_chunk: int | None = None):
        super().__init__()
        for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
            if not hasattr(original, name):
                raise PosencError(f"attention module {type(original).__name__} has no {name}; it is not the Llama "
                                  f"layout posenc patches")
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (original.q_proj, original.k_proj, original.v_proj,
                                                              original.o_proj)
        self.q_norm = getattr(original, "q_norm", None)
        self.k_norm = getattr(original, "k_norm", None)
        self.head_dim = int(original.head_dim)
        self.scaling = float(getattr(original, "scaling", self.head_dim ** -0.5))
        self.layer_idx = original.layer_idx
        self.num_key_value_groups = int(original.num_key_value_groups)
        self.config = original.config
        self.encoding = encoding
        self.query_chunk = query_chunk

    def forward(self, hidden_states: torch.Tensor, position_embeddings: Any = None,
                attention_mask: torch.Tensor | None = None, past_key_values: Any = None,
                position_ids: torch.Tensor | None = None, **kwargs: Any) -> tuple[torch.Tensor, None]:
        b, t, _ = hidden_states.shape
        shape = (b, t, -1, self.head_dim)
        q = self.q_proj(hidden_states).view(shape)  # [B, T, H, Dh]
        k = self.k_proj(hidden_states).view(shape)  # [B, T, Hk, Dh]
        if self.q_norm is not None:
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = q.transpose(1, 2), k.transpose(1, 2)  # [B, H, T, Dh], [B, Hk, T, Dh]
        v = self.v_proj(hidden_states).view(shape).transpose(1, 2)  # [B, Hk, T, Dh]
        cached = past_key_values.get_seq_length(self.layer_idx) if past_key_values is not None else 0
        if position_ids is None:
            position_ids = torch.arange(cached, cached + t, device=hidden_states.device)
        q, k = self.encoding.rotate(q, k, position_ids, position_ids)
        if past_key_values is not None:
            k, v = past_key_values.update(k, v, self.layer_idx)  # [B, Hk, Tk, Dh]
        out = self._attend(q, k, v, attention_mask)  # [B, H, T, Dh]
        out = out.transpose(1, 2).reshape(b, t, -1)  # [B, T, H * Dh]
        return self.o_proj(out), None

    def _attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                mask: torch.Tensor | None) -> torch.Tensor:
        """Causal attention of ``q [B, H, Tq, Dh]`` (the last ``Tq`` of ``Tk`` tokens) over ``k, v [B, Hk, Tk, Dh]``:
        ``[B, H, Tq, Dh]``. Query head ``h`` reads key/value head ``h // G`` (``G = H / Hk``, grouped-query)."""
        g = self.num_key_value_groups
        b, h, t_q, d = q.shape
        t_k = k.shape[2]
        if mask is None and t_q == t_k and not self.query_chunk:  # a whole sequence: the fused causal kernel
            return F.scaled_dot_product_attention(q, _expand_kv(k, g), _expand_kv(v, g), is_causal=t_q > 1,
                                                  scale=self.scaling)
        if mask is not None:  # the model's own mask, in chunks of queries
            k, v = _expand_kv(k, g), _expand_kv(v, g)  # [B, H, Tk, Dh]
            chunk = self.query_chunk or t_q
            outs = []
            for start in range(0, t_q, chunk):
                block_mask = mask[..., start:start + chunk, :]
                if block_mask.dtype != torch.bool:
                    block_mask = block_mask.to(q.dtype)
                outs.append(F.scaled_dot_product_attention(q[:, :, start:start + chunk], k, v, attn_mask=block_mask,
                                                           scale=self.scaling))
            return torch.cat(outs, dim=2)  # [B, H, Tq, Dh]
        # queries after cached keys (decoding; a passkey prompt after its shared prefix), or chunked on request.
        # The G query heads of a group are folded into the query axis ([B, Hk, G * c, Dh], row = group * c + i), so
        # the keys and values are read in place instead of copied G times; each chunk of queries attends only to the
        # keys it can see, so the work is the causal triangle, not the rectangle (a masked kernel computes every pair
        # it is given)
        chunk = self.query_chunk or _CACHED_QUERY_CHUNK
        outs = []
        for start in range(0, t_q, chunk):
            stop = min(start + chunk, t_q)
            c, visible = stop - start, t_k - t_q + stop  # chunk queries see keys 0 .. visible - 1
            folded = q[:, :, start:stop].reshape(b, h // g, g * c, d)  # [B, Hk, G * c, Dh]
            block_mask = None if c == 1 else _bottom_right_causal(c, visible, q.device).repeat(g, 1)  # [G * c, vis]
            out = F.scaled_dot_product_attention(folded, k[:, :, :visible], v[:, :, :visible], attn_mask=block_mask,
                                                 scale=self.scaling)  # [B, Hk, G * c, Dh]
            outs.append(out.reshape(b, h, c, d))  # [B, H, c, Dh]
        return torch.cat(outs, dim=2)  # [B, H, Tq, Dh]


def _expand_kv(x: torch.Tensor, groups: int) -> torch.Tensor:
    """``[B, Hk, T, Dh] -> [B, Hk * groups, T, Dh]``: each key/value head repeated for its group of query heads."""
    return x if groups == 1 else x.repeat_interleave(groups, dim=1)


def _decoder_layers(model: nn.Module) -> nn.ModuleList:
    base = getattr(model, "model", model)
    layers = getattr(base, "layers", None)
    if layers is None:
        raise PosencError(f"{type(model).__name__} has no .model.layers; posenc patches Llama-family models "
                          f"({', '.join(SUPPORTED_MODEL_TYPES)})")
    return layers


def patch_model(model: nn.Module, encoding: PositionalEncoding, query_chunk: int | None = None) -> nn.Module:
    """Make every attention of ``model`` rotate with ``encoding`` (in place; returns the model).

    Patching a model twice only swaps the encoding (see :func:`set_encoding`).

    Example::

        >>> from transformers import LlamaConfig, LlamaForCausalLM
        >>> model = LlamaForCausalLM(LlamaConfig(hidden_size=64, num_attention_heads=4, num_hidden_layers=1,
        ...                                       intermediate_size=64, vocab_size=100))
        >>> rope = scaled_rope(model.config, "yarn", factor=2.0)
        >>> _ = patch_model(model, rope)
    """
    check_rope_model(model.config)
    if not hasattr(encoding, "rotate"):
        raise PosencError(f"encoding {encoding!r} has no rotate hook; build a RoPE encoding (posenc.build('rope'))")
    device = next(model.parameters()).device
    encoding = encoding.to(device)
    layers = _decoder_layers(model)
    for layer in layers:
        if isinstance(layer.self_attn, PosencAttention):
            layer.self_attn.encoding = encoding
            layer.self_attn.query_chunk = query_chunk
        else:
            layer.self_attn = PosencAttention(layer.self_attn, encoding, query_chunk)
    base = getattr(model, "model", model)
    if hasattr(base, "rotary_emb"):
        base.rotary_emb = _NoLibraryRotary()
    return model


def set_encoding(model: nn.Module, encoding: PositionalEncoding) -> nn.Module:
    """Swap the encoding of an already patched model (no reload: weights stay where they are)."""
    layers = _decoder_layers(model)
    if not all(isinstance(layer.self_attn, PosencAttention) for layer in layers):
        raise PosencError("the model is not patched yet; call patch_model(model, encoding) first")
    device = next(model.parameters()).device
    encoding = encoding.to(device)
    for layer in layers:
        layer.self_attn.encoding = encoding
    return model
