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
(:data:`INTERLEAVED_MODEL_TYPES`, and :data:`INTERLEAVED_SINCE` for a type whose code changed at a release of
transformers: the installed release decides, :func:`interleaved_by_code`). Beyond 1-D RoPE: ``proportional`` RoPE
(Gemma 4: the rope scaling of the same name, p-RoPE's frequencies), multimodal M-RoPE for the model types whose
layout posenc reproduces (:data:`M_ROPE_LAYOUTS`: Qwen2-VL's contiguous sections, Qwen3-VL's interleaved ones) as
``"mrope"``, 2-D axial RoPE of Qwen2-VL's vision tower as ``"axial_rope"``, and DeepSeek's YaRN softmax factor
``mscale(s, mscale_all_dim)^2`` for the model types whose attention applies it (:data:`LOGIT_MSCALE_MODEL_TYPES`).
What posenc cannot reproduce raises :class:`~posenc.errors.PosencError` naming the rope type or model type and what
posenc maps: other M-RoPE and axial layouts, unknown rope types, a rotation by ``-theta``.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Mapping
from typing import Any

from posenc.encodings.base import PositionalEncoding
from posenc.encodings.rope_scaling import BY_HF_ROPE_TYPE, SCALINGS, HfRopeParameters, Scaling
from posenc.errors import PosencError, PosencWarning
from posenc.hf.fields import ROPE_FIELDS, ROTARY_DIM_MODEL_TYPES, ConfigFields
from posenc.registry import build

__all__ = ["from_hf_config", "rope_options_from_hf_config", "rope_type", "scaling_named", "INTERLEAVED_MODEL_TYPES",
           "INTERLEAVED_SINCE", "interleaved_by_code", "transformers_release", "M_ROPE_MODEL_TYPES", "M_ROPE_LAYOUTS",
           "AXIAL_MODEL_TYPES", "LOGIT_MSCALE_MODEL_TYPES", "HF_ROPE_TYPES", "POSENC_ROPE_TYPE", "release_of"]

#: the rope types of 1-D RoPE a config may name, from the scalings' records
HF_ROPE_TYPES = tuple(BY_HF_ROPE_TYPE)

#: the rope type :func:`posenc.extend.patch_model` registers with transformers and writes into a config; the
#: encoding's options are under ``rope_parameters[POSENC_ROPE_TYPE]``, so such a config reads back as that encoding
POSENC_ROPE_TYPE = "posenc"
_POSENC_OPTIONS = ("head_dim", "base", "pairing", "rotary_dim", "scaling")

#: M-RoPE model types posenc reproduces: ``(interleaved, default mrope_section of the modeling code)``; checked
#: against each model's rotary embedding at distinct temporal/height/width positions by tests/hf/test_config_rotary.py
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
#: says, found by reading each ``modeling_*.py`` (and checked on tiny models by tests/hf/test_config_rotary.py):
#: ``rotate_every_two`` (GPT-J, CodeGen); a ``rotate_half`` or ``_apply_rotary_emb`` over ``x[..., 0::2]`` and
#: ``x[..., 1::2]`` (Cohere, ERNIE 4.5, GLM, Helium, Moonshine, BLT, OpenAI privacy filter, Ergo); complex products of
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
    "openai_privacy_filter", "ergo",
    "deepseek_v2", "deepseek_v32",
    "llama4", "llama4_text",
    "glm_moe_dsa", "longcat_flash", "axk2", "bailing_hybrid", "dots3_note_text", "mistral_large4_text",
})

#: model types whose code in transformers turned to adjacent pairs at a release, with that release (major, minor):
#: before it, ``rotate_half`` over halves. HY-V4's attention and indexer call ``apply_rotary_pos_emb_interleave``
#: (adjacent pairs written back as halves) from transformers 5.25 on, ``rotate_half`` in 5.24
INTERLEAVED_SINCE = {"hy_v4": (5, 25)}

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

def _fields(config: Any) -> ConfigFields:
    return config if isinstance(config, ConfigFields) else ConfigFields(config)


def _entry(fields: ConfigFields, layer_type: str | None = None) -> ConfigFields:
    """The RoPE parameter entry of ``layer_type`` (default: ``"full_attention"``, or the first), empty if none."""
    entries = fields.rope_entries()
    if None in entries or not entries:
        return entries.get(None) or ConfigFields({}, f"{fields.prefix}rope_parameters.", ROPE_FIELDS)
    if layer_type is not None:
        if layer_type not in entries:
            unrotated = (f" (its rope parameters give None for {layer_type!r}: the model runs those layers without "
                         f"RoPE, posenc.build('nope'))" if layer_type in fields.unrotated_layer_types() else "")
            raise PosencError(f"layer_type {layer_type!r} has no RoPE parameters in this config{unrotated}; it has "
                              f"them for {', '.join(map(repr, entries))}")
        return entries[layer_type]
    return entries.get("full_attention") or next(iter(entries.values()))


def _warn_one_of_several(fields: ConfigFields) -> None:
    """A config whose layer types turn with different RoPE (Gemma 3's local and global layers): say which one
    :func:`from_hf_config` returns, and how to read the others."""
    entries = fields.rope_entries()
    unrotated = fields.unrotated_layer_types()
    if None not in entries and entries and unrotated:
        warnings.warn(f"this config's {', '.join(map(repr, unrotated))} layers have no RoPE parameters: the model "
                      f"runs them without positions (NoPE); from_hf_config returns the "
                      f"{next(iter(entries))!r} layers' encoding. Read every layer's with "
                      f"posenc.schedule_from_hf_config(config)", PosencWarning, stacklevel=3)
        return
    if None in entries or len({_same_rope_key(e.entry_dict()) for e in entries.values()}) < 2:
        return
    chosen = "full_attention" if "full_attention" in entries else next(iter(entries))
    others = [t for t in entries if t != chosen]
    warnings.warn(f"this config's layer types have different RoPE parameters ({', '.join(map(repr, entries))}); "
                  f"from_hf_config returns the {chosen!r} layers' encoding only. Pass layer_type= "
                  f"({', '.join(map(repr, others))}) for another, or read every layer's with "
                  f"posenc.schedule_from_hf_config(config)", PosencWarning, stacklevel=3)  # at the caller


def _same_rope_key(params: dict[str, Any]) -> str:
    """One RoPE entry as text that two entries share when they give the same RoPE: the type however it is spelled
    (``rope_type``, ``type`` or left out for ``"default"``) and every number as a float (``10000`` is ``10000.0``)."""
    def number(value: Any) -> Any:
        if isinstance(value, list | tuple):
            return [number(v) for v in value]
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else value

    rest = {k: number(v) for k, v in params.items() if k not in ("rope_type", "type")}
    return json.dumps({"rope_type": rope_type(params), **rest}, sort_keys=True, default=str)


def rope_type(params: Mapping[str, Any]) -> str:
    """The rope type a RoPE parameter entry names: its ``rope_type`` (transformers 5), else ``type`` (earlier), else
    ``"default"``."""
    return params.get("rope_type", params.get("type", "default"))


def scaling_named(params: Mapping[str, Any]) -> Scaling | None:
    """The :class:`~posenc.encodings.rope_scaling.Scaling` record of the rope type a RoPE parameter entry names, the
    one place that says what the type means (length-dependent, a factor of an original length, whole-head); ``None``
    for a type with no record (M-RoPE's ``"mrope"``, ``"axial"``, one posenc does not know)."""
    return BY_HF_ROPE_TYPE.get(rope_type(params))


def _is_m_rope(params: dict[str, Any], model_type: str) -> bool:
    kind = rope_type(params)
    return params.get("mrope_section") is not None or kind in ("mrope", "3d") or model_type in M_ROPE_MODEL_TYPES


def _check_rope_type(params: dict[str, Any], model_type: str) -> str:
    kind = rope_type(params)
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
                          f"posenc.hf.config.M_ROPE_LAYOUTS and AXIAL_MODEL_TYPES)")
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


def _pairing(config: ConfigFields, model_type: str) -> str:
    """``"interleaved"`` or ``"half"``, decided the way the model's own code decides it (module docstring)."""
    if model_type in _UNSUPPORTED_MODEL_TYPES:
        raise PosencError(f"posenc cannot reproduce the rotary embedding of model type {model_type!r}: "
                          f"{_UNSUPPORTED_MODEL_TYPES[model_type]}")
    flag = config.get("rope_interleave")
    if flag is None and model_type in _INTERLEAVE_FIELD_DEFAULT:  # a config.json read as a dict may leave it out
        flag = True
    if flag is not None:
        return "interleaved" if flag else "half"
    return "interleaved" if interleaved_by_code(model_type) else "half"


def interleaved_by_code(model_type: str) -> bool:
    """Whether the installed transformers' code for ``model_type`` rotates adjacent pairs whatever its config says:
    a type of :data:`INTERLEAVED_MODEL_TYPES`, or of :data:`INTERLEAVED_SINCE` from its release on (without
    transformers installed, the newest code's rule)."""
    if model_type in INTERLEAVED_SINCE:
        installed = transformers_release()
        return installed is None or installed >= INTERLEAVED_SINCE[model_type]
    return model_type in INTERLEAVED_MODEL_TYPES


def transformers_release() -> tuple[int, int] | None:
    """The installed transformers' (major, minor) release, ``None`` when it is not installed."""
    from importlib import metadata

    try:
        return release_of(metadata.version("transformers"))
    except metadata.PackageNotFoundError:
        return None


def release_of(version: str) -> tuple[int, int]:
    """``(major, minor)`` of a version string: ``"5.25.0"`` and ``"5.25.0.dev0"`` are (5, 25), ``"6.0rc1"`` (6, 0)."""
    match = re.match(r"(\d+)(?:\.(\d+))?", version.strip())
    if match is None:
        raise PosencError(f"cannot read a release from the version {version!r}; expected MAJOR.MINOR...")
    return int(match.group(1)), int(match.group(2) or 0)


def _pairs_fix(head_dim: int, partial: float) -> str:
    """A partial rotary factor near ``partial`` whose rotary width ``int(head_dim * factor)`` is even, at least 2 and
    at most ``head_dim``."""
    widths = [w for w in range(2, head_dim + 1, 2) if int(head_dim * (w / head_dim)) == w]
    best = min(widths, key=lambda w: (abs(w - head_dim * partial), -w))
    return f"{best / head_dim:g}"


def _head_dim(fields: ConfigFields, whole: bool) -> int:
    """The width of each head: ``head_dim``, else ``hidden_size / num_attention_heads``; even where every channel
    rotates (``whole``: RoPE turns pairs). A width RoPE cannot turn is a :class:`~posenc.errors.PosencError` naming
    the fields it comes from (each field is well-formed: posenc cannot build RoPE on it)."""
    head_dim = fields.get("head_dim")
    if head_dim is None:
        hidden = fields.get("hidden_size", "n_embd", "d_model")
        heads = fields.get("num_attention_heads", "n_head", "num_heads")
        if hidden is None or heads is None:
            raise PosencError(f'the config has neither config.json field "{fields.prefix}head_dim" nor '
                              f'"{fields.prefix}hidden_size" and "{fields.prefix}num_attention_heads"; cannot tell '
                              f"the rotary width; fix: add head_dim, or build the encoding with posenc.build(...)")
        head_dim = hidden // heads
        refusal = (f'config.json fields "{fields.prefix}hidden_size" / "{fields.prefix}num_attention_heads" = '
                   f"{hidden} / {heads} give each head {head_dim} channel(s): RoPE turns pairs of channels, so every "
                   f"channel of a head rotates only at an even width >= 2; fix: correct the two counts, or set "
                   f"head_dim")
    else:
        refusal = (f'config.json field "{fields.prefix}head_dim" = {head_dim}: RoPE turns pairs of channels, and '
                   f"every channel of the head rotates here, so it needs an even width >= 2; fix: correct head_dim "
                   f"(e.g. {max(2, head_dim + head_dim % 2)}), or set partial_rotary_factor for a model whose heads "
                   f"rotate only in part")
    if head_dim < 2 or (whole and head_dim % 2):
        raise PosencError(refusal)
    return head_dim


def rope_options_from_hf_config(config: Any, layer_type: str | None = None) -> dict[str, Any]:
    """The options of ``posenc.build("rope", ...)`` equivalent to a Hugging Face rotary config.

    ``layer_type`` picks one entry of per-layer-type parameters (``"sliding_attention"``, ...); by default
    ``"full_attention"``, or the first.
    """
    fields = _fields(config)
    model_type = fields.model_type
    entry = _entry(fields, layer_type)
    params = entry.entry_dict()
    kind = _check_rope_type(params, model_type)
    if kind == POSENC_ROPE_TYPE:
        spec = params.get(POSENC_ROPE_TYPE)
        if not isinstance(spec, dict) or not set(_POSENC_OPTIONS) <= set(spec):
            raise PosencError(f"the config's rope type is {POSENC_ROPE_TYPE!r} but rope_parameters"
                              f"[{POSENC_ROPE_TYPE!r}] does not hold the options {', '.join(_POSENC_OPTIONS)} "
                              f"(got {spec!r}); patch the model with posenc.extend.patch_model(model, encoding)")
        return {name: spec[name] for name in _POSENC_OPTIONS}
    record = _scaling_of(kind, params, model_type)
    pairing = _pairing(fields, model_type)
    heads = fields.get("num_attention_heads", "n_head", "num_heads")
    base = entry.get("rope_theta", default=fields.get("rope_theta", "rotary_emb_base", default=10000.0))
    owner, partial_name = (entry, "partial_rotary_factor") if entry.get("partial_rotary_factor") is not None else (
        fields, "rotary_pct" if fields.get("partial_rotary_factor") is None and fields.get("rotary_pct") is not None
        else "partial_rotary_factor")
    partial = owner.get(partial_name, default=1.0)
    if not record.whole_head and partial == 0:  # p-RoPE (whole_head) may keep no pair
        raise owner.error(partial_name, partial, "a number in (0, 1] (the fraction of each head that rotates)",
                          "e.g. 0.25, or 1.0 for full rotary")
    rotary_by_field = (model_type in ROTARY_DIM_MODEL_TYPES or not model_type) and fields.get("rotary_dim")
    head_dim = _head_dim(fields, whole=record.whole_head or (partial == 1 and not rotary_by_field))
    rotary_dim = head_dim if record.whole_head else int(head_dim * partial)
    if not record.whole_head and not rotary_by_field and (rotary_dim < 2 or rotary_dim % 2):
        raise PosencError(f'config.json field "{owner.prefix}{partial_name}" = {partial:g} of head_dim {head_dim} '
                          f"gives {rotary_dim} rotary channel(s), but RoPE rotates pairs: head_dim x factor must be "
                          f"an even number >= 2; fix: use a factor such as {_pairs_fix(head_dim, partial)}")
    if rotary_by_field:
        rotary_dim = fields.get("rotary_dim")
        if rotary_dim % 2 or rotary_dim > head_dim:
            raise PosencError(f'config.json field "{fields.prefix}rotary_dim" = {rotary_dim}: RoPE rotates pairs of '
                              f"the head's {head_dim} channels, so it needs an even number from 2 to {head_dim}; fix: "
                              f"e.g. {min(head_dim, 64) // 2 * 2}")
        n_ctx = fields.get("n_ctx")
        if model_type == "codegen" and n_ctx and heads:  # CodeGenModel caps it so
            rotary_dim = min(rotary_dim, n_ctx // heads)
    max_pos = fields.get("max_position_embeddings", "n_positions")
    original = entry.get("original_max_position_embeddings",
                         default=fields.get("original_max_position_embeddings", default=max_pos))
    translated = record.from_hf(HfRopeParameters(kind, params, model_type, max_pos, original, partial))
    scaling = None if translated is None else {"type": record.name, **translated}
    options = {"head_dim": int(head_dim), "base": float(base), "pairing": pairing, "rotary_dim": int(rotary_dim),
               "scaling": scaling}
    if scaling is not None and params.get("mscale_all_dim") and model_type in LOGIT_MSCALE_MODEL_TYPES:
        options["scale_logits"] = True  # DeepSeek: softmax scale times mscale(s, mscale_all_dim)^2
    return options


def _m_rope_options(fields: ConfigFields, layer_type: str | None) -> dict[str, Any]:
    entry = _entry(fields, layer_type)
    options = rope_options_from_hf_config(fields, layer_type)
    interleaved, default_section = M_ROPE_LAYOUTS[fields.model_type]
    section = list(entry.get("mrope_section") or default_section)
    options.pop("scale_logits", None)
    return {**options, "mrope_section": section, "interleaved": interleaved}


def _axial_options(fields: ConfigFields) -> dict[str, Any]:
    hidden = fields.require("embed_dim", "hidden_size")
    heads = fields.require("num_heads", "num_attention_heads")
    head_dim = fields.get("head_dim") or hidden // heads
    return {"head_dim": head_dim, "base": float(_entry(fields).get("rope_theta", default=10000.0))}


def from_hf_config(config: Any, layer_type: str | None = None) -> PositionalEncoding:
    """The encoding a Hugging Face config (a ``PretrainedConfig`` or its dict) describes.

    ``layer_type`` selects per-layer-type RoPE parameters (``"sliding_attention"`` in Gemma 3, ...); by default
    those of ``"full_attention"``, with a :class:`~posenc.errors.PosencWarning` when the layer types' parameters
    differ (the other layers turn otherwise: :func:`posenc.schedule_from_hf_config` reads every layer's). Every
    field read is checked first (:mod:`posenc.hf.fields`): a value that does not fit raises
    :class:`~posenc.hf.fields.ConfigFieldError` naming the field as ``config.json`` spells it.

    Example::

        >>> from transformers import LlamaConfig
        >>> import posenc
        >>> posenc.from_hf_config(LlamaConfig(hidden_size=64, num_attention_heads=4)).name
        'rope'
    """
    if config is None or isinstance(config, str | bytes | int | float | list | tuple):
        raise PosencError(f"from_hf_config takes a Hugging Face config (a PretrainedConfig or its dict), got "
                          f"{type(config).__name__}; e.g. transformers.AutoConfig.from_pretrained(folder)")
    fields = _fields(config)
    model_type = fields.model_type
    heads = ("num_attention_heads", "n_head", "num_heads")
    if model_type == "bloom" or fields.get("alibi", "use_alibi", default=False):
        return build("alibi", n_heads=fields.require(*heads))
    if model_type in ("t5", "mt5", "umt5", "longt5") or fields.get("relative_attention_num_buckets") is not None:
        return build("t5", n_heads=fields.require(*heads),
                     num_buckets=fields.require("relative_attention_num_buckets"),
                     max_distance=fields.get("relative_attention_max_distance", default=128),
                     bidirectional=not fields.get("is_decoder", default=False))
    if model_type in ("bert", "roberta", "gpt2", "distilbert", "electra", "opt") or (
            fields.get("position_embedding_type") == "absolute"):
        return build("learned", dim=fields.require("hidden_size", "n_embd", "dim"),
                     max_len=fields.require("max_position_embeddings", "n_positions"))
    if fields.get("rope_parameters", "rope_scaling", "rope_theta", "rotary_emb_base", "rotary_pct",
                  "rotary_dim") is not None:
        params = _entry(fields, layer_type).entry_dict()
        _check_rope_type(params, model_type)
        if model_type in M_ROPE_LAYOUTS and _is_m_rope(params, model_type):
            encoding = build("mrope", **_m_rope_options(fields, layer_type))
        elif model_type in AXIAL_MODEL_TYPES:
            encoding = build("axial_rope", **_axial_options(fields))
        else:
            encoding = build("rope", **rope_options_from_hf_config(fields, layer_type))
        if layer_type is None:
            _warn_one_of_several(fields)
        return encoding
    raise PosencError(f"cannot tell the positional encoding of a config with model_type {model_type!r}: it has no "
                      f"rope_parameters / rope_theta, no ALiBi flag, no T5 buckets and no learned position table; "
                      f"build the encoding by name with posenc.build(...)")
