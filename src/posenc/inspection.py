"""``posenc inspect``: the encoding schedule posenc derives from a model's config, and the field's recurring mistakes.

:func:`inspect_model` reads a config (a ``config.json`` file, a model folder, a GGUF file, a hub id in the local cache,
or an offline default; no weights are loaded) and returns an :class:`Inspection`: the layer schedule
(:func:`posenc.hf_schedule.schedule_from_hf_config`) and a :class:`Finding` for each of these, where the config
triggers it:

``rope-theta``
    transformers 5 keeps the RoPE base only in ``rope_parameters`` (``config.rope_theta`` no longer exists), so code
    that reads ``config.rope_theta`` or ``rope_local_base_freq`` with a fallback silently runs the fallback (10000)
    when the base is another; a config whose top-level ``rope_theta`` contradicts ``rope_parameters``; a
    ``rope_parameters`` entry with no ``rope_theta`` (the base is then whatever default the reading code assumes).
``yarn-factor``
    YaRN's ``factor`` against ``original_max_position_embeddings``: missing (the original length is then taken to be
    ``max_position_embeddings``, wrong when that was already raised to the extended context), or a factor that is
    not ``max_position_embeddings / original_max_position_embeddings`` (transformers' own check, which it only logs).
``partial-rotary``
    Only part of each head rotates (``partial_rotary_factor``, ``rotary_pct``, ``rotary_dim``): transformers 5 moved
    the factor into ``rope_parameters`` too, so code that reads ``config.partial_rotary_factor`` rotates every
    channel; contradicting values; a ``rotary_dim`` this model type's code never reads; an odd rotary width.
``pairing``
    The model's code rotates adjacent channel pairs (GPT-J / Meta interleaved), or the GGUF file stores the q/k rows
    for interleaved pairing (llama.cpp's conversion permutes them; transformers' GGUF loader permutes them back):
    weights moved between half-pairing code (``rotate_half``) and interleaved code need their q/k rows permuted
    (:func:`posenc.encodings.rope.convert_qk_weights`).
``dynamic-cache``
    Dynamic NTK changes the frequencies with the sequence length, but a KV cache keeps the keys rotated with the
    frequencies of the length at which they were written (transformers #25306): cached decoding past the native
    length differs from a full pass.
``schedule``
    posenc cannot derive a schedule for this config (the reason).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from posenc.encodings.schedule import LayerSchedule
from posenc.errors import PosencError
from posenc.hf_config import INTERLEAVED_MODEL_TYPES
from posenc.hf_schedule import schedule_from_hf_config, text_config

__all__ = ["Finding", "Inspection", "inspect_model", "inspect_config", "FINDINGS"]

#: every kind of finding, in the order they are reported
FINDINGS = ("schedule", "rope-theta", "yarn-factor", "partial-rotary", "pairing", "dynamic-cache")
#: the base code falls back to when it finds none (transformers' and posenc's default)
DEFAULT_BASE = 10000.0
#: legacy top-level fields transformers 5 moves into ``rope_parameters``: field -> where it goes
_MOVED_BASES = {"rope_local_base_freq": "rope_parameters['sliding_attention']['rope_theta']",
                "global_rope_theta": "rope_parameters['full_attention']['rope_theta']",
                "local_rope_theta": "rope_parameters['sliding_attention']['rope_theta']"}
#: model types whose code reads an absolute ``rotary_dim`` (the others derive it from partial_rotary_factor)
_ROTARY_DIM_MODEL_TYPES = ("gptj", "codegen")
#: GGUF architectures whose q/k rows llama.cpp stores permuted for interleaved pairing (transformers reverses it)
_GGUF_PERMUTED = ("llama",)


@dataclass(frozen=True)
class Finding:
    """One thing to check: ``code`` (one of :data:`FINDINGS`) and a message that names the values and the fix."""

    code: str
    message: str


@dataclass
class Inspection:
    """What :func:`inspect_model` found: the source, the model type, the schedule (``None`` when posenc cannot
    derive one: a ``schedule`` finding says why) and the findings."""

    source: str
    model_type: str
    schedule: LayerSchedule | None
    findings: list[Finding] = field(default_factory=list)

    def rows(self) -> list[tuple[str, str]]:
        """``(layers, encoding and span)`` per distinct layer."""
        return [] if self.schedule is None else self.schedule.describe()

    def codes(self) -> list[str]:
        return [f.code for f in self.findings]


def _get(config: Any, name: str, default: Any = None) -> Any:
    try:
        value = config.get(name) if isinstance(config, dict) else getattr(config, name, None)
    except Exception:  # a field that differs per layer (Gemma 4) refuses to be read as one value: not read here
        value = None
    return default if value is None else value


def _has_attribute(config: Any, name: str) -> bool:
    """The config itself carries ``name`` (a dict key, or an attribute of a config object)."""
    if isinstance(config, dict):
        return name in config
    try:
        return hasattr(config, name)
    except Exception:  # hasattr lets only AttributeError through; a per-layer field raises its own error
        return True


def _entries(config: Any) -> dict[str | None, dict[str, Any]]:
    """The RoPE parameter entries: ``{layer_type: entry}`` for per-type parameters, else ``{None: entry}``."""
    params = _get(config, "rope_parameters") or _get(config, "rope_scaling") or {}
    if not isinstance(params, dict) or not params:
        return {}
    if all(isinstance(v, dict) for v in params.values()):
        return {k: dict(v) for k, v in params.items()}
    return {None: dict(params)}


def _where(layer_type: str | None) -> str:
    return "rope_parameters" if layer_type is None else f"rope_parameters[{layer_type!r}]"


def _is_rotary(config: Any) -> bool:
    return bool(_entries(config)) or any(_get(config, k) is not None for k in ("rope_theta", "rotary_pct",
                                                                                "rotary_dim", "rotary_emb_base"))


def _check_rope_theta(config: Any, raw: dict[str, Any] | None) -> list[Finding]:
    found = []
    entries = _entries(config)
    source = raw if raw is not None else config  # the config as written, where there is one
    raw_entries = _entries(source) if isinstance(source, dict) else {}
    raw_top = source.get("rope_theta") if isinstance(source, dict) else None
    for layer_type, entry in raw_entries.items():
        inner = entry.get("rope_theta")
        if raw_top is not None and inner is not None and float(raw_top) != float(inner):
            found.append(Finding("rope-theta", f"rope_theta is {float(raw_top):g} at the top level but "
                                               f"{float(inner):g} in {_where(layer_type)}: transformers 5 reads "
                                               f"rope_parameters, code that reads the top-level field gets "
                                               f"{float(raw_top):g}; make them equal"))
    for layer_type, entry in raw_entries.items():
        if entry.get("rope_theta") is None and raw_top is None and entry:
            filled = entries.get(layer_type, {}).get("rope_theta")
            found.append(Finding("rope-theta", f"{_where(layer_type)} in the config has no rope_theta: the base is "
                                               f"whatever default the reading code assumes (transformers fills in "
                                               f"{'nothing' if filled is None else f'{float(filled):g}'} for this "
                                               f"model type, other code usually {DEFAULT_BASE:g}); write the base "
                                               f"the model was trained with into the config"))
    if isinstance(source, dict):
        for name, target in _MOVED_BASES.items():
            if source.get(name) is not None:
                found.append(Finding("rope-theta", f"the config sets {name} = {float(source[name]):g}, which "
                                                   f"transformers 5 moves into {target}; code that reads "
                                                   f"config.{name} or config.rope_theta from a loaded config gets "
                                                   f"nothing there and falls back to its default, and code that reads "
                                                   f"only rope_theta gives every layer the global base"))
    if not _has_attribute(config, "rope_theta"):
        moved = [(t, float(e["rope_theta"])) for t, e in entries.items()
                 if e.get("rope_theta") is not None and float(e["rope_theta"]) != DEFAULT_BASE]
        if moved:
            values = ", ".join(f"{base:g} ({_where(t)})" for t, base in moved)
            found.append(Finding("rope-theta", f"the RoPE base is {values}, kept only in rope_parameters: "
                                               f"config.rope_theta does not exist in transformers 5, so code that "
                                               f"reads it with a fallback (getattr(config, 'rope_theta', "
                                               f"{DEFAULT_BASE:g})) runs base {DEFAULT_BASE:g}; read "
                                               f"config.rope_parameters['rope_theta'] (per layer type where it is "
                                               f"a dict of dicts)"))
    return found


def _check_yarn(config: Any, raw: dict[str, Any] | None) -> list[Finding]:
    found = []
    max_pos = _get(config, "max_position_embeddings")
    source = raw if raw is not None else config
    raw_entries = _entries(source)
    for layer_type, entry in _entries(config).items():
        if entry.get("rope_type", entry.get("type")) != "yarn":
            continue
        written = raw_entries.get(layer_type, entry)
        original = written.get("original_max_position_embeddings", _get(source, "original_max_position_embeddings"))
        factor = entry.get("factor")
        if original is None:
            found.append(Finding("yarn-factor", f"{_where(layer_type)} is YaRN (factor {factor}) without "
                                                f"original_max_position_embeddings: the original length is then "
                                                f"taken to be max_position_embeddings ({max_pos}), which is wrong if "
                                                f"that was raised to the extended context (the ramp between "
                                                f"interpolated and kept frequencies moves by the factor); set "
                                                f"original_max_position_embeddings to the pre-training length"))
            continue
        if max_pos and factor:
            implicit = float(max_pos) / float(original)
            if implicit != 1 and not math.isclose(implicit, float(factor), rel_tol=1e-9):
                found.append(Finding("yarn-factor", f"{_where(layer_type)} is YaRN with factor {float(factor):g}, "
                                                    f"but max_position_embeddings / original_max_position_embeddings"
                                                    f" = {max_pos} / {original} = {implicit:g}: one of the three is "
                                                    f"not what the model was extended with (transformers uses the "
                                                    f"explicit factor and only logs this); make factor x original "
                                                    f"= max_position_embeddings"))
    return found


def _head_dim(config: Any) -> int | None:
    head_dim = _get(config, "head_dim")
    hidden, heads = _get(config, "hidden_size") or _get(config, "n_embd"), \
        _get(config, "num_attention_heads") or _get(config, "n_head")
    if head_dim is None and hidden and heads:
        head_dim = int(hidden) // int(heads)
    return None if head_dim is None else int(head_dim)


def _check_partial(config: Any, raw: dict[str, Any] | None) -> list[Finding]:
    found = []
    model_type = _get(config, "model_type", "")
    head_dim = _head_dim(config)
    source = raw if raw is not None else config
    top = _get(source, "partial_rotary_factor", _get(source, "rotary_pct"))
    factors = {}
    for layer_type, entry in _entries(config).items():
        if entry.get("rope_type") == "proportional":
            continue  # Gemma 4: the factor zeroes frequencies, every channel still turns
        factor = entry.get("partial_rotary_factor", _get(config, "partial_rotary_factor", _get(config, "rotary_pct")))
        if factor is not None:
            factors[layer_type] = float(factor)
        if top is not None and entry.get("partial_rotary_factor") is not None \
                and float(entry["partial_rotary_factor"]) != float(top):
            found.append(Finding("partial-rotary", f"partial_rotary_factor is {float(top):g} at the top level but "
                                                   f"{float(entry['partial_rotary_factor']):g} in "
                                                   f"{_where(layer_type)}; transformers 5 reads rope_parameters"))
    if not factors and top is not None:
        factors[None] = float(top)
    rotary_dim = _get(config, "rotary_dim")
    if model_type in _ROTARY_DIM_MODEL_TYPES and rotary_dim and head_dim:
        factors = {None: int(rotary_dim) / head_dim}
    elif rotary_dim and head_dim and model_type:
        derived = int(head_dim * next(iter(factors.values()), 1.0))
        if int(rotary_dim) != derived:
            found.append(Finding("partial-rotary", f"the config sets rotary_dim = {rotary_dim}, which "
                                                   f"{model_type}'s code never reads: it rotates {derived} channels "
                                                   f"(head_dim {head_dim} x partial_rotary_factor); code that reads "
                                                   f"rotary_dim rotates another part of the head"))
    for layer_type, factor in factors.items():
        if factor >= 1 or head_dim is None:
            continue
        width = int(head_dim * factor)
        where = "" if layer_type is None else f" on {layer_type} layers"
        found.append(Finding("partial-rotary", f"only {width} of the {head_dim} channels of each head rotate"
                                               f"{where} (partial rotary factor {factor:g}); transformers 5 keeps the "
                                               f"factor in rope_parameters, so code that reads "
                                               f"config.partial_rotary_factor (or ignores it) rotates all {head_dim} "
                                               f"and changes every attention logit"))
        if width % 2:
            found.append(Finding("partial-rotary", f"the rotary width head_dim x factor = {head_dim} x {factor:g} "
                                                   f"= {width} is odd: RoPE turns pairs of channels, and code "
                                                   f"differs on what to do with the odd one"))
    return found


def _check_pairing(config: Any, schedule: LayerSchedule | None, gguf_arch: str | None) -> list[Finding]:
    found = []
    if gguf_arch in _GGUF_PERMUTED:
        found.append(Finding("pairing", f"this GGUF file ({gguf_arch}) stores the q and k projection rows permuted "
                                        f"for interleaved pairing (llama.cpp's conversion); transformers' GGUF "
                                        f"loader permutes them back to half pairing. Code that reads the GGUF "
                                        f"tensors into half-pairing attention (rotate_half) must permute them too: "
                                        f"posenc.encodings.rope.convert_qk_weights(w, n_heads, head_dim, "
                                        f"source='interleaved', target='half')"))
    pairings = set()
    if schedule is not None:
        pairings = {getattr(x.encoding, "pairing", None) for x in schedule if not isinstance(x.encoding, str)}
    flag = _get(config, "rope_interleave")
    model_type = _get(config, "model_type", "")
    if "interleaved" in pairings or flag or model_type in INTERLEAVED_MODEL_TYPES:
        why = "its config sets rope_interleave" if flag else f"{model_type}'s code in transformers does so"
        found.append(Finding("pairing", f"this model rotates adjacent channel pairs (2i, 2i+1), interleaved "
                                        f"(GPT-J / Meta), since {why}; weights or code written for half pairing "
                                        f"(rotate_half: i with i + R/2) need the q/k rows permuted "
                                        f"(posenc.encodings.rope.convert_qk_weights, source='interleaved', "
                                        f"target='half'), or every logit changes"))
    return found


def _check_dynamic(config: Any) -> list[Finding]:
    found = []
    for layer_type, entry in _entries(config).items():
        if entry.get("rope_type", entry.get("type")) == "dynamic":
            found.append(Finding("dynamic-cache", f"{_where(layer_type)} is dynamic NTK: its frequencies change "
                                                  f"with the sequence length past "
                                                  f"{_get(config, 'max_position_embeddings')} tokens, but a KV cache "
                                                  f"keeps keys rotated with the frequencies of the length at which "
                                                  f"they were written (transformers #25306), so cached decoding "
                                                  f"differs from a full pass; fix the length the scaling is taken at "
                                                  f"(posenc.extend.FixedLengthRope) or use a fixed scaling (yarn)"))
    return found


def inspect_config(config: Any, raw: dict[str, Any] | None = None, source: str = "config",
                   gguf_arch: str | None = None) -> Inspection:
    """Inspect a config: ``config`` is a transformers config (or its dict), ``raw`` the config as written
    (``config.json``'s dict) when there is one, ``gguf_arch`` the GGUF architecture when it came from a GGUF file."""
    config = text_config(config)
    if isinstance(raw, dict) and raw.get("text_config") is not None:
        raw = raw["text_config"]
    model_type = _get(config, "model_type", "") or ""
    findings: list[Finding] = []
    schedule = None
    try:
        schedule = schedule_from_hf_config(config)
    except PosencError as exc:
        findings.append(Finding("schedule", f"posenc cannot derive this model's schedule: {exc}"))
    if _is_rotary(config):
        findings += _check_rope_theta(config, raw)
        findings += _check_yarn(config, raw)
        findings += _check_partial(config, raw)
        findings += _check_pairing(config, schedule, gguf_arch)
        findings += _check_dynamic(config)
    return Inspection(source, model_type, schedule, findings)


def _load_config_file(path: Path) -> tuple[Any, dict[str, Any]]:
    import transformers

    try:
        raw = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise PosencError(f"cannot read {path} as a JSON config ({exc}); pass a Hugging Face config.json") from exc
    if not isinstance(raw, dict) or "model_type" not in raw:
        raise PosencError(f"{path} has no model_type, so it is not a Hugging Face config; pass a config.json with "
                          f"model_type (or the model's folder)")
    try:
        fields = json.loads(json.dumps(raw))  # transformers fills in nested dicts in place; raw stays as written
        config = transformers.AutoConfig.for_model(fields.pop("model_type"), **fields)
    except (ValueError, KeyError, TypeError) as exc:
        raise PosencError(f"transformers cannot build a config from {path} ({str(exc).splitlines()[0]}); "
                          f"check its model_type ({raw['model_type']!r}) and fields") from exc
    return config, raw


def inspect_model(spec: str | Path) -> Inspection:
    """Inspect a model's config: ``spec`` is a ``config.json`` file, a model folder, a ``.gguf`` file, a hub id in
    the local cache or an offline default (``smollm2``, ``minilm``); no weights are read."""
    from posenc.pretrained import gguf_architecture, model_config, smollm2_gguf_path

    path = Path(str(spec)).expanduser()
    if path.suffix.lower() == ".json":
        if not path.is_file():
            raise PosencError(f"config file {path} does not exist; pass an existing config.json, a model folder, "
                              f"a .gguf file or a hub id")
        config, raw = _load_config_file(path)
        return inspect_config(config, raw, str(path))
    config = model_config(str(spec))  # refuses what is neither a default, a folder, a GGUF file nor a hub id
    raw, arch = None, None
    if path.is_dir() and (path / "config.json").is_file():
        raw = json.loads((path / "config.json").read_text())
    elif path.suffix.lower() == ".gguf":
        arch = gguf_architecture(path)
    elif str(spec).strip().lower() == "smollm2":
        arch = gguf_architecture(smollm2_gguf_path())
    return inspect_config(config, raw, str(spec), gguf_arch=arch)
