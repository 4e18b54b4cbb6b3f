"""Every ``from posenc... import name`` inside a function of the report's experiments names something
that exists. The experiments import the area they need inside each function (a broken area fails only its own
claims), so a name that moved or was renamed is found only when that experiment runs, in a slow test or a report:
this finds it in the fast suite, without running anything."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil

import pytest

import posenc.report.experiments
import posenc.report.present

PACKAGES = (posenc.report.experiments, posenc.report.present)


def _modules() -> list[str]:
    return sorted(f"{package.__name__}.{info.name}" for package in PACKAGES
                  for info in pkgutil.iter_modules(package.__path__))


def _imports(module_name: str) -> list[tuple[int, str, str]]:
    """``(line, module, name)`` of every ``from posenc... import name`` in the module, at any depth."""
    tree = ast.parse(inspect.getsource(importlib.import_module(module_name)))
    return [(node.lineno, node.module, alias.name) for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "posenc"
            for alias in node.names]


def test_the_walk_finds_the_modules_and_their_imports_inside_functions():
    names = _modules()
    assert "posenc.report.experiments.decoder" in names and "posenc.report.present.pretrained" in names
    inner = _imports("posenc.report.experiments.decoder")
    assert ("posenc.report.experiments.pretrained", "MODEL_OPTIONS") in {(m, n) for _, m, n in inner}


@pytest.mark.parametrize("module_name", _modules())
def test_every_name_imported_inside_a_function_exists(module_name):
    missing = []
    for line, source, name in _imports(module_name):
        target = importlib.import_module(source)
        if not hasattr(target, name):
            try:  # a submodule of a package
                importlib.import_module(f"{source}.{name}")
            except ImportError:
                missing.append(f"line {line}: from {source} import {name}")
    assert not missing, f"{module_name}: " + "; ".join(missing)
