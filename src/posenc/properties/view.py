"""One encoding seen through its hooks, at positions ``0..N-1``: the quantities every property needs, computed once.

- absolute encodings (``embed``): the table ``PE [N, D]`` from ``encode`` (float64 where the encoding is a formula);
- rotary encodings (``rotate``): the angles ``theta[p, i] = p * inv_freq_i`` from ``frequencies()`` (float64), the
  per-pair gain (``attention_factor``; xPos' decay ``zeta_i^(p / scale_base)``), and the *rotation table*
  ``[N, R]`` laid out like the sinusoidal table: ``(g sin theta, g cos theta)`` per pair;
- bias encodings (``bias``): the bias at chosen (query, key) position pairs, one batched hook call;
- wrappers (``randomized``) are seen through the encoding they wrap, at plain positions.

Shapes: ``N`` positions, ``D`` table width, ``R`` rotary width, ``H`` heads.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from functools import cached_property

import torch

from posenc.checks import whole_number
from posenc.encodings.base import AbsoluteEncoding, PositionalEncoding, default_positions
from posenc.errors import PosencError
from posenc.properties.result import NotApplicable

__all__ = ["EncodingView", "check_size", "MIN_LENGTH"]

#: the shortest sequence the properties measure (offsets up to N/4 need a few positions)
MIN_LENGTH = 8


def check_size(length: int, d_model: int) -> None:
    """Validate the sizes properties are measured at; raise ``PosencError`` naming the value and the fix."""
    if not whole_number(length, MIN_LENGTH):
        raise PosencError(f"length must be an integer >= {MIN_LENGTH} (properties compare positions at offsets up to "
                          f"length/4), got {length!r}; use e.g. --length 1024")
    if not whole_number(d_model, 2) or d_model % 2:
        raise PosencError(f"d_model must be an even integer >= 2 (sinusoidal and rotary encodings pair channels), "
                          f"got {d_model!r}; use e.g. --d-model 512")


def _family(encoding: PositionalEncoding) -> str:
    if isinstance(encoding, AbsoluteEncoding):
        return "absolute"
    hooks = encoding.info.hooks
    if "rotate" in hooks:
        return "rotary"
    if "bias" in hooks:
        return "bias"
    if "contextual_bias" in hooks:
        return "contextual"
    return "none"


@dataclass
class EncodingView:
    """Cached hook outputs of ``encoding`` at positions ``0..length-1`` for a model of width ``d_model``."""

    encoding: PositionalEncoding
    length: int
    d_model: int
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        check_size(self.length, self.d_model)
        inner = getattr(self.encoding, "inner", None)
        if isinstance(inner, PositionalEncoding):
            self.notes.append(f"{self.encoding.name} wraps {inner.name}: measured on {inner.name} at plain positions "
                              f"(randomization only changes which positions are used)")
            self.inner = inner
        else:
            self.inner = self.encoding
        self.family = _family(self.inner)
        self.name = self.encoding.name

    @cached_property
    def positions(self) -> torch.Tensor:
        return default_positions(self.length)  # [N] int64

    # -- absolute ------------------------------------------------------------------------------------------------
    def require(self, family: str, why: str) -> None:
        """Raise :class:`NotApplicable` unless the encoding is of ``family``."""
        if self.family != family:
            what = {"absolute": "a per-position vector added to the embedding", "rotary": "a rotation of q and k",
                    "bias": "a bias on the logits", "none": "no position information",
                    "contextual": "a bias computed in each layer from its content (its queries and keys, or its "
                                  "input), so no table, rotation or fixed bias exists to measure"}[self.family]
            raise NotApplicable(f"{self.name} has {what}; {why}")

    @cached_property
    def width(self) -> int:
        dim = getattr(self.inner, "dim", None)
        return int(dim) if dim is not None else self.d_model

    @cached_property
    def table32(self) -> torch.Tensor:
        """The table as the ``encode`` hook returns it (float32 for every built-in encoding), ``[N, D]``."""
        self.require("absolute", "it has no table")
        return self.inner.encode(self.positions, self.width).detach()

    @cached_property
    def table(self) -> torch.Tensor:
        """``PE [N, D]`` in float64: exact for the sinusoidal formula, else the hook's values upcast."""
        self.require("absolute", "it has no table")
        return self.table_at(self.positions)

    @cached_property
    def table_dtype(self) -> str:
        self.table  # noqa: B018  (computes the dtype label)
        return self._table_dtype

    def table_at(self, positions: torch.Tensor) -> torch.Tensor:
        """float64 table rows for ``positions [T]`` (a fresh call of the hook; normalized depends on ``T``)."""
        from posenc.encodings.sinusoidal import SinusoidalPE, sinusoidal_frequencies

        self.require("absolute", "it has no table")
        if isinstance(self.inner, SinusoidalPE) and self.inner.layout == "concat":  # measured in the paper's layout
            from posenc.encodings.sinusoidal import convert_sinusoidal_layout

            self._table_dtype = "float64"
            values = self.inner.encode(positions, self.width, dtype=torch.float64).detach()
            return convert_sinusoidal_layout(values, "concat", "interleaved")
        if "dtype" in inspect.signature(self.inner.encode).parameters:
            self._table_dtype = "float64"
            return self.inner.encode(positions, self.width, dtype=torch.float64).detach()
        if isinstance(self.inner, SinusoidalPE):  # the formula, evaluated in float64 (the hook rounds to float32)
            w = sinusoidal_frequencies(self.width, self.inner.base)  # [D/2]
            angle = positions.to(torch.float64)[:, None] * w  # [T, D/2]
            self._table_dtype = "float64"
            return torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(-2)  # [T, D]: (sin, cos) per pair
        values = self.inner.encode(positions, self.width).detach()
        self._table_dtype = str(values.dtype).removeprefix("torch.")
        return values.to(torch.float64)

    @property
    def tolerance(self) -> float:
        """Relative tolerance for "exactly equal": 1e-9 on float64 values, 1e-5 on float32 ones."""
        if self.family == "absolute":
            return 1e-9 if self.table_dtype == "float64" else 1e-5
        return 1e-9

    # -- rotary --------------------------------------------------------------------------------------------------
    @cached_property
    def frequencies(self) -> tuple[torch.Tensor, float]:
        """``(inv_freq [R/2] float64, attention_factor)`` in force at ``length``."""
        self.require("rotary", "it rotates nothing")
        axes = getattr(self.inner, "axes", 1)
        if axes > 1 and not hasattr(self.inner, "frequencies"):
            raise NotApplicable(f"{self.name} turns by {axes} position axes (image rows and columns), not one 1-D "
                                f"position; see the relative_2d property for its offsets in both axes")
        if not hasattr(self.inner, "frequencies"):
            raise NotApplicable(f"{self.name} rotates q and k but exposes no frequencies()")
        inv_freq, factor = self.inner.frequencies(self.length)
        return inv_freq.detach().to(torch.float64).cpu(), float(factor)

    @cached_property
    def angles(self) -> torch.Tensor:
        """``theta [N, R/2] = p * inv_freq`` in float64."""
        inv_freq, _ = self.frequencies
        return self.positions.to(torch.float64)[:, None] * inv_freq  # [N, R/2]

    def gain(self, center: int = 0) -> torch.Tensor:
        """Per-pair gain of the query-side rotation ``[N, R/2]`` (float64): the attention factor, times xPos'
        ``zeta^((p - center) / scale_base)`` when the encoding decays."""
        inv_freq, factor = self.frequencies
        gain = torch.full((self.length, inv_freq.numel()), factor, dtype=torch.float64)
        if hasattr(self.inner, "decay"):
            gain = gain * self.inner.decay(self.positions, center).detach().to(torch.float64).cpu()
        return gain

    @cached_property
    def rotation_table(self) -> torch.Tensor:
        """``[N, R]`` float64: ``(g sin theta, g cos theta)`` per pair (the sinusoidal layout), xPos gain from 0."""
        g = self.gain(0)
        return torch.stack([g * self.angles.sin(), g * self.angles.cos()], dim=-1).flatten(-2)  # [N, R]

    @cached_property
    def rotation_table32(self) -> torch.Tensor:
        """The ``tables()`` hook's float32 ``(cos, sin)`` as ``[N, R]`` (what a model multiplies with)."""
        self.frequencies  # noqa: B018  (refuses multi-axis rotations with their reason)
        if not hasattr(self.inner, "tables"):
            raise NotApplicable(f"{self.name} rotates q and k but exposes no tables()")
        cos, sin = self.inner.tables(self.positions, self.length)  # [N, R/2] each
        return torch.stack([sin, cos], dim=-1).flatten(-2).detach()  # [N, R]

    # -- bias ----------------------------------------------------------------------------------------------------
    def bias_pairs(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> torch.Tensor:
        """The bias at ``M`` (query, key) pairs ``[M]`` each -> ``[M, H]`` float64 (one batched hook call)."""
        self.require("bias", "it adds no bias")
        out = self.inner.bias(q_positions[:, None], k_positions[:, None])  # [M, H, 1, 1]
        if out is None:
            raise NotApplicable(f"{self.name} returned no bias")
        if out.dim() != 4 or out.shape[0] != q_positions.numel():
            raise PosencError(f"{self.name}.bias with per-row positions [M, 1] must return [M, H, 1, 1], got "
                              f"{list(out.shape)}")
        return out[:, :, 0, 0].detach().to(torch.float64)  # [M, H]
