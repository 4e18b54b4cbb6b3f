"""``posenc inspect``: the encoding schedule posenc derives from a model's config, and the field's recurring mistakes.

:func:`inspect_model` reads a config (a ``config.json`` file, a model folder, a GGUF file, a hub id in the local cache,
or an offline default; no weights are loaded) and returns an :class:`Inspection`: the layer schedule
(:func:`posenc.hf.schedule.schedule_from_hf_config`) and a :class:`Finding` for each of these, where the config
triggers it:

``rope-theta``
    transformers 5 keeps the RoPE base only in ``rope_parameters`` (``config.rope_theta`` no longer exists), so code
    that reads ``config.rope_theta`` or ``rope_local_base_freq`` with a fallback silently runs the fallback (10000)
    when the base is another; a config whose top-level ``rope_theta`` contradicts ``rope_parameters``; a
    ``rope_parameters`` entry with no ``rope_theta`` (the base is then whatever default the reading code assumes).
``yarn-factor``
    YaRN's ``factor`` (a fixed stretch of an original length) against ``original_max_position_embeddings``: missing
    (the original length is then taken to be ``max_position_embeddings``, wrong when that was already raised to the
    extended context), or a factor that is not ``max_position_embeddings / original_max_position_embeddings``
    (transformers' own check, which it only logs).
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
    A length-dependent scaling (dynamic NTK; LongRoPE, whose factors switch past the original length) changes the
    frequencies with the sequence length, but a KV cache keeps the keys rotated with the frequencies of the length at
    which they were written (transformers #25306): cached decoding past the native length differs from a full pass.

What a rope type means is asked of its :class:`~posenc.encodings.rope_scaling.Scaling` record
(:func:`posenc.hf.config.scaling_named`), never of its name: ``yarn-factor`` checks a scaling with a fixed factor of
an original length (YaRN), ``dynamic-cache`` a length-dependent one, and ``partial-rotary`` skips a whole-head one
(Gemma 4's proportional RoPE), so a new scaling is judged by its record's flags.
``schedule``
    posenc cannot derive a schedule for this well-formed config (the reason).

A field whose value does not fit what it holds (read through :mod:`posenc.hf.fields`: a string for a number, a
per-layer list of the wrong length, a count of 0) is not a finding: :func:`inspect_model` and :func:`inspect_config`
raise :class:`~posenc.hf.fields.ConfigFieldError` naming it, and ``posenc inspect`` exits with status 2.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from posenc.encodings.rope_scaling import Scaling
from posenc.encodings.schedule import Layer, LayerSchedule
from posenc.errors import PosencError
from posenc.hf.config import interleaved_by_code, scaling_named
from posenc.hf.fields import (
    ROTARY_DIM_MODEL_TYPES,
    ConfigFieldError,
    ConfigFields,
    check_written,
    config_from_dict,
    read_config_json,
)
from posenc.hf.schedule import schedule_from_hf_config
from posenc.registry import get_class

__all__ = ["Finding", "Inspection", "inspect_model", "inspect_config", "FINDINGS"]

#: every kind of finding, in the order they are reported
FINDINGS = ("schedule", "rope-theta", "yarn-factor", "partial-rotary", "pairing", "dynamic-cache")
#: the base code falls back to when it finds none (transformers' and posenc's default)
DEFAULT_BASE = 10000.0
#: legacy top-level fields transformers 5 moves into ``rope_parameters``: field -> where it goes
_MOVED_BASES = {"rope_local_base_freq": "rope_parameters['sliding_attention']['rope_theta']",
                "global_rope_theta": "rope_parameters['full_attention']['rope_theta']",
                "local_rope_theta": "rope_parameters['sliding_attention']['rope_theta']"}
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
        """``(layers, encoding and span)`` per distinct layer; a layer whose encoding only scales queries (Llama 4's
        attention temperature on its NoPE layers) is named ``nope + temperature(...)``."""
        if self.schedule is None:
            return []
        by_text = {layer.describe(): layer for layer in self.schedule}
        return [(layers, _named(by_text[text], text)) for layers, text in self.schedule.describe()]

    def codes(self) -> list[str]:
        return [f.code for f in self.findings]


def _named(layer: Layer, text: str) -> str:
    """A layer's line, saying what a layer with no positional encoding but a query scale is."""
    info = get_class(layer.name).info
    if info.scales_queries and not (info.rotates_qk or info.acts_on_input or info.biases_logits):
        return f"nope + {text} (no positional encoding, with attention temperature)"
    return text


def _read(fields: ConfigFields | None, *names: str, default: Any = None) -> Any:
    """A checked field (a value that does not fit raises :class:`ConfigFieldError`); ``default`` for a field that
    cannot be read as one value (Gemma 4's per-layer fields: the schedule finding says so)."""
    if fields is None:
        return default
    try:
        return fields.get(*names, default=default)
    except ConfigFieldError:
        raise
    except PosencError:
        return default


def _entries(fields: ConfigFields | None) -> dict[str | None, dict[str, Any]]:
    """The RoPE parameter entries: ``{layer_type: entry}`` for per-type parameters, else ``{None: entry}``."""
    if fields is None:
        return {}
    try:
        return {t: e.entry_dict() for t, e in fields.rope_entries().items() if e.config}
    except ConfigFieldError:
        raise
    except PosencError:
        return {}


def _where(layer_type: str | None) -> str:
    return "rope_parameters" if layer_type is None else f"rope_parameters[{layer_type!r}]"


def _is_rotary(fields: ConfigFields) -> bool:
    return bool(_entries(fields)) or any(_read(fields, k) is not None for k in ("rope_theta", "rotary_pct",
                                                                               "rotary_dim", "rotary_emb_base"))


def _filled_bases(entries: dict[str | None, dict[str, Any]], layer_type: str | None = None) -> str:
    """The bases transformers filled into ``entries`` (:func:`_entries` of the loaded config): ``layer_type``'s own
    where it has one; else, for a flat entry (``None``), each layer type's, as ``"1e+06 (full_attention), 10000
    (sliding_attention)"`` (a model with several layer types fills a flat entry in per type); ``""`` for none."""
    own = entries.get(layer_type, {}).get("rope_theta")
    if own is not None:
        return f"{float(own):g}"
    if layer_type is not None:
        return ""
    return ", ".join(f"{float(e['rope_theta']):g}" + ("" if t is None else f" ({t})")
                     for t, e in entries.items() if e.get("rope_theta") is not None)


def _check_rope_theta(fields: ConfigFields, written: ConfigFields | None) -> list[Finding]:
    found = []
    entries = _entries(fields)
    raw_entries = _entries(written)
    raw_top = _read(written, "rope_theta")
    for layer_type, entry in raw_entries.items():
        inner = entry.get("rope_theta")
        if raw_top is not None and inner is not None and float(raw_top) != float(inner):
            found.append(Finding("rope-theta", f"rope_theta is {float(raw_top):g} at the top level but "
                                               f"{float(inner):g} in {_where(layer_type)}: transformers 5 reads "
                                               f"rope_parameters, code that reads the top-level field gets "
                                               f"{float(raw_top):g}; make them equal"))
    for layer_type, entry in raw_entries.items():
        if entry.get("rope_theta") is None and raw_top is None and entry:
            found.append(Finding("rope-theta", f"{_where(layer_type)} in the config has no rope_theta: the base is "
                                               f"whatever default the reading code assumes (transformers fills in "
                                               f"{_filled_bases(entries, layer_type) or 'nothing'} for this model "
                                               f"type, other code usually {DEFAULT_BASE:g}); write the base the "
                                               f"model was trained with into the config"))
    if written is not None and not raw_entries and raw_top is None and _read(written, "rotary_emb_base") is None:
        filled = _filled_bases(entries)
        found.append(Finding("rope-theta", f"the config has no rope_theta (and no rope_parameters): the RoPE base is "
                                           f"a default, {filled or 'none'} as transformers fills it in for model "
                                           f"type {fields.model_type or '(none)'!r}, {DEFAULT_BASE:g} in most other "
                                           f"code; write the base the model was trained with into the config"))
    if written is not None:
        for name, target in _MOVED_BASES.items():
            value = written.value(name)
            if value is not None:
                if isinstance(value, int | float) and not isinstance(value, bool):
                    value = f"{float(value):g}"
                found.append(Finding("rope-theta", f"the config sets {name} = {value}, which "
                                                   f"transformers 5 moves into {target}; code that reads "
                                                   f"config.{name} or config.rope_theta from a loaded config gets "
                                                   f"nothing there and falls back to its default, and code that reads "
                                                   f"only rope_theta gives every layer the global base"))
    if not fields.written("rope_theta"):
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


def _check_yarn(fields: ConfigFields, written: ConfigFields | None) -> list[Finding]:
    found = []
    max_pos = _read(fields, "max_position_embeddings")
    source = written if written is not None else fields
    raw_entries = _entries(source)
    for layer_type, entry in _entries(fields).items():
        scaling = scaling_named(entry)
        if scaling is None or not _stretches_an_original_length(scaling):
            continue
        entry_written = raw_entries.get(layer_type, entry)
        original = entry_written.get("original_max_position_embeddings",
                                     _read(source, "original_max_position_embeddings"))
        factor = entry.get("factor")
        if original is None:
            found.append(Finding("yarn-factor", f"{_where(layer_type)} is {scaling.name} (factor {factor}) without "
                                                f"original_max_position_embeddings: the original length is then "
                                                f"taken to be max_position_embeddings ({max_pos}), which is wrong if "
                                                f"that was raised to the extended context (the ramp between "
                                                f"interpolated and kept frequencies moves by the factor); set "
                                                f"original_max_position_embeddings to the pre-training length"))
            continue
        if max_pos and factor:
            implicit = float(max_pos) / float(original)
            if implicit != 1 and not math.isclose(implicit, float(factor), rel_tol=1e-9):
                found.append(Finding("yarn-factor", f"{_where(layer_type)} is {scaling.name} with factor "
                                                    f"{float(factor):g}, "
                                                    f"but max_position_embeddings / original_max_position_embeddings"
                                                    f" = {max_pos} / {original} = {implicit:g}: one of the three is "
                                                    f"not what the model was extended with (transformers uses the "
                                                    f"explicit factor and only logs this); make factor x original "
                                                    f"= max_position_embeddings"))
    return found


def _stretches_an_original_length(scaling: Scaling) -> bool:
    """A scaling whose fixed factor stretches the length the model was trained at (YaRN): its factor should be
    ``max_position_embeddings / original_max_position_embeddings``. A length-dependent one (dynamic NTK) has no fixed
    stretch, and one without an original length (linear) nothing to check it against."""
    return scaling.needs_factor and scaling.needs_original and not scaling.length_dependent


def _head_dim(fields: ConfigFields) -> int | None:
    head_dim = _read(fields, "head_dim")
    hidden, heads = _read(fields, "hidden_size", "n_embd"), _read(fields, "num_attention_heads", "n_head")
    if head_dim is None and hidden and heads:
        head_dim = hidden // heads
    return head_dim


def _check_partial(fields: ConfigFields, written: ConfigFields | None) -> list[Finding]:
    found = []
    model_type = fields.model_type
    head_dim = _head_dim(fields)
    top = _read(written if written is not None else fields, "partial_rotary_factor", "rotary_pct")
    factors = {}
    for layer_type, entry in _entries(fields).items():
        scaling = scaling_named(entry)
        if scaling is not None and scaling.whole_head:
            continue  # Gemma 4's proportional RoPE: the factor zeroes frequencies, every channel still turns
        factor = entry.get("partial_rotary_factor", _read(fields, "partial_rotary_factor", "rotary_pct"))
        if factor is not None:
            factors[layer_type] = float(factor)
        if top is not None and entry.get("partial_rotary_factor") is not None \
                and float(entry["partial_rotary_factor"]) != float(top):
            found.append(Finding("partial-rotary", f"partial_rotary_factor is {float(top):g} at the top level but "
                                                   f"{float(entry['partial_rotary_factor']):g} in "
                                                   f"{_where(layer_type)}; transformers 5 reads rope_parameters"))
    if not factors and top is not None:
        factors[None] = float(top)
    rotary_dim = _read(fields, "rotary_dim")
    if (model_type in ROTARY_DIM_MODEL_TYPES or not model_type) and rotary_dim and head_dim:
        factors = {None: rotary_dim / head_dim}
    elif rotary_dim and head_dim and model_type:
        derived = int(head_dim * next(iter(factors.values()), 1.0))
        if rotary_dim != derived:
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


def _check_pairing(fields: ConfigFields, schedule: LayerSchedule | None, gguf_arch: str | None) -> list[Finding]:
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
    flag = _read(fields, "rope_interleave")
    model_type = fields.model_type
    if "interleaved" in pairings or flag or interleaved_by_code(model_type):
        why = "its config sets rope_interleave" if flag else f"{model_type}'s code in transformers does so"
        found.append(Finding("pairing", f"this model rotates adjacent channel pairs (2i, 2i+1), interleaved "
                                        f"(GPT-J / Meta), since {why}; weights or code written for half pairing "
                                        f"(rotate_half: i with i + R/2) need the q/k rows permuted "
                                        f"(posenc.encodings.rope.convert_qk_weights, source='interleaved', "
                                        f"target='half'), or every logit changes"))
    return found


def _check_dynamic(fields: ConfigFields) -> list[Finding]:
    found = []
    for layer_type, entry in _entries(fields).items():
        scaling = scaling_named(entry)
        if scaling is not None and scaling.length_dependent:
            found.append(Finding("dynamic-cache", f"{_where(layer_type)} is {scaling.name}: its frequencies change "
                                                  f"with the sequence length past "
                                                  f"{_read(fields, 'max_position_embeddings')} tokens, but a KV cache "
                                                  f"keeps keys rotated with the frequencies of the length at which "
                                                  f"they were written (transformers #25306), so cached decoding "
                                                  f"differs from a full pass; fix the length the scaling is taken at "
                                                  f"(posenc.extend.FixedLengthRope) or use a fixed scaling (yarn)"))
    return found


def inspect_config(config: Any, raw: dict[str, Any] | None = None, source: str = "config",
                   gguf_arch: str | None = None) -> Inspection:
    """Inspect a config: ``config`` is a transformers config (or its dict), ``raw`` the config as written
    (``config.json``'s dict) when there is one, ``gguf_arch`` the GGUF architecture when it came from a GGUF file.

    A field that does not fit what it holds (a string for a number, a list of the wrong length, a count of 0) raises
    :class:`~posenc.hf.fields.ConfigFieldError` naming it (``posenc inspect`` exits with status 2); what posenc
    cannot schedule in a well-formed config is a ``schedule`` finding."""
    written = ConfigFields(raw).text_model() if raw is not None else None
    if written is not None:
        check_written(raw)
    elif isinstance(config, Mapping):
        check_written(config)
        written = ConfigFields(config).text_model()
    fields = ConfigFields(config).text_model()
    findings: list[Finding] = []
    schedule = None
    try:
        schedule = schedule_from_hf_config(fields.config)
    except ConfigFieldError:
        raise
    except PosencError as exc:
        findings.append(Finding("schedule", f"posenc cannot derive this model's schedule: {exc}"))
    if _is_rotary(fields):
        findings += _check_rope_theta(fields, written)
        findings += _check_yarn(fields, written)
        findings += _check_partial(fields, written)
        findings += _check_pairing(fields, schedule, gguf_arch)
        findings += _check_dynamic(fields)
    return Inspection(source, _read(fields, "model_type", default="") or "", schedule, findings)


def inspect_model(spec: str | Path) -> Inspection:
    """Inspect a model's config: ``spec`` is a ``config.json`` file, a model folder, a ``.gguf`` file, a hub id in
    the local cache or an offline default (``smollm2``, ``minilm``); no weights are read."""
    from posenc.pretrained import gguf_architecture, model_config, smollm2_gguf_path

    path = Path(str(spec)).expanduser()
    if path.suffix.lower() == ".json":
        if not path.is_file():
            raise PosencError(f"config file {path} does not exist; pass an existing config.json, a model folder, "
                              f"a .gguf file or a hub id")
        raw = read_config_json(path)
        return inspect_config(config_from_dict(raw, str(path)), raw, str(path))
    config = model_config(str(spec))  # refuses what is neither a default, a folder, a GGUF file nor a hub id
    raw, arch = None, None
    if path.is_dir() and (path / "config.json").is_file():
        raw = read_config_json(path / "config.json")
    elif path.suffix.lower() == ".gguf":
        arch = gguf_architecture(path)
    elif str(spec).strip().lower() == "smollm2":
        arch = gguf_architecture(smollm2_gguf_path())
    return inspect_config(config, raw, str(spec), gguf_arch=arch)
