"""An encoding per layer: the layer schedule of models whose positional scheme differs by layer.

Models released since 2024 no longer use one encoding everywhere. Gemma 3 turns sliding-window layers with base
10 000 and every sixth (global) layer with base 1 000 000; ModernBERT does the same with 10 000 / 160 000; Llama 4
(iRoPE) leaves every fourth layer without positions and with full attention, while the others rotate and attend
within chunks; SmolLM3 leaves every fourth layer without positions. A :class:`LayerSchedule` says this as data: one
:class:`Layer` per layer, each an encoding (a registry name and its options) and the keys its queries may see.

A layer's span, on the positions ``i`` (query) and ``j`` (key) given to attention:

- ``window = W``: query ``i`` sees key ``j`` when ``|i - j| < W`` (a causal layer: ``0 <= i - j < W``; Gemma 3's and
  Mistral's ``sliding_window``; ModernBERT's ``local_attention / 2 + 1``);
- ``chunk = C``: query ``i`` sees key ``j`` when ``i // C == j // C`` (Llama 4's ``attention_chunk_size``);
- neither: every key (full attention, within the causal mask of a decoder).

:meth:`LayerSchedule.build` makes the encodings: layers with the same encoding and options share one module (as a
single-encoding model shares its one encoding), except encodings that declare ``info.per_layer`` (a learned part that
belongs to each layer, FoX's forget gate), which get one module per layer.

Example::

    >>> from posenc.encodings.schedule import Layer, LayerSchedule
    >>> local = Layer("rope", {"base": 10000.0}, window=512)
    >>> wide = Layer("rope", {"base": 1000000.0})
    >>> schedule = LayerSchedule.cycle(12, [local] * 5 + [wide])     # Gemma 3's 5:1
    >>> [row[0] for row in schedule.describe()]
    ['0-4, 6-10', '5, 11']
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from posenc.checks import whole_number
from posenc.encodings.base import PositionalEncoding
from posenc.encodings.catalog import MODEL_SIZES, build_for_model, get_class
from posenc.errors import PosencError

__all__ = ["Layer", "LayerSchedule", "visible_keys"]


def visible_keys(q_positions: torch.Tensor, k_positions: torch.Tensor, window: int | None = None,
                 chunk: int | None = None) -> torch.Tensor | None:
    """Which keys each query may see under a window and/or chunk: bool ``[Tq, Tk]`` (or ``[B, Tq, Tk]`` for
    positions ``[B, T]``), ``None`` when neither is set. The causal mask is not part of it."""
    if window is None and chunk is None:
        return None
    i, j = q_positions[..., :, None], k_positions[..., None, :]  # [..., Tq, 1], [..., 1, Tk]
    seen = torch.ones(torch.broadcast_shapes(i.shape, j.shape), dtype=torch.bool, device=q_positions.device)
    if window is not None:
        seen &= (i - j).abs() < window
    if chunk is not None:
        seen &= torch.div(i, chunk, rounding_mode="floor") == torch.div(j, chunk, rounding_mode="floor")
    return seen


def _format(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_format(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_format(v) for v in value) + "]"
    return repr(value) if isinstance(value, str) else str(value)


@dataclass(frozen=True)
class Layer:
    """One layer's positional scheme.

    Attributes:
        encoding: a registry name (``posenc list``), e.g. ``"rope"`` or ``"nope"``; or a built encoding (what
            :func:`posenc.hf.schedule.schedule_from_hf_config` gives: the layers holding one module share it).
        options: the encoding's options (model sizes are filled in by :meth:`LayerSchedule.build`); empty for a
            built encoding.
        window: queries see keys at ``|i - j| < window`` (``None``: no window).
        chunk: queries see keys of their own chunk, ``i // chunk == j // chunk`` (``None``: no chunks).
        qk_norm: queries and keys divided by their root mean square per head, ``x / sqrt(mean(x^2) + qk_norm)``,
            after ``rotate`` and with no weight (Llama 4's L2 norm on its RoPE layers; the value is the epsilon);
            ``None``: no norm.
    """

    encoding: str | PositionalEncoding = "rope"
    options: Mapping[str, Any] = field(default_factory=dict)
    window: int | None = None
    chunk: int | None = None
    qk_norm: float | None = None

    def __post_init__(self) -> None:
        if isinstance(self.encoding, PositionalEncoding):
            if self.options:
                raise PosencError(f"a layer holding a built encoding ({self.encoding.name!r}) takes no options, got "
                                  f"{dict(self.options)!r}; build the encoding with them, or give its name")
        else:
            get_class(self.encoding)  # an unknown name lists the valid ones
        if not isinstance(self.options, Mapping):
            raise PosencError(f"a layer's options must be a dict, got {self.options!r}; e.g. {{'base': 10000.0}}")
        object.__setattr__(self, "options", dict(self.options))
        for name in ("window", "chunk"):
            value = getattr(self, name)
            if value is not None and not whole_number(value):
                raise PosencError(f"a layer's {name} must be a positive integer or None, got {value!r}; e.g. "
                                  f"{name}=512")
        eps = self.qk_norm
        if eps is not None and (isinstance(eps, bool) or not isinstance(eps, int | float) or not eps >= 0):
            raise PosencError(f"a layer's qk_norm is the epsilon of its query/key norm, a number >= 0 or None, got "
                              f"{eps!r}; e.g. qk_norm=1e-5")

    @property
    def name(self) -> str:
        """The encoding's registry name."""
        return self.encoding.name if isinstance(self.encoding, PositionalEncoding) else self.encoding

    @property
    def key(self) -> str:
        """The encoding and its options as one string: layers with equal keys can share one module."""
        if isinstance(self.encoding, PositionalEncoding):
            return f"{self.encoding.name}@{id(self.encoding)}"
        return self.encoding + json.dumps(self.options, sort_keys=True, default=str)

    def visible(self, q_positions: torch.Tensor, k_positions: torch.Tensor) -> torch.Tensor | None:
        """:func:`visible_keys` under this layer's window and chunk."""
        return visible_keys(q_positions, k_positions, self.window, self.chunk)

    def describe(self) -> str:
        """One line: ``rope(base=10000) · window 512``."""
        if isinstance(self.encoding, PositionalEncoding):
            options = self.encoding.extra_repr() if type(self.encoding).extra_repr is not \
                PositionalEncoding.extra_repr else ""
        else:
            options = ", ".join(f"{k}={_format(v)}" for k, v in self.options.items() if v is not None)
        text = f"{self.name}({options})" if options else self.name
        if self.window is not None:
            text += f" · window {self.window}"
        if self.chunk is not None:
            text += f" · chunk {self.chunk}"
        if self.qk_norm is not None:
            text += " · qk-norm"
        return text

    def as_dict(self) -> dict[str, Any]:
        if isinstance(self.encoding, PositionalEncoding):
            raise PosencError(f"a layer holding a built encoding ({self.encoding.name!r}) has no dict form; give the "
                              f"encoding by name and options (Layer('rope', {{'base': 10000.0}})) to store it")
        out: dict[str, Any] = {"encoding": self.encoding, "options": dict(self.options)}
        out.update({name: getattr(self, name) for name in ("window", "chunk", "qk_norm")
                    if getattr(self, name) is not None})
        return out


def _ranges(indices: Sequence[int]) -> str:
    """``[0, 1, 2, 4]`` -> ``"0-2, 4"``."""
    parts, start = [], None
    for n, i in enumerate(indices):
        if start is None:
            start = i
        if n + 1 == len(indices) or indices[n + 1] != i + 1:
            parts.append(str(start) if start == i else f"{start}-{i}")
            start = None
    return ", ".join(parts)


@dataclass(frozen=True)
class LayerSchedule:
    """The positional scheme of every layer, in order (layer 0 first).

    Attributes:
        layers: one :class:`Layer` per layer.
    """

    layers: tuple[Layer, ...]

    def __post_init__(self) -> None:
        layers = tuple(self.layers) if isinstance(self.layers, Sequence) else self.layers
        if not isinstance(layers, tuple) or not layers or not all(isinstance(x, Layer) for x in layers):
            raise PosencError(f"a LayerSchedule needs one Layer per layer (at least one), got {self.layers!r}; "
                              f"build one with LayerSchedule.uniform(n_layers, 'rope') or LayerSchedule.cycle(...)")
        object.__setattr__(self, "layers", layers)

    # -- construction ----------------------------------------------------------------------------------------------
    @classmethod
    def uniform(cls, n_layers: int, encoding: str = "rope", options: Mapping[str, Any] | None = None) -> LayerSchedule:
        """Every layer the same encoding (what a single-encoding model is)."""
        return cls.cycle(n_layers, [Layer(encoding, dict(options or {}))])

    @classmethod
    def cycle(cls, n_layers: int, pattern: Sequence[Layer]) -> LayerSchedule:
        """``pattern`` repeated over ``n_layers`` layers (layer ``i`` is ``pattern[i % len(pattern)]``)."""
        if not whole_number(n_layers):
            raise PosencError(f"n_layers must be a positive integer, got {n_layers!r}")
        if not pattern:
            raise PosencError("a layer pattern needs at least one Layer, got an empty one")
        return cls(tuple(pattern[i % len(pattern)] for i in range(n_layers)))

    @classmethod
    def from_dict(cls, rows: Sequence[Mapping[str, Any]] | LayerSchedule) -> LayerSchedule:
        """A schedule from :meth:`as_dict`'s rows (``{"encoding": ..., "options": ..., "window": ...}``)."""
        if isinstance(rows, LayerSchedule):
            return rows
        if isinstance(rows, Mapping) or not isinstance(rows, Sequence) or isinstance(rows, str):
            raise PosencError(f"a layer schedule is a list of layers, one dict per layer, got {rows!r}; e.g. "
                              f"[{{'encoding': 'rope'}}, {{'encoding': 'nope'}}]")
        layers = []
        for n, row in enumerate(rows):
            if isinstance(row, Layer):
                layers.append(row)
                continue
            keys = {"encoding", "options", "window", "chunk", "qk_norm"}
            unknown = sorted(set(row) - keys) if isinstance(row, Mapping) else []
            if not isinstance(row, Mapping) or unknown or "encoding" not in row:
                raise PosencError(f"layer {n} of the schedule must be a dict with 'encoding' and optionally "
                                  f"'options', 'window', 'chunk', 'qk_norm', got {row!r}")
            layers.append(Layer(row["encoding"], dict(row.get("options") or {}), row.get("window"), row.get("chunk"),
                                row.get("qk_norm")))
        return cls(tuple(layers))

    def as_dict(self) -> list[dict[str, Any]]:
        """JSON-able rows, one per layer (:meth:`from_dict` reads them back)."""
        return [layer.as_dict() for layer in self.layers]

    # -- reading -----------------------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.layers)

    def __iter__(self) -> Iterator[Layer]:
        return iter(self.layers)

    def __getitem__(self, index: int) -> Layer:
        return self.layers[index]

    @property
    def is_uniform(self) -> bool:
        """Every layer has the same encoding, options and span."""
        return all(layer == self.layers[0] for layer in self.layers)

    def describe(self) -> list[tuple[str, str]]:
        """``(layers, description)`` per distinct layer, in order of first appearance: ``("0-4, 6-10", "rope(...)")``."""
        groups: dict[str, list[int]] = {}
        for i, layer in enumerate(self.layers):
            groups.setdefault(layer.describe(), []).append(i)
        return [(_ranges(indices), text) for text, indices in groups.items()]

    # -- building ----------------------------------------------------------------------------------------------------
    def build(self, d_model: int | None = None, n_heads: int | None = None, head_dim: int | None = None,
              max_len: int | None = None) -> list[PositionalEncoding]:
        """One encoding per layer, built for a model of these sizes; equal layers share one module unless the
        encoding declares ``info.per_layer``."""
        built: dict[str, PositionalEncoding] = {}
        out = []
        for layer in self.layers:
            if isinstance(layer.encoding, PositionalEncoding):
                out.append(layer.encoding)
                continue
            per_layer = get_class(layer.encoding).info.per_layer
            if per_layer or layer.key not in built:
                options = dict(layer.options)
                sizes = {"d_model": d_model, "n_heads": n_heads, "head_dim": head_dim, "max_len": max_len}
                sizes.update({key: options.pop(key) for key in MODEL_SIZES if key in options})  # options win
                encoding = build_for_model(layer.encoding, **sizes, **options)
                if per_layer:
                    out.append(encoding)
                    continue
                built[layer.key] = encoding
            out.append(built[layer.key])
        return out

