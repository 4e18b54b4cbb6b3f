"""What a sweep is, before anything runs: a grid of lab runs (:class:`Sweep`).

Named sweeps live in :mod:`~posenc.lab.presets`; :mod:`~posenc.lab.sweep` runs them. A sweep is plain data: ``base``
settings of :class:`~posenc.lab.train.RunConfig`, a ``grid`` of settings to vary (the Cartesian product, in the
order given), and ``seeds``; :meth:`Sweep.runs` turns it into validated run configs.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field, replace
from typing import Any

from posenc.checks import SEED_LIMIT, whole_number
from posenc.errors import PosencError
from posenc.lab.train import RunConfig

__all__ = ["Sweep"]


@dataclass
class Sweep:
    """A grid of runs.

    Attributes:
        name: shown in progress bars and tables.
        base: settings shared by every run (fields of :class:`RunConfig`).
        grid: setting -> list of values; ``"variant"`` -> list of dicts of settings that change together.
        seeds: every grid point runs once per seed.
        description: one paragraph for ``posenc sweep --help`` and the docs.
    """

    name: str
    base: dict[str, Any] = field(default_factory=dict)
    grid: dict[str, list[Any]] = field(default_factory=dict)
    seeds: list[int] = field(default_factory=lambda: [0])
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise PosencError(f"a sweep's name must be a non-empty string, got {self.name!r}")
        for key, value in (("base", self.base), ("grid", self.grid)):
            if not isinstance(value, dict):
                raise PosencError(f"sweep {self.name!r}: {key} must be a JSON object of settings, got {value!r}")
        for key, values in self.grid.items():
            if not isinstance(values, list | tuple) or not values:
                raise PosencError(f"sweep {self.name!r}: grid[{key!r}] must be a non-empty list, got {values!r}")
            if key == "variant" and not all(isinstance(v, dict) for v in values):
                raise PosencError(f"sweep {self.name!r}: every 'variant' must be a dict of settings, got {values!r}")
        if not isinstance(self.seeds, list | tuple) or not self.seeds or not all(
                whole_number(s, 0, SEED_LIMIT) for s in self.seeds):
            raise PosencError(f"sweep {self.name!r}: seeds must be a non-empty list of integers in "
                              f"0..{SEED_LIMIT - 1}, got {self.seeds!r}; e.g. \"seeds\": [0, 1, 2]")
        if len(set(self.seeds)) != len(self.seeds):
            raise PosencError(f"sweep {self.name!r}: seeds lists a seed twice ({self.seeds!r}); give each once")

    def runs(self) -> list[tuple[RunConfig, int]]:
        """Every ``(config, seed)`` of the grid, validated (a bad setting raises before anything runs)."""
        keys = list(self.grid)
        out = []
        for values in itertools.product(*(self.grid[k] for k in keys)):
            settings = dict(self.base)
            for key, value in zip(keys, values, strict=True):
                if key == "variant":
                    settings.update(value)
                else:
                    settings[key] = value
            config = RunConfig.from_dict(json.loads(json.dumps(settings)))  # a deep copy per run
            out.extend((config, seed) for seed in self.seeds)
        return out

    def with_settings(self, settings: dict[str, Any]) -> Sweep:
        """A copy whose ``base`` has ``settings`` (e.g. ``{"d_model": 128}``) in place of its own.

        A setting that the grid varies cannot be fixed this way: it raises rather than being silently overridden.

        >>> from posenc.lab.presets import get_preset
        >>> get_preset("alibi-table").with_settings({"steps": 100}).base["steps"]
        100
        """
        clash = sorted(set(settings) & set(self.grid))
        if "variant" in self.grid:
            clash += sorted(k for k in settings if any(k in v for v in self.grid["variant"]))
        if clash:
            raise PosencError(f"sweep {self.name!r} varies {clash} in its grid; a fixed setting cannot replace a grid "
                              f"axis. Write a sweep file with your own grid instead (see docs/lab.md)")
        return replace(self, base={**self.base, **settings})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Sweep:
        allowed = {"name", "base", "grid", "seeds", "description"}
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise PosencError(f"unknown sweep key(s) {unknown}; a sweep file has {sorted(allowed)}")
        return cls(**{"name": "custom", **data})
