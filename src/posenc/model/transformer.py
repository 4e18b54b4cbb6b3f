"""A small pre-norm Transformer (encoder or causal decoder) that takes any encoding through its hooks, one
encoding per layer when a :class:`~posenc.encodings.schedule.LayerSchedule` says so.

Attention never asks what kind of encoding it has: it calls ``rotate`` on q/k, multiplies each query's logits by
``query_scale`` (a number for every query, or a temperature by position), adds ``bias`` to the logits (built once per
forward into the mask every layer with that encoding and span shares) and ``contextual_bias`` (per layer, from that
layer's q, k and input); for NoPE all are identities. A layer's window or chunk (its
:class:`~posenc.encodings.schedule.Layer`) masks the keys it does not see. :func:`attend` is that attention on given
q, k and v, with queries at other positions than keys (a KV cache); it runs through PyTorch's
``scaled_dot_product_attention``, or, where :func:`posenc.model.flex.choose` says so, through FlexAttention with the
encoding's ``score_mod`` in place of the materialised bias (:mod:`posenc.model.flex`).

The model's forward is the entry point: it checks the positions and the memory of its biases once, then runs its
layers inside :func:`~posenc.encodings.base.checked_entry`, where the hooks trust those checks and nothing is read
back from the device per layer.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from posenc.checks import whole_number, wrong_flags
from posenc.encodings.base import (
    BIAS_BYTES_PER_ENTRY,
    BIAS_BYTES_PER_PAIR,
    PositionalEncoding,
    check_allocation,
    check_positions,
    checked_entry,
    default_positions,
    future_mask,
)
from posenc.encodings.schedule import Layer, LayerSchedule
from posenc.errors import PosencError
from posenc.model.flex import FlexMask, choose, flex_attend, flex_mask
from posenc.model.input import TransformerInput
from posenc.registry import build

__all__ = ["ModelConfig", "TransformerConfig", "Transformer", "Attention", "Block", "attention_mask", "attend"]


@dataclass(kw_only=True)
class ModelConfig:
    """What a :class:`Transformer` is apart from what its use decides: its encoding and sizes, validated at
    construction. A lab run nests one (:attr:`posenc.lab.RunConfig.model`) and takes the rest from its task;
    :class:`TransformerConfig` adds the rest.

    Attributes:
        encoding: a registry name (see ``posenc list``), e.g. ``"sinusoidal"``.
        encoding_options: the encoding's options (model sizes are filled in), e.g. ``{"combine": "concat", "dim":
            16}``; on the command line ``-o combine=concat -o dim=16``.
        d_model: model width.
        n_layers: Transformer layers.
        n_heads: attention heads.
        n_kv_heads: key/value heads (grouped-query attention; default one per query head).
        d_ff: feed-forward width (default ``4 * width``).
        dropout: dropout probability.
        scale_embedding: multiply the token embedding by ``sqrt(d_model)`` before the encoding joins it.
    """

    encoding: str = "rope"
    encoding_options: dict[str, Any] = field(default_factory=dict)
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    n_kv_heads: int | None = None
    d_ff: int | None = None
    dropout: float = 0.0
    scale_embedding: bool = False

    def __post_init__(self) -> None:
        kind = type(self).__name__
        for name, value in wrong_flags(self):
            raise PosencError(f"{kind}.{name} is a flag: True or False, got {value!r} (a string such as 'no' would "
                              f"count as true)")
        if not isinstance(self.encoding, str):
            raise PosencError(f"{kind}.encoding must be a registry name (a string, see posenc list), got "
                              f"{self.encoding!r}")
        if not isinstance(self.encoding_options, dict):
            raise PosencError(f"{kind}.encoding_options must be a dict, got {self.encoding_options!r}")
        for name in ("d_model", "n_layers", "n_heads"):
            value = getattr(self, name)
            if not whole_number(value):
                raise PosencError(f"{kind}.{name} must be a positive integer, got {value!r}")
        if self.d_model % self.n_heads:
            raise PosencError(f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads}); "
                              f"pick e.g. n_heads={max(h for h in range(1, self.n_heads + 1) if self.d_model % h == 0)}")
        for name, meaning in (("n_kv_heads", "None: one per query head"), ("d_ff", "None: 4 * d_model")):
            value = getattr(self, name)
            if value is not None and not whole_number(value):
                raise PosencError(f"{kind}.{name} must be a positive integer or None ({meaning}), got {value!r}")
        kv = self.n_kv_heads or self.n_heads
        if self.n_heads % kv:
            fits = max(k for k in range(1, kv + 1) if self.n_heads % k == 0)
            raise PosencError(f"n_heads ({self.n_heads}) must be a multiple of n_kv_heads ({kv}); pick e.g. "
                              f"n_kv_heads={fits}")
        if isinstance(self.dropout, bool) or not isinstance(self.dropout, int | float) or not 0 <= self.dropout < 1:
            raise PosencError(f"dropout must be a number in [0, 1), got {self.dropout!r}")


@dataclass(kw_only=True)
class TransformerConfig(ModelConfig):
    """Sizes and choices of :class:`Transformer`, validated at construction: a :class:`ModelConfig` and what its use
    decides, the vocabulary, the direction (``causal``) and the position range (``max_len``).

    ``encoding`` is a registry name; ``encoding_options`` go to it (model sizes are filled in for it). ``schedule``
    (a :class:`~posenc.encodings.schedule.LayerSchedule` or its ``as_dict()`` rows, one per layer) gives every layer
    its own encoding and span instead; ``encoding`` and ``encoding_options`` are then not used.
    """

    vocab_size: int = 256
    causal: bool = True
    max_len: int = 512
    schedule: LayerSchedule | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("vocab_size", "max_len"):
            value = getattr(self, name)
            if not whole_number(value):
                raise PosencError(f"TransformerConfig.{name} must be a positive integer, got {value!r}")
        if self.schedule is not None:
            self.schedule = LayerSchedule.from_dict(self.schedule)
            if len(self.schedule) != self.n_layers:
                raise PosencError(f"the layer schedule has {len(self.schedule)} layers but n_layers is "
                                  f"{self.n_layers}; give one layer per layer (LayerSchedule.cycle(n_layers, ...))")

    @classmethod
    def of(cls, model: ModelConfig, **rest: Any) -> TransformerConfig:
        """The config of ``model`` (its encoding options copied) with what its use decides (``vocab_size``,
        ``causal``, ``max_len``, ``schedule``)."""
        settings = {f.name: getattr(model, f.name) for f in fields(ModelConfig)}
        return cls(**{**settings, "encoding_options": dict(model.encoding_options)}, **rest)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if self.schedule is None:
            del data["schedule"]
        else:
            data["schedule"] = self.schedule.as_dict()
        return data


class Attention(nn.Module):
    """Multi-head (grouped-query) attention through the encoding's hooks (:func:`attend`)."""

    def __init__(self, width: int, n_heads: int, n_kv_heads: int, dropout: float = 0.0):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = n_heads, n_kv_heads, width // n_heads
        self.q_proj = nn.Linear(width, n_heads * self.head_dim, bias=False)
        self.kv_proj = nn.Linear(width, 2 * n_kv_heads * self.head_dim, bias=False)
        self.out_proj = nn.Linear(n_heads * self.head_dim, width, bias=False)
        self.dropout = dropout

    def forward(self, x: torch.Tensor, positions: torch.Tensor, encoding: PositionalEncoding,
                mask: torch.Tensor | FlexMask | None, causal: bool, qk_norm: float | None = None) -> torch.Tensor:
        """``x (B, T, width)``; ``mask`` is the additive logit mask of :func:`attention_mask` (``None``: plain
        causal or full attention, SDPA's fast path) or a :class:`~posenc.model.flex.FlexMask`; ``qk_norm``: the
        layer's query/key norm (:func:`attend`)."""
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)  # (B, H, T, Dh)
        k, v = self.kv_proj(x).view(B, T, 2, self.n_kv_heads, self.head_dim).permute(2, 0, 3, 1, 4)  # (B, Hk, T, Dh)
        y = attend(q, k, v, encoding, positions, positions, mask, causal, x=x,
                   dropout_p=self.dropout if self.training else 0.0, qk_norm=qk_norm)  # (B, H, T, Dh)
        # the width is spelled out, not -1: an empty batch or sequence (B or T = 0) leaves -1 undetermined
        return self.out_proj(y.transpose(1, 2).reshape(B, T, self.n_heads * self.head_dim))  # (B, T, width)


def attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, encoding: PositionalEncoding,
           q_positions: torch.Tensor, k_positions: torch.Tensor, mask: torch.Tensor | FlexMask | None, causal: bool, *,
           x: torch.Tensor | None = None, dropout_p: float = 0.0, scale: float | None = None,
           qk_norm: float | None = None) -> torch.Tensor:
    """Softmax attention of ``q (B, H, Tq, Dh)``, the last ``Tq`` of ``Tk`` tokens, over ``k, v (B, Hk, Tk, Dh)``
    through one encoding's hooks; returns ``(B, H, Tq, Dh)``.

    ``rotate`` turns q and k at their positions, ``qk_norm`` (an epsilon, or ``None``) divides each by its root mean
    square per head, ``query_scale`` multiplies each query's logits (a number: the softmax scale, ``scale`` or
    ``1/sqrt(Dh)``, times it; a tensor: each query times its factor), ``contextual_bias`` (from the turned q and k and
    the layer input ``x (B, Tk, width)``, when given) joins ``mask`` (:func:`attention_mask`: the encoding's ``bias``,
    the causal mask, the layer's span, padding). A :class:`~posenc.model.flex.FlexMask` in place of ``mask``
    (:func:`~posenc.model.flex.flex_mask`, for an encoding with no per-layer bias and no dropout) runs FlexAttention
    with the encoding's ``score_mod`` instead: the same values without the ``[H, Tq, Tk]`` bias.
    """
    head_dim, t_q, t_k = q.shape[-1], q.shape[2], k.shape[2]
    q, k = encoding.rotate(q, k, q_positions, k_positions)
    if qk_norm is not None:  # Llama 4's L2 norm: x / sqrt(mean(x^2) + eps), in float32, no weight
        q, k = ((t.float() * torch.rsqrt(t.float().pow(2).mean(-1, keepdim=True) + qk_norm)).to(t.dtype)
                for t in (q, k))
    factor = encoding.query_scale(q_positions)  # a number, (Tq,) or (B, Tq)
    if isinstance(factor, torch.Tensor):
        factor = factor.to(device=q.device, dtype=q.dtype)
        q, factor = q * (factor[:, None, :, None] if factor.dim() == 2 else factor[:, None]), 1.0
    softmax_scale = factor / head_dim ** 0.5 if scale is None else scale * factor
    if isinstance(mask, FlexMask):
        if dropout_p:
            raise PosencError(f"FlexAttention has no attention dropout, got dropout_p={dropout_p}; build the mask with "
                              f"attention_mask (the materialised path) to train with dropout")
        return flex_attend(q, k, v, mask, softmax_scale)
    extra = encoding.contextual_bias(q, k, q_positions, k_positions, x=x)  # None or (B, H, Tq, Tk)
    if mask is None and causal and (extra is not None or t_q != t_k):  # SDPA's is_causal aligns the queries at the top
        mask = torch.zeros(t_q, t_k, dtype=q.dtype, device=q.device).masked_fill(future_mask(t_q, t_k, q.device),
                                                                                float("-inf"))
    if extra is not None:
        mask = extra.to(q.dtype) if mask is None else mask + extra.to(q.dtype)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p,
                                          is_causal=causal and mask is None, enable_gqa=k.shape[1] != q.shape[1],
                                          scale=softmax_scale)


def attention_mask(encoding: PositionalEncoding, positions: torch.Tensor, causal: bool,
                   key_padding_mask: torch.Tensor | None, dtype: torch.dtype,
                   device: torch.device, layer: Layer | None = None,
                   k_positions: torch.Tensor | None = None) -> torch.Tensor | None:
    """The additive logit mask shared by the layers with this encoding and span: the encoding's ``bias`` (``(H|1, Tq,
    Tk)`` or ``(B, H, Tq, Tk)``), ``-inf`` above the diagonal when causal, ``-inf`` on keys outside the ``layer``'s
    window or chunk, ``-inf`` on padded keys; ``None`` when there is none of these (attention then takes SDPA's fast
    causal / full path). ``positions`` are the queries'; ``k_positions`` the keys' (default: the same), the queries
    being the last of them (a KV cache)."""
    k_positions = positions if k_positions is None else k_positions
    bias = encoding.bias(positions, k_positions)  # None, (H, Tq, Tk) or (B, H, Tq, Tk)
    seen = None if layer is None else layer.visible(positions.to(device), k_positions.to(device))  # (B?, Tq, Tk)
    if bias is None and key_padding_mask is None and seen is None:
        return None
    t_q, t_k = positions.shape[-1], k_positions.shape[-1]
    mask = torch.zeros(1, 1, t_q, t_k, dtype=dtype, device=device) if bias is None else bias.to(device, dtype)
    if causal:
        mask = mask.masked_fill(future_mask(t_q, t_k, device), float("-inf"))
    if seen is not None:
        mask = mask.masked_fill(~(seen[:, None] if seen.dim() == 3 else seen), float("-inf"))
    if key_padding_mask is not None:  # (B, Tk) True where the key is padding
        mask = mask.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
    return mask


class Block(nn.Module):
    """Pre-norm block: ``x + attn(ln(x))``, then ``x + mlp(ln(x))`` (the MLP is position-wise, tutorial 001 §5.1)."""

    def __init__(self, width: int, n_heads: int, n_kv_heads: int, d_ff: int, dropout: float):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.attn = Attention(width, n_heads, n_kv_heads, dropout)
        self.mlp = nn.Sequential(nn.Linear(width, d_ff), nn.GELU(), nn.Linear(d_ff, width), nn.Dropout(dropout))

    def forward(self, x, positions, encoding, mask, causal, qk_norm=None):
        x = x + self.attn(self.ln1(x), positions, encoding, mask, causal, qk_norm)
        return x + self.mlp(self.ln2(x))


class Transformer(nn.Module):
    """Token ids ``[B, T]`` -> logits ``[B, T, vocab_size]`` (or hidden states with ``return_hidden=True``).

    Example::

        >>> import torch
        >>> from posenc.model import Transformer, TransformerConfig
        >>> model = Transformer(TransformerConfig(vocab_size=10, d_model=32, n_heads=4, encoding="alibi"))
        >>> model(torch.randint(0, 10, (2, 7))).shape
        torch.Size([2, 7, 10])
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = config
        c = config
        sizes = {"d_model": c.d_model, "n_heads": c.n_heads, "head_dim": c.d_model // c.n_heads, "max_len": c.max_len}
        if c.schedule is None:
            options = dict(c.encoding_options)
            sizes.update({key: options.pop(key) for key in list(options) if key in sizes})  # explicit options win
            schedule = LayerSchedule.uniform(c.n_layers, c.encoding, options)
        else:
            schedule = c.schedule
        self.schedule = schedule
        encodings = schedule.build(**sizes)  # one per layer; equal layers share a module
        distinct = list({id(e): e for e in encodings}.values())
        if len(distinct) == 1:  # one encoding: it is the input's, and every layer reads it there
            encoding, self._slots = distinct[0], None
        else:
            absolute = sorted({e.name for e in distinct if e.info.acts_on_input})
            if absolute:
                raise PosencError(f"the layer schedule puts {', '.join(absolute)} (an encoding added to the token "
                                  f"embeddings, once, before the first layer) on some layers only; an absolute "
                                  f"encoding acts on the input, so give it to every layer or to none")
            encoding = build("nope")
            self.layer_encodings = nn.ModuleList(distinct)
            slot = {id(e): n for n, e in enumerate(distinct)}
            self._slots = [slot[id(e)] for e in encodings]
        self.input = TransformerInput(c.vocab_size, c.d_model, encoding, scale=c.scale_embedding, dropout=c.dropout)
        width = self.input.output_dim
        if width % c.n_heads:
            raise PosencError(f"the encoded width {width} (d_model {c.d_model} + position part) must be divisible by "
                              f"n_heads ({c.n_heads}); pick a position width that keeps it divisible")
        if width != c.d_model and encoding.info.hooks and "rotate" in encoding.info.hooks:
            raise PosencError("a rotary encoding cannot also change the model width")
        self.width = width
        d_ff = c.d_ff or 4 * width
        self.blocks = nn.ModuleList(Block(width, c.n_heads, c.n_kv_heads or c.n_heads, d_ff, c.dropout)
                                    for _ in range(c.n_layers))
        self.ln_f = nn.LayerNorm(width)
        self.head = nn.Linear(width, c.vocab_size, bias=False)

    @property
    def encoding(self) -> PositionalEncoding:
        """The encoding of the input layer (with one encoding for every layer: that encoding)."""
        return self.input.encoding

    @property
    def encodings(self) -> list[PositionalEncoding]:
        """The encoding of each layer, in order."""
        if self._slots is None:
            return [self.encoding] * len(self.blocks)
        return [self.layer_encodings[n] for n in self._slots]

    def forward(self, ids: torch.Tensor, positions: torch.Tensor | None = None,
                key_padding_mask: torch.Tensor | None = None, return_hidden: bool = False,
                bias_path: str = "auto") -> torch.Tensor:
        """``bias_path``: how a bias encoding reaches the logits (:func:`posenc.model.flex.choose`):
        ``"materialised"`` adds its ``[H, T, T]`` bias, ``"flex"`` runs FlexAttention with its ``score_mod``,
        ``"auto"`` (the default) takes FlexAttention only where it was measured faster (docs/kernels.md)."""
        if not isinstance(ids, torch.Tensor) or ids.dim() != 2:
            got = list(ids.shape) if isinstance(ids, torch.Tensor) else type(ids).__name__
            raise PosencError(f"ids must be a tensor of token ids of shape [batch, seq], got {got}; a single sequence "
                              f"is ids[None]")
        if positions is None:  # 0..T-1, valid by construction: no check (a check reads the tensor, every step)
            positions = default_positions(ids.shape[1], ids.device)  # one tensor for every hook of this forward
        else:
            positions = check_positions(positions, ids.shape[1], batch=ids.shape[0])
        self.check_memory(ids.shape[0], ids.shape[1], positions.shape[0] if positions.dim() == 2 else 1)
        with checked_entry():  # the hooks trust these checks: nothing read back per layer
            return self._forward(ids, positions, key_padding_mask, return_hidden, bias_path)

    def check_memory(self, batch: int, length: int, rows: int = 1) -> None:
        """Refuse, before anything is allocated, a forward of ``batch`` sequences of ``length`` tokens whose
        attention biases would not fit in memory (:func:`~posenc.encodings.base.check_allocation`): each distinct
        encoding's ``[rows, H, T, T]`` bias from positions, with its offsets, and one layer's ``[B, H, T, T]`` bias
        from content at a time. Run once per forward, here at the entry, not by each hook."""
        pairs, heads, total, parts = length * length, self.config.n_heads, 0, []
        for encoding in {id(e): e for e in self.encodings}.values():
            info = encoding.info
            if info.biases_logits:
                total += rows * pairs * (BIAS_BYTES_PER_PAIR + BIAS_BYTES_PER_ENTRY * heads)
                parts.append(f"{encoding.name} bias")
            if info.biases_from_content:
                total += batch * pairs * BIAS_BYTES_PER_ENTRY * heads
                parts.append(f"{encoding.name} per-layer bias")
        if total:
            check_allocation(total, f"a forward of {batch} x {length} tokens with {heads} head(s) "
                             f"({', '.join(parts)})", "use fewer tokens (the bias grows with their square) or a "
                             "smaller batch", detail=f"{BIAS_BYTES_PER_ENTRY} bytes per head and pair of float32 "
                             f"bias and a temporary, {BIAS_BYTES_PER_PAIR} per pair of offsets")

    def _forward(self, ids: torch.Tensor, positions: torch.Tensor, key_padding_mask: torch.Tensor | None,
                 return_hidden: bool, bias_path: str) -> torch.Tensor:
        x = self.input(ids, positions)  # (B, T, width)
        masks: dict[tuple[int, int | None, int | None], torch.Tensor | FlexMask | None] = {}
        for block, encoding, layer in zip(self.blocks, self.encodings, self.schedule, strict=True):
            key = (id(encoding), layer.window, layer.chunk)  # the bias depends on positions only: once per forward
            if key not in masks:
                dropout = self.config.dropout if self.training else 0.0
                flex = choose(bias_path, encoding, ids.shape[1], x.device, dropout) and flex_mask(
                    encoding, positions, self.config.causal, key_padding_mask, ids.shape[0], x.device, layer)
                masks[key] = flex or attention_mask(encoding, positions, self.config.causal, key_padding_mask,
                                                    x.dtype, x.device, layer)
            x = block(x, positions, encoding, masks[key], self.config.causal, layer.qk_norm)
        x = self.ln_f(x)
        return x if return_hidden else self.head(x)  # (B, T, vocab)
