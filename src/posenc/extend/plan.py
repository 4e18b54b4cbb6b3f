"""The plan of a context-extension run: which windows and passkey prompts to evaluate, and what it will cost.

Defaults (``posenc extend smollm2``), chosen so the whole table finishes in under an hour on 2 CPU cores:

- lengths 2k, 4k, 8k, 16k (32k on request); scalings none, linear, ntk, dynamic, yarn, llama3;
- factor ``s = max(1, L / L0)`` per length (:mod:`posenc.extend.factors`). At and below the native length ``L0`` every
  scaling is then the identity, so those lengths are computed once and shared by all scalings;
- windows per length and protocol: ``max(1, min(4, L0 // L))`` (4 at 2k, 2 at 4k, 1 at 8k and 16k), the same
  count for both protocols; sliding stride ``L / 2``, so every scored token sees at least ``L / 2`` tokens of context;
- passkey: depths 0.25 and 0.75, one trial each, at every length and scaling. No protocol (``protocols=()``) runs
  the passkey alone.

Work is counted in forward passes. Two jobs with the same frequencies (same ``inv_freq`` and attention factor at the
lengths they use) and the same tokens are one job: a window at offset 0 serves both protocols, and with stride
``L / 2`` every other sliding window is also a non-overlapping one. The time estimate counts
each forward pass's floating-point operations from the model's config (:func:`forward_work`: the layers' matmuls,
the output layer and attention's ``L^2`` terms) and turns them into seconds at this machine's rate on its cores
(:func:`posenc.resources.seconds`). Passkey trials at one length, depth and frequency set share the text before the
needle (:class:`~posenc.extend.passkey.SharedPrefix`): it costs ``f(m)`` once (``m`` the needle's position), and each
trial ``f(L) - f(m)`` plus ``MAX_NEW_TOKENS`` decoding steps (:func:`decode_work`: the arithmetic of each new token,
and the key/value cache each step copies and reads, counted in bytes).

``quick`` (for the report): lengths 4k, 8k, 12k; scalings none, linear, yarn; one window per length (both protocols
read it); passkey only when asked, then one trial at depth 0.5. About 6 minutes for perplexity on 2 idle cores.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any

import torch

from posenc.checks import SEED_LIMIT, whole_number, wrong_flags
from posenc.configs import one_config
from posenc.device import dtype_name
from posenc.errors import PosencError
from posenc.extend.factors import SCALING_NAMES, check_scalings, factor_for
from posenc.extend.perplexity import PROTOCOLS, normalize_protocols, window_offsets
from posenc.resources import seconds, usable_cores

__all__ = ["ExtendConfig", "WindowJob", "PasskeyJob", "Plan", "make_plan", "rope_fingerprint", "forward_seconds",
           "decode_seconds", "forward_work", "decode_work", "DEFAULT_LENGTHS", "QUICK_LENGTHS", "QUICK_SCALINGS",
           "DEFAULT_DEPTHS"]

DEFAULT_LENGTHS = (2048, 4096, 8192, 16384)
QUICK_LENGTHS = (4096, 8192, 12288)
QUICK_SCALINGS = ("none", "linear", "yarn")
DEFAULT_DEPTHS = (0.25, 0.75)
QUICK_DEPTHS = (0.5,)
MAX_NEW_TOKENS = 8

#: SmolLM2-135M's shape, what a plan without a model config is estimated for
_SMOLLM2 = {"num_hidden_layers": 30, "hidden_size": 576, "intermediate_size": 1536, "num_attention_heads": 9,
            "num_key_value_heads": 3, "vocab_size": 49152}
#: times the key/value cache's bytes one decoding step moves: transformers' cache is copied as it grows and repeated
#: to every query head before attention reads it (0.09 s per step at 2048 tokens, 0.57 s at 12288, SmolLM2-135M on
#: 2 cores, 2026-11-23)
_CACHE_PASSES = 2


def _shape(config: Any | None) -> tuple[int, int, int, int, int, int]:
    """(layers, hidden, MLP width, query heads, key/value heads, vocabulary) of a Hugging Face config (SmolLM2's for
    ``None``; a field the config lacks is taken in proportion: MLP 8/3 of the width, heads of 64 channels)."""
    get = (lambda name, default: _SMOLLM2[name]) if config is None else (
        lambda name, default: getattr(config, name, None) or default)
    layers, hidden = int(get("num_hidden_layers", 30)), int(get("hidden_size", 576))
    heads = int(get("num_attention_heads", max(1, hidden // 64)))
    return (layers, hidden, int(get("intermediate_size", 8 * hidden // 3)), heads,
            int(get("num_key_value_heads", heads)), int(get("vocab_size", 49152)))


def forward_work(length: int, config: Any | None = None) -> float:
    """Floating-point operations of one forward pass of a decoder at ``length`` tokens (SmolLM2-135M's shape without
    ``config``): per token ``2 (layers (2 h^2 + 2 h k d + 3 h I) + h V)`` (the query and output projections, the key and
    value ones over ``k`` heads of ``d = h / heads`` channels, a gated MLP of width ``I``, the output layer over the
    vocabulary ``V``), plus attention's scores and weighted values, ``4 layers L^2 h``."""
    layers, hidden, mlp, heads, kv_heads, vocab = _shape(config)
    kv = kv_heads * (hidden // heads)
    per_token = 2 * (layers * (2 * hidden * hidden + 2 * hidden * kv + 3 * hidden * mlp) + hidden * vocab)
    return float(length * per_token + 4 * layers * length * length * hidden)


def decode_work(context: int, config: Any | None = None) -> tuple[float, float]:
    """``(floating-point operations, bytes)`` of the ``MAX_NEW_TOKENS`` greedy decoding steps of a passkey answer
    after ``context`` tokens: each step is one token's forward (:func:`forward_work` of one token, attending to the
    context), and moves the cache, ``2 layers h context`` float32 numbers once the keys and values are repeated to
    every head, :data:`_CACHE_PASSES` times."""
    layers, hidden, *_ = _shape(config)
    flops = forward_work(1, config) + 4 * layers * context * hidden
    cache = 2 * layers * hidden * context * 4
    return MAX_NEW_TOKENS * flops, MAX_NEW_TOKENS * _CACHE_PASSES * cache


def forward_seconds(length: int, config: Any | None = None) -> float:
    """Estimated seconds of one forward pass at ``length`` tokens on this machine's cores (:func:`forward_work` at
    its rate)."""
    return seconds(forward_work(length, config), threads=usable_cores())


def decode_seconds(context: int, config: Any | None = None) -> float:
    """Estimated seconds of the ``MAX_NEW_TOKENS`` greedy decoding steps of a passkey answer after ``context`` tokens
    (:func:`decode_work` at this machine's rate)."""
    flops, moved = decode_work(context, config)
    return seconds(flops, memory=moved, threads=usable_cores())


@dataclass
class ExtendConfig:
    """What to run. ``None`` fields take the defaults above (or the quick ones with ``quick=True``).

    Attributes:
        model: smollm2, a model folder, a .gguf file or a cached hub id.
        lengths: evaluation lengths in tokens, e.g. 2k,4k,8k,16k,32k (default 2k,4k,8k,16k; quick: 4k,8k,12k).
        scalings: any of none, linear, ntk, dynamic, yarn, llama3 (default all; quick: none,linear,yarn).
        protocols: perplexity protocols, nonoverlap and/or sliding (none: the passkey alone).
        passkey: passkey retrieval (default on; off with quick).
        factor: fix the scaling factor (default max(1, L / native)).
        windows: windows per length and protocol (default by length).
        stride_fraction: the sliding protocol's stride as a fraction of the length (0.5: every scored token sees
            at least L / 2 tokens of context).
        depths: passkey depths in [0, 1] (default 0.25,0.75; quick: 0.5).
        trials: passkey trials per depth.
        quick: the small plan: a few minutes.
        device: auto (cuda when a GPU is visible, else mps, else cpu), cpu, cuda, cuda:N or mps; run_extend
            resolves it before anything is read.
        dtype: float32, bfloat16 or float16: the model's weights (part of the store keys).
        text: a UTF-8 text file instead of the Shakespeare plays.
        max_memory_gb: refuse lengths estimated above this.
        seed: the seed of the passkeys (the numbers to retrieve).
    """

    model: str = "smollm2"
    lengths: tuple[int, ...] | None = None
    scalings: tuple[str, ...] | None = None
    protocols: tuple[str, ...] = PROTOCOLS.names()
    passkey: bool | None = None
    factor: float | None = None
    windows: int | None = None
    stride_fraction: float = 0.5
    depths: tuple[float, ...] | None = None
    trials: int = 1
    quick: bool = False
    device: str = "auto"
    dtype: str = "float32"
    text: str | None = None
    max_memory_gb: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        for name, value in wrong_flags(self):
            raise PosencError(f"ExtendConfig.{name} is a flag: True or False, got {value!r} (a string such as 'no' "
                              f"would count as true)")
        if self.lengths is None:
            self.lengths = QUICK_LENGTHS if self.quick else DEFAULT_LENGTHS
        if isinstance(self.lengths, int):
            self.lengths = (self.lengths,)
        for name in ("lengths", "depths"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, list | tuple):
                raise PosencError(f"{name} must be a list of numbers, got {value!r}; e.g. {name}="
                                  + ("[2048, 4096]" if name == "lengths" else "[0.25, 0.75]"))
        lengths = []
        for n in self.lengths:
            if not whole_number(n, 64):
                raise PosencError(f"lengths must be integers >= 64 tokens, got {n!r}; e.g. --lengths 2048,4096")
            lengths.append(int(n))
        self.lengths = tuple(sorted(set(lengths)))
        self.scalings = tuple(check_scalings(self.scalings or (QUICK_SCALINGS if self.quick else SCALING_NAMES)))
        if isinstance(self.protocols, str):
            self.protocols = (self.protocols,)
        if self.protocols and tuple(self.protocols) == ("none",):  # the documented way to ask for the passkey alone
            self.protocols = ()
        self.protocols = normalize_protocols(self.protocols) if self.protocols else ()
        if self.passkey is None:
            self.passkey = not self.quick
        if not self.protocols and not self.passkey:
            raise PosencError("nothing to run: no perplexity protocol and no passkey; give protocols "
                              f"({', '.join(PROTOCOLS)}) or passkey=True")
        if self.depths is None:
            self.depths = QUICK_DEPTHS if self.quick else DEFAULT_DEPTHS
        for d in self.depths:
            if isinstance(d, bool) or not isinstance(d, int | float) or not 0.0 <= d <= 1.0:
                raise PosencError(f"passkey depths must be numbers in [0, 1], got {d!r}")
        self.depths = tuple(float(d) for d in self.depths)
        if self.windows is not None and not whole_number(self.windows):
            raise PosencError(f"windows must be a positive integer, got {self.windows!r}")
        if isinstance(self.stride_fraction, bool) or not isinstance(self.stride_fraction, int | float) or not (
                0 < self.stride_fraction <= 1):
            raise PosencError(f"stride_fraction must be in (0, 1], got {self.stride_fraction!r}; 0.5 scores the "
                              f"second half of every window")
        if not whole_number(self.trials):
            raise PosencError(f"trials must be a positive integer, got {self.trials!r}")
        if not whole_number(self.seed, 0, SEED_LIMIT):
            raise PosencError(f"seed must be an integer in 0..{SEED_LIMIT - 1}, got {self.seed!r}; e.g. seed=0")
        if self.max_memory_gb is not None and (isinstance(self.max_memory_gb, bool) or not isinstance(
                self.max_memory_gb, int | float) or not 0 < self.max_memory_gb < math.inf):
            raise PosencError(f"max_memory_gb must be a number > 0 (the most memory a length may take), got "
                              f"{self.max_memory_gb!r}; leave it out to use the memory available now")
        self.dtype = dtype_name(self.dtype)  # float32, bfloat16 or float16 (aliases such as bf16 taken)
        factor_for(1, 1, self.factor)  # validates --factor

    def windows_for(self, length: int, native_len: int) -> int:
        if self.windows is not None:
            return self.windows
        if self.quick:
            return 1
        return max(1, min(4, native_len // length))

    def stride_for(self, length: int) -> int:
        return max(1, int(round(length * self.stride_fraction)))


def extend_config(config: ExtendConfig | str | None = None, **settings: Any) -> ExtendConfig:
    """The one :class:`ExtendConfig` of a run: ``config`` itself, a copy of it with ``settings`` replaced, or a new
    one from ``settings`` (its fields; lists are taken for tuples) for the model named ``config`` (or
    ``settings["model"]``, default smollm2)."""
    return one_config(ExtendConfig, config, settings, first="model", first_types=str,
                      first_said="a model name (e.g. 'smollm2')", what="extend")


def rope_fingerprint(encoding: Any, seq_lens: list[int]) -> str:
    """A short hash of what a RoPE does at the given sequence lengths: ``inv_freq`` (float64 bytes), attention
    factor, pairing and rotary width. Two scalings with equal fingerprints give the same model."""
    h = hashlib.sha256(f"{encoding.head_dim}:{encoding.rotary_dim}:{encoding.pairing}".encode())
    for n in seq_lens:
        inv_freq, factor = encoding.frequencies(n)
        h.update(inv_freq.to(torch.float64).cpu().numpy().tobytes())
        h.update(repr(float(factor)).encode())
    return h.hexdigest()[:16]


@dataclass
class WindowJob:
    length: int
    offset: int
    rope: str  # fingerprint
    scalings: list[str] = field(default_factory=list)


@dataclass
class PasskeyJob:
    length: int
    depth: float
    trial: int
    rope: str
    scalings: list[str] = field(default_factory=list)


@dataclass
class Plan:
    """The work of a run, deduplicated, with the per-(length, scaling) bookkeeping to read results back."""

    config: ExtendConfig
    native_len: int
    factors: dict[int, float]
    offsets: dict[tuple[str, int], list[int]]  # (protocol, length) -> window offsets
    strides: dict[int, int]
    ropes: dict[tuple[str, int], str]  # (scaling, length) -> frequency fingerprint
    windows: list[WindowJob]
    passkeys: list[PasskeyJob]

    def estimate_seconds(self, model_config: Any | None = None) -> float:
        """Seconds on this machine's cores, idle: one forward pass per window; per passkey group (length, depth, frequencies)
        the shared text before the needle once, then each trial's rest and its decoding steps."""
        total = sum(forward_seconds(j.length, model_config) for j in self.windows)
        groups: dict[tuple[int, float, str], int] = {}
        for j in self.passkeys:
            groups[(j.length, j.depth, j.rope)] = groups.get((j.length, j.depth, j.rope), 0) + 1
        for (length, depth, _), trials in groups.items():
            prefix = forward_seconds(int(depth * length), model_config)
            rest = forward_seconds(length, model_config) - prefix
            total += prefix + trials * (rest + decode_seconds(length, model_config))
        return total

    def describe(self, model_config: Any | None = None) -> str:
        c = self.config
        lines = [f"plan: model {c.model}, native length {self.native_len}, lengths {list(c.lengths)}, "
                 f"scalings {list(c.scalings)}, protocols {list(c.protocols)}"]
        for n in c.lengths:
            distinct = len({self.ropes[(s, n)] for s in c.scalings})
            per = ", ".join(f"{p} {len(self.offsets[(p, n)])}" for p in c.protocols) or "none (passkey only)"
            stride = f", stride {self.strides[n]}" if "sliding" in c.protocols else ""
            lines.append(f"  {n:>6} tokens: factor s={self.factors[n]:g}, windows per protocol: {per}{stride}; "
                         f"{distinct} distinct frequency set(s) among {len(c.scalings)} scalings")
        if c.passkey:
            lines.append(f"  passkey: depths {list(c.depths)}, {c.trials} trial(s) each, greedy decode of "
                         f"{MAX_NEW_TOKENS} tokens")
        lines.append(f"  work: {len(self.windows)} window forward passes + {len(self.passkeys)} passkey prompts; "
                     f"about {self.estimate_seconds(model_config) / 60:.0f} min on {usable_cores()} idle CPU cores "
                     f"(before skipping what the store already holds)")
        return "\n".join(lines)


def make_plan(config: ExtendConfig, native_len: int, build_rope) -> Plan:
    """Deduplicated jobs. ``build_rope(scaling, factor)`` returns the posenc RoPE for a scaling (no model needed)."""
    factors = {n: factor_for(n, native_len, config.factor) for n in config.lengths}
    offsets: dict[tuple[str, int], list[int]] = {}
    strides = {n: config.stride_for(n) for n in config.lengths}
    for n in config.lengths:
        count = config.windows_for(n, native_len)
        for protocol in config.protocols:
            offsets[(protocol, n)] = window_offsets(protocol, n, count, strides[n])
    ropes: dict[tuple[str, int], str] = {}
    windows: dict[tuple[int, int, str], WindowJob] = {}
    passkeys: dict[tuple[int, float, int, str], PasskeyJob] = {}
    for n in config.lengths:
        for scaling in config.scalings:
            rope = build_rope(scaling, factors[n])
            fingerprint = rope_fingerprint(rope, [n])  # passkey prompts freeze length-dependent scalings at n too
            ropes[(scaling, n)] = fingerprint
            for offset in sorted({o for p in config.protocols for o in offsets[(p, n)]}):
                job = windows.setdefault((n, offset, fingerprint), WindowJob(n, offset, fingerprint))
                job.scalings.append(scaling)
            if config.passkey:
                for depth in config.depths:
                    for trial in range(config.trials):
                        job = passkeys.setdefault((n, depth, trial, fingerprint),
                                                  PasskeyJob(n, depth, trial, fingerprint))
                        job.scalings.append(scaling)
    return Plan(config, native_len, factors, offsets, strides, ropes, list(windows.values()),
                list(passkeys.values()))
