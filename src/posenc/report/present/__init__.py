"""What the page shows of each experiment: its rows, its setup sentence, its scope and its figure, built from what the
experiment measured (:class:`~posenc.report.experiments.base.Measured`). One module per module of
:mod:`posenc.report.experiments`, of the same name; each page is registered under its experiment's name with
:func:`~posenc.report.experiments.base.presents`.

The experiments measure and this package presents: a label, a sentence or a figure changes here without touching
what is measured. What a page shows is stored with the measurement, so a page is part of its claims' fingerprint
(``tests/report/claim_revisions.py``) like the experiment itself.
"""

from __future__ import annotations

import pkgutil
from importlib import import_module

from posenc.errors import PosencError
from posenc.report.experiments.base import PAGES, Context, Measured, Measurement

__all__ = ["MODULES", "shown", "page_of"]

#: the modules of pages, every module of this package (importing one registers its pages)
MODULES = tuple(import_module(f"{__name__}.{m.name}") for m in pkgutil.iter_modules(__path__))


def page_of(name: str):
    """The page registered for experiment ``name``, or None (an experiment that presents itself)."""
    return PAGES.get(name, None)


def shown(name: str, measured: Measured | Measurement, ctx: Context) -> Measurement:
    """The :class:`Measurement` of experiment ``name``: a :class:`Measured` joined with what its page shows, or a
    :class:`Measurement` as it came (an experiment that presents itself)."""
    if isinstance(measured, Measurement):
        return measured
    if not isinstance(measured, Measured):
        raise PosencError(f"experiment {name!r} returned {type(measured).__name__}, expected a Measured or a "
                          f"Measurement")
    page = PAGES.get(name)(measured, ctx)
    return Measurement(measured.numbers, page.rows, page.figure, page.setup, estimates=measured.estimates,
                       variants=measured.variants, missing=measured.missing, missing_status=measured.missing_status,
                       command=measured.command, scope=page.scope)
