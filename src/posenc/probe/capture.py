"""Capture attention weights (and query/key projections) layer by layer with forward hooks.

Each layer's weights ``[B, H, Tq, Tk]`` go to a callback as soon as the layer has computed them and are dropped
afterwards, so memory holds one layer's attention at a time, never all layers at once (``output_attentions=True``
would keep ``L * H * T^2`` numbers). The model must run eager attention (the fused kernels return no weights);
:func:`eager_attention` switches it for the duration of a block; :func:`transformer_body` is the part of a language
model that holds the attention (without its LM head).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from typing import Any

import torch

from posenc.errors import PosencError

__all__ = ["layer_modules", "attention_modules", "projection_modules", "eager_attention", "capture",
           "transformer_body"]

_ATTENTION = re.compile(r"(?:^|\.)(?:layers?|h|blocks?)\.(\d+)\.(?:self_attn|attention\.self|attn|self_attention)$")
_PROJECTION = re.compile(r"(?:^|\.)(?:layers?|h|blocks?)\.(\d+)\.(?:self_attn|attention\.self|attn)\.(q_proj|k_proj|"
                         r"query|key)$")


def layer_modules(model: Any, pattern: re.Pattern[str], missing: str) -> list[torch.nn.Module]:
    """The module of every layer whose name ``pattern`` matches (its first group: the layer's index), in layer
    order, cross-attention left out; none found raises, ``missing`` saying what was looked for."""
    found: dict[int, torch.nn.Module] = {}
    for name, module in model.named_modules():
        match = pattern.search(name)
        if match and "cross" not in name:
            found[int(match.group(1))] = module
    if not found:
        raise PosencError(f"cannot find {missing} of {type(model).__name__}")
    return [found[i] for i in sorted(found)]


def transformer_body(model: Any) -> Any:
    """The transformer without its language-model head (``base_model`` of a Hugging Face model; the model itself
    otherwise): its attention is the same, for a fraction of the work."""
    return getattr(model, "base_model", model)


def attention_modules(model: Any) -> list[torch.nn.Module]:
    """The self-attention module of every layer, in layer order (BERT, Llama-style, GPT-2 naming)."""
    return layer_modules(model, _ATTENTION, "the self-attention modules (looked for layers.N.self_attn, "
                                            "layer.N.attention.self, h.N.attn); this architecture is not supported "
                                            "by the head probes")


def projection_modules(model: Any) -> list[tuple[torch.nn.Module, torch.nn.Module]]:
    """``(q_proj, k_proj)`` of every layer, in layer order; empty when the model fuses them (GPT-2's c_attn)."""
    found: dict[int, dict[str, torch.nn.Module]] = {}
    for name, module in model.named_modules():
        match = _PROJECTION.search(name)
        if match:
            role = "q" if match.group(2) in ("q_proj", "query") else "k"
            found.setdefault(int(match.group(1)), {})[role] = module
    return [(found[i]["q"], found[i]["k"]) for i in sorted(found) if {"q", "k"} <= found[i].keys()]


@contextlib.contextmanager
def eager_attention(model: Any) -> Iterator[None]:
    """Run ``model`` with eager attention inside the block (restoring its own implementation after)."""
    config = model.config
    before = getattr(config, "_attn_implementation", None)
    if before in (None, "eager"):
        yield
        return
    try:
        model.set_attn_implementation("eager")
    except (AttributeError, ValueError) as exc:
        raise PosencError(f"cannot switch {type(model).__name__} to eager attention ({exc}); load it with "
                          f"attn_implementation='eager'") from exc
    try:
        yield
    finally:
        model.set_attn_implementation(before)


def _weights(output: Any) -> torch.Tensor | None:
    items = output if isinstance(output, tuple) else (output,)
    for item in items[1:]:
        if isinstance(item, torch.Tensor) and item.dim() == 4:
            return item
    return None


@contextlib.contextmanager
def capture(model: Any, on_attention: Callable[[int, torch.Tensor], None],
            on_qk: Callable[[int, torch.Tensor, torch.Tensor], None] | None = None) -> Iterator[None]:
    """Call ``on_attention(layer, weights [B, H, Tq, Tk])`` for every layer during forwards inside the block, and
    ``on_qk(layer, q [B, T, H*Dh], k [B, T, Hk*Dh])`` with the (unrotated) query/key projections if given."""
    handles = []
    pending_q: dict[int, torch.Tensor] = {}

    def attention_hook(layer: int):
        def hook(_module, _inputs, output):
            weights = _weights(output)
            if weights is None:
                raise PosencError("the attention layer returned no weights; load the model with "
                                  "attn_implementation='eager'")
            on_attention(layer, weights.detach())
        return hook

    def q_hook(layer: int):
        def hook(_module, _inputs, output):
            pending_q[layer] = output.detach()
        return hook

    def k_hook(layer: int):
        def hook(_module, _inputs, output):
            on_qk(layer, pending_q.pop(layer), output.detach())
        return hook

    with eager_attention(model):
        try:
            for i, module in enumerate(attention_modules(model)):
                handles.append(module.register_forward_hook(attention_hook(i)))
            if on_qk is not None:
                for i, (q_proj, k_proj) in enumerate(projection_modules(model)):
                    handles.append(q_proj.register_forward_hook(q_hook(i)))
                    handles.append(k_proj.register_forward_hook(k_hook(i)))
            yield
        finally:
            for handle in handles:
                handle.remove()
