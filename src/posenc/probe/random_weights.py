"""A pretrained model's null: the same architecture with random weights of the trained weights' norms.

A statistic read off a trained model (the largest word-word share among 72 heads, how flat a cross term is, how much
a head's attention moves when words swap) means something only beside what the same statistic gives when training
has put no structure in the weights. Re-initialising from the model's own initialiser would change the scales too
(BERT's word rows are about twice as long as its position rows after training, a random head of unequal scales
already "prefers" words), so the null keeps every norm and draws every direction:

- each row of a weight matrix (a word row ``E[v]``, a position row ``P[t]``, an output row of ``W_q``, ``W_k``,
  ``W_v``, ...) becomes a random direction of the same length, ``w_r -> |w_r| g_r / |g_r|`` with ``g_r ~ N(0, I)``;
- each vector parameter (a bias, a LayerNorm's scale and shift) keeps its entries in a random order (the same values
  and norm, no alignment with anything).

Shapes are those of the model; the copy is independent of the original (``copy.deepcopy``), and ``seed`` makes it
reproducible. :func:`null_model` is the null of a language model's head counts: its transformer alone, so drawn.
"""

from __future__ import annotations

import copy
from typing import Any

import torch

from posenc.errors import PosencError
from posenc.probe.capture import transformer_body

__all__ = ["matched_norm_copy", "null_model"]


@torch.no_grad()
def matched_norm_copy(model: Any, seed: int, only: tuple[str, ...] = ()) -> Any:
    """A copy of ``model`` (a ``torch.nn.Module``) with random weights of its own norms (see the module docstring):
    every matrix row a random direction of the row's length, every vector's entries permuted. Tied parameters stay
    tied (each parameter object is drawn once).

    ``only``: name prefixes of the parameters to draw (``("embeddings.", "encoder.layer.0.")`` for a probe that
    reads the embeddings and the first layer alone and never runs the rest); the others are copied unchanged.
    Empty: every parameter.

    >>> layer = torch.nn.Linear(3, 2)
    >>> twin = matched_norm_copy(layer, seed=0)
    >>> torch.allclose(twin.weight.norm(dim=1), layer.weight.norm(dim=1))
    True
    """
    if not isinstance(model, torch.nn.Module):
        raise PosencError(f"matched_norm_copy needs a torch.nn.Module, got {type(model).__name__}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise PosencError(f"seed must be an int, got {seed!r}")
    twin = copy.deepcopy(model)
    generator = torch.Generator().manual_seed(seed)
    drawn = 0
    for name, param in sorted(twin.named_parameters(), key=lambda item: item[0]):  # a fixed order: reproducible draws
        if only and not name.startswith(only):
            continue
        drawn += 1
        data = param.data
        flat = data.detach().to("cpu", torch.float64)
        if flat.dim() >= 2:
            rows = flat.reshape(flat.shape[0], -1)  # [R, C]
            draw = torch.randn(rows.shape, generator=generator).double()  # float32 draws: the same law, 2x faster
            draw = draw / draw.norm(dim=1, keepdim=True) * rows.norm(dim=1, keepdim=True)
            new = draw.reshape(flat.shape)
        else:
            new = flat.reshape(-1)[torch.randperm(flat.numel(), generator=generator)].reshape(flat.shape)
        data.copy_(new.to(data.device, data.dtype))
    if only and not drawn:
        raise PosencError(f"no parameter of {type(model).__name__} starts with {only}; its parameters start with "
                          f"{sorted({n.split('.')[0] + '.' for n, _ in model.named_parameters()})}")
    return twin


def null_model(model: Any, seed: int = 0) -> Any:
    """The null of a decoder's head counts: its transformer (without the LM head,
    :func:`posenc.probe.capture.transformer_body`) with re-initialised weights of matched norms
    (:func:`matched_norm_copy`: every matrix row a random direction of its length, every vector permuted)."""
    return matched_norm_copy(transformer_body(model), seed)
