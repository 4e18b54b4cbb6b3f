"""One reading of a Hugging Face model's configuration, field by field, each field checked before anything is built.

posenc reads a model's config (a transformers ``PretrainedConfig``, or a plain dict such as a ``config.json``) in
several places: :func:`posenc.from_hf_config`, :func:`posenc.schedule_from_hf_config`, ``posenc inspect``, the memory
estimate of ``posenc extend``. They all read it here, through :class:`ConfigFields`: every field has one record in
:data:`FIELDS` (or :data:`ROPE_FIELDS` for a field of a ``rope_parameters`` entry) saying its kind, its range and what
it means, and a value that does not fit is refused with a :class:`ConfigFieldError` that names the field as
``config.json`` spells it, the value, what was expected and the fix::

    config.json field "no_rope_layer_interval" = 0: expected an integer >= 1 (every that many-th layer has no RoPE);
    fix: set it to e.g. 4 (SmolLM3), or leave the field out

The kinds: an integer (not a bool, not a string such as ``"64"``; a float only when it is whole, ``64.0``), a finite
number, a flag (``true`` or ``false``: the string ``"false"`` is refused, it would read as true), a string, a list
(element kind checked, and a per-layer list's length against ``num_hidden_layers``) and an object (a dict).

Both schemas of transformers are read: the RoPE parameters in ``rope_parameters`` (transformers 5) or ``rope_scaling``
with a top-level ``rope_theta`` (earlier), as one entry or one entry per layer type (``{"full_attention": {...},
"sliding_attention": {...}}``, :meth:`ConfigFields.rope_entries`); a multimodal config's language model is read
through its ``text_config`` (:meth:`ConfigFields.text_model`), and its fields are then named ``text_config.<field>``.

A ``config.json`` becomes a transformers config through :func:`config_from_dict` (and a folder's through
:func:`transformers_errors` around transformers' own loading): posenc's checks run first, then transformers' own
validation, whose errors (strict-dataclass field and class validation errors, ``TypeError``, ``ValueError``,
``ZeroDivisionError``) are said in posenc's words, naming the field. :data:`MAX_LAYERS` bounds the layer count before
transformers or posenc build anything per layer.

Example::

    >>> from posenc.hf.fields import ConfigFields
    >>> ConfigFields({"model_type": "llama", "num_hidden_layers": 4}).layer_count()
    4
    >>> ConfigFields({"head_dim": "64"}).get("head_dim")
    Traceback (most recent call last):
    ...
    posenc.hf.fields.ConfigFieldError: config.json field "head_dim" = "64" (a string): expected an integer >= 1 (the width of each attention head); fix: write 64 without quotes
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from posenc.errors import PosencError

__all__ = ["ConfigFieldError", "ConfigFields", "FieldSpec", "FIELDS", "ROPE_FIELDS", "MAX_LAYERS",
           "ROTARY_DIM_MODEL_TYPES", "config_from_dict", "read_config_json", "transformers_errors", "check_written"]

#: the most layers a config may declare. The deepest published transformers have a few hundred; posenc (one
#: ``Layer`` per layer) and transformers (``layer_types`` and other per-layer lists, filled in when the config is
#: built) do work per layer, so a count such as ``1e9`` (a typo) would run for minutes before failing anywhere else
MAX_LAYERS = 10_000

#: model types whose modeling code reads an absolute ``rotary_dim`` from the config (the others derive the rotary
#: width from ``partial_rotary_factor`` and ignore the field); a plain dict without a model type is read as they are
ROTARY_DIM_MODEL_TYPES = frozenset({"gptj", "codegen"})


class ConfigFieldError(PosencError):
    """A field of a model's configuration whose value does not fit what the field holds (its type, its range, a
    list's length against the layer count): the config is malformed. The message names the field as
    ``config.json`` spells it, the value, what was expected and the fix. A :class:`~posenc.errors.PosencError` (a
    ``ValueError``); a field that is missing, or a well-formed config posenc cannot reproduce, raises a plain
    :class:`~posenc.errors.PosencError`."""


@dataclass(frozen=True)
class FieldSpec:
    """What one config field holds.

    Attributes:
        kind: ``"int"``, ``"number"``, ``"flag"``, ``"text"``, ``"list"`` or ``"dict"``.
        what: what the field means, for messages.
        low, high: the range (inclusive; ``above``: ``low`` itself excluded). ``None``: unbounded.
        element: a list's element kind (``"int"``, ``"number"``, ``"text"``, or ``"flag01"``: 0 / 1 or a boolean).
        per_layer: a list with one entry per layer (its length is checked against ``num_hidden_layers``).
        example: a valid value, for the fix.
    """

    kind: str
    what: str
    low: float | None = None
    high: float | None = None
    above: bool = False
    element: str | None = None
    per_layer: bool = False
    example: str = ""


def _int(what: str, low: int = 1, high: int | None = None, example: str = "") -> FieldSpec:
    return FieldSpec("int", what, low, high, example=example)


def _ints(what: str, low: int = 1, high: int | None = None, /, **examples: str) -> dict[str, FieldSpec]:
    """One integer that configs name in several ways: ``{name: its spec}``, each name with its own example."""
    return {name: _int(what, low, high, example) for name, example in examples.items()}


def _number(what: str, low: float | None = None, high: float | None = None, above: bool = False,
            example: str = "") -> FieldSpec:
    return FieldSpec("number", what, low, high, above, example=example)


def _flag(what: str) -> FieldSpec:
    return FieldSpec("flag", what, example="true or false")


#: the top-level fields posenc reads, by the name ``config.json`` gives them
FIELDS: dict[str, FieldSpec] = {
    "model_type": FieldSpec("text", "the model's type", example='"llama"'),
    **_ints("the number of layers", 1, MAX_LAYERS, num_hidden_layers="32", n_layer="12", num_layers="12"),
    **_ints("the model width", hidden_size="4096", n_embd="768", d_model="768", dim="768", embed_dim="1280"),
    **_ints("the number of attention heads", num_attention_heads="32", n_head="12", num_heads="12"),
    "num_key_value_heads": _int("the number of key/value heads", example="8"),
    "head_dim": _int("the width of each attention head; 0 where the model derives it", 0, example="128"),
    "intermediate_size": _int("the width of the MLP", example="11008"),
    "vocab_size": _int("the vocabulary size", example="32000"),
    **_ints("the context length", max_position_embeddings="4096", n_positions="1024", n_ctx="2048"),
    "original_max_position_embeddings": _int("the pre-training context length", example="4096"),
    "rope_theta": _number("the RoPE base", 1, above=True, example="10000.0"),
    "rotary_emb_base": _number("the RoPE base", 1, above=True, example="10000.0"),
    "partial_rotary_factor": _number("the fraction of each head that rotates", 0, 1, example="0.5"),
    "rotary_pct": _number("the fraction of each head that rotates", 0, 1, example="0.25"),
    "rotary_dim": _int("the number of rotary channels of each head", example="64"),
    "rope_interleave": _flag("whether adjacent channel pairs rotate (interleaved pairing)"),
    "rope_parameters": FieldSpec("dict", "the RoPE parameters",
                                 example='{"rope_type": "default", "rope_theta": 10000.0}'),
    "rope_scaling": FieldSpec("dict", "the RoPE scaling", example='{"rope_type": "linear", "factor": 2.0}'),
    "text_config": FieldSpec("dict", "the language model's config", example='{"model_type": "...", ...}'),
    "layer_types": FieldSpec("list", "each layer's attention type", element="text", per_layer=True,
                             example='["sliding_attention", "full_attention"]'),
    "no_rope_layers": FieldSpec("list", "1 where the layer rotates, 0 where it has no RoPE", element="flag01",
                                per_layer=True, example="[1, 1, 1, 0]"),
    "no_rope_layer_interval": _int("every that many-th layer has no RoPE", example="4 (SmolLM3)"),
    "sliding_window": _int("the keys a sliding-window layer sees; 0 or null where the window is off", 0,
                           example="4096"),
    "use_sliding_window": _flag("whether the sliding window is on"),
    "max_window_layers": _int("the layer count that splits full from sliding-window layers (Qwen2: layers from it "
                              "on slide)", 0, example="28 (Qwen2)"),
    "attention_chunk_size": _int("the tokens of each attention chunk", example="8192 (Llama 4)"),
    "attn_temperature_tuning": _flag("whether NoPE layers scale queries by position"),
    "attn_scale": _number("how fast the attention temperature grows", 0, example="0.1 (Llama 4)"),
    "floor_scale": _int("the positions per step of the attention temperature", example="8192 (Llama 4)"),
    "use_qk_norm": _flag("whether queries and keys are normalised after rotating"),
    "rms_norm_eps": _number("the epsilon of the RMS norm", 0, example="1e-05"),
    "alibi": _flag("whether the model uses ALiBi"),
    "use_alibi": _flag("whether the model uses ALiBi"),
    "relative_attention_num_buckets": _int("the T5 bias's buckets", 4, example="32"),
    "relative_attention_max_distance": _int("the T5 bias's largest distance", example="128"),
    "is_decoder": _flag("whether the model is a decoder"),
    "tie_word_embeddings": _flag("whether the output layer shares the embedding's weights"),
    "position_embedding_type": FieldSpec("text", "the kind of position embedding", example='"absolute"'),
}

#: the fields of one ``rope_parameters`` / ``rope_scaling`` entry posenc reads (the scalings' own parameters are
#: checked further by their functions, :mod:`posenc.encodings.rope_scaling`)
ROPE_FIELDS: dict[str, FieldSpec] = {
    "rope_type": FieldSpec("text", "the RoPE scaling's type", example='"default"'),
    "type": FieldSpec("text", "the RoPE scaling's type", example='"linear"'),
    "rope_theta": FIELDS["rope_theta"],
    "partial_rotary_factor": FIELDS["partial_rotary_factor"],
    "original_max_position_embeddings": FIELDS["original_max_position_embeddings"],
    "factor": _number("the scaling factor", 0, above=True, example="2.0"),
    "attention_factor": _number("the attention factor", 0, example="1.0"),
    "beta_fast": _number("YaRN's beta_fast", example="32.0"),
    "beta_slow": _number("YaRN's beta_slow", example="1.0"),
    "low_freq_factor": _number("Llama 3's low_freq_factor", 0, above=True, example="1.0"),
    "high_freq_factor": _number("Llama 3's high_freq_factor", 0, above=True, example="4.0"),
    "mscale": _number("YaRN's mscale", example="1.0"),
    "mscale_all_dim": _number("YaRN's mscale_all_dim", example="1.0"),
    "mrope_section": FieldSpec("list", "the rotary pairs of each M-RoPE axis (temporal, height, width)",
                               low=0, element="int", example="[24, 20, 20]"),
    "mrope_interleaved": _flag("whether the M-RoPE sections interleave"),
    "short_factor": FieldSpec("list", "LongRoPE's factor per rotary pair", element="number", example="[1.0, ...]"),
    "long_factor": FieldSpec("list", "LongRoPE's factor per rotary pair", element="number", example="[1.0, ...]"),
}

_KIND_WORDS = {"int": "an integer", "number": "a number", "text": "a string", "flag01": "0 or 1"}


def _shown(value: Any) -> str:
    """A value as config.json would spell it (JSON), cut at 60 characters, with its kind where that is the point."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    if isinstance(value, str):
        return f"{text} (a string)"
    return text


def _range(spec: FieldSpec) -> str:
    kind = "an integer" if spec.kind == "int" else "a finite number"
    if spec.low is not None and spec.high is not None:
        return f"{kind} from {spec.low:g} to {spec.high:g}"
    if spec.low is not None:
        return f"{kind} {'>' if spec.above else '>='} {spec.low:g}"
    return kind


def _expected(spec: FieldSpec, layers: int | None = None) -> str:
    if spec.kind in ("int", "number"):
        return f"{_range(spec)} ({spec.what})"
    if spec.kind == "flag":
        return f"true or false, a JSON boolean ({spec.what})"
    if spec.kind == "text":
        return f"a string ({spec.what})"
    if spec.kind == "dict":
        return f"an object, a JSON dict ({spec.what})"
    count = f"{layers} " if spec.per_layer and layers is not None else ""
    one = ", one per layer" if spec.per_layer else ""
    return f"a list of {count}entries, each {_KIND_WORDS[spec.element or 'int']}{one} ({spec.what})"


class ConfigFields:
    """A model's config, read field by field: each value checked against its :class:`FieldSpec`.

    Args:
        config: a transformers ``PretrainedConfig``, or a dict (a ``config.json``, a ``text_config``, a
            ``rope_parameters`` entry).
        prefix: how ``config.json`` reaches these fields (``"text_config."``, ``"rope_parameters.full_attention."``),
            for messages.
        table: the fields' records (:data:`FIELDS`; :data:`ROPE_FIELDS` for a RoPE entry).
    """

    def __init__(self, config: Any, prefix: str = "", table: Mapping[str, FieldSpec] | None = None):
        if config is None or isinstance(config, str | bytes | int | float | list | tuple):
            raise PosencError(f"a model's config is a Hugging Face config (a PretrainedConfig or its dict, a "
                              f"config.json), got {type(config).__name__}; e.g. "
                              f"transformers.AutoConfig.from_pretrained(folder)")
        self.config, self.prefix = config, prefix
        self.table = FIELDS if table is None else table
        self._layers: int | None | bool = False  # False: not read yet

    # -- raw access ---------------------------------------------------------------------------------------------------
    def value(self, name: str) -> Any:
        """The field as the config holds it (``None`` when absent), unchecked."""
        if isinstance(self.config, Mapping):
            return self.config.get(name)
        try:
            return getattr(self.config, name, None)
        except Exception as exc:  # e.g. a field that differs per layer (Gemma 4's per_layer_config) refuses to be read
            raise PosencError(f"cannot read {self.prefix + name!r} from this {type(self.config).__name__}: "
                              f"{str(exc).splitlines()[0]}; posenc reads one value per config, so build the "
                              f"encoding with posenc.build(...) from the layer's own values") from exc

    def written(self, name: str) -> bool:
        """The config itself carries ``name`` (a dict key, or an attribute of a config object)."""
        if isinstance(self.config, Mapping):
            return name in self.config
        try:
            return hasattr(self.config, name)
        except Exception:  # hasattr lets only AttributeError through; a per-layer field raises its own error
            return True

    def error(self, name: str, value: Any, expected: str, fix: str) -> ConfigFieldError:
        """The error for field ``name``: ``config.json field "<prefix><name>" = <value>: expected ...; fix: ...``."""
        return ConfigFieldError(f'config.json field "{self.prefix}{name}" = {_shown(value)}: expected {expected}; '
                                f"fix: {fix}")

    # -- checked reading ----------------------------------------------------------------------------------------------
    @property
    def model_type(self) -> str:
        """``model_type``, ``""`` when the config has none."""
        return self.get("model_type", default="") if "model_type" in self.table else ""

    def get(self, *names: str, default: Any = None) -> Any:
        """The first of ``names`` the config sets (not ``None``), checked against its record, else ``default``."""
        for name in names:
            value = self.value(name)
            if value is not None:
                return self.check(name, value)
        return default

    def require(self, *names: str) -> Any:
        """As :meth:`get`, but a config without any of ``names`` is refused (a :class:`~posenc.errors.PosencError`:
        the config is well-formed, posenc cannot do without the field), naming them."""
        value = self.get(*names)
        if value is None:
            spec = self.table[names[0]]
            listed = " or ".join(f'"{self.prefix}{n}"' for n in names)
            kind = _range(spec) if spec.kind in ("int", "number") else f"a {spec.kind}"
            raise PosencError(f"this config (model_type {self.model_type or '(none)'!r}) needs {spec.what} as "
                              f"{kind} in config.json field {listed}, found none of them; fix: add the field, "
                              f'e.g. "{self.prefix}{names[0]}": {spec.example}')
        return value

    def check(self, name: str, value: Any) -> Any:
        """``value`` of field ``name`` checked against its record (an integral float comes back as an int)."""
        spec = self.table[name]
        if spec.kind in ("int", "number"):
            return self._number(name, spec, value)
        if spec.kind == "flag":
            if not isinstance(value, bool):
                fix = (f"write {value.strip().lower()} without quotes" if isinstance(value, str)
                       and value.strip().lower() in ("true", "false") else "write true or false")
                raise self.error(name, value, _expected(spec), fix)
            return value
        if spec.kind == "text":
            if not isinstance(value, str):
                raise self.error(name, value, _expected(spec), f"write it as a string, e.g. {spec.example}")
            return value
        if spec.kind == "dict":
            if not isinstance(value, Mapping):
                raise self.error(name, value, _expected(spec), f"write an object such as {spec.example}, or leave "
                                                               f"the field out")
            return value
        return self._list(name, spec, value)

    def _number(self, name: str, spec: FieldSpec, value: Any) -> int | float:
        fix = f"set it to e.g. {spec.example}" if spec.example else "set it within the range"
        if isinstance(value, str):
            try:
                parsed = float(value)
            except ValueError:
                raise self.error(name, value, _expected(spec), fix) from None
            if spec.kind == "int" and parsed.is_integer():
                raise self.error(name, value, _expected(spec), f"write {int(parsed)} without quotes")
            raise self.error(name, value, _expected(spec), f"write {value.strip()} without quotes")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(name, value, _expected(spec), fix)
        if not math.isfinite(value):
            raise self.error(name, value, _expected(spec), fix)
        written = value
        if spec.kind == "int":
            if isinstance(value, float) and not value.is_integer():
                raise self.error(name, value, _expected(spec), f"write a whole number, e.g. {math.floor(value)}")
            value = int(value)
        low_fails = spec.low is not None and (value <= spec.low if spec.above else value < spec.low)
        if low_fails or (spec.high is not None and value > spec.high):
            if name in ("num_hidden_layers", "n_layer", "num_layers") and spec.high is not None and value > spec.high:
                fix = (f"posenc reads at most {MAX_LAYERS} layers (the deepest published models have a few "
                       f"hundred); write the model's real layer count")
            raise self.error(name, written, _expected(spec), fix)
        return value

    def _list(self, name: str, spec: FieldSpec, value: Any) -> list[Any]:
        layers = self.layer_count() if spec.per_layer else None
        if not isinstance(value, list | tuple):
            raise self.error(name, value, _expected(spec, layers), f"write a JSON list such as {spec.example}")
        for i, item in enumerate(value):
            good = {"int": isinstance(item, int) and not isinstance(item, bool) and item >= (spec.low or 0),
                    "number": isinstance(item, int | float) and not isinstance(item, bool)
                    and math.isfinite(item),
                    "text": isinstance(item, str),
                    "flag01": item in (0, 1) and isinstance(item, int)}[spec.element or "int"]
            if not good:
                raise self.error(name, value, _expected(spec, layers),
                                 f"entry {i} is {_shown(item)}; write each entry as {_KIND_WORDS[spec.element or 'int']}"
                                 + (" >= 0" if spec.element == "int" else "") + f", e.g. {spec.example}")
        if spec.per_layer and layers is not None and value and len(value) != layers:  # empty: unset (Llama 4)
            raise self.error(name, value, _expected(spec, layers),
                             f"it has {len(value)} entries but num_hidden_layers is {layers}: give one entry per "
                             f"layer, or correct num_hidden_layers")
        return list(value)

    # -- the parts of a config ----------------------------------------------------------------------------------------
    def layer_count(self) -> int | None:
        """``num_hidden_layers`` (or ``n_layer``, ``num_layers``), checked and at most :data:`MAX_LAYERS`; ``None``
        when the config has none."""
        if self._layers is False:
            self._layers = None
            if "num_hidden_layers" in self.table:
                for name in ("num_hidden_layers", "n_layer", "num_layers"):
                    value = self.value(name)
                    if isinstance(value, Mapping | list):  # LXMERT: {"vision": 5, "language": 9, ...}
                        raise PosencError(f'config.json field "{self.prefix}{name}" = {_shown(value)} counts the '
                                          f"layers of several stacks; posenc reads a schedule of one stack of "
                                          f"layers: pass the config of the stack you mean")
                self._layers = self.get("num_hidden_layers", "n_layer", "num_layers")
        return self._layers

    def text_model(self) -> ConfigFields:
        """The language model's fields of a multimodal config (``text_config``), else these fields."""
        if not isinstance(self.config, Mapping) and hasattr(self.config, "get_text_config"):
            try:
                inner = self.config.get_text_config()
            except ValueError as exc:  # several language models (MusicGen's text encoder and decoder)
                raise PosencError(f"cannot tell which language model of this {type(self.config).__name__} to read "
                                  f"({_cause(exc)}); pass the config of the one you mean") from exc
            return self if inner is self.config else ConfigFields(inner, self.prefix + "text_config.")
        inner = self.get("text_config")
        return self if inner is None else ConfigFields(inner, self.prefix + "text_config.")

    def rope_key(self) -> str | None:
        """The field that holds the RoPE parameters: ``"rope_parameters"`` or ``"rope_scaling"`` (``None``: neither)."""
        for key in ("rope_parameters", "rope_scaling"):
            value = self.value(key)
            if value is not None and (value or not isinstance(value, Mapping)):
                return key
        return None

    def rope_entries(self) -> dict[str | None, ConfigFields]:
        """The RoPE parameter entries, each read with :data:`ROPE_FIELDS`: ``{layer_type: entry}`` for parameters per
        layer type, ``{None: entry}`` for one entry, ``{}`` for none."""
        key = self.rope_key()
        if key is None:
            return {}
        params = self.get(key)
        if params and all(isinstance(v, Mapping) for v in params.values()):
            return {t: ConfigFields(v, f"{self.prefix}{key}.{t}.", ROPE_FIELDS) for t, v in params.items()}
        layer_types = self._named_layer_types()
        per_type = {t: v for t, v in (params or {}).items() if t in layer_types and isinstance(v, Mapping)}
        if per_type:  # a flat entry that transformers filled in per layer type: the flat fields hold for each type
            shared = {name: v for name, v in params.items() if name not in layer_types}
            return {t: ConfigFields({**shared, **v}, f"{self.prefix}{key}.{t}.", ROPE_FIELDS)
                    for t, v in per_type.items()}
        return {None: ConfigFields(params, f"{self.prefix}{key}.", ROPE_FIELDS)}

    def unrotated_layer_types(self) -> list[str]:
        """The layer types whose RoPE parameters are ``None`` (``rope_parameters = {"sliding_attention": {...},
        "full_attention": None}``, Ergo): the model runs those layers without RoPE."""
        key = self.rope_key()
        params = self.get(key) if key is not None else None
        if not isinstance(params, Mapping):
            return []
        layer_types = self._named_layer_types()
        return [t for t, v in params.items() if v is None and t in layer_types]

    def _named_layer_types(self) -> set[str]:
        """The attention types ``layer_types`` names (empty without it; a malformed list is refused where the
        schedule reads it, not here)."""
        with contextlib.suppress(PosencError):
            return set(self.value("layer_types") or ())
        return set()

    def entry_dict(self) -> dict[str, Any]:
        """A RoPE entry's fields as a plain dict, every field of :data:`ROPE_FIELDS` it holds checked."""
        out = dict(self.config) if isinstance(self.config, Mapping) else {}
        for name in ROPE_FIELDS:
            if out.get(name) is not None:
                out[name] = self.check(name, out[name])
        return out

    def check_all(self) -> None:
        """Check every field of the table this config sets, its text model's and its RoPE entries' (what
        :func:`check_written` does)."""
        for name in self.table:
            value = None
            with contextlib.suppress(PosencError):
                value = self.value(name)
            if isinstance(value, list | Mapping) and self.table[name].kind in ("int", "number", "flag", "text"):
                continue  # a field of another shape in another kind of model (Swin's num_heads per stage): refused
                # only where posenc reads it
            try:
                self.get(name)
            except ConfigFieldError:
                raise
            except PosencError:  # a field that cannot be read as one value: reported where it is read
                continue
        if self.table is FIELDS:
            inner = self.text_model()
            if inner is not self:
                inner.check_all()
            for entry in self.rope_entries().values():
                entry.check_all()


def check_written(config: Any) -> None:
    """Check every field posenc reads that ``config`` (a ``config.json`` dict or a transformers config) sets; the
    first that does not fit raises :class:`ConfigFieldError`."""
    ConfigFields(config).check_all()


def _normalised(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of a checked ``config.json`` dict in the types transformers' config classes declare: a whole float
    of an integer field as an int (``64.0``), an int of a number field as a float (``"attn_scale": 1``)."""
    out = json.loads(json.dumps(raw))  # transformers fills in nested dicts in place; the caller's dict stays as written
    for name, value in list(out.items()):
        spec = FIELDS.get(name)
        if spec is None or isinstance(value, bool):
            continue
        if spec.kind == "int" and isinstance(value, float) and value.is_integer():
            out[name] = int(value)
        elif spec.kind == "number" and isinstance(value, int):
            out[name] = float(value)
    if isinstance(out.get("text_config"), dict):
        out["text_config"] = _normalised(out["text_config"])
    return out


_FIELD_ERROR = re.compile(r"Validation error for field '([^']+)'")


def _cause(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[-1] if lines else type(exc).__name__
    text = text.split(". Errors:")[0]
    return text if len(text) <= 300 else text[:297] + "..."


@contextlib.contextmanager
def transformers_errors(source: str) -> Iterator[None]:
    """Say transformers' own refusal of a config in posenc's words: a :class:`ConfigFieldError` naming the field
    (strict-dataclass validation) or the check that failed, and ``source`` (the file or folder)."""
    try:
        yield
    except PosencError:
        raise
    except Exception as exc:
        kinds = (TypeError, ValueError, ZeroDivisionError, KeyError, AttributeError)
        name = type(exc).__name__
        if name == "StrictDataclassFieldValidationError":
            match = _FIELD_ERROR.search(str(exc))
            field = match.group(1) if match else "?"
            raise ConfigFieldError(f'config.json field "{field}" in {source}: transformers refuses it ({_cause(exc)}); '
                                   f"fix: write the field with the type the model's config class declares, or leave "
                                   f"it out") from exc
        if name == "StrictDataclassClassValidationError" or isinstance(exc, kinds):
            detail = _cause(exc) if str(exc) else name
            if isinstance(exc, ZeroDivisionError):
                detail = f"{name}: {detail}: a count or size in the config is 0"
            raise ConfigFieldError(f"transformers refuses the config in {source} ({detail}); fix: correct the field "
                                   f"it names, and check the counts and sizes (layers, heads, widths) are positive") \
                from exc
        raise


def read_config_json(path: Any) -> dict[str, Any]:
    """A ``config.json`` file's dict, or a :class:`~posenc.errors.PosencError` saying why it is not one."""
    try:
        raw = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise PosencError(f"cannot read {path} as a JSON config ({str(exc).splitlines()[0]}); pass a Hugging Face "
                          f"config.json") from exc
    if not isinstance(raw, dict):
        raise PosencError(f"{path} holds a JSON {type(raw).__name__}, not an object, so it is not a Hugging Face "
                          f"config; pass a config.json")
    return raw


def config_from_dict(raw: Mapping[str, Any], source: str = "config.json") -> Any:
    """The transformers config of a ``config.json`` dict: posenc's checks of every field it reads first
    (:func:`check_written`, :data:`MAX_LAYERS`), then ``transformers.AutoConfig.for_model`` with its refusals said
    by :func:`transformers_errors`. ``raw`` is not changed."""
    import transformers

    if not isinstance(raw, Mapping) or "model_type" not in raw:
        raise PosencError(f"{source} has no model_type, so it is not a Hugging Face config; pass a config.json with "
                          f"model_type (or the model's folder)")
    check_written(raw)
    fields = _normalised(raw)
    model_type = fields.pop("model_type")
    if model_type not in transformers.CONFIG_MAPPING:
        raise ConfigFieldError(f'config.json field "model_type" = {_shown(model_type)} in {source}: expected a model '
                               f"type this transformers {transformers.__version__} knows; fix: correct the model "
                               f"type, or update transformers")
    with transformers_errors(source):
        return transformers.AutoConfig.for_model(model_type, **fields)
