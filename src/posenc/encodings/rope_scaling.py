"""RoPE frequency scalings as pure functions: each returns ``(inv_freq, attention_factor)``.

``inv_freq`` is a float64 tensor ``[dim // 2]`` (``dim`` is the rotary width), ``attention_factor`` a float that multiplies
cos and sin. The RoPE module never changes for a new scaling: it asks :func:`compute_inv_freq` for the frequencies.

All formulas follow the papers (and Hugging Face's ``ROPE_INIT_FUNCTIONS`` semantics, so checkpoints' configs mean the
same thing here):

- default (Su et al. 2021, RoFormer): ``inv_freq_i = base^(-2i/dim)``
- linear (Chen et al. 2023, Position Interpolation): ``inv_freq / s``
- ntk (static NTK-aware, bloc97 2023): ``base' = base * s^(dim/(dim-2))``
- dynamic (dynamic NTK, emozilla 2023): ``base' = base * (s L / L0 - (s - 1))^(dim/(dim-2))``, ``L = max(seq_len, L0)``
- yarn (Peng et al. 2023): per-dimension ramp between interpolation and extrapolation, ``attention_factor = 0.1 ln s + 1``
- llama3 (Meta 2024): wavelength bands: keep high frequencies, divide low ones by ``s``, smooth in between
- longrope (Ding et al. 2024): ``inv_freq_i = 1 / (ext_i base^(2i/dim))``, ``attention_factor = sqrt(1 + ln s / ln L0)``
- proportional (Gemma 4's rope type; p-RoPE of Barbero et al. 2024, §5): the ``p`` fraction of highest frequencies
  ``base^(-2i/dim)`` kept, the rest set to 0 (those pairs never turn), all divided by ``s``

Each scaling is one record (:class:`Scaling`) in :data:`SCALINGS`: its function, its flags, its Hugging Face
``rope_type`` with the translation of a config's parameters, and what ``posenc extend`` uses. The Hugging Face config
reader (:mod:`posenc.hf.config`) and ``posenc extend`` (:mod:`posenc.extend.factors`) read the records, so a new
scaling is its function, its record and its test (docs/architecture.md, "Where a new RoPE scaling goes").

DeepSeek-V2/V3 split YaRN's temperature in two (:func:`yarn_logit_scale`): cos and sin carry
``mscale(s, mscale) / mscale(s, mscale_all_dim)`` and the softmax scale carries ``mscale(s, mscale_all_dim)^2``.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from posenc.checks import whole_number
from posenc.errors import PosencError, PosencWarning
from posenc.names import Registry
from posenc.resources import check_memory

__all__ = [
    "default_inv_freq", "linear", "ntk", "dynamic_ntk", "yarn", "llama3", "longrope",
    "SCALINGS", "Scaling", "BY_HF_ROPE_TYPE", "HfRopeParameters", "RopeScaling", "compute_inv_freq", "yarn_ramp", "yarn_correction_range", "proportional",
    "yarn_mscale", "yarn_logit_scale", "is_stretch_factor", "check_base",
]


#: bytes per rotary channel while the frequencies are computed (float64 exponents, powers, the result, a ramp)
FREQUENCY_BYTES_PER_CHANNEL = 16


def _check_dim(dim: int) -> None:
    if not whole_number(dim, 2) or dim % 2:
        raise PosencError(f"rotary dim must be an even integer >= 2 (RoPE rotates pairs), got {dim!r}; "
                          f"use an even head_dim / rotary_dim")
    if FREQUENCY_BYTES_PER_CHANNEL * dim >= 1 << 28:  # a width no model has: does it fit at all?
        check_memory(FREQUENCY_BYTES_PER_CHANNEL * dim, f"the frequencies of a rotary width of {dim} channels",
                     "use a head_dim / rotary_dim of a real model (64 to 256)")


def is_stretch_factor(factor: object) -> bool:
    """Whether ``factor`` is a scaling factor: a finite real number (not a bool) >= 1, the context's stretch."""
    return isinstance(factor, (int, float)) and not isinstance(factor, bool) and math.isfinite(factor) and factor >= 1


def _check_factor(factor: float, name: str = "factor") -> float:
    if not is_stretch_factor(factor):
        raise PosencError(f"scaling {name} must be a number >= 1 (it stretches the context), got {factor!r}; "
                          f"use factor = target_length / original_length, e.g. 4.0")
    return float(factor)


def _number(value: object, name: str, scaling: str, low: float = 0.0, inclusive: bool = False,
            example: str = "") -> float:
    """``value`` as a float when it is a finite real number above ``low`` (``>= low`` with ``inclusive``)."""
    real = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not real or not (value >= low if inclusive else value > low):
        raise PosencError(f"{scaling} scaling: {name} must be a finite number {'>=' if inclusive else '>'} {low:g}, "
                          f"got {value!r}" + (f"; {example}" if example else ""))
    return float(value)


def check_base(base: object) -> float:
    """``base`` as a float when it is a finite real number above 1 (the base every rotary frequency is a power of);
    anything else (a string, inf, NaN, 1 or less) raises naming it."""
    real = isinstance(base, int | float) and not isinstance(base, bool)
    if not real or not 1 < base < math.inf:
        raise PosencError(f"RoPE base must be a finite number > 1, got {base!r}; the usual value is 10000 (an "
                          f"infinite base would leave only the first pair turning)")
    return float(base)


def default_inv_freq(dim: int, base: float = 10000.0) -> tuple[torch.Tensor, float]:
    """RoFormer's frequencies ``inv_freq_i = base^(-2i/dim)``, i = 0..dim/2-1 (float64)."""
    _check_dim(dim)
    check_base(base)
    exponent = torch.arange(0, dim, 2, dtype=torch.float64) / dim  # [dim/2]: 2i/dim
    return 1.0 / (float(base) ** exponent), 1.0


def linear(dim: int, base: float = 10000.0, factor: float = 1.0) -> tuple[torch.Tensor, float]:
    """Position interpolation (Chen et al. 2023): ``inv_freq / s``, i.e. positions squeezed by ``s``."""
    factor = _check_factor(factor)
    inv_freq, _ = default_inv_freq(dim, base)
    return inv_freq / factor, 1.0


def ntk(dim: int, base: float = 10000.0, factor: float = 1.0) -> tuple[torch.Tensor, float]:
    """Static NTK-aware scaling: ``base' = base * s^(dim/(dim-2))`` (high frequencies barely move, low ones by ``s``)."""
    factor = _check_factor(factor)
    _check_dim(dim)
    if dim == 2:
        raise PosencError("NTK scaling needs a rotary dim > 2 (its exponent is dim/(dim-2)), got 2")
    return default_inv_freq(dim, base * factor ** (dim / (dim - 2)))


def dynamic_ntk(dim: int, base: float = 10000.0, factor: float = 1.0, original_max_len: int = 2048,
                seq_len: int | None = None) -> tuple[torch.Tensor, float]:
    """Dynamic NTK: ``base' = base * (s L / L0 - (s - 1))^(dim/(dim-2))`` with ``L = max(seq_len, L0)``.

    Equal to the default frequencies up to ``L0``; grows the base with the current length past it.
    """
    factor = _check_factor(factor)
    _check_dim(dim)
    if dim == 2:
        raise PosencError("dynamic NTK scaling needs a rotary dim > 2 (its exponent is dim/(dim-2)), got 2")
    length = max(int(seq_len or original_max_len), int(original_max_len))
    new_base = base * ((factor * length / original_max_len) - (factor - 1)) ** (dim / (dim - 2))
    return default_inv_freq(dim, new_base)


def yarn_correction_range(dim: int, base: float, original_max_len: int, beta_fast: float = 32.0,
                          beta_slow: float = 1.0, truncate: bool = True) -> tuple[float, float]:
    """YaRN's dimension range ``(low, high)``: the pair index where a wave turns ``beta`` times over ``L0``.

    ``d(r) = dim ln(L0 / (2 pi r)) / (2 ln base)``; below ``low`` dims extrapolate, above ``high`` they interpolate.
    """

    def correction_dim(rotations: float) -> float:
        return dim * math.log(original_max_len / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def yarn_ramp(low: float, high: float, n: int) -> torch.Tensor:
    """``gamma_i = clamp((i - low) / (high - low), 0, 1)`` for i = 0..n-1 (float64); 1 means "interpolate"."""
    if low == high:
        high = high + 0.001  # a single-dimension ramp would divide by zero
    return ((torch.arange(n, dtype=torch.float64) - low) / (high - low)).clamp(0, 1)


def yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    """YaRN's temperature ``0.1 mscale ln s + 1`` (Peng et al. 2023, §3.4, eq. 22 with DeepSeek-V2's ``mscale``
    multiplier); 1 when ``s <= 1``."""
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0




def yarn_logit_scale(factor: float, mscale_all_dim: float | None) -> float:
    """The factor DeepSeek-V2/V3 multiply the softmax scale ``1/sqrt(d_qk)`` by: ``mscale(s, mscale_all_dim)^2``
    (DeepSeek-AI 2024, DeepSeek-V2 report, appendix on YaRN; with the cos/sin factor ``mscale(s, mscale) /
    mscale(s, mscale_all_dim)`` on both q and k the rotary part of a logit carries ``mscale(s, mscale)^2`` in all).
    1 when ``mscale_all_dim`` is unset or 0."""
    if not mscale_all_dim:
        return 1.0
    return yarn_mscale(_check_factor(factor), mscale_all_dim) ** 2


def yarn(dim: int, base: float = 10000.0, factor: float = 1.0, original_max_len: int = 2048,
         beta_fast: float = 32.0, beta_slow: float = 1.0, mscale: float | None = None,
         mscale_all_dim: float | None = None, truncate: bool = True,
         attention_factor: float | None = None) -> tuple[torch.Tensor, float]:
    """YaRN (Peng et al. 2023): NTK-by-parts interpolation plus an attention temperature.

    ``inv = inv/s * gamma + inv * (1 - gamma)`` with YaRN's ramp ``gamma`` over pair indices between the correction
    dims of ``beta_fast`` and ``beta_slow`` rotations; ``attention_factor = 0.1 ln s + 1`` unless given, or
    ``mscale(s, mscale) / mscale(s, mscale_all_dim)`` when both are given (DeepSeek-V2's variant). Note that when
    both equal 1 the factor is exactly 1.
    """
    factor = _check_factor(factor)
    beta_fast = _number(beta_fast, "beta_fast", "yarn", example="the paper uses 32")
    beta_slow = _number(beta_slow, "beta_slow", "yarn", example="the paper uses 1")
    if not beta_fast > beta_slow:
        raise PosencError(f"yarn scaling: beta_fast ({beta_fast:g}) must exceed beta_slow ({beta_slow:g}): pairs that "
                          f"turn more than beta_fast times over the original context keep their frequency, those "
                          f"under beta_slow are interpolated; inverted, the highest frequencies would be "
                          f"interpolated. The paper uses beta_fast=32, beta_slow=1")
    for name, value in (("mscale", mscale), ("mscale_all_dim", mscale_all_dim)):
        if value is not None:
            _number(value, name, "yarn", inclusive=True, example="DeepSeek-V2 uses 0.707 or 1")
    if attention_factor is not None:
        _number(attention_factor, "attention_factor", "yarn", example="leave it out for 0.1 ln(factor) + 1")
    if not isinstance(truncate, bool):
        raise PosencError(f"yarn scaling: truncate must be True or False, got {truncate!r}")
    inv_freq, _ = default_inv_freq(dim, base)
    if attention_factor is None:
        if mscale and mscale_all_dim:
            attention_factor = yarn_mscale(factor, mscale) / yarn_mscale(factor, mscale_all_dim)
        else:
            attention_factor = yarn_mscale(factor)
    low, high = yarn_correction_range(dim, base, original_max_len, beta_fast, beta_slow, truncate)
    gamma = yarn_ramp(low, high, dim // 2)  # [dim/2]: 0 = extrapolate (keep), 1 = interpolate (divide by s)
    return inv_freq / factor * gamma + inv_freq * (1 - gamma), float(attention_factor)


def llama3(dim: int, base: float = 500000.0, factor: float = 8.0, low_freq_factor: float = 1.0,
           high_freq_factor: float = 4.0, original_max_len: int = 8192) -> tuple[torch.Tensor, float]:
    """Llama 3.1 scaling: with wavelength ``lambda = 2 pi / f``, keep ``f`` where ``lambda < L0 / high``, use ``f / s``
    where ``lambda > L0 / low``, and in between ``f' = (1 - smooth) f / s + smooth f`` with
    ``smooth = (L0 / lambda - low) / (high - low)``."""
    factor = _check_factor(factor)
    low_freq_factor = _number(low_freq_factor, "low_freq_factor", "llama3", example="Llama 3.1 uses 1")
    high_freq_factor = _number(high_freq_factor, "high_freq_factor", "llama3", example="Llama 3.1 uses 4")
    if not high_freq_factor > low_freq_factor:
        raise PosencError(f"llama3 scaling needs high_freq_factor > low_freq_factor, got "
                          f"{high_freq_factor} and {low_freq_factor}; the defaults are 4 and 1")
    inv_freq, _ = default_inv_freq(dim, base)
    wavelen = 2 * math.pi / inv_freq
    low_wavelen = original_max_len / low_freq_factor
    high_wavelen = original_max_len / high_freq_factor
    smooth = ((original_max_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)).clamp(0, 1)
    scaled = (1 - smooth) * inv_freq / factor + smooth * inv_freq
    out = torch.where(wavelen < high_wavelen, inv_freq, scaled)
    out = torch.where(wavelen > low_wavelen, inv_freq / factor, out)
    return out, 1.0


def longrope(dim: int, base: float = 10000.0, short_factor: Sequence[float] | None = None,
             long_factor: Sequence[float] | None = None, factor: float = 1.0, original_max_len: int = 4096,
             seq_len: int | None = None, attention_factor: float | None = None) -> tuple[torch.Tensor, float]:
    """LongRoPE (Ding et al. 2024): per-pair rescale ``inv_i = 1 / (ext_i base^(2i/dim))``; ``ext`` is ``long_factor``
    when ``seq_len > L0``, else ``short_factor``; ``attention_factor = sqrt(1 + ln s / ln L0)`` (1 when s <= 1)."""
    _check_dim(dim)
    factor = _check_factor(factor)
    for name, values in (("short_factor", short_factor), ("long_factor", long_factor)):
        if not isinstance(values, list | tuple) or len(values) != dim // 2:
            got = ("nothing" if values is None else f"{len(values)} values" if isinstance(values, list | tuple)
                   else repr(values))
            raise PosencError(f"longrope needs {name} with one value per rotary pair ({dim // 2}), got {got}")
        bad = [v for v in values if isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v < math.inf]
        if bad:
            raise PosencError(f"longrope {name} must hold finite numbers > 0 (each divides a frequency), got "
                              f"{bad[:3]!r}{' ...' if len(bad) > 3 else ''}")
    if attention_factor is not None:
        _number(attention_factor, "attention_factor", "longrope", example="leave it out for sqrt(1 + ln s / ln L0)")
    ext = long_factor if seq_len and seq_len > original_max_len else short_factor
    inv_freq, _ = default_inv_freq(dim, base)
    if attention_factor is None:
        attention_factor = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(original_max_len))
    return inv_freq / torch.tensor(list(ext), dtype=torch.float64), float(attention_factor)


def proportional(dim: int, base: float = 10000.0, factor: float = 1.0,
                 partial_rotary_factor: float = 1.0) -> tuple[torch.Tensor, float]:
    """Proportional RoPE: ``inv_i = base^(-2i/dim) / s`` for the first ``floor(p dim / 2)`` pairs, 0 for the rest.

    The exponent keeps the full width ``dim`` (unlike partial rotary, which rebuilds the frequencies over the rotary
    width), so the kept pairs are exactly RoFormer's highest frequencies and the rest stay still: p-RoPE (Barbero et
    al. 2024, "Round and Round We Go! What makes Rotary Positional Encodings useful?", §5), which Gemma 4's configs
    call rope type ``"proportional"`` (``partial_rotary_factor`` = p). Pairing stays over the whole head (``i`` with
    ``i + dim/2``).
    """
    _check_dim(dim)
    factor = _check_factor(factor)
    if isinstance(partial_rotary_factor, bool) or not isinstance(partial_rotary_factor, (int, float)) or not (
            0 <= partial_rotary_factor <= 1):
        raise PosencError(f"proportional RoPE needs partial_rotary_factor (the fraction p of frequencies kept) in "
                          f"[0, 1], got {partial_rotary_factor!r}; Gemma 4 uses 0.25")
    inv_freq, _ = default_inv_freq(dim, base)
    kept = int(partial_rotary_factor * dim // 2)
    inv_freq[kept:] = 0.0
    return inv_freq / factor, 1.0


@dataclass(frozen=True)
class HfRopeParameters:
    """What a scaling's translation reads from a Hugging Face config (:func:`posenc.hf.config.rope_options_from_hf_config`
    builds it): the ``rope_parameters`` / ``rope_scaling`` dict and the config's fields its parameters fall back on.

    Attributes:
        rope_type: the rope type as the config names it.
        params: the config's ``rope_parameters`` (or ``rope_scaling``) dict.
        model_type: the config's ``model_type`` (``""`` when it has none), for messages.
        max_position_embeddings: ``max_position_embeddings`` or ``n_positions`` as the config holds it (maybe absent).
        original_max_len: ``original_max_position_embeddings`` (in ``params`` or the config), else
            ``max_position_embeddings``.
        partial_rotary_factor: the config's checked ``partial_rotary_factor`` / ``rotary_pct``.
    """

    rope_type: str
    params: dict[str, Any]
    model_type: str = ""
    max_position_embeddings: Any = None
    original_max_len: Any = None
    partial_rotary_factor: float = 1.0

    def require(self, key: str) -> Any:
        """A parameter the rope type cannot do without, or an error naming the type, the parameter and the fix."""
        if self.params.get(key) is None:
            raise PosencError(f"the config's rope type {self.rope_type!r} needs {key!r} in rope_parameters / "
                              f"rope_scaling, which holds {sorted(self.params)}; add {key} (see the model card), or "
                              f"drop the scaling")
        return self.params[key]

    def optional(self, *keys: str) -> dict[str, Any]:
        """The parameters among ``keys`` that the config sets (not ``None``), in the order of ``keys``."""
        return {key: self.params[key] for key in keys if self.params.get(key) is not None}

    def factor(self) -> Any:
        """``factor``, or when the config leaves it out ``max_position_embeddings / original_max_position_embeddings``."""
        if self.params.get("factor"):
            return self.params["factor"]
        longest, original = self.max_position_embeddings, self.original_max_len
        if not isinstance(longest, int | float) or not isinstance(original, int | float) or not original > 0:
            raise PosencError(f"the config's rope type {self.rope_type!r} has no factor, and posenc cannot derive one "
                              f"from max_position_embeddings ({longest!r}) / original_max_position_embeddings "
                              f"({original!r}); add factor to rope_parameters / rope_scaling")
        return longest / original

    def context_length(self) -> int:
        """``max_position_embeddings`` (or ``n_positions``) as a whole number >= 1, or an error naming the fields."""
        value = self.max_position_embeddings
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            found = "none of them" if value is None else f"{value!r}"
            raise PosencError(f"this config (model_type {self.model_type or '(none)'!r}) needs the context length as "
                              f"an integer >= 1 in max_position_embeddings or n_positions, found {found}; add the "
                              f"field to the config, or build the encoding by name with posenc.build(...)")
        return value


def _longrope_from_hf(hf: HfRopeParameters) -> dict[str, Any]:
    factor = hf.factor()
    ext = {key: hf.require(key) for key in ("short_factor", "long_factor")}
    for key, values in ext.items():
        if not isinstance(values, list | tuple):
            raise PosencError(f"the config's longrope {key} must be a list of numbers, one per rotary pair, got "
                              f"{values!r}")
    return {"factor": factor, "short_factor": list(ext["short_factor"]), "long_factor": list(ext["long_factor"]),
            "original_max_len": hf.original_max_len, **hf.optional("attention_factor")}


@dataclass(frozen=True)
class Scaling:
    """One RoPE scaling: everything posenc knows about it, read by the RoPE modules, the Hugging Face config reader
    (:mod:`posenc.hf.config`) and ``posenc extend`` (:mod:`posenc.extend.factors`). Adding a scaling is one record in
    :data:`SCALINGS` (and its test).

    Attributes:
        name: posenc's name, the ``type`` of a scaling spec ``{"type": name, **params}``.
        frequencies: the pure function ``(dim, base, **params) -> (inv_freq, attention_factor)``; its keyword
            parameters (less ``dim``, ``base`` and ``seq_len``) are the spec's valid parameters.
        needs_factor: without a ``factor`` it changes nothing (a spec that leaves it out warns).
        needs_original: its result depends on the context the model was trained at (``original_max_len``; a spec
            that leaves it out warns and uses the function's default).
        hf_rope_type: the ``rope_type`` a Hugging Face config names it by; ``None`` when transformers has none.
        from_hf: the spec's parameters from a Hugging Face config's (:class:`HfRopeParameters`); ``None`` for the
            unscaled frequencies. Required with ``hf_rope_type``.
        whole_head: the config's ``partial_rotary_factor`` is the share of frequencies kept (0 allowed), not the
            share of each head that rotates: the rotary width stays the whole head.
        extend_name: the name ``posenc extend`` takes for it (``None``: extend does not offer it).
        extend_params: the spec's parameters ``posenc extend`` uses at factor ``s`` for a model of native length
            ``L0``: ``(s, L0) -> params``, ``None`` for the unscaled frequencies. Required with ``extend_name``.
    """

    name: str
    frequencies: Callable[..., tuple[torch.Tensor, float]]
    needs_factor: bool = False
    needs_original: bool = False
    hf_rope_type: str | None = None
    from_hf: Callable[[HfRopeParameters], dict[str, Any] | None] | None = None
    whole_head: bool = False
    extend_name: str | None = None
    extend_params: Callable[[float, int], dict[str, Any] | None] | None = None

    def __post_init__(self) -> None:
        if (self.hf_rope_type is None) != (self.from_hf is None):
            raise PosencError(f"scaling {self.name!r}: hf_rope_type and from_hf go together")
        if (self.extend_name is None) != (self.extend_params is None):
            raise PosencError(f"scaling {self.name!r}: extend_name and extend_params go together")

    @property
    def length_dependent(self) -> bool:
        """Whether its frequencies depend on the current sequence length (its function takes ``seq_len``); a factor
        of 1 is then not the identity."""
        return "seq_len" in inspect.signature(self.frequencies).parameters

    @property
    def parameters(self) -> list[str]:
        """The parameters a spec of this scaling may set."""
        return [p for p in inspect.signature(self.frequencies).parameters if p not in ("dim", "base", "seq_len")]


#: every scaling by name (a :class:`~posenc.names.Registry`), in the order tables and messages list them. ``default`` is RoFormer's unscaled frequencies
#: (``posenc extend`` calls it ``none``); ``ntk`` has no Hugging Face rope type; ``longrope`` (per-pair factors of a
#: search) and ``proportional`` (a model's design, not a stretch) are not offered by ``posenc extend``.
SCALINGS: Registry[Scaling] = Registry("RoPE scaling", plural="scalings")
for _scaling in (
    Scaling("default", default_inv_freq, hf_rope_type="default", from_hf=lambda hf: None,
            extend_name="none", extend_params=lambda s, native: None),
    Scaling("linear", linear, needs_factor=True, hf_rope_type="linear",
            from_hf=lambda hf: {"factor": hf.require("factor")},
            extend_name="linear", extend_params=lambda s, native: {"factor": float(s)}),
    Scaling("ntk", ntk, needs_factor=True,
            extend_name="ntk", extend_params=lambda s, native: {"factor": float(s)}),
    Scaling("dynamic", dynamic_ntk, needs_factor=True, needs_original=True,
            hf_rope_type="dynamic",  # Hugging Face measures dynamic NTK against max_position_embeddings
            from_hf=lambda hf: {"factor": hf.require("factor"), "original_max_len": hf.context_length()},
            extend_name="dynamic",
            extend_params=lambda s, native: {"factor": float(s), "original_max_len": int(native)}),
    Scaling("yarn", yarn, needs_factor=True, needs_original=True, hf_rope_type="yarn",
            from_hf=lambda hf: {"factor": hf.factor(), "original_max_len": hf.original_max_len,
                                **hf.optional("beta_fast", "beta_slow", "mscale", "mscale_all_dim",
                                              "attention_factor", "truncate")},
            extend_name="yarn",  # the paper's beta_fast 32 and beta_slow 1, attention factor 0.1 ln s + 1
            extend_params=lambda s, native: {"factor": float(s), "original_max_len": int(native)}),
    Scaling("llama3", llama3, hf_rope_type="llama3",
            from_hf=lambda hf: {**{key: hf.require(key) for key in ("factor", "low_freq_factor", "high_freq_factor")},
                                "original_max_len": hf.original_max_len},
            extend_name="llama3",  # Llama 3.1's bands
            extend_params=lambda s, native: {"factor": float(s), "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                             "original_max_len": int(native)}),
    Scaling("longrope", longrope, needs_original=True, hf_rope_type="longrope",
            from_hf=_longrope_from_hf),
    Scaling("proportional", proportional, hf_rope_type="proportional", whole_head=True,  # Gemma 4
            from_hf=lambda hf: {"factor": hf.params.get("factor", 1.0),
                                "partial_rotary_factor": hf.partial_rotary_factor}),
):
    SCALINGS.register(_scaling.name, _scaling)
del _scaling

#: Hugging Face rope type -> its scaling
BY_HF_ROPE_TYPE: dict[str, Scaling] = {s.hf_rope_type: s for s in SCALINGS.values() if s.hf_rope_type is not None}


@dataclass(frozen=True)
class RopeScaling:
    """A scaling choice: its ``type`` (a name in :data:`SCALINGS`) and its parameters (validated at construction)."""

    type: str = "default"
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        valid = SCALINGS.get(self.type).parameters  # an unknown type lists the valid ones
        unknown = sorted(set(self.params) - set(valid))
        if unknown:
            raise PosencError(f"unknown parameter(s) {', '.join(map(repr, unknown))} for RoPE scaling {self.type!r}; "
                              f"valid parameters are: {', '.join(valid) or '(none)'}")
        if "factor" in self.params:
            _check_factor(self.params["factor"])
        if "original_max_len" in self.params:
            length = self.params["original_max_len"]
            if not whole_number(length):
                raise PosencError(f"RoPE scaling {self.type!r}: original_max_len must be a positive integer (the "
                                  f"context the model was trained at), got {length!r}; e.g. 2048 or 8192")
        self._explain_defaults()

    def _explain_defaults(self) -> None:
        """A scaling used without the parameter that gives it meaning works, but says what it assumed."""
        record = SCALINGS[self.type]
        if record.needs_factor and "factor" not in self.params:
            effect = ("changes nothing within the original length (past it the base still grows with the "
                      "sequence length, as in Hugging Face's formula)" if record.length_dependent else "changes nothing")
            warnings.warn(f"RoPE scaling {self.type!r} without a factor uses factor=1, which {effect}; pass "
                          f"factor = target_length / original_length, e.g. {{'type': {self.type!r}, 'factor': 4}}",
                          PosencWarning, stacklevel=4)
        if record.needs_original and "original_max_len" not in self.params:
            assumed = inspect.signature(record.frequencies).parameters["original_max_len"].default
            warnings.warn(f"RoPE scaling {self.type!r} without original_max_len assumes the model was trained at "
                          f"{assumed} tokens; pass the model's own context, e.g. {{'type': {self.type!r}, "
                          f"'original_max_len': 4096}} (from_hf_config reads it from the config)", PosencWarning,
                          stacklevel=4)

    @classmethod
    def parse(cls, spec: RopeScaling | dict[str, Any] | str | None) -> RopeScaling:
        """Accept ``None``, a name, a dict ``{"type": ..., **params}`` or a ``RopeScaling``."""
        if spec is None:
            return cls()
        if isinstance(spec, RopeScaling):
            return spec
        if isinstance(spec, str):
            return cls(type=spec)
        if isinstance(spec, dict):
            spec = dict(spec)
            kind = spec.pop("type", spec.pop("rope_type", "default"))
            return cls(type=kind, params=spec)
        raise PosencError(f"scaling must be None, a name, a dict or a RopeScaling, got {type(spec).__name__}")

    @property
    def length_dependent(self) -> bool:
        return SCALINGS[self.type].length_dependent

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, **self.params}


def compute_inv_freq(dim: int, base: float, scaling: RopeScaling | dict | str | None = None,
                     seq_len: int | None = None) -> tuple[torch.Tensor, float]:
    """``(inv_freq [dim/2] float64, attention_factor)`` for a rotary width, base and scaling at a sequence length."""
    base = check_base(base)  # before a scaling multiplies it
    scaling = RopeScaling.parse(scaling)
    fn = SCALINGS[scaling.type].frequencies
    kwargs = dict(scaling.params)
    if scaling.length_dependent:
        kwargs["seq_len"] = seq_len
    return fn(dim, base, **kwargs)

