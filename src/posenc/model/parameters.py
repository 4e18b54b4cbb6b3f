"""Parameters of posenc's Transformer per part, with the position code added or concatenated (tutorial 003 §14.3.2:
concatenating a ``d``-wide code makes the model ``2d`` wide, and every later layer pays for the width).

:func:`parameter_counts` counts them on a real model (not by formula), so the counts follow the model's code.
"""

from __future__ import annotations

import torch

from posenc.model.transformer import Transformer, TransformerConfig

__all__ = ["parameter_counts"]


def parameter_counts(d_model: int, concat: bool, d_ff: int | None = None, n_layers: int = 6, n_heads: int = 8,
                     vocab: int = 37000) -> dict[str, int]:
    """Parameters of posenc's Transformer with the sinusoid added (``concat=False``) or concatenated at width
    ``d_model`` (the model then works at ``2 d_model``), per part.

    Counted on a real one-layer model with a 16-token vocabulary (so nothing large is allocated): its block times
    ``n_layers`` (the blocks are identical), its final LayerNorm, and the vocabulary projection as ``vocab`` rows of
    the head's width. Parts: ``attention`` (q, k, v, out projections), ``ffn`` (two linear layers with biases),
    ``layernorm`` (the blocks' two and the final one), ``blocks`` (every block), ``head`` (the vocabulary
    projection). The defaults: the original Transformer's base model, 6 layers and 8 heads (Vaswani et al. 2017,
    Table 3), and its shared vocabulary of about 37000 tokens (§5.1).
    """
    options = {"dim": d_model, "combine": "concat"} if concat else {}
    torch.manual_seed(0)
    model = Transformer(TransformerConfig(vocab_size=16, d_model=d_model, n_layers=1, n_heads=n_heads, d_ff=d_ff,
                                          encoding="sinusoidal", encoding_options=options, max_len=16))
    block = model.blocks[0]

    def size(*modules) -> int:
        return sum(p.numel() for m in modules for p in m.parameters())

    return {"width": model.width, "attention": n_layers * size(block.attn), "ffn": n_layers * size(block.mlp),
            "layernorm": n_layers * size(block.ln1, block.ln2) + size(model.ln_f),
            "blocks": n_layers * size(block), "head": vocab * model.head.weight.shape[1]}
