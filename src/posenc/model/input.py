"""The Transformer's input layer (tutorial 003 §14.7): token embedding, optional sqrt(d_model) scale, positional encoding
combined by ``add`` or ``concat``, dropout.

Dimension tracking (tutorial 003 §14.7.2): ids ``[4, 16]`` -> token embedding ``[4, 16, 512]`` -> + PE ``[16, 512]``
broadcast over the batch -> ``[4, 16, 512]`` (add) or ``[4, 16, 512 + d_pos]`` (concat).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from posenc.checks import whole_number
from posenc.encodings.base import PositionalEncoding, default_positions
from posenc.errors import PosencError

__all__ = ["TransformerInput"]


class TransformerInput(nn.Module):
    """``dropout(encoding.embed(scale * E[ids], positions))``.

    Args:
        vocab_size: number of token ids.
        d_model: width of the token embedding.
        encoding: any posenc encoding (only its ``embed`` hook is used here; rotary and bias encodings pass through).
        scale: multiply token embeddings by ``sqrt(d_model)`` (Vaswani et al. 2017 §3.4).
        dropout: dropout probability after combining.
    """

    def __init__(self, vocab_size: int, d_model: int, encoding: PositionalEncoding, scale: bool = False,
                 dropout: float = 0.0):
        super().__init__()
        if not whole_number(vocab_size):
            raise PosencError(f"vocab_size must be a positive integer, got {vocab_size!r}")
        if not whole_number(d_model):
            raise PosencError(f"d_model must be a positive integer, got {d_model!r}")
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.encoding = encoding
        self.scale = math.sqrt(d_model) if scale else 1.0
        self.dropout = nn.Dropout(dropout)
        self.d_model = d_model

    @property
    def output_dim(self) -> int:
        """Width of the output: ``d_model`` (add) or ``d_model + d_pos`` (concat)."""
        return self.encoding.output_dim(self.d_model)

    def forward(self, ids: torch.Tensor, positions: torch.Tensor | None = None) -> torch.Tensor:
        """ids ``[B, T]`` -> ``[B, T, output_dim]``."""
        if not isinstance(ids, torch.Tensor) or ids.dim() != 2:
            got = list(ids.shape) if isinstance(ids, torch.Tensor) else type(ids).__name__
            raise PosencError(f"ids must be a tensor of token ids of shape [batch, seq], got {got}")
        if ids.is_floating_point() or ids.is_complex() or ids.dtype == torch.bool:
            raise PosencError(f"ids must hold integer token ids, got dtype {ids.dtype}; pass e.g. "
                              f"torch.randint(0, vocab_size, (B, T)) or cast with .long()")
        vocab = self.token_embedding.num_embeddings
        if ids.device.type == "cpu" and ids.numel():  # elsewhere a check would wait for the device every step
            low, high = int(ids.min()), int(ids.max())
            if low < 0 or high >= vocab:
                raise PosencError(f"token ids must be in 0..{vocab - 1} (vocab_size {vocab}), got ids from {low} to "
                                  f"{high}; build the model with a larger vocab_size or map the ids into range")
        if positions is None:
            positions = default_positions(ids.shape[1], ids.device)
        x = self.token_embedding(ids) * self.scale  # [B, T, d_model]
        x = self.encoding.embed(x, positions)  # [B, T, d_model] or [B, T, d_model + d_pos]
        return self.dropout(x)
