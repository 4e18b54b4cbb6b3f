"""Randomized positional encodings (Ruoss et al. 2023, "Randomized Positional Encodings Boost Length Generalization
of Transformers").

For a sequence of ``n`` tokens, draw ``n`` distinct integers from ``[0, N)`` (N = 2048 in the paper), sort them, and
use them as the positions of any encoding. The model sees positions up to ``N`` during training even when it trains
on short sequences, so longer test sequences fall inside the range it knows.

The draw is keyed on the positions tensor itself: the same tensor object (a model computes it once per forward and
passes it to every hook) maps to the same random positions in ``embed``, ``rotate`` and ``bias``; a new tensor object
gets a new draw. With ``at_eval=False`` evaluation uses the plain positions.

Capabilities (:class:`~posenc.encodings.base.EncodingInfo`): ``randomized``, and ``length_limited`` (while it draws,
a sequence whose positions reach ``max_len`` cannot get distinct positions from ``[0, max_len)`` and is refused); the
hooks are those of the wrapped encoding that this wrapper passes on (``embed``, ``rotate``, ``bias``), and
:meth:`Randomized.wrapped` reads the wrapped encoding's name and options from the options.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import torch

from posenc.checks import SEED_LIMIT, whole_number
from posenc.encodings.base import EncodingInfo, PositionalEncoding, check_positions, position_bounds
from posenc.encodings.catalog import build_for_model, register
from posenc.errors import PosencError

__all__ = ["Randomized", "sorted_random_positions"]

#: the encoding wrapped when none is named
DEFAULT_WRAPPED = "rope"
#: the hooks the wrapper passes on, with randomized positions
_PASSED_ON = ("embed", "rotate", "bias")


def sorted_random_positions(n: int, max_len: int, rows: int = 1, generator: torch.Generator | None = None,
                            device: torch.device | None = None) -> torch.Tensor:
    """``[rows, n]`` int64: each row ``n`` distinct sorted integers from ``[0, max_len)``."""
    if n > max_len:
        raise PosencError(f"randomized positions: a sequence of {n} tokens needs {n} distinct positions but the range "
                          f"is [0, {max_len}); build it with a larger max_len (the paper uses 2048)")
    keys = torch.rand(rows, max_len, generator=generator)  # a random permutation per row, first n kept
    draw = keys.argsort(dim=-1)[:, :n]
    return draw.sort(dim=-1).values.to(device)


@register("randomized")
class Randomized(PositionalEncoding):
    """Wrap any encoding with sorted random positions from ``[0, max_len)`` (Ruoss et al. 2023, arXiv:2305.16843).

    Args:
        encoding: name of the wrapped encoding (any registry name but ``randomized``).
        max_len: ``N``, the range positions are drawn from (2048 in the paper).
        options: options of the wrapped encoding, e.g. ``{"head_dim": 64}``.
        at_eval: draw random positions in eval mode too (the paper does); ``False`` uses the plain positions.
        seed: seed of the generator, for reproducible draws.
        d_model, n_heads, head_dim: model sizes passed on to the wrapped encoding when it takes them.
    """

    info = EncodingInfo(family="wrapper", paper="Ruoss et al. 2023, Randomized Positional Encodings (ACL)",
                        hooks=_PASSED_ON, length_limited=True, randomized=True)

    @classmethod
    def wrapped(cls, options: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """``(encoding, options)`` of the wrapped encoding, from this wrapper's ``options``."""
        return options.get("encoding", DEFAULT_WRAPPED), dict(options.get("options") or {})

    def __init__(self, encoding: str = DEFAULT_WRAPPED, max_len: int = 2048, options: dict[str, Any] | None = None,
                 at_eval: bool = True, seed: int = 0, d_model: int | None = None, n_heads: int | None = None,
                 head_dim: int | None = None):
        super().__init__()
        if encoding == "randomized":
            raise PosencError("randomized cannot wrap itself; pass encoding='rope', 'sinusoidal', ...")
        if not whole_number(max_len):
            raise PosencError(f"max_len must be a positive integer, got {max_len!r}")
        if options is not None and not isinstance(options, dict):
            raise PosencError(f"randomized: options (of the wrapped encoding) must be a dict such as "
                              f"{{'base': 500000}}, got {options!r}")
        for key, value in (("d_model", d_model), ("n_heads", n_heads), ("head_dim", head_dim)):
            if value is not None and not whole_number(value):  # checked even where the wrapped encoding has no use
                raise PosencError(f"randomized: {key} must be a positive integer or None, got {value!r}")
        if not whole_number(seed, 0, SEED_LIMIT):
            raise PosencError(f"randomized: seed must be an integer in 0..{SEED_LIMIT - 1}, got {seed!r}")
        options = dict(options or {})
        sizes = {key: value for key, value in
                 {"d_model": d_model, "n_heads": n_heads, "head_dim": head_dim, "max_len": max_len}.items()
                 if key not in options}  # explicit options win over model sizes
        self.inner = build_for_model(encoding, **sizes, **options)
        self.max_len, self.at_eval = max_len, at_eval
        self.generator = torch.Generator().manual_seed(seed)
        self._last: tuple[weakref.ref, torch.Tensor] | None = None
        # the wrapped encoding's capabilities, with the hooks this wrapper passes on and its own flags
        self.info = replace(self.inner.info, family="wrapper", paper=Randomized.info.paper,
                            hooks=tuple(hook for hook in self.inner.info.hooks if hook in _PASSED_ON),
                            length_limited=True, randomized=True)

    def randomize(self, positions: torch.Tensor) -> torch.Tensor:
        """Map integer positions ``[T]`` or ``[B, T]`` to sorted random positions in ``[0, max_len)``."""
        positions = check_positions(positions)
        if not (self.training or self.at_eval):
            return positions
        if self._last is not None and self._last[0]() is positions:
            return self._last[1]
        top = position_bounds(positions)[1] + 1
        rows = positions.shape[0] if positions.dim() == 2 else 1
        table = sorted_random_positions(top, self.max_len, rows, self.generator, positions.device)  # [rows, top]
        mapped = table[0][positions] if positions.dim() == 1 else torch.gather(table, 1, positions)
        self._last = (weakref.ref(positions), mapped)
        return mapped

    def embed(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        return self.inner.embed(x, self.randomize(positions))

    def rotate(self, q, k, q_positions, k_positions, inplace: bool = False):
        if q_positions is k_positions:
            mapped = self.randomize(q_positions)
            return self.inner.rotate(q, k, mapped, mapped, inplace=inplace)
        return self.inner.rotate(q, k, self.randomize(q_positions), self.randomize(k_positions), inplace=inplace)

    def bias(self, q_positions, k_positions):
        if q_positions is k_positions:
            mapped = self.randomize(q_positions)
            return self.inner.bias(mapped, mapped)
        return self.inner.bias(self.randomize(q_positions), self.randomize(k_positions))

    def output_dim(self, d_model: int) -> int:
        return self.inner.output_dim(d_model)

