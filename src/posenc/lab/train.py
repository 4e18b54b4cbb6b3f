"""One lab run: a :class:`RunConfig` and a seed in, metrics by length out.

The model is :class:`posenc.model.Transformer` with the chosen encoding: a causal decoder (every task, the char-LM)
or a bidirectional encoder (``fmt="encoder"``, the output written into blank slots, Deletang et al. 2023).
Training samples a size ``n`` uniformly from ``min_train_len..train_len`` for every batch (the char-LM always
reads windows of ``train_len`` characters); AdamW with linear warm-up then cosine decay; cross-entropy on the
output tokens only (every next character for the char-LM).

The model's position range is the longest sequence seen in training (``max_len``, default: the sequence length at
``train_len``): a learned table gets exactly that many rows, so it cannot run longer sequences, and says so.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import torch
import torch.nn.functional as F
from tqdm.auto import tqdm

from posenc.errors import PosencError
from posenc.lab.evaluate import evaluate_lm, evaluate_task
from posenc.lab.tasks import FORMATS, IGNORE, TASKS, VOCAB_SIZE, format_batch, get_task, sequence_length
from posenc.model import Transformer, TransformerConfig
from posenc.protocols import PROTOCOLS, normalize_protocols
from posenc.registry import get_class

__all__ = ["RunConfig", "RunResult", "build_model", "train_run", "CHARLM", "KIND"]

CHARLM = "charlm"  #: the character-level Shakespeare language model
KIND = "lab"  #: the results-store kind of lab runs
RANDOMIZED_RANGE = 2048  #: N, the range randomized positions are drawn from (Ruoss et al. 2023)


@dataclass
class RunConfig:
    """Everything that defines a lab run except the seed (the store keys runs on this config's hash and the seed).

    Attributes:
        task: a synthetic task (:data:`posenc.lab.tasks.TASKS`) or ``"charlm"``.
        encoding, encoding_options: a registry name and its options (model sizes are filled in), e.g.
            ``"sinusoidal", {"combine": "concat", "dim": 16}``.
        label: the name in tables and plots (default: the encoding, plus ``-concat`` for concatenation).
        fmt: ``"decoder"`` (causal) or ``"encoder"`` (bidirectional; synthetic tasks only).
        d_model, n_layers, n_heads, d_ff, dropout: model sizes (``d_ff`` default ``4 * width``).
        train_len: largest task size ``n`` in training (char-LM: the context length ``L``).
        min_train_len: smallest task size in training.
        eval_lengths: task sizes (char-LM: context lengths) to test; default ``L/2, L, 2L, 4L`` (char-LM
            ``L, 2L, 4L, 8L``).
        steps, batch_size, lr, warmup, weight_decay, grad_clip: optimisation.
        eval_samples: test strings per task size.
        eval_tokens: characters scored per char-LM evaluation length.
        protocols: char-LM protocols, ``nonoverlap`` and/or ``sliding`` (:mod:`posenc.protocols`).
        stride: sliding-window stride (default ``L_valid // 8``).
        max_len: positions the model is built for (learned table rows; default the sequence length at
            ``train_len``).
    """

    task: str = "copy"
    encoding: str = "rope"
    encoding_options: dict[str, Any] = field(default_factory=dict)
    label: str | None = None
    fmt: str = "decoder"
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    d_ff: int | None = None
    dropout: float = 0.0
    train_len: int = 20
    min_train_len: int = 1
    eval_lengths: list[int] = field(default_factory=list)
    steps: int = 500
    batch_size: int = 32
    lr: float = 1e-3
    warmup: int = 50
    weight_decay: float = 0.0
    grad_clip: float = 1.0
    eval_samples: int = 256
    eval_tokens: int = 16384
    protocols: list[str] = field(default_factory=lambda: list(PROTOCOLS))
    stride: int | None = None
    max_len: int | None = None

    def __post_init__(self) -> None:
        if self.task != CHARLM:
            get_task(self.task)
        get_class(self.encoding)  # unknown encodings list the valid ones
        if not isinstance(self.encoding_options, dict):
            raise PosencError(f"encoding_options must be a dict, got {self.encoding_options!r}")
        if self.fmt not in FORMATS:
            raise PosencError(f"fmt must be one of {FORMATS}, got {self.fmt!r}")
        if self.task == CHARLM and self.fmt != "decoder":
            raise PosencError("the char-LM is a causal decoder; use fmt='decoder'")
        for name in ("d_model", "n_layers", "n_heads", "train_len", "min_train_len", "steps", "batch_size",
                     "eval_samples", "eval_tokens"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise PosencError(f"RunConfig.{name} must be a positive integer, got {value!r}")
        if self.min_train_len > self.train_len:
            raise PosencError(f"min_train_len ({self.min_train_len}) must be <= train_len ({self.train_len})")
        self.eval_lengths = [int(n) for n in (self.eval_lengths or self.default_eval_lengths())]
        if any(n < 1 for n in self.eval_lengths):
            raise PosencError(f"eval_lengths must be positive, got {self.eval_lengths}")
        self.protocols = list(normalize_protocols(self.protocols))
        if self.stride is not None and (not isinstance(self.stride, int) or self.stride < 1):
            raise PosencError(f"stride must be a positive integer or None, got {self.stride!r}")
        needed = self.sequence_length(self.train_len)
        if self.max_len is not None and self.max_len < needed:
            raise PosencError(f"max_len={self.max_len} does not fit the training sequences: train_len={self.train_len}"
                              f" gives {needed} tokens; raise max_len to at least {needed} or lower train_len")
        randomized_range = self.encoding_options.get("max_len", RANDOMIZED_RANGE) if self.encoding == "randomized" else None
        longest = max(self.sequence_length(n) for n in self.eval_lengths + [self.train_len])
        if randomized_range is not None and randomized_range < longest:
            raise PosencError(f"randomized positions are drawn from [0, {randomized_range}) but the longest sequence "
                              f"has {longest} tokens; pass encoding_options max_len >= {longest}")
        if self.label is None:
            concat = self.encoding_options.get("combine") == "concat"
            self.label = self.encoding + ("-concat" if concat else "")

    def default_eval_lengths(self) -> list[int]:
        L = self.train_len
        if self.task == CHARLM:
            return [L, 2 * L, 4 * L, 8 * L]
        return sorted({max(1, L // 2), L, 2 * L, 4 * L})

    def sequence_length(self, n: int) -> int:
        """Tokens the model reads at task size ``n`` (char-LM: ``n`` itself)."""
        return n if self.task == CHARLM else sequence_length(get_task(self.task), n, self.fmt)

    def as_dict(self) -> dict[str, Any]:
        """The config as plain JSON-able data (what the store hashes)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise PosencError(f"unknown run setting(s) {unknown}; valid settings are: {', '.join(sorted(names))}")
        return cls(**data)


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


def build_model(config: RunConfig, seed: int = 0, vocab_size: int | None = None) -> Transformer:
    """The Transformer of a run (weights initialised from ``seed``)."""
    options = dict(config.encoding_options)
    if config.encoding == "t5" and "bidirectional" not in options:
        options["bidirectional"] = config.fmt == "encoder"  # a causal decoder only sees keys at r <= 0
    if config.encoding == "randomized":
        options.setdefault("seed", seed)
        options.setdefault("max_len", RANDOMIZED_RANGE)  # not the model's max_len: the paper draws from [0, 2048)
    # the model passes its own sizes to the encoding; a size also given as an option would be passed twice
    clash = sorted(set(options) & {"d_model", "n_heads", "head_dim"})
    if clash:
        raise PosencError(f"encoding_options {clash} are model sizes; set them through RunConfig (d_model, n_heads) "
                          f"instead of encoding_options")
    max_len = options.pop("max_len", None) or config.max_len or config.sequence_length(config.train_len)
    if vocab_size is None:
        vocab_size = VOCAB_SIZE if config.task in TASKS else _charlm_vocab()
    torch.manual_seed(seed)
    return Transformer(TransformerConfig(
        vocab_size=vocab_size, d_model=config.d_model, n_layers=config.n_layers, n_heads=config.n_heads,
        d_ff=config.d_ff, dropout=config.dropout, causal=config.fmt == "decoder", encoding=config.encoding,
        encoding_options=options, max_len=max_len))


def _charlm_vocab() -> int:
    from posenc.lab.corpus import load_corpus

    return load_corpus().vocab_size


def _lr_at(step: int, config: RunConfig) -> float:
    """Linear warm-up over ``warmup`` steps, then cosine decay to 10% of ``lr``."""
    if step < config.warmup:
        return config.lr * (step + 1) / config.warmup
    progress = (step - config.warmup) / max(1, config.steps - config.warmup)
    return config.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


def train_run(config: RunConfig | dict[str, Any], seed: int = 0, progress: bool = True,
              position: int | None = None) -> RunResult:
    """Train one model and evaluate it at every length.

    Metrics (JSON-able):

    - tasks: ``{"by_length": {str(n): {"exact_match", "token_accuracy", "samples"} | "cannot run"},
      "loss_curve": [[step, loss], ...], "final_loss": float, "params": int}``
    - char-LM: ``{"by_length": {protocol: {str(L_valid): {"nll", "ppl", "bpc", "tokens"} | "cannot run"}}, ...}``

    Example::

        >>> result = train_run(RunConfig(task="copy", encoding="nope", train_len=5, steps=20), seed=0,
        ...                    progress=False)
        >>> sorted(result.metrics["by_length"])
        ['10', '2', '20', '5']
    """
    if isinstance(config, dict):
        config = RunConfig.from_dict(config)
    started = time.perf_counter()
    charlm = config.task == CHARLM
    if charlm:
        from posenc.lab.corpus import load_corpus

        corpus = load_corpus()
        model = build_model(config, seed, corpus.vocab_size)
    else:
        task = get_task(config.task)
        model = build_model(config, seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    generator = torch.Generator().manual_seed(seed)
    curve: list[list[float]] = []
    every = max(1, config.steps // 20)
    running, seen = 0.0, 0
    bar = tqdm(range(config.steps), desc=f"{config.task}/{config.label} s{seed}", disable=not progress,
               position=position, leave=position is None, dynamic_ncols=True)
    model.train()
    for step in bar:
        if charlm:
            L = config.train_len
            starts = torch.randint(0, len(corpus.train) - L - 1, (config.batch_size,), generator=generator)
            window = torch.stack([corpus.train[s:s + L + 1] for s in starts.tolist()])  # [B, L + 1]
            ids, targets = window[:, :-1], window[:, 1:]  # [B, L]
        else:
            n = int(torch.randint(config.min_train_len, config.train_len + 1, (1,), generator=generator))
            ids, targets = format_batch(*task.sample(config.batch_size, n, generator), config.fmt)  # [B, T]
        for group in optimizer.param_groups:
            group["lr"] = _lr_at(step, config)
        logits = model(ids)  # [B, T, V]
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if config.grad_clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
        optimizer.step()
        running += float(loss.detach())
        seen += 1
        if (step + 1) % every == 0 or step + 1 == config.steps:
            curve.append([step + 1, running / seen])
            bar.set_postfix(loss=f"{running / seen:.3f}")
            running, seen = 0.0, 0
    bar.close()
    if charlm:
        by_length = evaluate_lm(model, corpus.valid, config.eval_lengths, tuple(config.protocols),
                                max_tokens=config.eval_tokens, stride=config.stride)
    else:
        by_length = evaluate_task(model, task, config.eval_lengths, config.fmt, config.eval_samples, seed)
    metrics = {"by_length": by_length, "loss_curve": curve, "final_loss": curve[-1][1] if curve else None,
               "params": sum(p.numel() for p in model.parameters())}
    return RunResult(config.as_dict(), seed, metrics, time.perf_counter() - started)
