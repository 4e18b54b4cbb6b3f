"""Experiments measure, pages present: every page names a registered experiment, the page modules are the package's
own listing and each mirrors a module of the experiments, a split module's experiments build no row, setup sentence
or figure and each has its page, and the join of a measurement with its page."""

import ast
import pkgutil
from pathlib import Path

import pytest

import posenc.report.experiments as experiments_package
import posenc.report.present as present
from posenc.errors import PosencError
from posenc.report.experiments.base import EXPERIMENTS, Context, Measured, Mode
from posenc.report.measurement import Measurement, Row, Shown
from posenc.report.present import PAGES, shown
from posenc.stats import exact

EXPERIMENTS_DIR = Path(experiments_package.__file__).parent
#: what presents: building these is a page's work, never an experiment's
PRESENTING = {"Row", "Measurement", "Shown"}


def _page_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(present.__path__))


def test_the_page_modules_are_the_packages_listing_and_mirror_the_experiments():
    assert sorted(m.__name__.rsplit(".", 1)[1] for m in present.MODULES) == _page_modules()
    experiment_modules = {m.name for m in pkgutil.iter_modules(experiments_package.__path__)}
    assert set(_page_modules()) <= experiment_modules


def test_every_page_names_a_registered_experiment_of_its_module():
    assert PAGES.names()
    for name in PAGES.names():
        page, exp = PAGES.get(name), EXPERIMENTS.get(name)
        assert page.__module__.rsplit(".", 1)[1] == exp.fn.__module__.rsplit(".", 1)[1], name


@pytest.mark.parametrize("module", _page_modules())
def test_a_split_module_measures_only(module):
    tree = ast.parse((EXPERIMENTS_DIR / f"{module}.py").read_text(encoding="utf-8"))
    presenting = sorted({(n.lineno, n.func.id) for n in ast.walk(tree) if isinstance(n, ast.Call)
                         and isinstance(n.func, ast.Name) and n.func.id in PRESENTING})
    plots = sorted(n.lineno for n in ast.walk(tree)
                   if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("posenc.plots")
                   or isinstance(n, ast.Import) and any(a.name.startswith("posenc.plots") for a in n.names))
    # a value picked by the mode alone (`a if ctx.quick else b`) is a size: a Mode constant. A quick-mode exit
    # (`if ctx.quick: return ...not run here...`) or a reason that needs the mode and more is not a size
    branches = sorted(n.lineno for n in ast.walk(tree) if isinstance(n, ast.IfExp)
                      and ast.unparse(n.test) in ("ctx.quick", "not ctx.quick"))
    assert not presenting, f"experiments/{module}.py builds what its page shows at {presenting}"
    assert not plots, f"experiments/{module}.py draws (imports posenc.plots) at lines {plots}"
    assert not branches, f"experiments/{module}.py picks sizes by ctx.quick at lines {branches}: use a Mode constant"
    registered = {e.name for e in EXPERIMENTS.values() if e.fn.__module__.endswith(f".{module}")}
    assert registered and registered <= set(PAGES.names()), f"without a page: {sorted(registered - set(PAGES.names()))}"


def test_shown_joins_what_was_measured_with_its_page():
    ctx = Context(quick=True)
    name = "word_order"  # a page with rows in quick mode
    measured = EXPERIMENTS.get(name).fn(ctx)
    assert isinstance(measured, Measured)
    joined = shown(name, measured, ctx)
    page = PAGES.get(name)(measured, ctx)
    assert isinstance(page, Shown) and isinstance(joined, Measurement)
    assert joined.numbers is measured.numbers and joined.estimates == measured.estimates
    assert [r.as_dict() for r in joined.rows] == [r.as_dict() for r in page.rows] and joined.rows
    assert joined.setup == page.setup and joined.scope == page.scope


def test_a_whole_measurement_passes_through_and_anything_else_is_refused():
    whole = Measurement({"x": 1}, [Row("x", 1)], setup="ran", estimates={"x": exact(1.0)})
    assert shown("any", whole, Context()) is whole  # a test's stand-in for an experiment
    with pytest.raises(PosencError, match=r"experiment 'word_order' returned dict, expected a Measured"):
        shown("word_order", {"x": 1}, Context())


def test_every_registered_experiment_returns_what_it_measured():
    # every module of the experiments has its pages: none presents itself
    modules = {m.name for m in pkgutil.iter_modules(experiments_package.__path__)} - {"base"}
    assert modules == set(_page_modules())


def test_a_size_per_mode_is_data():
    size = Mode(quick=8, full=70)
    assert size.of(Context(quick=True)) == 8 and size.of(Context(quick=False)) == 70
