"""The report's lab sweeps as named presets of ``posenc sweep``: every lab number on the page can be rerun by name.

Each lab claim of the report reads the runs of one sweep, built by a function of :mod:`posenc.report.experiments`
(:data:`BUILDERS`) for a mode (quick or full) and a number of seeds. Importing this module registers each builder's
sweep in :data:`posenc.lab.PRESETS` under the sweep's own name, in both modes (``report-tasks`` and
``report-tasks-quick``, ...), with the report's default seeds (:data:`posenc.stats.MIN_UNITS`). A run's store key
is its settings and seed, so the same sweep against a report's store finds the runs the report trained and runs
only what is missing::

    posenc sweep --preset report-tasks --store posenc-report/results.sqlite --metric token_accuracy
    posenc sweep --preset report-charlm-quick --store posenc-report/results.sqlite --limit 0   # the table only

``posenc sweep`` imports this module; a library caller imports it before naming a report sweep.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from posenc.lab.presets import PRESETS
from posenc.lab.sweep import Sweep
from posenc.report.experiments import field, research, training
from posenc.stats import MIN_UNITS

__all__ = ["BUILDERS", "REPORT_SWEEPS"]

#: every function that builds a sweep the report trains, ``(quick, seeds) -> sweep dict``, in the page's order
BUILDERS: tuple[Callable[[bool, int], dict[str, Any]], ...] = (
    training.task_sweep, training.lm_sweep, research.research_lm_sweep, research.prope_sweep,
    research.counting_sweep, field.field_lm_sweep, field.irope_sweep)


def _preset(builder: Callable[[bool, int], dict[str, Any]], quick: bool) -> Callable[[], Sweep]:
    def preset() -> Sweep:
        return Sweep.from_dict(builder(quick, MIN_UNITS))

    preset.__doc__ = f"{builder.__name__}(quick={quick}) with {MIN_UNITS} seeds, as the report trains it"
    return preset


def _register() -> dict[str, Callable[[], Sweep]]:
    table = {}
    for builder in BUILDERS:
        for quick in (False, True):
            name = builder(quick, MIN_UNITS)["name"]
            table[name] = PRESETS.register(name, _preset(builder, quick))
    return table


#: the report's sweeps by name, as registered in :data:`posenc.lab.PRESETS`: each builder's full mode, then its quick mode
REPORT_SWEEPS: dict[str, Callable[[], Sweep]] = _register()

