"""One lab run: a :class:`RunConfig` and a seed in, metrics by length out.

The model is :class:`posenc.model.Transformer` with the chosen encoding: a causal decoder (every task, the char-LM)
or a bidirectional encoder (``fmt="encoder"``, the output written into blank slots, Deletang et al. 2023).
The run asks its task (:class:`posenc.lab.lab_task.LabTask`, from ``config.task``) for everything that depends on
the task: its batches (a synthetic task draws a size ``n`` uniformly from ``min_train_len..train_len`` for every
batch; the char-LM reads windows of ``train_len`` characters), its sequence lengths, its evaluation by length and its
in-distribution score; this module never asks which task it is. AdamW with linear warm-up then cosine decay (or a
constant rate, ``lr_decay``); cross-entropy on the target tokens only (the output tokens, every next character).

Training to the ceiling (``val_every > 0``; not the char-LM): every ``val_every`` steps the model is scored on
in-distribution validation strings (sizes ``min_train_len..train_len``, drawn apart from the test strings); training
stops when that score has not improved for ``patience`` validations or is perfect, and the best model so far is the
one tested. Selection uses in-distribution data only, never the longer test sizes.

The model's position range is the longest sequence seen in training (``max_len``, default: the sequence length at
``train_len``): a learned table gets exactly that many rows, so it cannot run longer sequences, and says so.

Device and precision: :func:`train_run` takes ``device`` (``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:N"``,
``"mps"``; :mod:`posenc.device`) and the config's ``dtype`` (``float32``, ``bfloat16``, ``float16``). The model, its
tables and every batch live on the device; batches are drawn on the CPU from the run's seeded generator (so a seed
gives the same strings everywhere) and copied over. A lower precision runs the forward passes, training and
evaluation, under :func:`torch.autocast` with float32 weights and optimiser state; float16 adds a
:class:`torch.amp.GradScaler`. The training loop reads nothing back from the device between logging points (and
validations): the losses of the steps between two points of the loss curve are read at once (float16's gradient
scaler alone checks every step for overflow). ``dtype`` other than float32 is part of
the run's config (and its store key); the device is not: it is recorded in the result's ``setup`` and the store's
``setup`` column.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import torch
import torch.nn.functional as F

from posenc.checks import SEED_LIMIT, whole_number
from posenc.device import DTYPES, Placement, dtype_name
from posenc.encodings.schedule import Layer, LayerSchedule
from posenc.errors import PosencError
from posenc.extend.perplexity import PROTOCOLS, normalize_protocols
from posenc.lab.lab_task import LabTask, lab_task
from posenc.lab.string_tasks import FORMATS, IGNORE
from posenc.model import ModelConfig, Transformer, TransformerConfig
from posenc.progress import progress as progress_bar
from posenc.registry import available, build_for_model, get_class, options_of
from posenc.resources import DEFAULT_CALL_SECONDS, GB, calibrated, check_memory, format_bytes, seconds

__all__ = ["RunConfig", "ModelConfig", "RunResult", "RunEstimate", "build_model", "train_run", "estimate_run",
           "check_run", "check_seed", "call_seconds", "measure_call_seconds", "refuse_constant_encoding",
           "acting_encoding", "KIND", "KEY_SCHEMA", "CODE_VERSION", "CONSTANT_ACROSS_CHANNELS"]

KIND = "lab"  #: the results-store kind of lab runs
#: the schema of a run's store key (:meth:`RunConfig.as_dict`): 3, every setting with its value, the model's nested;
#: 2 had them flat; 1 (no ``schema`` field) left out settings at their defaults (:meth:`RunConfig.earlier_keys`)
KEY_SCHEMA = 3
#: model settings that store keys of schemas 1 and 2 did not have, at the value every run of theirs had
NEWER_MODEL_SETTINGS = {"n_kv_heads": None, "scale_embedding": False}
#: the model's settings (the fields of :class:`~posenc.model.ModelConfig`), nested in a run as ``model``
MODEL_SETTINGS = tuple(f.name for f in fields(ModelConfig))
#: the version of the training and evaluation code, stored with every run: a run stored under another is recomputed
CODE_VERSION = 1
RANDOMIZED_RANGE = 2048  #: N, the range randomized positions are drawn from (Ruoss et al. 2023)
DEFAULT_WARMUP = 50  #: warm-up steps of a run that names none (or its steps, when fewer)
LR_DECAYS = ("cosine", "constant")  #: what the learning rate does after the warm-up
#: encodings that add one value to every channel of a token (tutorial 000 §2.1-2.2): those that declare it
CONSTANT_ACROSS_CHANNELS = tuple(name for name in available() if get_class(name).info.constant_across_channels)


def bad_setting(name: str, message: str) -> PosencError:
    """The error for a bad run setting: ``message`` (which names the :class:`RunConfig` field) and the option that sets
    it on the command line, so a user of ``posenc train`` finds it as readily as one of ``RunConfig``
    (``--set name=value`` sets it in a sweep)."""
    if name == "model":  # the model as a whole: its settings are options of their own
        return PosencError(message)
    option = "-o KEY=VALUE" if name == "encoding_options" else f"--{name.replace('_', '-')}"
    return PosencError(f"{message} [option {option}]")


def acting_encoding(encoding: str, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The encoding that acts on the positions, as ``(name, options)``: the wrapped one when ``encoding`` is a wrapper
    (``randomized``: the one it names in its options), else ``encoding`` itself."""
    wrapped = get_class(encoding).wrapped(options)
    return wrapped if wrapped is not None else (encoding, options)


def refuse_constant_encoding(encoding: str, options: dict[str, Any]) -> None:
    """Refuse ``integer`` and ``normalized`` added to the token embedding: they are NoPE under another name here.

    Both add the same number ``c`` to every channel of a token. Every block of the lab's pre-norm Transformer reads
    its input through a LayerNorm, which subtracts the token's mean over channels, so ``LayerNorm(x + c) =
    LayerNorm(x)``; the residual stream carries ``c`` unchanged to the final LayerNorm, which removes it too. With
    the same weights the model computes exactly what NoPE computes (``tests/lab/test_validation.py`` shows it), so a run
    would report NoPE's numbers under another name. With ``combine="concat"`` the value gets channels of its own and
    survives normalisation.
    """
    inner, inner_options = acting_encoding(encoding, options)
    constant = inner in available() and get_class(inner).info.constant_across_channels  # unknown: refused later
    if constant and inner_options.get("combine", "add") == "add":
        raise PosencError(
            f"encoding {inner!r} added to the token embedding is NoPE in the lab's model: it adds the same value to "
            f"every channel of a token, and the pre-norm Transformer's LayerNorm subtracts each token's mean over "
            f"channels before any layer reads it, so the model computes exactly what 'nope' computes (same "
            f"weights, same outputs). Give the positions channels of their own with -o combine=concat -o dim=16 "
            f"(encoding_options {{'combine': 'concat', 'dim': 16}}), or run 'nope'")


@dataclass
class RunConfig:
    """Everything that defines a lab run except the seed (the store keys runs on this config's hash and the seed).

    Attributes:
        task: a task of :data:`posenc.lab.lab_task.LAB_TASKS`: a synthetic string task (:mod:`posenc.lab.string_tasks`), the
            character-level language model (:mod:`posenc.lab.charlm`) or a local-dependency task
            (:mod:`posenc.lab.local`).
        model: the model (:class:`~posenc.model.ModelConfig`): its encoding, the encoding's options and its sizes;
            the task decides its vocabulary, ``fmt`` its direction and ``max_len`` its position range. Its settings
            are given flat on the command line and in sweeps (``--encoding``, ``--d-model``, ``"d_model": 128``).
        label: the name in tables and plots (default: the encoding, plus ``-concat`` for concatenation).
        fmt: ``"decoder"`` (causal) or ``"encoder"`` (bidirectional; synthetic tasks only).
        train_len: largest task size ``n`` in training (char-LM: the context length ``L``).
        min_train_len: smallest task size in training.
        eval_lengths: task sizes (char-LM: context lengths) to test; default ``L/2, L, 2L, 4L`` (char-LM
            ``L, 2L, 4L, 8L``).
        steps: optimisation steps (the most steps when training to the ceiling).
        batch_size: sequences per optimisation step.
        lr: peak learning rate (AdamW).
        warmup: steps of linear warm-up before the decay, at most steps (default 50, or steps when fewer).
        lr_decay: after the warm-up, ``"cosine"`` (default: cosine decay to 10% of ``lr`` at the last step) or
            ``"constant"`` (``lr`` to the end).
        weight_decay: AdamW's weight decay.
        grad_clip: largest gradient norm (0: no clipping).
        val_every: validate in distribution every this many steps and stop at the ceiling (0: train all ``steps``).
        patience: validations without improvement before stopping.
        val_samples: validation strings per size.
        eval_samples: test strings per task size.
        eval_tokens: characters scored per char-LM evaluation length.
        protocols: char-LM protocols, ``nonoverlap`` and/or ``sliding`` (:mod:`posenc.extend.perplexity`).
        stride: sliding-window stride (default ``L_valid // 8``).
        max_len: positions the model is built for (learned table rows; default the sequence length at
            ``train_len``).
        dtype: ``"float32"`` (default), ``"bfloat16"`` or ``"float16"``: the precision of the forward passes
            (autocast; weights stay float32).
        schedule: an encoding per layer: registry names repeated over the model's ``n_layers``
            (``rope,rope,rope,nope``: every fourth layer NoPE, Llama 4's iRoPE); the layers named like the model's
            ``encoding`` take its ``encoding_options``, the others their defaults. Empty (default): the model's
            ``encoding`` on every layer.

    :meth:`as_dict` is the run's store key: every setting, defaults included, the model's nested, under an explicit
    ``schema`` (:data:`KEY_SCHEMA`), so a new setting is a field and nothing else. A store written under an earlier
    schema is still read: :meth:`earlier_keys` gives the keys a run had then, and a sweep asks the store for them
    when the current key has no row. :meth:`from_dict` reads a key of any schema, or settings given flat.
    """

    task: str = "copy"
    model: ModelConfig = field(default_factory=ModelConfig)
    label: str | None = None
    fmt: str = "decoder"
    train_len: int = 20
    min_train_len: int = 1
    eval_lengths: list[int] = field(default_factory=list)
    steps: int = 500
    batch_size: int = 32
    lr: float = 1e-3
    warmup: int | None = None
    weight_decay: float = 0.0
    grad_clip: float = 1.0
    val_every: int = 0
    patience: int = 4
    val_samples: int = 64
    eval_samples: int = 256
    eval_tokens: int = 16384
    protocols: list[str] = field(default_factory=lambda: list(PROTOCOLS))
    stride: int | None = None
    max_len: int | None = None
    dtype: str = "float32"
    schedule: list[str] = field(default_factory=list)
    lr_decay: str = "cosine"

    def __post_init__(self) -> None:
        if not isinstance(self.dtype, str):
            raise bad_setting("dtype", f"RunConfig.dtype must be a string, one of float32, bfloat16, float16; "
                                       f"got {self.dtype!r}")
        self.dtype = dtype_name(self.dtype)  # an unknown dtype names the valid ones
        task = lab_task(self.task)
        if isinstance(self.model, dict):  # the model's settings as data (a store key's nested part)
            self.model = _model_config(self.model)
        if not isinstance(self.model, ModelConfig):
            raise bad_setting("model", f"RunConfig.model must be a ModelConfig (posenc.model.ModelConfig), got "
                                       f"{type(self.model).__name__} {self.model!r}; e.g. "
                                       f"RunConfig(model=ModelConfig(encoding='alibi', d_model=64))")
        get_class(self.model.encoding)  # unknown encodings list the valid ones
        if self.fmt not in FORMATS:
            raise bad_setting("fmt", f"fmt must be one of {FORMATS}, got {self.fmt!r}")
        for name in ("train_len", "min_train_len", "steps", "batch_size", "eval_samples", "eval_tokens", "patience",
                     "val_samples"):
            value = getattr(self, name)
            if not whole_number(value):
                raise bad_setting(name, f"RunConfig.{name} must be a positive integer, got {value!r}")
        if not whole_number(self.val_every, 0):
            raise bad_setting("val_every", f"RunConfig.val_every must be an integer >= 0 (0: no early stopping), "
                                           f"got {self.val_every!r}")
        if self.val_every > self.steps:
            raise bad_setting("val_every", f"RunConfig.val_every ({self.val_every}) exceeds steps ({self.steps}): no "
                                           f"validation would fall due, so the run would report no in-distribution "
                                           f"score; give val_every <= steps (e.g. val_every="
                                           f"{max(1, self.steps // 10)}) or 0 to train every step without stopping")
        task.check_config(self)  # what this task cannot take (a format, training to the ceiling)
        if self.min_train_len > self.train_len:
            raise bad_setting("min_train_len", f"min_train_len ({self.min_train_len}) must be <= train_len "
                                               f"({self.train_len})")
        for name, low in (("warmup", 0), ("max_len", 1)):
            value = getattr(self, name)
            if value is not None and not whole_number(value, low):
                raise bad_setting(name, f"RunConfig.{name} must be an integer >= {low} or None, got {value!r}")
        if self.warmup is None:
            self.warmup = min(DEFAULT_WARMUP, self.steps)
        elif self.warmup > self.steps:
            fits = min(DEFAULT_WARMUP, self.steps)
            raise bad_setting("warmup", f"RunConfig.warmup ({self.warmup}) exceeds steps ({self.steps}): the learning "
                                        f"rate would never reach lr; use warmup <= {self.steps} (--warmup {fits}, or "
                                        f"--set warmup={fits} in a sweep) or more steps")
        for name, low, high, example in (("lr", 0.0, None, "lr=1e-3"), ("weight_decay", 0.0, None, "weight_decay=0.01"),
                                         ("grad_clip", 0.0, None, "grad_clip=1.0")):
            value = getattr(self, name)
            ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
            ok = ok and (value > low if name == "lr" else value >= low) and (high is None or value < high)
            if not ok:
                bounds = f"in [{low:g}, {high:g})" if high is not None else ("> 0" if name == "lr" else ">= 0")
                raise bad_setting(name, f"RunConfig.{name} must be a number {bounds}, got {value!r}; e.g. --set "
                                        f"{example}")
        if self.lr_decay not in LR_DECAYS:
            raise bad_setting("lr_decay", f"RunConfig.lr_decay must be one of {', '.join(LR_DECAYS)}, got "
                                          f"{self.lr_decay!r}; e.g. --set lr_decay=constant")
        if self.label is not None and (not isinstance(self.label, str) or not self.label.strip()):
            raise bad_setting("label", f"RunConfig.label must be a non-empty string or None, got {self.label!r}")
        lengths = self.eval_lengths or self.default_eval_lengths()
        if not isinstance(lengths, list | tuple) or not all(whole_number(n) for n in lengths):
            raise bad_setting("eval_lengths", f"eval_lengths must be a list of positive integers, got {lengths!r}; "
                                              f"e.g. eval_lengths=[10, 20, 40]")
        self.eval_lengths = list(lengths)
        self.protocols = list(normalize_protocols(self.protocols))
        if self.stride is not None and not whole_number(self.stride):
            raise bad_setting("stride", f"stride must be a positive integer or None, got {self.stride!r}")
        needed = self.sequence_length(self.train_len)
        if self.max_len is not None and self.max_len < needed:
            raise bad_setting("max_len", f"max_len={self.max_len} does not fit the training sequences: train_len="
                                         f"{self.train_len} gives {needed} tokens; raise max_len to at least {needed} "
                                         f"or lower train_len")
        encoding, options = self.model.encoding, self.model.encoding_options
        randomized = get_class(encoding).info.randomized  # positions drawn from [0, max_len)
        randomized_range = options.get("max_len", RANDOMIZED_RANGE) if randomized else None
        longest = max(self.sequence_length(n) for n in self.eval_lengths + [self.train_len])
        if randomized_range is not None and randomized_range < longest:
            raise PosencError(f"randomized positions are drawn from [0, {randomized_range}) but the longest sequence "
                              f"has {longest} tokens; pass encoding_options max_len >= {longest}")
        refuse_constant_encoding(encoding, options)
        self.schedule = _check_schedule(self.schedule)
        if self.label is None:
            concat = options.get("combine") == "concat"
            self.label = "+".join(self.schedule) if self.schedule else encoding + ("-concat" if concat else "")

    @property
    def transformer(self) -> TransformerConfig:
        """The run's whole model config (:class:`~posenc.model.TransformerConfig`): :attr:`model` with what the run
        decides, its direction (``fmt``) and position range (``max_len``, default the sequence length at
        ``train_len``), over the task's vocabulary bound. :func:`build_model` builds from it, with the task's
        vocabulary, the options the seed decides and the layer schedule."""
        return TransformerConfig.of(self.model, vocab_size=self.lab_task.vocab_bound, causal=self.fmt == "decoder",
                                    max_len=self.max_len or self.sequence_length(self.train_len))

    @property
    def lab_task(self) -> LabTask:
        """The task this config trains on (:func:`posenc.lab.lab_task.lab_task`)."""
        return lab_task(self.task)

    def default_eval_lengths(self) -> list[int]:
        return self.lab_task.default_eval_lengths(self.train_len)

    def sequence_length(self, n: int) -> int:
        """Tokens the model reads at task size ``n`` (char-LM: ``n`` itself)."""
        return self.lab_task.sequence_length(n, self.fmt)

    def _encoding_revision(self) -> int:
        """The acting encoding's :attr:`~posenc.encodings.base.PositionalEncoding.revision` (a run stored before the
        encoding changed is computed again)."""
        return get_class(acting_encoding(self.model.encoding, self.model.encoding_options)[0]).revision

    def settings(self) -> dict[str, Any]:
        """Every setting flat, as the command line and sweeps give them: the model's beside the run's
        (``{"task": "copy", "encoding": "rope", "d_model": 64, ..., "steps": 500, ...}``); :meth:`from_dict` reads
        them back."""
        data = asdict(self)
        return {"task": data.pop("task"), **data.pop("model"), **data}

    def as_dict(self) -> dict[str, Any]:
        """The config as plain JSON-able data, the run's store key: ``schema`` (:data:`KEY_SCHEMA`), every setting
        with its value (defaults included; the model's as a nested ``model``) and ``encoding_revision``."""
        return {"schema": KEY_SCHEMA, **asdict(self), "encoding_revision": self._encoding_revision()}

    def earlier_keys(self) -> list[dict[str, Any]]:
        """The keys this run had in a store written by earlier posenc, newest first (none where the run uses a model
        setting those did not have: ``n_kv_heads`` or ``scale_embedding``):

        - schema 2: every setting flat (the model's beside the run's), and ``encoding_revision``;
        - schema 1, which had no ``schema`` field and left out ``dtype`` when float32, ``schedule`` when empty,
          ``lr_decay`` when cosine and ``encoding_revision`` when 1 (so that older keys survived each new setting).
        """
        data = self.settings()
        for name, default in NEWER_MODEL_SETTINGS.items():
            if data.pop(name) != default:
                return []
        revision = self._encoding_revision()
        second = {"schema": 2, **data, "encoding_revision": revision}
        for name, default in (("dtype", "float32"), ("schedule", []), ("lr_decay", "cosine")):
            if data[name] == default:
                del data[name]
        if revision != 1:
            data["encoding_revision"] = revision
        return [second, data]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        """A config from its settings: a store key of any schema (:meth:`as_dict`, :meth:`earlier_keys`), or
        settings given flat as the command line and sweeps give them (:meth:`settings`; defaults for those left
        out), the model's among them or nested as ``model``."""
        schema = data.get("schema", 1)
        if not whole_number(schema) or schema > KEY_SCHEMA:
            raise PosencError(f"run settings of key schema {schema!r}: this posenc reads schemas 1 to {KEY_SCHEMA}; "
                              f"read them with the posenc that wrote them, or leave 'schema' out")
        # the schema and the encoding's revision are derived, not settings
        data = {k: v for k, v in data.items() if k not in ("schema", "encoding_revision")}
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(data) - set(names) - set(MODEL_SETTINGS))
        if unknown:
            valid = sorted(set(names) - {"model"} | set(MODEL_SETTINGS))
            raise PosencError(f"unknown run setting(s) {unknown}; valid settings are: {', '.join(valid)}")
        nested = data.pop("model", {})
        if isinstance(nested, ModelConfig):
            nested = asdict(nested)
        if not isinstance(nested, dict):
            raise bad_setting("model", f"the run setting 'model' must be a dict of the model's settings "
                                       f"({', '.join(MODEL_SETTINGS)}), got {nested!r}")
        flat = {name: data.pop(name) for name in MODEL_SETTINGS if name in data}
        twice = sorted(set(flat) & set(nested))
        if twice:
            raise PosencError(f"run setting(s) {twice} given twice, flat and in 'model'; give each once")
        return cls(model=_model_config({**nested, **flat}), **data)


def _model_config(settings: dict[str, Any]) -> ModelConfig:
    """The model of a run from its settings (``{"encoding": "alibi", "d_model": 32}``), each error said with the
    option that sets it."""
    unknown = sorted(set(settings) - set(MODEL_SETTINGS))
    if unknown:
        raise PosencError(f"unknown model setting(s) {unknown}; the model's settings are: "
                          f"{', '.join(MODEL_SETTINGS)}")
    try:
        return ModelConfig(**settings)
    except PosencError as exc:
        # the setting to change: the one the message names as ModelConfig.<name>, or the one its fix sets
        # ("pick e.g. n_heads=2"), or the first it names
        text = str(exc)
        named = [n for n in MODEL_SETTINGS if f"ModelConfig.{n} " in text or f"e.g. {n}=" in text]
        name = named[0] if named else min(MODEL_SETTINGS, key=lambda n: (text.find(n) % (len(text) + 1), n))
        raise bad_setting(name, f"RunConfig.model: {exc}") from exc


def _check_schedule(schedule: Any) -> list[str]:
    """A run's layer schedule as a list of registry names: encodings that act per layer, not randomized ones."""
    if isinstance(schedule, str):
        schedule = [part.strip() for part in schedule.split(",") if part.strip()]
    if not isinstance(schedule, list | tuple) or not all(isinstance(n, str) for n in schedule):
        raise PosencError(f"schedule must be a list of encoding names, got {schedule!r}; e.g. "
                          f"schedule=['rope', 'rope', 'rope', 'nope']")
    for name in schedule:
        info = get_class(name).info  # an unknown name lists the valid ones
        if info.acts_on_input or info.randomized:
            what = "draws positions per sequence" if info.randomized else "acts on the input once"
            raise PosencError(f"schedule names {name!r}, which {what}, not per layer; a schedule takes encodings "
                              f"of the attention (rotary, bias, none), e.g. ['rope', 'nope']")
    return list(schedule)


@dataclass
class RunResult:
    """What one run produced: ``metrics`` (see :func:`train_run`), wall time, ``status`` ``"done"`` or ``"error"``
    (``error`` then holds the exception and its traceback)."""

    config: dict[str, Any]
    seed: int
    metrics: dict[str, Any]
    wall_s: float
    status: str = "done"
    error: str | None = None
    skipped: bool = False  #: found in the store, not run again
    setup: dict[str, Any] = field(default_factory=dict)  #: where it ran: ``{"device": "cpu", "dtype": "float32"}``


def _model_options(config: RunConfig, seed: int) -> tuple[dict[str, Any], int]:
    """The encoding options the model gets, and its position range ``max_len``."""
    options = dict(config.model.encoding_options)
    # an encoding with a `bidirectional` option (t5) is told the run's direction unless the config sets it
    if "bidirectional" in options_of(config.model.encoding) and "bidirectional" not in options:
        options["bidirectional"] = config.fmt == "encoder"  # a causal decoder only sees keys at r <= 0
    if get_class(config.model.encoding).info.randomized:
        options.setdefault("seed", seed)
        options.setdefault("max_len", RANDOMIZED_RANGE)  # not the model's max_len: the paper draws from [0, 2048)
    # the model passes its own sizes to the encoding; a size also given as an option would be passed twice
    clash = sorted(set(options) & {"d_model", "n_heads", "head_dim"})
    if clash:
        raise PosencError(f"encoding_options {clash} are model sizes, which a run sets itself: set d_model and "
                          f"n_heads (options --d-model, --n-heads; head_dim is d_model / n_heads) instead of "
                          f"encoding_options")
    max_len = options.pop("max_len", None) or config.max_len or config.sequence_length(config.train_len)
    return options, max_len


def build_model(config: RunConfig, seed: int = 0, vocab_size: int | None = None) -> Transformer:
    """The Transformer of a run (weights initialised from ``seed``)."""
    options, max_len = _model_options(config, seed)
    if vocab_size is None:
        vocab_size = config.lab_task.vocab_size()
    schedule = None
    if config.schedule:  # each name with its defaults (told the run's direction), `encoding` with its options
        def layer(name: str) -> Layer:
            if name == config.model.encoding:
                return Layer(name, options)
            told = {"bidirectional": config.fmt == "encoder"} if "bidirectional" in options_of(name) else {}
            return Layer(name, told)

        schedule = LayerSchedule.cycle(config.model.n_layers, [layer(name) for name in config.schedule])
    torch.manual_seed(seed)
    return Transformer(dataclasses.replace(config.transformer, vocab_size=vocab_size, encoding_options=options,
                                           max_len=max_len, schedule=schedule))


# -- size guard ------------------------------------------------------------------------------------------------------
#: the Python process with torch and posenc imported (measured: 0.73 to 0.77 GB resident before any run)
RUNTIME_BYTES = int(1.0 * GB)
#: safety factor on activations
MEMORY_MARGIN = 1.5
#: tensor operations (calls into torch) of one training step of the lab model, forward, backward and AdamW, counted
#: with a torch dispatch mode on real steps (tests/lab/test_estimate.py counts them again): 82 + 145 L with RoPE, 80 +
#: 127 L without a position encoding, 92 + 166 L with ALiBi (L layers; 2026-11-28); the estimate takes RoPE's
STEP_OPERATIONS, LAYER_STEP_OPERATIONS = 80, 145
#: the same for one forward pass of an evaluation batch: 25 + 44 L with RoPE, 12 + 33 L without, 25 + 53 L with ALiBi
FORWARD_OPERATIONS, LAYER_FORWARD_OPERATIONS = 25, 45


#: the runs that measure what one of those operations costs (:func:`call_seconds`): the smallest lab model, whose
#: arithmetic is a few percent of its time, trained for each of CALL_STEPS steps (the difference cancels building
#: the model and evaluating it)
CALL_CALIBRATION = {"task": "copy", "encoding": "rope", "d_model": 16, "n_layers": 1, "n_heads": 2, "batch_size": 4,
                    "train_len": 4, "eval_lengths": [4], "eval_samples": 4, "warmup": 1}
CALL_STEPS = (10, 50)
#: times each calibration run is repeated, the fastest kept (other jobs on the core only ever slow a run)
CALL_REPEATS = 3


@dataclass(frozen=True)
class RunEstimate:
    """Peak memory (bytes) of a run, estimated from its config alone (see :func:`estimate_run`), and the work its
    time counts: floating-point operations (shared by ``threads``) and tensor operations. :attr:`seconds` turns the
    work into time when it is read (measuring this machine the first time: :func:`call_seconds`)."""

    params: int
    state_bytes: int
    train_bytes: int
    eval_bytes: int
    total: int
    flops: float = 0.0
    operations: float = 0.0
    threads: int = 1

    @property
    def seconds(self) -> float:
        """CPU seconds of the run on this machine: the arithmetic at its rate, the operations at their measured
        cost (:func:`posenc.resources.seconds`)."""
        return seconds(self.flops, threads=self.threads, calls=self.operations, per_call=call_seconds())

    def describe(self) -> str:
        return (f"{self.params:,} parameters with gradients and AdamW moments "
                f"{format_bytes(self.state_bytes)}, one training step's activations {format_bytes(self.train_bytes)}, "
                f"the largest evaluation batch {format_bytes(self.eval_bytes)}, runtime {format_bytes(RUNTIME_BYTES)}, "
                f"margin x{MEMORY_MARGIN} on activations")


def concat_width(encoding: str, options: dict[str, Any]) -> int:
    """The channels a concatenated encoding adds: its ``dim`` option, else the encoding's own default width (what
    :func:`~posenc.encodings.catalog.build_for_model` builds when concat gives no ``dim``)."""
    if options.get("dim") is not None:
        return int(options["dim"])
    default = inspect.signature(get_class(encoding)).parameters.get("dim")
    return int(default.default) if default is not None and isinstance(default.default, int) else 0


def estimate_run(config: RunConfig, threads: int = 1) -> RunEstimate:
    """Peak memory and time of :func:`train_run` for ``config``, from arithmetic on its sizes (nothing allocated).

    With ``W`` the encoded width (``d_model``, plus the position part under concat), ``F = d_ff``, ``L`` layers,
    ``H`` heads, ``V`` the vocabulary, ``B`` the batch and ``T`` the tokens of the longest training sequence, in
    float32 elements:

        parameters   P = V d_model + (learned table) + L (4 W^2 + 2 W F + F + 6 W) + 2 W + W V
        state        4 P                                     # weights, gradients, two AdamW moments
        train step   B T (L (16 W + 3 F) + 4 W + 3 V)        # what autograd keeps for the backward pass
                     + 3 L B H T^2 + 2 H T^2 + 8 T^2         # only with a bias (ALiBi, T5): SDPA's math path
        evaluation   B_e T_e (6 W + 2 F + 3 V) (+ 2 B_e H T_e^2 + 2 H T_e^2 + 8 T_e^2 with a bias)

    ``T_e`` is the longest evaluation sequence and ``B_e`` the task's evaluation batch (128 strings, 16 char-LM
    windows); ``V`` the task's vocabulary bound.
    Total: ``runtime + 4 (4 P) + margin * max(train step, evaluation)`` bytes.

    Time counts work and turns it into seconds on this machine (:func:`posenc.resources.seconds`: the arithmetic at
    the machine's measured rate, the operations at their measured cost, :func:`call_seconds`): ``6 P_dense B T +
    12 L B T^2 W`` floating-point operations per step (forward and backward) and ``2 P_dense + 4 L T W`` per evaluated
    token, shared by ``threads``; and the tensor operations, one after another: :data:`STEP_OPERATIONS` +
    :data:`LAYER_STEP_OPERATIONS` ``L`` per step, :data:`FORWARD_OPERATIONS` + :data:`LAYER_FORWARD_OPERATIONS` ``L``
    per evaluation batch (``B_e`` sequences of one length). On the lab's small models most of a step is those calls. Building the model and the first calls count as nothing (within 0.1 s of
    it), and so does the validation of a run trained to the ceiling (it stops the run early, and the estimate is of
    every step).

    Measured against the peak resident memory of whole processes (copy task, d_model 64, 2 layers, batch 32,
    sequences of 256 to 2048 tokens, rope, alibi and nope), the total is 1.2 to 1.4 times the peak.
    """
    model = config.model
    inner, inner_options = acting_encoding(model.encoding, model.encoding_options)
    concat = inner_options.get("combine") == "concat"
    dim = concat_width(inner, inner_options) if concat else 0
    W, L, H = model.d_model + dim, model.n_layers, model.n_heads
    KV = model.n_kv_heads or H
    F = model.d_ff or 4 * W
    task = config.lab_task
    V = task.vocab_bound
    T = config.sequence_length(config.train_len)
    T_e = max(config.sequence_length(n) for n in config.eval_lengths)
    if config.val_every:
        T_e = max(T_e, T)
    B = config.batch_size
    B_e = task.eval_batch(config)
    inner_info = get_class(inner).info
    bias = inner_info.biases_logits
    per_row = get_class(model.encoding).info.randomized  # positions drawn per sequence: a bias per batch row
    table = 0
    if inner_info.acts_on_input and inner_info.length_limited:  # a learned table: one row per position
        rows = model.encoding_options.get("max_len") or config.max_len or T
        table = int(rows) * (dim or model.d_model)
    attention = 2 * W * W + 2 * W * W * KV // H  # q and out; k and v with KV of the H heads
    dense = L * (attention + 2 * W * F + F + 6 * W) + 2 * W + W * V
    params = V * model.d_model + table + dense
    train = B * T * (L * (16 * W + 3 * F) + 4 * W + 3 * V)
    evaluation = B_e * T_e * (6 * W + 2 * F + 3 * V)
    if bias:
        train += 3 * L * B * H * T * T + 2 * H * T * T * (B if per_row else 1) + 8 * T * T
        evaluation += 2 * B_e * H * T_e * T_e + 2 * H * T_e * T_e * (B_e if per_row else 1) + 8 * T_e * T_e
    state, train, evaluation = 4 * 4 * params, 4 * train, 4 * evaluation
    total = RUNTIME_BYTES + state + int(MEMORY_MARGIN * max(train, evaluation))
    flops = config.steps * (6 * dense * B * T + 12 * L * B * T * T * W)
    operations = config.steps * (STEP_OPERATIONS + LAYER_STEP_OPERATIONS * L)
    for count, m in task.eval_sequences(config):
        flops += count * m * (2 * dense + 4 * L * m * W)
        operations += math.ceil(count / B_e) * (FORWARD_OPERATIONS + LAYER_FORWARD_OPERATIONS * L)
    return RunEstimate(params, state, train, evaluation, total, flops, operations, threads)


def call_seconds() -> float:
    """CPU seconds of one tensor operation of a lab run on this machine (the call into torch, autograd's bookkeeping,
    the model's Python around it): measured once per machine and torch version (:func:`measure_call_seconds`) and
    kept beside the machine's rate (:func:`posenc.resources.calibrated`);
    :data:`~posenc.resources.DEFAULT_CALL_SECONDS` without a measurement."""
    return calibrated("lab call", measure_call_seconds, DEFAULT_CALL_SECONDS)


def measure_call_seconds() -> float:
    """Seconds per counted tensor operation of :data:`CALL_CALIBRATION`'s runs on one thread: the thread CPU time
    of the run of ``CALL_STEPS[1]`` steps less that of ``CALL_STEPS[0]`` (each the fastest of :data:`CALL_REPEATS`,
    after one run that pays the first calls), less their difference of arithmetic at the machine's rate, over their
    difference of counted operations (:func:`estimate_run`)."""
    configs = [RunConfig.from_dict({**CALL_CALIBRATION, "steps": steps}) for steps in CALL_STEPS]
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    times = []
    try:
        with torch.random.fork_rng(devices=[]):  # the runs seed torch; the caller's generator is left as it was
            train_run(configs[0], progress=False, device="cpu")
            for config in configs:
                best = float("inf")
                for _ in range(CALL_REPEATS):
                    started = time.thread_time()
                    train_run(config, progress=False, device="cpu")
                    best = min(best, time.thread_time() - started)
                times.append(best)
    finally:
        torch.set_num_threads(before)
    short, long = (estimate_run(config) for config in configs)
    arithmetic = seconds(long.flops - short.flops)
    return (times[1] - times[0] - arithmetic) / (long.operations - short.operations)


def check_run(config: RunConfig, concurrent: int = 1, limit_bytes: int | None = None, threads: int = 1) -> RunEstimate:
    """Refuse a run that cannot work, before anything is allocated: a length its task's data cannot give (a char-LM
    length past the validation text), an estimate (:func:`estimate_run`, times ``concurrent`` runs side by side)
    above the memory available, or encoding options the encoding rejects. Returns the estimate."""
    config.lab_task.check_data(config)
    estimate = estimate_run(config, threads)
    side_by_side = f"{concurrent} runs side by side, each " if concurrent > 1 else ""
    check_memory(concurrent * estimate.total, f"lab run {config.task}/{config.label} (train_len {config.train_len}, "
                 f"eval lengths up to {max(config.eval_lengths)}, d_model {config.model.d_model}, batch "
                 f"{config.batch_size})", "lower train_len, eval_lengths, batch_size or d_model"
                 + (", or use fewer workers" if concurrent > 1 else ""), limit_bytes=limit_bytes,
                 detail=side_by_side + estimate.describe())
    options, max_len = _model_options(config, 0)
    model = config.model
    try:  # what the model's constructor does with the options, without the model
        build_for_model(model.encoding, d_model=model.d_model, n_heads=model.n_heads,
                        head_dim=model.d_model // model.n_heads, max_len=max_len, **options)
    except PosencError as exc:
        if "head_dim must" in str(exc):  # the encoding's fix names a head_dim option, which a run does not have
            raise _head_width_error(config, options, max_len, exc) from exc
        raise
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise PosencError(f"encoding {model.encoding!r} rejects encoding_options {model.encoding_options!r}: "
                          f"{type(exc).__name__}: {exc}; fix the option values (see docs/encodings.md)") from exc
    return estimate


def _head_width_error(config: RunConfig, options: dict[str, Any], max_len: int, exc: PosencError) -> PosencError:
    """An encoding's refusal of the head width, said in the run's own terms: head_dim is d_model / n_heads, set by
    --d-model and --n-heads, with the nearest larger d_model that the encoding takes."""
    d_model, n_heads = config.model.d_model, config.model.n_heads
    problem = str(exc).split("; ")[0]  # the encoding's reason, without its fix (which names head_dim)
    fits = None
    for wider in range(d_model + n_heads, d_model + 64 * n_heads + 1, n_heads):
        try:
            build_for_model(config.model.encoding, d_model=wider, n_heads=n_heads, head_dim=wider // n_heads,
                            max_len=max_len, **options)
        except (TypeError, ValueError, ArithmeticError):
            continue
        fits = wider
        break
    hint = f", e.g. --d-model {fits} (head_dim {fits // n_heads})" if fits is not None else ""
    return PosencError(f"{config.model.encoding}: {problem}: a run's head_dim is d_model / n_heads = {d_model} / "
                       f"{n_heads} = {d_model // n_heads}; change --d-model or --n-heads{hint} (RunConfig.model's "
                       f"d_model, n_heads)")


def check_seed(seed: object, name: str = "seed") -> int:
    """``seed`` when it is a whole number in ``0..SEED_LIMIT - 1`` (:data:`posenc.checks.SEED_LIMIT`), else an
    error naming it."""
    if not whole_number(seed, 0, SEED_LIMIT):
        raise PosencError(f"{name} must be an integer in 0..{SEED_LIMIT - 1}, got {seed!r}; e.g. --seed 0")
    return seed


def _lr_at(step: int, config: RunConfig) -> float:
    """Linear warm-up over ``warmup`` steps, then cosine decay to 10% of ``lr`` (or ``lr`` to the end:
    ``lr_decay="constant"``)."""
    if config.lr_decay == "constant":
        return config.lr * ((step + 1) / config.warmup) if step < config.warmup else config.lr
    if step < config.warmup:
        return config.lr * (step + 1) / config.warmup
    progress = (step - config.warmup) / max(1, config.steps - config.warmup)
    return config.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


class _Ceiling:
    """Early stopping on in-distribution validation: score = mean exact match over sizes ``min_train_len..
    train_len`` (ties broken by token accuracy); keeps the best weights; stops after ``patience`` validations
    without improvement, or at a perfect score."""

    def __init__(self, config: RunConfig, task: LabTask, seed: int, placement: Placement | None = None) -> None:
        self.config, self.task, self.seed = config, task, seed
        self.placement = placement or Placement(torch.device("cpu"), torch.float32)
        self.best: tuple[float, float] = (-1.0, -1.0)
        self.best_step = self.stale = 0  # validations since the best one; the first always improves on -1
        self.best_state: dict[str, torch.Tensor] | None = None
        self.curve: list[list[float]] = []
        self.stopped_at = 0

    def check(self, model: Transformer, step: int) -> bool:
        """Validate; ``True`` when training should stop."""
        with self.placement.autocast():
            exact, token = self.task.validate(model, self.config, self.seed)
        model.train()
        self.curve.append([step, exact, token])
        self.stopped_at = step
        if (exact, token) > self.best:
            self.best, self.best_step, self.stale = (exact, token), step, 0
            self.best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        else:
            self.stale += 1
        return exact >= 1.0 or self.stale >= self.config.patience

    def restore(self, model: Transformer) -> None:
        if self.best_state is not None:
            model.load_state_dict(self.best_state)

    def summary(self) -> dict[str, Any]:
        return {"val_curve": self.curve, "best_step": self.best_step, "steps_trained": self.stopped_at,
                "val_exact_match": self.best[0], "val_token_accuracy": self.best[1]}


#: called at each validation with the model (in training mode) and the steps done; ``True`` stops training
Validator = Callable[[Transformer, int], bool]


def train_run(config: RunConfig | dict[str, Any], seed: int = 0, progress: bool = True,
              position: int | None = None, device: str | torch.device | Placement = "auto",
              on_validate: Validator | None = None, validate_every: int = 1) -> RunResult:
    """Train one model and evaluate it at every length.

    ``on_validate``: a caller's validation, called before the first step (step 0) and after every
    ``validate_every`` steps with the model and the steps done, under the run's precision (autocast); it returns
    ``True`` to stop training there. What a caller that traces a run (embeddings at a bar, its own validation set)
    needs, with the lab's one loop (the same batches, optimiser, warm-up and clipping as every lab run). It is
    independent of the in-distribution ceiling (``config.val_every``), which still runs when the config asks for
    it; either one stopping stops the run.

    ``device``: where the model, its tables and the batches live (:func:`posenc.device.resolve_device`: ``"auto"``
    picks CUDA, else MPS, else the CPU); the precision is ``config.dtype``. Both are checked once, here, before
    anything is built (:meth:`posenc.device.Placement.resolve`), and recorded in :attr:`RunResult.setup`; a caller
    that has checked them already (``posenc train``) passes its :class:`~posenc.device.Placement`, whose dtype must
    be the config's.

    Metrics (JSON-able):

    - tasks: ``{"by_length": {str(n): {"exact_match", "token_accuracy", "samples"} | "cannot run"},
      "loss_curve": [[step, loss], ...], "final_loss": float, "params": int}``, and with ``val_every``:
      ``"val_curve": [[step, exact, token], ...], "best_step", "steps_trained", "val_exact_match",
      "val_token_accuracy"``
    - char-LM: ``{"by_length": {protocol: {str(L_valid): {"nll", "ppl", "bpc", "tokens"} | "cannot run"}}, ...}``

    Example::

        >>> result = train_run(RunConfig(task="copy", encoding="nope", train_len=5, steps=20), seed=0,
        ...                    progress=False)
        >>> sorted(result.metrics["by_length"])
        ['10', '2', '20', '5']
        >>> result.setup
        {'device': 'cpu', 'dtype': 'float32'}
    """
    if isinstance(config, dict):
        config = RunConfig.from_dict(config)
    check_seed(seed)
    if on_validate is not None and not whole_number(validate_every):
        raise PosencError(f"validate_every must be a positive integer, got {validate_every!r}")
    if isinstance(device, Placement):
        placement = device
        if placement.dtype != DTYPES[config.dtype]:
            raise PosencError(f"train_run was given a placement in {dtype_name(placement.dtype)} for a config in "
                              f"{config.dtype}; resolve the placement from the config's dtype "
                              f"(Placement.resolve(device, config.dtype, training=True))")
    else:  # float16 training on the CPU is refused here
        placement = Placement.resolve(device, config.dtype, training=True)
    device, dtype = placement.device, placement.dtype
    check_run(config)  # a run that cannot fit or cannot build is refused before anything is allocated
    started = time.perf_counter()
    task = config.lab_task
    draw = task.sampler(config)  # reads the task's data once
    model = build_model(config, seed, task.vocab_size())
    model.to(device)
    # foreach: the same arithmetic as torch's per-tensor loop (bit-identical on CPU), in one call per operation
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay, foreach=True)
    scaler = torch.amp.GradScaler(device.type, enabled=dtype == torch.float16)
    generator = torch.Generator().manual_seed(seed)  # batches are drawn on the CPU: one seed, one set of strings
    curve: list[list[float]] = []
    every = max(1, config.steps // 20)
    losses: list[torch.Tensor] = []  # this logging interval's losses, still on the device
    bar = progress_bar(range(config.steps), desc=f"{config.task}/{config.label} s{seed}", disable=not progress,
                       position=position, leave=position is None)
    ceiling = _Ceiling(config, task, seed, placement) if config.val_every else None

    def validate(step: int) -> bool:
        """The caller's validation and the ceiling's, where they fall due; ``True`` stops."""
        stop = False
        if on_validate is not None and step % validate_every == 0:
            with placement.autocast():
                stop = bool(on_validate(model, step))
            model.train()
        if ceiling is not None and step and step % config.val_every == 0:
            stop = ceiling.check(model, step) or stop
        return stop

    stopped = validate(0)  # the untrained model (the caller's validation only)
    model.train()
    for step in () if stopped else bar:
        ids, targets = draw(generator)  # [B, T] each, on the CPU
        ids, targets = ids.to(device, non_blocking=True), targets.to(device, non_blocking=True)
        for group in optimizer.param_groups:
            group["lr"] = _lr_at(step, config)
        with placement.autocast():
            logits = model(ids)  # [B, T, V]
            loss = F.cross_entropy(logits.flatten(0, 1).float(), targets.flatten(), ignore_index=IGNORE)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        if config.grad_clip:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.detach())
        if (step + 1) % every == 0 or step + 1 == config.steps:
            # one read from the device per logging point; summed in float64 in step order, as the steps ran
            values = torch.stack(losses).tolist()
            mean = sum(values, 0.0) / len(values)
            curve.append([step + 1, mean])
            bar.set_postfix(loss=f"{mean:.3f}")
            losses = []
        if validate(step + 1):
            break
    bar.close()
    if ceiling is not None:
        ceiling.restore(model)
    with placement.autocast():
        by_length = task.evaluate(model, config, seed)
    metrics = {"by_length": by_length, "loss_curve": curve, "final_loss": curve[-1][1] if curve else None,
               "params": sum(p.numel() for p in model.parameters())}
    if ceiling is not None:
        metrics.update(ceiling.summary())
    return RunResult(config.as_dict(), seed, metrics, time.perf_counter() - started, setup=placement.setup())
