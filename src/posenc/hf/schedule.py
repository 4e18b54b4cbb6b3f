"""The layer schedule a Hugging Face config describes: each layer's encoding and span.

:func:`posenc.from_hf_config` builds one encoding; a model whose positional scheme differs by layer needs one per
layer. :func:`schedule_from_hf_config` reads the fields that say how (no model is loaded):

- ``layer_types``: ``"full_attention"``, ``"sliding_attention"`` (a window of ``sliding_window`` keys) or
  ``"chunked_attention"`` (chunks of ``attention_chunk_size``). Without the field every layer is a sliding one when
  the config sets ``sliding_window`` (Mistral) and ``use_sliding_window`` is not false, else a full one.
- RoPE parameters per layer type (``rope_parameters = {"full_attention": {...}, "sliding_attention": {...}}``:
  Gemma 3's 1 000 000 / 10 000 with scaling on the global layers only, ModernBERT's 160 000 / 10 000), read by
  :func:`posenc.from_hf_config` with that ``layer_type``; a type whose entry is ``None`` runs without RoPE (Ergo's
  full-attention layers); one entry for every layer otherwise.
- ``no_rope_layers`` (1: the layer rotates, 0: it does not; Llama 4, SmolLM3, Mistral Large 4), or when it is
  missing or empty, ``no_rope_layer_interval`` (every that many-th layer is NoPE), as the models' configs fill it in.
- Llama 4's ``attn_temperature_tuning``: its NoPE layers scale queries by position (``"temperature"`` with
  ``attn_scale`` and ``floor_scale``); its ``use_qk_norm``: its RoPE layers divide queries and keys by their root
  mean square after rotating (``qk_norm = rms_norm_eps``).

Windows on Hugging Face's masks: a causal sliding layer sees ``i - j < sliding_window`` (window ``sliding_window``);
Gemma 3 run bidirectionally sees ``|i - j| < sliding_window``; ModernBERT's local layers see
``|i - j| <= sliding_window`` (= ``local_attention // 2``), so its window is one more.

A multimodal config is read through its text model (``text_config``): Qwen3-VL's layers all turn with interleaved
M-RoPE, Gemma 3's and Llama 4's language models have the schedules above. Every field is read through
:class:`posenc.hf.fields.ConfigFields`, which checks it and names it as ``config.json`` spells it.

Example::

    >>> from transformers import Gemma3TextConfig
    >>> from posenc.hf.schedule import schedule_from_hf_config
    >>> schedule = schedule_from_hf_config(Gemma3TextConfig(num_hidden_layers=6, sliding_window=512))
    >>> [(schedule[i].encoding.base, schedule[i].window) for i in (0, 5)]     # five local layers, one global
    [(10000.0, 512), (1000000.0, None)]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.encodings.base import PositionalEncoding
from posenc.encodings.schedule import Layer, LayerSchedule
from posenc.errors import PosencError
from posenc.hf.config import from_hf_config
from posenc.hf.fields import MAX_LAYERS, ConfigFields, config_from_dict

__all__ = ["schedule_from_hf_config", "LAYER_TYPES", "text_config"]

#: the layer types a schedule knows, and the span each gives
LAYER_TYPES = ("full_attention", "sliding_attention", "chunked_attention")
#: model types whose RoPE layers L2-normalise q and k after rotating when the config sets ``use_qk_norm`` (without a
#: weight: posenc's ``Layer.qk_norm``; models with a learned q/k norm before rotating, Gemma 3, Qwen3, have it in
#: their own code, which the schedule does not describe)
_QK_NORM_ON_ROPE_LAYERS = frozenset({"llama4_text"})
#: model types whose sliding layers see ``|i - j| <= sliding_window`` (a bidirectional window one wider)
_INCLUSIVE_WINDOW_MODEL_TYPES = frozenset({"modernbert"})


def text_config(config: Any) -> Any:
    """The language model's config of a multimodal config (``text_config``), else the config itself."""
    return ConfigFields(config).text_model().config


def _rope_layers(fields: ConfigFields, n_layers: int) -> list[int]:
    """1 where the layer rotates, 0 where it does not (``no_rope_layers``, else ``no_rope_layer_interval``)."""
    flags = fields.get("no_rope_layers")  # a list of 0 / 1, one per layer (checked)
    interval = fields.get("no_rope_layer_interval")  # an integer >= 1 (checked)
    if not flags and interval:
        flags = [int((i + 1) % interval != 0) for i in range(n_layers)]
    if not flags:
        return [1] * n_layers
    return [int(bool(f)) for f in flags]


def _layer_types(fields: ConfigFields, n_layers: int) -> list[str]:
    types = fields.get("layer_types")  # a list of strings, one per layer (checked)
    if not types:
        sliding = bool(fields.get("sliding_window")) and fields.get("use_sliding_window", default=True)
        if sliding and fields.get("max_window_layers") is not None and isinstance(fields.config, Mapping):
            return _derived_layer_types(fields, n_layers)
        return ["sliding_attention" if sliding else "full_attention"] * n_layers
    unknown = sorted({t for t in types if t not in LAYER_TYPES})
    if unknown:
        raise PosencError(f"layer type(s) {', '.join(map(repr, unknown))} in this config have no schedule in posenc, "
                          f"which knows {', '.join(LAYER_TYPES)}; a layer of another kind (linear attention, "
                          f"compressed attention) has no positional encoding posenc can describe")
    return types


def _derived_layer_types(fields: ConfigFields, n_layers: int) -> list[str]:
    """The layer types of a ``config.json`` dict that splits its layers by ``max_window_layers`` and gives no
    ``layer_types``: each model type splits them its own way (Qwen2, Qwen3: the layers from ``max_window_layers`` on
    slide; Qwen2-MoE: the even layers below it), so transformers' own config class derives them, as the model does."""
    built = config_from_dict(fields.config, f"{fields.prefix or 'config.json'}")
    derived = getattr(built, "layer_types", None)
    if not derived or len(derived) != n_layers:  # a model type that does not split by max_window_layers
        return ["sliding_attention"] * n_layers
    return list(derived)


def _window(fields: ConfigFields) -> int:
    window = fields.get("sliding_window")
    if window == 0:
        raise fields.error("sliding_window", window, "an integer >= 1 (the keys a sliding-window layer sees) where "
                                                     "the config has sliding_attention layers",
                           "set the window the model was trained with, e.g. 4096, or make the layers full_attention")
    if window is None:
        raise PosencError(f'this config has sliding_attention layers but no config.json field '
                          f'"{fields.prefix}sliding_window": expected an integer >= 1 (the keys a sliding-window '
                          f'layer sees); fix: add it, e.g. "sliding_window": 4096')
    return window + (1 if fields.model_type in _INCLUSIVE_WINDOW_MODEL_TYPES else 0)


def _chunk(fields: ConfigFields) -> int:
    chunk = fields.get("attention_chunk_size")
    if chunk is None:
        raise PosencError(f'this config has chunked_attention layers but no config.json field '
                          f'"{fields.prefix}attention_chunk_size": expected an integer >= 1 (the tokens of each '
                          f'attention chunk); fix: add it, e.g. "attention_chunk_size": 8192')
    return chunk


def _nope_layer(fields: ConfigFields) -> Layer:
    """A layer without RoPE: plain NoPE, or Llama 4's NoPE with the attention temperature."""
    if not fields.get("attn_temperature_tuning", default=False):
        return Layer("nope")
    return Layer("temperature", {"attn_scale": float(fields.get("attn_scale", default=0.1)),
                                 "floor_scale": fields.get("floor_scale", default=8192)})


def schedule_from_hf_config(config: Any) -> LayerSchedule:
    """The :class:`~posenc.encodings.schedule.LayerSchedule` of a Hugging Face config (a ``PretrainedConfig`` or
    its dict): every layer's encoding (built, shared by the layers of one type) and span.

    Every field read is checked first (:mod:`posenc.hf.fields`): a value that does not fit raises
    :class:`~posenc.hf.fields.ConfigFieldError` naming the field as ``config.json`` spells it."""
    fields = ConfigFields(config).text_model()
    model_type = fields.model_type
    n_layers = fields.layer_count()
    if n_layers is None:
        raise PosencError(f'this config has no config.json field "{fields.prefix}num_hidden_layers": expected '
                          f'an integer from 1 to {MAX_LAYERS} (the number of layers); fix: add it, e.g. '
                          f'"num_hidden_layers": 32')
    types, rotates = _layer_types(fields, n_layers), _rope_layers(fields, n_layers)
    entries = fields.rope_entries()
    per_type = None not in entries and bool(entries)
    unrotated = set(fields.unrotated_layer_types())  # a type whose RoPE parameters are None runs without RoPE
    nope = _nope_layer(fields) if 0 in rotates else Layer("nope")
    qk_norm = None
    if model_type in _QK_NORM_ON_ROPE_LAYERS and fields.get("use_qk_norm", default=False):
        qk_norm = float(fields.get("rms_norm_eps", default=1e-6))
    window = _window(fields) if "sliding_attention" in types else None
    chunk = _chunk(fields) if "chunked_attention" in types else None
    built: dict[str | None, PositionalEncoding] = {}
    layers = []
    for kind, rotary in zip(types, rotates, strict=True):
        span = (window if kind == "sliding_attention" else None, chunk if kind == "chunked_attention" else None)
        if not rotary or kind in unrotated:
            layers.append(Layer(nope.encoding, nope.options, *span))
            continue
        key = kind if per_type else None
        if key not in built:
            built[key] = from_hf_config(fields, layer_type=key)
        layers.append(Layer(built[key], {}, *span, qk_norm))
    return LayerSchedule(tuple(layers))
