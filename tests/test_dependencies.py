"""Every package ``src/`` imports is declared in pyproject.toml (in the dependencies, or in an extra), and what
``import posenc`` itself loads needs only the dependencies (no extra)."""

from __future__ import annotations

import ast
import functools
import json
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "posenc"
STDLIB = set(sys.stdlib_module_names)


def _name(requirement: str) -> str:
    """The normalized distribution name of a requirement such as ``ray[default]>=2.9``."""
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.-]+", requirement).group()).lower()


def _declared() -> tuple[set[str], set[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {_name(r) for r in project["dependencies"]}
    extras = {_name(r) for group in project["optional-dependencies"].values() for r in group} - {"posenc"}
    return core, core | extras


def _optional(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether an import sits in a ``try`` that handles its absence (an optional comparison, e.g. flash-attn)."""
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.Try) and any(
                h.type is None or (isinstance(h.type, ast.Name) and h.type.id in ("ImportError", "Exception",
                                                                                  "ModuleNotFoundError"))
                for h in node.handlers):
            return True
    return False


def _imports(path: Path, module_level_only: bool = False) -> dict[str, bool]:
    """Top-level names of the third-party modules a file imports -> whether every such import is optional."""
    tree = ast.parse(path.read_text())
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    found: dict[str, bool] = {}
    nodes = tree.body if module_level_only else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top in STDLIB or top == "posenc" or top == "__future__":
                continue
            found[top] = found.get(top, True) and _optional(node, parents)
    return found


@functools.lru_cache(maxsize=1)
def _packages() -> dict[str, list[str]]:
    return metadata.packages_distributions()


def _distributions(module: str) -> set[str]:
    return {_name(d) for d in _packages().get(module, [])}


def test_every_imported_package_is_declared():
    _, declared = _declared()
    undeclared = []
    for path in sorted(SRC.rglob("*.py")):
        for module, optional in _imports(path).items():
            dists = _distributions(module)
            if not dists and optional:
                continue  # an optional comparison that is not installed here (the code says so when it is missing)
            if not dists & declared:
                undeclared.append(f"{path.relative_to(ROOT)}: {module} (distribution {sorted(dists) or 'unknown'})")
    assert not undeclared, "imported but not declared in pyproject.toml:\n" + "\n".join(undeclared)


def test_what_import_posenc_loads_needs_only_the_dependencies():
    core, _ = _declared()
    loaded = json.loads(subprocess.run(
        [sys.executable, "-c", "import json, sys, posenc; print(json.dumps(sorted(m.__file__ for n, m in "
                                "sys.modules.items() if n.startswith('posenc') and getattr(m, '__file__', None))))"],
        capture_output=True, text=True, check=True).stdout)
    assert len(loaded) > 10
    missing = []
    for file in loaded:
        for module, optional in _imports(Path(file), module_level_only=True).items():
            if not optional and not _distributions(module) & core:
                missing.append(f"{Path(file).name}: {module}")
    assert not missing, "loaded by `import posenc` but not in [project] dependencies:\n" + "\n".join(missing)


def test_the_check_finds_an_undeclared_import(tmp_path):
    # the check can fail: a file importing scipy is flagged when scipy is not declared
    path = tmp_path / "m.py"
    path.write_text("import scipy.stats\ntry:\n    import flash_attn\nexcept ImportError:\n    pass\n")
    assert _imports(path) == {"scipy": False, "flash_attn": True}
    assert "scipy" in _distributions("scipy") and not _distributions("scipy") & {"numpy"}
