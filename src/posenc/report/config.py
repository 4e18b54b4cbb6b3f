"""What one report runs and where it writes: :class:`ReportConfig`, the one place its settings are written.

``posenc report`` takes its options from these fields (:func:`posenc.cli.settings.settings_command`), and
:func:`posenc.report.run.run_report` takes the dataclass; the experiments see the resolved part of it as a
:class:`~posenc.report.experiments.base.Context`. Checks that need the machine or the ledger (device, claims, seeds,
threshold file, output folder) are :func:`~posenc.report.run.run_report`'s, before any work.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from posenc.checks import wrong_flags
from posenc.configs import one_config
from posenc.errors import PosencError

__all__ = ["ReportConfig", "report_config"]


@dataclass(frozen=True)
class ReportConfig:
    """The settings of one report.

    Attributes:
        out_dir: folder for index.html and report.json.
        quick: small sweeps and short contexts (a few minutes).
        store_path: SQLite results store (default: OUT/results.sqlite).
        claims: only this claim id.
        seeds: training seeds per configuration (default: 3 in both modes, the fewest an interval rests on); must be
            >= 1.
        thresholds: JSON file replacing claims' thresholds: {"claim id": {"statistic": number}}.
        progress: show a progress bar.
        device: auto (cuda when a GPU is visible, else mps, else cpu), cpu, cuda, cuda:N or mps: where the lab
            sweeps and extend runs compute (the other experiments are small and stay on the CPU).
        dtype: float32, bfloat16 or float16: their precision (float16 needs a GPU; a dtype other than float32 is
            stored apart).
        executor: local (this machine) or ray (every experiment and every lab run a Ray task; results stored here).
        address: Ray address: auto (the cluster ray start runs here), HOST:PORT, or local (a private one-machine Ray).
        extended: also run the claims that train past the hour (FIRE, KERPLE, p-RoPE, CoPE, PoPE, FoX, DAPE, the NoPE
            layer pattern, and SmolLM2 at 16384 tokens: about 70 min more on 2 cores); a claim named with --claim runs
            either way.
        references: the folder of the committed full and extended runs shown beside each verdict (full.json,
            extended.json; default docs/reports of the source tree, :mod:`posenc.report.reference`).

    From Python: ``out_dir``, ``store_path``, ``thresholds`` and ``references`` take a ``str`` or a
    :class:`~pathlib.Path`; ``claims`` takes claim ids or :class:`~posenc.report.claim.Claim` objects (default: the
    whole ledger); ``quick`` defaults to true here and to false on the command line (``--quick``).
    """

    out_dir: str = "posenc-report"
    quick: bool = True
    store_path: str | None = None
    claims: tuple[str, ...] | None = None
    seeds: int | None = None
    thresholds: str | None = None
    progress: bool = True
    device: str = "auto"
    dtype: str = "float32"
    executor: str = "local"
    address: str = "auto"
    extended: bool = False
    references: str | None = None

    def __post_init__(self) -> None:
        for name, value in wrong_flags(self):
            raise PosencError(f"ReportConfig.{name} is a flag: True or False, got {value!r} (a string such as 'no' "
                              f"would count as true)")
        if isinstance(self.claims, str):
            raise PosencError(f"claims is a list of claim ids, got the string {self.claims!r}; pass e.g. "
                              f"claims=[{self.claims!r}]")
        if self.claims is not None and not isinstance(self.claims, tuple):
            object.__setattr__(self, "claims", tuple(self.claims))  # a list is taken for the tuple
        if self.claims is not None:
            ids = [getattr(claim, "id", claim) for claim in self.claims]
            twice = [claim for claim in dict.fromkeys(ids) if ids.count(claim) > 1]
            if twice:
                raise PosencError(f"claims names {', '.join(map(repr, twice))} more than once; name each claim once "
                                  f"(a claim named twice would run twice)")


def report_config(config: ReportConfig | str | os.PathLike | None = None, **settings: Any) -> ReportConfig:
    """The one :class:`ReportConfig` of a run: ``config`` itself, a copy of it with ``settings`` replaced, or a new
    one from ``settings`` (its fields) writing to the folder ``config`` (or ``settings["out_dir"]``), as
    :func:`posenc.extend.plan.extend_config` does for ``posenc extend``."""
    return one_config(ReportConfig, config, settings, first="out_dir", first_types=(str, os.PathLike),
                      first_said="the output folder (e.g. 'posenc-report')", what="report")
