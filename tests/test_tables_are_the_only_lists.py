"""The name tables (each a :class:`posenc.names.Registry`) are the only lists of their names: no literal tuple, list
or set in src/ or tests/ restates a whole table (or most of a large one: a copy gone stale), so adding an encoding, a scaling, a task, a preset, an experiment or
a claim never means finding the copies. A literal that names a chosen few (a sweep's encodings, a test's cases) is a
selection, not a copy, and is let through."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tables() -> dict[str, frozenset[str]]:
    from posenc.encodings.catalog import ENCODINGS
    from posenc.encodings.rope_scaling import SCALINGS
    from posenc.extend.factors import EXTEND_SCALINGS
    from posenc.lab.lab_task import LAB_TASKS
    from posenc.lab.presets import PRESETS
    from posenc.lab.string_tasks import TASKS
    from posenc.plots.kinds import PLOT_KINDS
    from posenc.properties.check import PROPERTIES
    from posenc.report.experiments.base import EXPERIMENTS
    from posenc.report.ledger import claims

    tables = {"properties": PROPERTIES, "encodings": ENCODINGS, "RoPE scalings": SCALINGS,
              "extend's scalings": EXTEND_SCALINGS,
              "string tasks": TASKS, "lab tasks": LAB_TASKS, "presets": PRESETS, "experiments": EXPERIMENTS,
              "claims": claims(), "figure kinds": PLOT_KINDS}
    return {label: frozenset(table.names()) for label, table in tables.items()}


def _literals(path: Path) -> list[tuple[int, frozenset[str]]]:
    """Every tuple, list or set literal of the file whose elements are all strings, with its line (``__all__``, a
    module's exports, is not a list of a table's names even where its functions share them)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    exports = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)}
    found = []
    for node in ast.walk(tree):
        if id(node) in exports:
            continue
        if isinstance(node, ast.Tuple | ast.List | ast.Set) and len(node.elts) >= 3 and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            found.append((node.lineno, frozenset(e.value for e in node.elts)))
    return found


def copies(paths: list[Path], tables: dict[str, frozenset[str]]) -> list[str]:
    """``path:line restates every name of <table>`` for each literal that holds a whole table of 3 or more names, or
    (a copy gone stale) 80% of a table of 10 or more."""
    out = []
    for path in paths:
        for line, names in _literals(path):
            for label, table in tables.items():
                if (len(table) >= 3 and table <= names) or (len(table) >= 10 and len(table & names) >= 0.8 * len(table)):
                    out.append(f"{path.relative_to(ROOT)}:{line} restates every name of the {label} table")
    return out


def test_no_literal_restates_a_whole_table():
    paths = sorted((ROOT / "src").rglob("*.py")) + sorted((ROOT / "tests").rglob("*.py"))
    found = copies(paths, _tables())
    assert not found, "read the table instead: " + "; ".join(found)


def test_the_scan_finds_a_planted_copy(tmp_path):
    """The check can fail: a file listing every encoding is named with its line."""
    import posenc

    planted = ROOT / "tests" / f"_planted_{tmp_path.name}.py"
    planted.write_text("X = 1\nNAMES = (" + ", ".join(repr(n) for n in posenc.available()) + ")\n"
                       "FEW = ('rope', 'alibi', 'nope')\n", encoding="utf-8")
    try:
        found = copies([planted], _tables())
    finally:
        planted.unlink()
    assert found == [f"tests/{planted.name}:2 restates every name of the encodings table"]


@pytest.mark.parametrize("label", ["encodings", "lab tasks", "claims"])
def test_each_table_has_three_names_or_more(label):
    assert len(_tables()[label]) >= 3  # a table of fewer could never be caught restated
