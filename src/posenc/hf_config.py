"""Build the posenc encoding that a Hugging Face model config describes.

Reads the config's own fields (no model is loaded): ``rope_parameters`` / ``rope_scaling`` and ``rope_theta`` for
rotary models, ``partial_rotary_factor`` / ``rotary_pct`` / ``rotary_dim`` for partial rotary, ALiBi for BLOOM-style
configs, bucketed bias for T5, learned tables for BERT / GPT-2. Hugging Face's rope types map to posenc's scalings
by their records (:data:`posenc.encodings.rope_scaling.SCALINGS`: each names its ``rope_type`` and translates its
parameters; same parameters, posenc's own formulas).

Pairing follows each model's own code in ``transformers``, not a convention: ``half`` (``i`` with ``i + R/2``,
``rotate_half``) unless the config's ``rope_interleave`` field says otherwise (DeepSeek-V3 style: the code reads it and
rotates adjacent pairs, then writes the rotated pairs back as two halves, a per-head channel permutation shared by q
and k that changes no attention logit) or the model type's code always rotates adjacent pairs
(:data:`INTERLEAVED_MODEL_TYPES`). Beyond 1-D RoPE: ``proportional`` RoPE (Gemma 4: the rope scaling of the same name, p-RoPE's frequencies), multimodal
M-RoPE for the model types whose layout posenc reproduces (:data:`M_ROPE_LAYOUTS`: Qwen2-VL's contiguous sections,
Qwen3-VL's interleaved ones) as ``"mrope"``, 2-D axial RoPE of Qwen2-VL's vision tower as ``"axial_rope"``, and
DeepSeek's YaRN softmax factor ``mscale(s, mscale_all_dim)^2`` for the model types whose attention applies it
(:data:`LOGIT_MSCALE_MODEL_TYPES`). What posenc cannot reproduce raises :class:`~posenc.errors.PosencError` naming the
rope type or model type and what posenc maps: other M-RoPE and axial layouts, unknown rope types, a rotation by
``-theta``.
"""

from __future__ import annotations

from typing import Any

from posenc.encodings.base import PositionalEncoding
from posenc.encodings.rope_scaling import BY_HF_ROPE_TYPE, SCALINGS, HfRopeParameters, Scaling
from posenc.errors import PosencError
from posenc.registry import build

__all__ = ["from_hf_config", "rope_options_from_hf_config", "INTERLEAVED_MODEL_TYPES", "M_ROPE_MODEL_TYPES",
           "M_ROPE_LAYOUTS", "AXIAL_MODEL_TYPES", "LOGIT_MSCALE_MODEL_TYPES", "HF_ROPE_TYPES", "POSENC_ROPE_TYPE"]

#: the rope types of 1-D RoPE a config may name, from the scalings' records
HF_ROPE_TYPES = tuple(BY_HF_ROPE_TYPE)

#: the rope type :func:`posenc.extend.patch_model` registers with transformers and writes into a config; the
#: encoding's options are under ``rope_parameters[POSENC_ROPE_TYPE]``, so such a config reads back as that encoding
POSENC_ROPE_TYPE = "posenc"
_POSENC_OPTIONS = ("head_dim", "base", "pairing", "rotary_dim", "scaling")

#: M-RoPE model types posenc reproduces: ``(interleaved, default mrope_section of the modeling code)``; checked
#: against each model's rotary embedding at distinct temporal/height/width positions by tests/test_hf_config_rotary.py
M_ROPE_LAYOUTS = {
    "qwen2_vl_text": (False, (16, 24, 24)),
    "qwen2_5_vl_text": (False, (16, 24, 24)),
    "qwen3_vl_text": (True, (24, 20, 20)),
    "qwen3_vl_moe_text": (True, (24, 20, 20)),
}

#: vision towers whose 2-D rotary is posenc's axial RoPE (``cat(y f, x f)`` with ``rotate_half``, base 10000)
AXIAL_MODEL_TYPES = frozenset({"qwen2_vl_vision", "qwen2_5_vl_vision"})

#: model types whose attention multiplies its softmax scale by ``mscale(s, mscale_all_dim)^2`` under YaRN
#: (``yarn_apply_mscale`` / ``softmax_scale`` in their modeling code; ``sarvam_mla`` has no modeling file: transformers
#: runs it with ``DeepseekV3Model``)
LOGIT_MSCALE_MODEL_TYPES = frozenset({
    "deepseek_v2", "deepseek_v3", "deepseek_v32", "glm4_moe_lite", "glm_moe_dsa", "longcat_flash", "minicpm3",
    "mistral4", "mistral_large4", "mistral_large4_text", "youtu", "axk1", "axk2", "bailing_hybrid", "hy_v4",
    "sarvam_mla",
})

#: model types whose modeling code in transformers rotates adjacent pairs ``(x[2i], x[2i+1])`` whatever the config
#: says, found by reading each ``modeling_*.py`` (and checked on tiny models by tests/test_hf_config_rotary.py):
#: ``rotate_every_two`` (GPT-J, CodeGen); a ``rotate_half`` or ``_apply_rotary_emb`` over ``x[..., 0::2]`` and
#: ``x[..., 1::2]`` (Cohere, ERNIE 4.5, GLM, Helium, Moonshine, BLT, OpenAI privacy filter); complex products of
#: ``reshape(..., -1, 2)`` pairs (DeepSeek-V2, Llama 4); ``apply_rotary_pos_emb_interleave`` in every attention layer
#: (DeepSeek-V3.2, GLM-MoE-DSA, LongCat-Flash, AXK2, Bailing hybrid, dots3 note, Mistral Large 4). Types whose config
#: carries ``rope_interleave`` (DeepSeek-V3, GLM-4-MoE-Lite, Mistral 4, Youtu, AXK1, Sarvam MLA) are decided by that
#: field.
INTERLEAVED_MODEL_TYPES = frozenset({
    "gptj", "codegen",
    "cohere", "cohere2", "cohere2_moe",
    "ernie4_5", "ernie4_5_moe",
    "glm", "glm4",
    "helium",
    "moonshine", "moonshine_streaming",
    "blt", "blt_global_transformer", "blt_local_encoder", "blt_local_decoder", "blt_patcher",
    "openai_privacy_filter",
    "deepseek_v2", "deepseek_v32",
    "llama4", "llama4_text",
    "glm_moe_dsa", "longcat_flash", "axk2", "bailing_hybrid", "dots3_note_text", "mistral_large4_text",
})

#: model types whose config class defaults ``rope_interleave`` to True: a plain dict (a ``config.json`` without the
#: field) means interleaved pairing for them, as the config class would fill it in (SarvamMLAConfig subclasses
#: DeepseekV3Config)
_INTERLEAVE_FIELD_DEFAULT = frozenset({"deepseek_v3", "glm4_moe_lite", "mistral4", "youtu", "axk1", "sarvam_mla"})
#: model types whose rotation posenc cannot reproduce, with the reason
_UNSUPPORTED_MODEL_TYPES = {
    "nanochat": "its rotate_half returns (x2, -x1), so it rotates every pair by -theta, the opposite sense of "
                "RoFormer and of posenc",
    "deepseek_v4": "it rotates the trailing channels of each head (a [nope | rope] layout) with separate 'main' and "
                   "'compress' bases; posenc's partial rotary turns the leading channels",
}

#: model types whose rotary embedding is multimodal M-RoPE (a ``mrope_section`` split of each head over temporal,
#: height and width positions, or NeoMME's row/column axes) in their modeling code, even where the config leaves
#: ``mrope_section`` to the code's default
M_ROPE_MODEL_TYPES = frozenset({
    "qwen2_vl_text", "qwen2_5_vl_text", "qwen3_vl_text", "qwen3_vl_moe_text", "qwen3_5_text", "qwen3_5_moe_text",
    "qwen4_exp_text", "qwen2_5_omni_text", "qwen2_5_omni_talker", "qwen3_omni_moe_text", "qwen3_omni_moe_talker_text",
    "glm4v_text", "glm4v_moe_text", "glm_ocr_text", "glm_image_text", "ernie4_5_vl_moe_text", "paddleocr_vl_text",
    "hunyuan_vl_text", "cohere_compass_text", "cosmos3_edge_text", "neomme",
})

#: model types whose code reads an absolute ``rotary_dim`` from the config, and plain dicts without a model_type (the
#: other types derive the rotary width from ``partial_rotary_factor`` and ignore the field)
_ROTARY_DIM_MODEL_TYPES = ("gptj", "codegen", "")


def _get(config: Any, *names: str, default: Any = None) -> Any:
    for name in names:
        try:
            value = config.get(name) if isinstance(config, dict) else getattr(config, name, None)
        except Exception as exc:  # e.g. a field that differs per layer (Gemma 4's per_layer_config) refuses to be read
            raise PosencError(f"cannot read {name!r} from this {type(config).__name__}: {str(exc).splitlines()[0]}; "
                              f"posenc reads one value per config, so build the encoding with posenc.build(...) "
                              f"from the layer's own values") from exc
        if value is not None:
            return value
    return default


def _count(config: Any, what: str, *names: str, low: int = 1) -> int:
    """A whole-number field of the config (the first of ``names`` it has), or an error naming the fields."""
    value = _get(config, *names)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        found = "none of them" if value is None else f"{value!r}"
        raise PosencError(f"this config (model_type {_get(config, 'model_type', default='') or '(none)'!r}) needs "
                          f"{what} as an integer >= {low} in {' or '.join(names)}, found {found}; add the field to "
                          f"the config, or build the encoding by name with posenc.build(...)")
    return value


def _rope_params(config: Any, layer_type: str | None = None) -> dict[str, Any]:
    params = _get(config, "rope_parameters", "rope_scaling") or {}
    if not isinstance(params, dict):
        raise PosencError(f"the config's rope_parameters / rope_scaling must be a dict such as "
                          f"{{'rope_type': 'linear', 'factor': 2.0}}, got {params!r}")
    if isinstance(params, dict) and params and all(isinstance(v, dict) for v in params.values()):
        # per-layer-type parameters, e.g. {"full_attention": {...}, "sliding_attention": {...}} (Gemma 3)
        if layer_type is not None:
            if layer_type not in params:
                raise PosencError(f"layer_type {layer_type!r} has no RoPE parameters in this config; it has them for "
                                  f"{', '.join(map(repr, params))}")
            return dict(params[layer_type])
        return dict(params.get("full_attention") or next(iter(params.values())))
    return dict(params)


def _is_m_rope(params: dict[str, Any], model_type: str) -> bool:
    kind = params.get("rope_type", params.get("type", "default"))
    return params.get("mrope_section") is not None or kind in ("mrope", "3d") or model_type in M_ROPE_MODEL_TYPES


def _check_rope_type(params: dict[str, Any], model_type: str) -> str:
    kind = params.get("rope_type", params.get("type", "default"))
    supported = ", ".join(HF_ROPE_TYPES)
    if _is_m_rope(params, model_type) and model_type not in M_ROPE_LAYOUTS:
        section = params.get("mrope_section") or "the modeling code's default"
        raise PosencError(f"model type {model_type or '(unknown)'!r} uses multimodal M-RoPE (rope type {kind!r}, "
                          f"mrope_section {section}): sections of each head turn with separate temporal, height and "
                          f"width positions in a layout posenc has not checked for this model type; posenc maps "
                          f"M-RoPE of {', '.join(sorted(M_ROPE_LAYOUTS))} (posenc.build('mrope', ...) takes any "
                          f"sections), and 1-D rope types {supported}")
    if kind == "axial" and model_type not in AXIAL_MODEL_TYPES:
        raise PosencError(f"the {model_type or 'model'} config asks for RoPE type 'axial' (2-D rotary over image "
                          f"patch rows and columns) in a layout posenc has not checked for this model type; posenc "
                          f"maps axial RoPE of {', '.join(sorted(AXIAL_MODEL_TYPES))} (posenc.build('axial_rope', "
                          f"...) for the row/column-halves layout), and 1-D rope types {supported}")
    if kind not in HF_ROPE_TYPES and kind not in ("axial", POSENC_ROPE_TYPE) and not _is_m_rope(params, model_type):
        raise PosencError(f"the config asks for RoPE type {kind!r}, which posenc does not implement; "
                          f"supported types are: {supported} (plus M-RoPE and axial for the model types named in "
                          f"posenc.hf_config.M_ROPE_LAYOUTS and AXIAL_MODEL_TYPES)")
    return kind


def _scaling_of(kind: str, params: dict[str, Any], model_type: str) -> Scaling:
    """The scaling a checked rope type names; M-RoPE's own names (``"mrope"``, ``"3d"``) carry the unscaled
    frequencies."""
    if kind in BY_HF_ROPE_TYPE:
        return BY_HF_ROPE_TYPE[kind]
    if _is_m_rope(params, model_type):
        return SCALINGS["default"]
    raise PosencError(f"the config's rope type {kind!r} is not 1-D RoPE; read the config with from_hf_config, which "
                      f"builds its encoding ({', '.join(HF_ROPE_TYPES)} are 1-D rope types)")


def _pairing(config: Any, model_type: str) -> str:
    """``"interleaved"`` or ``"half"``, decided the way the model's own code decides it (module docstring)."""
    if model_type in _UNSUPPORTED_MODEL_TYPES:
        raise PosencError(f"posenc cannot reproduce the rotary embedding of model type {model_type!r}: "
                          f"{_UNSUPPORTED_MODEL_TYPES[model_type]}")
    flag = _get(config, "rope_interleave")
    if flag is None and model_type in _INTERLEAVE_FIELD_DEFAULT:  # a config.json read as a dict may leave it out
        flag = True
    if flag is not None:
        return "interleaved" if flag else "half"
    return "interleaved" if model_type in INTERLEAVED_MODEL_TYPES else "half"


def rope_options_from_hf_config(config: Any, layer_type: str | None = None) -> dict[str, Any]:
    """The options of ``posenc.build("rope", ...)`` equivalent to a Hugging Face rotary config.

    ``layer_type`` picks one entry of per-layer-type parameters (``"sliding_attention"``, ...); by default
    ``"full_attention"``, or the first entry.
    """
    model_type = _get(config, "model_type", default="")
    params = _rope_params(config, layer_type)
    kind = _check_rope_type(params, model_type)
    if kind == POSENC_ROPE_TYPE:
        spec = params.get(POSENC_ROPE_TYPE)
        if not isinstance(spec, dict) or not set(_POSENC_OPTIONS) <= set(spec):
            raise PosencError(f"the config's rope type is {POSENC_ROPE_TYPE!r} but rope_parameters"
                              f"[{POSENC_ROPE_TYPE!r}] does not hold the options {', '.join(_POSENC_OPTIONS)} "
                              f"(got {spec!r}); patch the model with posenc.extend.patch_model(model, encoding)")
        return {name: spec[name] for name in _POSENC_OPTIONS}
    record = _scaling_of(kind, params, model_type)
    pairing = _pairing(config, model_type)
    heads = _get(config, "num_attention_heads", "n_head", "num_heads")
    head_dim = _get(config, "head_dim")
    if head_dim is None:
        if _get(config, "hidden_size", "n_embd", "d_model") is None or heads is None:
            raise PosencError("the config has neither head_dim nor hidden_size and num_attention_heads; "
                              "cannot tell the rotary width")
        hidden = _count(config, "the model width", "hidden_size", "n_embd", "d_model")
        heads = _count(config, "the number of attention heads", "num_attention_heads", "n_head", "num_heads")
        head_dim = hidden // heads
    elif isinstance(head_dim, bool) or not isinstance(head_dim, int) or head_dim < 2:
        raise PosencError(f"the config's head_dim must be an integer >= 2, got {head_dim!r}")
    base = params.get("rope_theta", _get(config, "rope_theta", "rotary_emb_base", default=10000.0))
    if isinstance(base, bool) or not isinstance(base, int | float) or not 1 < base < float("inf"):
        raise PosencError(f"the config's rope_theta must be a finite number > 1, got {base!r}; the usual value is "
                          f"10000 (an infinite base would leave only the first pair turning)")
    partial = params.get("partial_rotary_factor", _get(config, "partial_rotary_factor", "rotary_pct", default=1.0))
    low_ok = (lambda f: f >= 0) if record.whole_head else (lambda f: f > 0)  # p-RoPE may keep no pair
    if isinstance(partial, bool) or not isinstance(partial, int | float) or not (low_ok(partial) and partial <= 1):
        raise PosencError(f"the config's partial_rotary_factor must be a number in "
                          f"{'[0, 1]' if record.whole_head else '(0, 1]'} (the fraction of each head that "
                          f"rotates), got {partial!r}; e.g. 0.25, or 1.0 for full rotary")
    rotary_dim = int(head_dim) if record.whole_head else int(head_dim * partial)
    if not record.whole_head and (rotary_dim < 2 or rotary_dim % 2):
        raise PosencError(f"the config's partial_rotary_factor {partial!r} of head_dim {head_dim} gives {rotary_dim} "
                          f"rotary channel(s), but RoPE rotates pairs: the product must be an even number >= 2; use "
                          f"a factor such as {2 * max(1, round(head_dim * partial / 2)) / head_dim:g}")
    if model_type in _ROTARY_DIM_MODEL_TYPES and _get(config, "rotary_dim"):
        rotary_dim = int(_get(config, "rotary_dim"))
        if model_type == "codegen" and _get(config, "n_ctx") and heads:  # CodeGenModel caps it so
            rotary_dim = min(rotary_dim, int(_get(config, "n_ctx")) // int(heads))
    max_pos = _get(config, "max_position_embeddings", "n_positions")
    original = params.get("original_max_position_embeddings",
                          _get(config, "original_max_position_embeddings", default=max_pos))
    translated = record.from_hf(HfRopeParameters(kind, params, model_type, max_pos, original, partial))
    scaling = None if translated is None else {"type": record.name, **translated}
    options = {"head_dim": int(head_dim), "base": float(base), "pairing": pairing, "rotary_dim": int(rotary_dim),
               "scaling": scaling}
    if scaling is not None and params.get("mscale_all_dim") and model_type in LOGIT_MSCALE_MODEL_TYPES:
        options["scale_logits"] = True  # DeepSeek: softmax scale times mscale(s, mscale_all_dim)^2
    return options


def _m_rope_options(config: Any, layer_type: str | None) -> dict[str, Any]:
    model_type = _get(config, "model_type", default="")
    params = _rope_params(config, layer_type)
    options = rope_options_from_hf_config(config, layer_type)
    interleaved, default_section = M_ROPE_LAYOUTS[model_type]
    section = [int(s) for s in (params.get("mrope_section") or default_section)]
    options.pop("scale_logits", None)
    return {**options, "mrope_section": section, "interleaved": interleaved}


def _axial_options(config: Any) -> dict[str, Any]:
    hidden = _get(config, "embed_dim", "hidden_size")
    heads = _get(config, "num_heads", "num_attention_heads")
    if not hidden or not heads:
        raise PosencError("the vision config has no embed_dim / hidden_size and num_heads; cannot tell the head width")
    params = _rope_params(config)
    head_dim = _get(config, "head_dim") or int(hidden) // int(heads)
    return {"head_dim": int(head_dim), "base": float(params.get("rope_theta", 10000.0))}


def from_hf_config(config: Any, layer_type: str | None = None) -> PositionalEncoding:
    """The encoding a Hugging Face config (a ``PretrainedConfig`` or its dict) describes.

    ``layer_type`` selects per-layer-type RoPE parameters (``"sliding_attention"`` in Gemma 3, ...); by default those
    of ``"full_attention"``.

    Example::

        >>> from transformers import LlamaConfig
        >>> import posenc
        >>> posenc.from_hf_config(LlamaConfig(hidden_size=64, num_attention_heads=4)).name
        'rope'
    """
    if config is None or isinstance(config, str | bytes | int | float | list | tuple):
        raise PosencError(f"from_hf_config takes a Hugging Face config (a PretrainedConfig or its dict), got "
                          f"{type(config).__name__}; e.g. transformers.AutoConfig.from_pretrained(folder)")
    model_type = _get(config, "model_type", default="")
    heads = ("the number of attention heads", "num_attention_heads", "n_head", "num_heads")
    if model_type == "bloom" or _get(config, "alibi", "use_alibi", default=False):
        return build("alibi", n_heads=_count(config, *heads))
    if model_type in ("t5", "mt5", "umt5", "longt5") or _get(config, "relative_attention_num_buckets") is not None:
        return build("t5", n_heads=_count(config, *heads),
                     num_buckets=_count(config, "the bias's buckets", "relative_attention_num_buckets", low=4),
                     max_distance=_count(config, "the bias's largest distance", "relative_attention_max_distance")
                     if _get(config, "relative_attention_max_distance") is not None else 128,
                     bidirectional=not bool(_get(config, "is_decoder", default=False)))
    if model_type in ("bert", "roberta", "gpt2", "distilbert", "electra", "opt") or (
            _get(config, "position_embedding_type") == "absolute"):
        return build("learned", dim=_count(config, "the model width", "hidden_size", "n_embd", "dim"),
                     max_len=_count(config, "the number of positions", "max_position_embeddings", "n_positions"))
    if _get(config, "rope_parameters", "rope_scaling", "rope_theta", "rotary_emb_base", "rotary_pct",
            "rotary_dim") is not None:
        params = _rope_params(config, layer_type)
        _check_rope_type(params, model_type)
        if model_type in M_ROPE_LAYOUTS and _is_m_rope(params, model_type):
            return build("mrope", **_m_rope_options(config, layer_type))
        if model_type in AXIAL_MODEL_TYPES:
            return build("axial_rope", **_axial_options(config))
        return build("rope", **rope_options_from_hf_config(config, layer_type))
    raise PosencError(f"cannot tell the positional encoding of a config with model_type {model_type!r}: it has no "
                      f"rope_parameters / rope_theta, no ALiBi flag, no T5 buckets and no learned position table; "
                      f"build the encoding by name with posenc.build(...)")
