"""What the page shows of each experiment: its rows, its setup sentence, its scope and its figure, built from what the
experiment measured (:class:`~posenc.report.experiments.base.Measured`). One module per module of
:mod:`posenc.report.experiments`, of the same name; each page is registered under its experiment's name with
:func:`presents`.

The experiments measure and this package presents: a label, a sentence or a figure changes here without touching
what is measured. What a page shows is stored with the measurement, so a page is part of its claims' fingerprint
(``tests/report/claim_revisions.py``) like the experiment itself.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable
from importlib import import_module

from posenc.errors import PosencError
from posenc.names import Registry
from posenc.report.experiments.base import Context, Measured
from posenc.report.measurement import Measurement, Shown

__all__ = ["PAGES", "presents", "MODULES", "shown", "page_of"]

#: experiment name -> its page, ``page(measured, ctx) -> Shown`` (filled by :func:`presents` as the modules of
#: :mod:`posenc.report.present` are imported)
PAGES: Registry[Callable[[Measured, Context], Shown]] = Registry("page")


def presents(name: str) -> Callable[[Callable[[Measured, Context], Shown]], Callable[[Measured, Context], Shown]]:
    """Register ``page(measured, ctx) -> Shown`` as what the page shows of experiment ``name`` (a duplicate name
    raises); the function itself is returned unchanged."""

    def decorate(page: Callable[[Measured, Context], Shown]) -> Callable[[Measured, Context], Shown]:
        PAGES.register(name, page)
        return page

    return decorate


def page_of(name: str):
    """The page registered for experiment ``name``, or None."""
    return PAGES.get(name, None)


def shown(name: str, measured: Measured | Measurement, ctx: Context) -> Measurement:
    """The :class:`~posenc.report.measurement.Measurement` of experiment ``name``: what it measured joined with what
    its page shows. A function that returns the whole ``Measurement`` (a test's stand-in for an experiment) passes
    through as it came; every experiment of :mod:`posenc.report.experiments` returns a ``Measured``
    (``tests/report/test_present.py``)."""
    if isinstance(measured, Measurement):
        return measured
    if not isinstance(measured, Measured):
        raise PosencError(f"experiment {name!r} returned {type(measured).__name__}, expected a Measured")
    page = PAGES.get(name)(measured, ctx)
    return Measurement(measured.numbers, page.rows, page.figure, page.setup, estimates=measured.estimates,
                       variants=measured.variants, missing=measured.missing, missing_status=measured.missing_status,
                       command=measured.command, scope=page.scope)


#: the modules of pages, every module of this package (importing one registers its pages)
MODULES = tuple(import_module(f"{__name__}.{m.name}") for m in pkgutil.iter_modules(__path__))
