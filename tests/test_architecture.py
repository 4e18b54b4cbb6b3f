"""The import graph runs one way (docs/architecture.md): the import-linter contracts in pyproject.toml hold.

A lower layer that imports a higher one, or two modules that import each other, fails here with import-linter's
report of the offending imports.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept():
    lint_imports = Path(sys.executable).parent / ("lint-imports.exe" if os.name == "nt" else "lint-imports")
    # import-linter is a dev dependency (make setup installs it): missing, the contracts are unchecked, so fail
    assert lint_imports.exists(), f"import-linter is not installed next to {sys.executable}; pip install -e '.[dev]'"
    # analyse this checkout's source, whatever posenc the environment has installed
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([str(lint_imports), "--config", str(ROOT / "pyproject.toml"), "--no-cache", "--no-logo"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"import contracts broken (pyproject.toml [tool.importlinter]):\n{done.stdout}{done.stderr}"
