"""What a head outputs, and which word a linear probe reads from it.

A head's output at query ``q`` is ``sum_k a[q, k] v[k]``, the attention-weighted mean of its value vectors: the input
of the layer's output projection, head by head (``[..., h * dh:(h + 1) * dh]``). A head that attends to a fixed
offset ``o`` outputs nearly ``v[q + o]``, so its output can name the word at ``q + o`` even though where it looks
depends on the position alone; a head whose output depended on the position alone could not. Three readings:

- :func:`head_outputs`: every chosen layer's head outputs ``[W, T, H, dh]`` and the attention's input
  ``[W, T, d]`` (the hidden states the heads read), by forward pre-hooks, one forward per window;
- :func:`word_readout`: per query, whether a ridge probe fitted on other windows reads the word at ``q + o`` from
  the features at ``q`` (:func:`posenc.probe.layers.token_probe`: the candidate whose embedding row is nearest in
  direction to the probe's prediction of that row), for the queries whose ``q`` and ``q + o`` are both words (not
  special tokens);
- :func:`position_only`: the features' mean over windows at each position, for every window: what a head whose
  output depends on its position alone would output. Through :func:`word_readout` it is the null of the same
  statistic: it can only name one word per position.

:func:`output_estimates` turns these readings, over the positional heads found, into shares with bootstrap intervals
over windows; :func:`decoder_outputs` runs the whole reading on a decoder's text windows.

Shapes: ids ``[W, T]``; outputs ``[W, T, H, dh]``; features ``[W, T, d]``; readouts ``[W, Q]``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from posenc.errors import PosencError
from posenc.stats import SHARE, Estimate, bootstrap, exact

__all__ = ["output_modules", "head_outputs", "query_range", "word_readout", "position_only", "output_estimates",
           "decoder_outputs"]

_OUTPUT = re.compile(r"(?:^|\.)(?:layers?|h|blocks?)\.(\d+)\.(?:self_attn\.o_proj|attention\.output\.dense|"
                     r"attn\.c_proj|self_attention\.dense)$")


def output_modules(model: Any) -> list[torch.nn.Module]:
    """Each layer's output projection, in layer order: the module whose input is the heads' outputs side by side
    (Llama-style ``self_attn.o_proj``, BERT's ``attention.output.dense``, GPT-2's ``attn.c_proj``)."""
    from posenc.probe.capture import layer_modules

    return layer_modules(model, _OUTPUT, "the attention output projections (looked for layers.N.self_attn.o_proj, "
                                         "layer.N.attention.output.dense, h.N.attn.c_proj); this architecture is "
                                         "not supported by the head output probe")


def head_outputs(model: Any, windows: Sequence[Sequence[int]], layers: Sequence[int]
                 ) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """``(outputs, inputs)`` for the layers ``layers`` (0-based) of ``model`` on ``windows`` (one length):
    ``outputs[layer] [W, T, H, dh]``, each head's output (float32), and ``inputs[layer] [W, T, d]``, the hidden
    states its attention reads (after any LayerNorm the layer applies first)."""
    from posenc.probe.capture import attention_modules

    if len(windows) < 1:
        raise PosencError("head_outputs needs at least one window of token ids, got none")
    lengths = {len(w) for w in windows}
    if len(lengths) != 1 or 0 in lengths:
        raise PosencError(f"head_outputs needs windows of one non-zero length, got lengths {sorted(lengths)}")
    attention, projections = attention_modules(model), output_modules(model)
    if len(attention) != len(projections):
        raise PosencError(f"{type(model).__name__}: found {len(attention)} attention modules but "
                          f"{len(projections)} output projections; cannot pair them by layer")
    wanted = sorted(set(int(x) for x in layers))
    if not wanted or wanted[0] < 0 or wanted[-1] >= len(attention):
        raise PosencError(f"layers must be a non-empty list of layer indices in 0..{len(attention) - 1}, got "
                          f"{list(layers)}")
    heads = int(model.config.num_attention_heads)
    outputs: dict[int, list[np.ndarray]] = {layer: [] for layer in wanted}
    inputs: dict[int, list[np.ndarray]] = {layer: [] for layer in wanted}

    def keep_output(layer: int):
        def hook(_module, args):
            x = args[0][0]  # [T, H * dh]
            outputs[layer].append(x.detach().float().reshape(x.shape[0], heads, -1).numpy())
        return hook

    def keep_input(layer: int):
        def hook(_module, args, kwargs):
            x = args[0] if args else kwargs["hidden_states"]
            inputs[layer].append(x[0].detach().float().numpy())
        return hook

    handles = []
    try:
        for layer in wanted:
            handles.append(projections[layer].register_forward_pre_hook(keep_output(layer)))
            handles.append(attention[layer].register_forward_pre_hook(keep_input(layer), with_kwargs=True))
        with torch.no_grad():
            for ids in windows:
                batch = torch.tensor([list(ids)])
                model(input_ids=batch, attention_mask=torch.ones_like(batch))
    finally:
        for handle in handles:
            handle.remove()
    return ({layer: np.stack(outputs[layer]) for layer in wanted},
            {layer: np.stack(inputs[layer]) for layer in wanted})


def query_range(length: int, offset: int, prefix: int, suffix: int) -> tuple[int, int]:
    """``(start, stop)``: the queries ``q`` of a window of ``length`` tokens whose own token and the token at
    ``q + offset`` both lie among the words, past the ``prefix`` special tokens before and the ``suffix`` after."""
    first, end = prefix, length - suffix
    start, stop = max(first, first - offset), min(end, end - offset)
    if stop - start < 1:
        raise PosencError(f"no query of a window of {length} tokens ({prefix} special before, {suffix} after) has "
                          f"both itself and the token at offset {offset:+d} among the words")
    return start, stop


def word_readout(features: np.ndarray, ids: np.ndarray, offset: int, prefix: int, suffix: int,
                 table: np.ndarray, folds: list[np.ndarray]) -> np.ndarray:
    """``correct [W, Q]``: for each query of :func:`query_range`, whether a ridge probe fitted on the other folds'
    windows (:func:`posenc.probe.layers.token_probe`) reads the word at ``q + offset`` from ``features [W, T, d]``
    at ``q``, among the words found at those places in any window (``table [V, d']``: the model's input word
    table)."""
    from posenc.probe.layers import token_probe

    features, ids = np.asarray(features, dtype=np.float64), np.asarray(ids)
    if features.ndim != 3 or ids.shape != features.shape[:2]:
        raise PosencError(f"word_readout needs features [W, T, d] and ids [W, T] of the same windows, got "
                          f"{list(features.shape)} and {list(ids.shape)}")
    start, stop = query_range(ids.shape[1], offset, prefix, suffix)
    targets = ids[:, start + offset:stop + offset]
    return token_probe(features[:, start:stop], targets, table, np.unique(targets), folds)


def position_only(features: np.ndarray) -> np.ndarray:
    """``features [W, T, d]`` replaced by their mean over windows at each position, for every window: the output of
    a head whose output depends on the position alone (one vector per position, the same in every window)."""
    features = np.asarray(features, dtype=np.float64)
    if features.ndim != 3 or features.shape[0] < 1:
        raise PosencError(f"position_only needs features [W, T, d] of at least one window, got "
                          f"{list(features.shape)}")
    return np.broadcast_to(features.mean(axis=0, keepdims=True), features.shape).copy()


def output_estimates(outputs: dict[int, np.ndarray], inputs: dict[int, np.ndarray], ids: np.ndarray,
                     positional: list[tuple[int, int, int]], prefix: int, suffix: int, table: np.ndarray
                     ) -> tuple[dict[str, Estimate], dict[str, Any]]:
    """Whether what the positional heads ``(layer, head, offset)`` output (``outputs[layer] [W, T, H, dh]``,
    :func:`head_outputs`) names the word each attends to, for any model, read by :func:`word_readout` (ridge probes
    fitted on the other folds' windows; ``table``: the model's input word table). Estimates, each the mean over the
    positional heads of each window's share of queries read, bootstrap over windows: ``output_word_accuracy``;
    ``null_output_word_accuracy``, the same probe on the same heads' position-only output (:func:`position_only`);
    and ``input_word_accuracy``, the same probe reading each word from the hidden states the heads read
    (``inputs``), what a head could pass on: the power requirement. NaN (exact) when no positional head was found.
    Numbers: each head's three shares and the chance share (the most frequent target word's)."""
    from posenc.probe.layers import window_folds

    ids = np.asarray(ids)
    keys = ("output_word_accuracy", "null_output_word_accuracy", "input_word_accuracy")
    if not positional:
        return {k: exact(float("nan")) for k in keys}, {"per_head": {}}
    folds = window_folds(ids.shape[0])
    per_window: dict[str, list[np.ndarray]] = {k: [] for k in keys}
    numbers: dict[str, Any] = {"per_head": {}, "folds": len(folds)}
    for layer, head, offset in positional:
        features = outputs[layer][:, :, head]
        read = {"output_word_accuracy": word_readout(features, ids, offset, prefix, suffix, table, folds),
                "null_output_word_accuracy": word_readout(position_only(features), ids, offset, prefix, suffix,
                                                          table, folds),
                "input_word_accuracy": word_readout(inputs[layer], ids, 0, prefix, suffix, table, folds)}
        start, stop = query_range(ids.shape[1], offset, prefix, suffix)
        targets = ids[:, start + offset:stop + offset]
        numbers["per_head"][f"L{layer}H{head}"] = {**{k: float(v.mean()) for k, v in read.items()},
                                                   "chance": float(np.bincount(targets.ravel()).max() / targets.size)}
        for k, v in read.items():
            per_window[k].append(v.mean(axis=1))
    estimates = {k: bootstrap(np.mean(v, axis=0), bounds=SHARE) for k, v in per_window.items()}
    numbers["chance"] = float(np.mean([h["chance"] for h in numbers["per_head"].values()]))
    return estimates, numbers


def decoder_outputs(model: Any, tokenizer: Any, count: int, length: int, positional: Sequence[tuple[int, int, int]]
                    ) -> tuple[dict[str, Estimate], dict[str, Any]]:
    """The output reading on a decoder: :func:`output_estimates` for the positional heads ``(layer, head, offset)``
    on ``count`` windows of ``length`` tokens of both kinds of text (:func:`posenc.corpora.text_windows`, the windows
    :func:`posenc.probe.heads.two_passes` reads; one forward each, the transformer without its LM head), with its CPU
    time (process time, every thread)."""
    from posenc.corpora import special_tokens, text_windows
    from posenc.probe.capture import transformer_body

    started = time.process_time()
    windows, _ = text_windows(tokenizer, length, count)
    prefix, suffix = special_tokens(tokenizer)
    positional = [tuple(int(x) for x in p) for p in positional]
    if positional:
        outputs, inputs = head_outputs(transformer_body(model), windows, [layer for layer, _, _ in positional])
        table = model.get_input_embeddings().weight.detach().float().numpy()
    else:
        outputs, inputs, table = {}, {}, np.zeros((0, 0))
    estimates, numbers = output_estimates(outputs, inputs, np.asarray(windows), positional, len(prefix), len(suffix),
                                          table)
    return estimates, {**numbers, "cpu_s": round(time.process_time() - started, 2)}
