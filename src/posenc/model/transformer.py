"""A small pre-norm Transformer (encoder or causal decoder) that takes any encoding through its three hooks.

Attention never asks what kind of encoding it has: it calls ``rotate`` on q/k, adds ``bias`` to the logits
(built once per forward into the mask every layer shares) and ``contextual_bias`` (per layer, from that layer's q and
k), and multiplies the softmax scale by ``logit_scale()``; for NoPE all are identities. Attention runs through PyTorch's ``scaled_dot_product_attention``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from posenc.checks import whole_number, wrong_flags
from posenc.encodings.base import PositionalEncoding, check_positions, default_positions
from posenc.errors import PosencError
from posenc.model.input import TransformerInput
from posenc.registry import build_for_model

__all__ = ["TransformerConfig", "Transformer", "Attention", "Block", "attention_mask"]


@dataclass
class TransformerConfig:
    """Sizes and choices of :class:`Transformer`, validated at construction.

    ``encoding`` is a registry name; ``encoding_options`` go to it (model sizes are filled in for it).
    """

    vocab_size: int = 256
    d_model: int = 128
    n_layers: int = 2
    n_heads: int = 4
    n_kv_heads: int | None = None
    d_ff: int | None = None
    dropout: float = 0.0
    causal: bool = True
    encoding: str = "rope"
    encoding_options: dict[str, Any] = field(default_factory=dict)
    scale_embedding: bool = False
    max_len: int = 512

    def __post_init__(self) -> None:
        for name, value in wrong_flags(self):
            raise PosencError(f"TransformerConfig.{name} is a flag: True or False, got {value!r} (a string such as 'no' "
                              f"would count as true)")
        for name in ("vocab_size", "d_model", "n_layers", "n_heads", "max_len"):
            value = getattr(self, name)
            if not whole_number(value):
                raise PosencError(f"TransformerConfig.{name} must be a positive integer, got {value!r}")
        if self.d_model % self.n_heads:
            raise PosencError(f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads}); "
                              f"pick e.g. n_heads={max(h for h in range(1, self.n_heads + 1) if self.d_model % h == 0)}")
        if self.n_kv_heads is not None and not whole_number(self.n_kv_heads):
            raise PosencError(f"TransformerConfig.n_kv_heads must be a positive integer or None (None: one per query "
                              f"head), got {self.n_kv_heads!r}")
        kv = self.n_kv_heads or self.n_heads
        if self.n_heads % kv:
            raise PosencError(f"n_heads ({self.n_heads}) must be a multiple of n_kv_heads ({kv})")
        if isinstance(self.dropout, bool) or not isinstance(self.dropout, int | float) or not 0 <= self.dropout < 1:
            raise PosencError(f"dropout must be a number in [0, 1), got {self.dropout!r}")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Attention(nn.Module):
    """Multi-head (grouped-query) attention with the three encoding hooks."""

    def __init__(self, width: int, n_heads: int, n_kv_heads: int, dropout: float = 0.0):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = n_heads, n_kv_heads, width // n_heads
        self.q_proj = nn.Linear(width, n_heads * self.head_dim, bias=False)
        self.kv_proj = nn.Linear(width, 2 * n_kv_heads * self.head_dim, bias=False)
        self.out_proj = nn.Linear(n_heads * self.head_dim, width, bias=False)
        self.dropout = dropout

    def forward(self, x: torch.Tensor, positions: torch.Tensor, encoding: PositionalEncoding,
                mask: torch.Tensor | None, causal: bool) -> torch.Tensor:
        """``x (B, T, width)``; ``mask`` is the additive logit mask of :func:`attention_mask` (``None``: plain
        causal or full attention, SDPA's fast path)."""
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)  # (B, H, T, Dh)
        k, v = self.kv_proj(x).view(B, T, 2, self.n_kv_heads, self.head_dim).permute(2, 0, 3, 1, 4)  # (B, Hk, T, Dh)
        q, k = encoding.rotate(q, k, positions, positions)
        extra = encoding.contextual_bias(q, k, positions, positions)  # None or (B, H, T, T)
        if extra is not None:
            if mask is None and causal:
                mask = torch.zeros(T, T, dtype=x.dtype, device=x.device).masked_fill(
                    torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1), float("-inf"))
            mask = extra.to(x.dtype) if mask is None else mask + extra.to(x.dtype)  # (B, H, T, T)
        y = F.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, dropout_p=self.dropout if self.training else 0.0,
            is_causal=causal and mask is None, enable_gqa=self.n_kv_heads != self.n_heads,
            scale=encoding.logit_scale() / self.head_dim ** 0.5)  # (B, H, T, Dh)
        # the width is spelled out, not -1: an empty batch or sequence (B or T = 0) leaves -1 undetermined
        return self.out_proj(y.transpose(1, 2).reshape(B, T, self.n_heads * self.head_dim))  # (B, T, width)


def attention_mask(encoding: PositionalEncoding, positions: torch.Tensor, causal: bool,
                   key_padding_mask: torch.Tensor | None, dtype: torch.dtype,
                   device: torch.device) -> torch.Tensor | None:
    """The additive logit mask shared by every layer: the encoding's ``bias`` (``(H|1, T, T)`` or
    ``(B, H, T, T)``), ``-inf`` above the diagonal when causal, ``-inf`` on padded keys; ``None`` when there is
    neither bias nor padding (attention then takes SDPA's fast causal / full path)."""
    bias = encoding.bias(positions, positions)  # None, (H, T, T) or (B, H, T, T)
    if bias is None and key_padding_mask is None:
        return None
    T = positions.shape[-1]
    mask = torch.zeros(1, 1, T, T, dtype=dtype, device=device) if bias is None else bias.to(device, dtype)
    if causal:
        future = torch.ones(T, T, dtype=torch.bool, device=device).triu(1)
        mask = mask.masked_fill(future, float("-inf"))
    if key_padding_mask is not None:  # (B, T) True where the key is padding
        mask = mask.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
    return mask


class Block(nn.Module):
    """Pre-norm block: ``x + attn(ln(x))``, then ``x + mlp(ln(x))`` (the MLP is position-wise, seed 001 §5.1)."""

    def __init__(self, width: int, n_heads: int, n_kv_heads: int, d_ff: int, dropout: float):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.attn = Attention(width, n_heads, n_kv_heads, dropout)
        self.mlp = nn.Sequential(nn.Linear(width, d_ff), nn.GELU(), nn.Linear(d_ff, width), nn.Dropout(dropout))

    def forward(self, x, positions, encoding, mask, causal):
        x = x + self.attn(self.ln1(x), positions, encoding, mask, causal)
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
        options = dict(c.encoding_options)
        sizes.update({key: options.pop(key) for key in list(options) if key in sizes})  # explicit options win
        encoding = build_for_model(c.encoding, **sizes, **options)
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
        return self.input.encoding

    def forward(self, ids: torch.Tensor, positions: torch.Tensor | None = None,
                key_padding_mask: torch.Tensor | None = None, return_hidden: bool = False) -> torch.Tensor:
        if not isinstance(ids, torch.Tensor) or ids.dim() != 2:
            got = list(ids.shape) if isinstance(ids, torch.Tensor) else type(ids).__name__
            raise PosencError(f"ids must be a tensor of token ids of shape [batch, seq], got {got}; a single sequence "
                              f"is ids[None]")
        if positions is None:
            positions = default_positions(ids.shape[1], ids.device)  # one tensor for every hook of this forward
        positions = check_positions(positions, ids.shape[1], batch=ids.shape[0])
        x = self.input(ids, positions)  # (B, T, width)
        mask = attention_mask(self.encoding, positions, self.config.causal, key_padding_mask, x.dtype, x.device)
        for block in self.blocks:  # one mask for every layer: the bias depends on positions only
            x = block(x, positions, self.encoding, mask, self.config.causal)
        x = self.ln_f(x)
        return x if return_hidden else self.head(x)  # (B, T, vocab)
