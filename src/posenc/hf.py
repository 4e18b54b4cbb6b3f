"""Build the posenc encoding that a Hugging Face model config describes.

Reads the config's own fields (no model is loaded): ``rope_parameters`` / ``rope_scaling`` and ``rope_theta`` for
rotary models, ``partial_rotary_factor`` / ``rotary_pct`` / ``rotary_dim`` for partial rotary, ALiBi for BLOOM-style
configs, bucketed bias for T5, learned tables for BERT / GPT-2. Hugging Face's scaling names map to posenc's:
``default``, ``linear``, ``dynamic``, ``yarn``, ``llama3``, ``longrope`` (same parameters, posenc's own formulas).
"""

from __future__ import annotations

from typing import Any

from posenc.encodings.base import PositionalEncoding
from posenc.errors import PosencError
from posenc.registry import build

__all__ = ["from_hf_config", "rope_options_from_hf_config"]

_HF_ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "llama3", "longrope")
_INTERLEAVED_MODELS = ("gptj", "codegen")  # Meta / GPT-J pairing; every other HF model rotates halves


def _get(config: Any, *names: str, default: Any = None) -> Any:
    for name in names:
        value = config.get(name) if isinstance(config, dict) else getattr(config, name, None)
        if value is not None:
            return value
    return default


def _rope_params(config: Any) -> dict[str, Any]:
    params = _get(config, "rope_parameters", "rope_scaling") or {}
    if isinstance(params, dict) and params and all(isinstance(v, dict) for v in params.values()):
        params = params.get("full_attention") or next(iter(params.values()))  # per-layer-type configs
    return dict(params)


def rope_options_from_hf_config(config: Any) -> dict[str, Any]:
    """The options of ``posenc.build("rope", ...)`` equivalent to a Hugging Face rotary config."""
    params = _rope_params(config)
    hidden = _get(config, "hidden_size", "n_embd", "d_model")
    heads = _get(config, "num_attention_heads", "n_head", "num_heads")
    head_dim = _get(config, "head_dim")
    if head_dim is None:
        if not hidden or not heads:
            raise PosencError("the config has neither head_dim nor hidden_size and num_attention_heads; "
                              "cannot tell the rotary width")
        head_dim = hidden // heads
    base = params.get("rope_theta", _get(config, "rope_theta", "rotary_emb_base", default=10000.0))
    partial = params.get("partial_rotary_factor", _get(config, "partial_rotary_factor", "rotary_pct", default=1.0))
    rotary_dim = _get(config, "rotary_dim") or int(head_dim * partial)
    kind = params.get("rope_type", params.get("type", "default"))
    if kind not in _HF_ROPE_TYPES:
        raise PosencError(f"the config asks for RoPE type {kind!r}, which posenc does not implement; "
                          f"supported types are: {', '.join(_HF_ROPE_TYPES)}")
    max_pos = _get(config, "max_position_embeddings", "n_positions")
    original = params.get("original_max_position_embeddings",
                          _get(config, "original_max_position_embeddings", default=max_pos))
    scaling: dict[str, Any] | None
    if kind == "default":
        scaling = None
    elif kind == "linear":
        scaling = {"type": "linear", "factor": params["factor"]}
    elif kind == "dynamic":  # Hugging Face measures dynamic NTK against max_position_embeddings
        scaling = {"type": "dynamic", "factor": params["factor"], "original_max_len": max_pos}
    elif kind == "yarn":
        factor = params.get("factor") or max_pos / original
        scaling = {"type": "yarn", "factor": factor, "original_max_len": original}
        for key in ("beta_fast", "beta_slow", "mscale", "mscale_all_dim", "attention_factor", "truncate"):
            if params.get(key) is not None:
                scaling[key] = params[key]
    elif kind == "llama3":
        scaling = {"type": "llama3", "factor": params["factor"], "low_freq_factor": params["low_freq_factor"],
                   "high_freq_factor": params["high_freq_factor"], "original_max_len": original}
    else:  # longrope
        factor = params.get("factor") or max_pos / original
        scaling = {"type": "longrope", "factor": factor, "short_factor": list(params["short_factor"]),
                   "long_factor": list(params["long_factor"]), "original_max_len": original}
        if params.get("attention_factor") is not None:
            scaling["attention_factor"] = params["attention_factor"]
    model_type = _get(config, "model_type", default="")
    pairing = "interleaved" if model_type in _INTERLEAVED_MODELS else "half"
    return {"head_dim": int(head_dim), "base": float(base), "pairing": pairing, "rotary_dim": int(rotary_dim),
            "scaling": scaling}


def from_hf_config(config: Any) -> PositionalEncoding:
    """The encoding a Hugging Face config (a ``PretrainedConfig`` or its dict) describes.

    Example::

        >>> from transformers import LlamaConfig
        >>> import posenc
        >>> posenc.from_hf_config(LlamaConfig(hidden_size=64, num_attention_heads=4)).name
        'rope'
    """
    model_type = _get(config, "model_type", default="")
    heads = _get(config, "num_attention_heads", "n_head", "num_heads")
    if model_type == "bloom" or _get(config, "alibi", "use_alibi", default=False):
        return build("alibi", n_heads=int(heads))
    if model_type in ("t5", "mt5", "umt5", "longt5") or _get(config, "relative_attention_num_buckets") is not None:
        return build("t5", n_heads=int(heads), num_buckets=int(_get(config, "relative_attention_num_buckets")),
                     max_distance=int(_get(config, "relative_attention_max_distance", default=128)),
                     bidirectional=not bool(_get(config, "is_decoder", default=False)))
    if model_type in ("bert", "roberta", "gpt2", "distilbert", "electra", "opt") or (
            _get(config, "position_embedding_type") == "absolute"):
        max_pos = _get(config, "max_position_embeddings", "n_positions")
        hidden = _get(config, "hidden_size", "n_embd", "dim")
        return build("learned", dim=int(hidden), max_len=int(max_pos))
    if _get(config, "rope_parameters", "rope_scaling", "rope_theta", "rotary_emb_base", "rotary_pct",
            "rotary_dim") is not None:
        return build("rope", **rope_options_from_hf_config(config))
    raise PosencError(f"cannot tell the positional encoding of a config with model_type {model_type!r}: it has no "
                      f"rope_parameters / rope_theta, no ALiBi flag, no T5 buckets and no learned position table; "
                      f"build the encoding by name with posenc.build(...)")
