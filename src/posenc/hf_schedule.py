"""The layer schedule a Hugging Face config describes: each layer's encoding and span.

:func:`posenc.from_hf_config` builds one encoding; a model whose positional scheme differs by layer needs one per
layer. :func:`schedule_from_hf_config` reads the fields that say how (no model is loaded):

- ``layer_types``: ``"full_attention"``, ``"sliding_attention"`` (a window of ``sliding_window`` keys) or
  ``"chunked_attention"`` (chunks of ``attention_chunk_size``). Without the field every layer is a sliding one when
  the config sets ``sliding_window`` (Mistral) and ``use_sliding_window`` is not false, else a full one.
- RoPE parameters per layer type (``rope_parameters = {"full_attention": {...}, "sliding_attention": {...}}``:
  Gemma 3's 1 000 000 / 10 000 with scaling on the global layers only, ModernBERT's 160 000 / 10 000), read by
  :func:`posenc.from_hf_config` with that ``layer_type``; one entry for every layer otherwise.
- ``no_rope_layers`` (1: the layer rotates, 0: it does not; Llama 4, SmolLM3, Mistral Large 4), or when it is
  missing or empty, ``no_rope_layer_interval`` (every that many-th layer is NoPE), as the models' configs fill it in.
- Llama 4's ``attn_temperature_tuning``: its NoPE layers scale queries by position (``"temperature"`` with
  ``attn_scale`` and ``floor_scale``); its ``use_qk_norm``: its RoPE layers divide queries and keys by their root
  mean square after rotating (``qk_norm = rms_norm_eps``).

Windows on Hugging Face's masks: a causal sliding layer sees ``i - j < sliding_window`` (window ``sliding_window``);
Gemma 3 run bidirectionally sees ``|i - j| < sliding_window``; ModernBERT's local layers see
``|i - j| <= sliding_window`` (= ``local_attention // 2``), so its window is one more.

A multimodal config is read through its text model (``text_config``): Qwen3-VL's layers all turn with interleaved
M-RoPE, Gemma 3's and Llama 4's language models have the schedules above.

Example::

    >>> from transformers import Gemma3TextConfig
    >>> from posenc.hf_schedule import schedule_from_hf_config
    >>> schedule = schedule_from_hf_config(Gemma3TextConfig(num_hidden_layers=6, sliding_window=512))
    >>> [(schedule[i].encoding.base, schedule[i].window) for i in (0, 5)]     # five local layers, one global
    [(10000.0, 512), (1000000.0, None)]
"""

from __future__ import annotations

from typing import Any

from posenc.encodings.base import PositionalEncoding
from posenc.encodings.schedule import Layer, LayerSchedule
from posenc.errors import PosencError
from posenc.hf_config import from_hf_config

__all__ = ["schedule_from_hf_config", "LAYER_TYPES", "text_config"]

#: the layer types a schedule knows, and the span each gives
LAYER_TYPES = ("full_attention", "sliding_attention", "chunked_attention")
#: model types whose RoPE layers L2-normalise q and k after rotating when the config sets ``use_qk_norm`` (without a
#: weight: posenc's ``Layer.qk_norm``; models with a learned q/k norm before rotating, Gemma 3, Qwen3, have it in
#: their own code, which the schedule does not describe)
_QK_NORM_ON_ROPE_LAYERS = frozenset({"llama4_text"})
#: model types whose sliding layers see ``|i - j| <= sliding_window`` (a bidirectional window one wider)
_INCLUSIVE_WINDOW_MODEL_TYPES = frozenset({"modernbert"})


def _get(config: Any, name: str, default: Any = None) -> Any:
    value = config.get(name) if isinstance(config, dict) else getattr(config, name, None)
    return default if value is None else value


def text_config(config: Any) -> Any:
    """The language model's config of a multimodal config (``text_config``), else the config itself."""
    if not isinstance(config, dict) and hasattr(config, "get_text_config"):
        return config.get_text_config()
    inner = _get(config, "text_config")
    return inner if inner is not None else config


def _rope_layers(config: Any, n_layers: int) -> list[int]:
    """1 where the layer rotates, 0 where it does not (``no_rope_layers``, else ``no_rope_layer_interval``)."""
    flags = _get(config, "no_rope_layers")
    interval = _get(config, "no_rope_layer_interval")
    if not flags and interval:
        flags = [int((i + 1) % int(interval) != 0) for i in range(n_layers)]
    if not flags:
        return [1] * n_layers
    if len(flags) != n_layers:
        raise PosencError(f"no_rope_layers has {len(flags)} entries but the config has {n_layers} layers; give one "
                          f"flag per layer (1: RoPE, 0: NoPE)")
    return [int(bool(f)) for f in flags]


def _layer_types(config: Any, n_layers: int) -> list[str]:
    types = _get(config, "layer_types")
    if not types:
        sliding = _get(config, "sliding_window") is not None and _get(config, "use_sliding_window", True) is not False
        return ["sliding_attention" if sliding else "full_attention"] * n_layers
    types = list(types)
    if len(types) != n_layers:
        raise PosencError(f"layer_types has {len(types)} entries but the config has {n_layers} layers; give one "
                          f"type per layer")
    unknown = sorted({t for t in types if t not in LAYER_TYPES})
    if unknown:
        raise PosencError(f"layer type(s) {', '.join(map(repr, unknown))} in this config have no schedule in posenc, "
                          f"which knows {', '.join(LAYER_TYPES)}; a layer of another kind (linear attention, "
                          f"compressed attention) has no positional encoding posenc can describe")
    return types


def _window(config: Any, model_type: str) -> int:
    window = _get(config, "sliding_window")
    if window is None:
        raise PosencError("the config has sliding_attention layers but no sliding_window; cannot tell their span")
    return int(window) + (1 if model_type in _INCLUSIVE_WINDOW_MODEL_TYPES else 0)


def _per_type(config: Any) -> bool:
    params = _get(config, "rope_parameters") or _get(config, "rope_scaling")
    return isinstance(params, dict) and bool(params) and all(isinstance(v, dict) for v in params.values())


def schedule_from_hf_config(config: Any) -> LayerSchedule:
    """The :class:`~posenc.encodings.schedule.LayerSchedule` of a Hugging Face config (a ``PretrainedConfig`` or
    its dict): every layer's encoding (built, shared by the layers of one type) and span."""
    config = text_config(config)
    model_type = _get(config, "model_type", "")
    n_layers = _get(config, "num_hidden_layers") or _get(config, "n_layer") or _get(config, "num_layers")
    if not n_layers:
        raise PosencError("the config has no num_hidden_layers; cannot tell how many layers to schedule")
    n_layers = int(n_layers)
    types, rotates = _layer_types(config, n_layers), _rope_layers(config, n_layers)
    per_type = _per_type(config)
    nope: Layer | str = "nope"
    if _get(config, "attn_temperature_tuning", False) and 0 in rotates:
        nope = Layer("temperature", {"attn_scale": float(_get(config, "attn_scale", 0.1)),
                                     "floor_scale": int(_get(config, "floor_scale", 8192))})
    built: dict[str | None, PositionalEncoding] = {}
    layers = []
    for kind, rotary in zip(types, rotates, strict=True):
        window = _window(config, model_type) if kind == "sliding_attention" else None
        chunk = None
        if kind == "chunked_attention":
            chunk = _get(config, "attention_chunk_size")
            if chunk is None:
                raise PosencError("the config has chunked_attention layers but no attention_chunk_size")
            chunk = int(chunk)
        if not rotary:
            base = nope if isinstance(nope, Layer) else Layer("nope")
            layers.append(Layer(base.encoding, base.options, window, chunk))
            continue
        key = kind if per_type else None
        if key not in built:
            built[key] = from_hf_config(config, layer_type=key)
        qk_norm = float(_get(config, "rms_norm_eps", 1e-6)) if model_type in _QK_NORM_ON_ROPE_LAYERS and \
            _get(config, "use_qk_norm", False) else None
        layers.append(Layer(built[key], {}, window, chunk, qk_norm))
    return LayerSchedule(tuple(layers))
