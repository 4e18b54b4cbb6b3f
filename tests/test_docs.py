"""Every ```python block in the README and docs/ runs (blocks of one file share a namespace, in order)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


@pytest.mark.parametrize("path", [f for f in FILES if _blocks(f)], ids=lambda p: p.name)
def test_python_examples_run(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in _blocks(path):
        exec(compile(block, str(path), "exec"), namespace)  # noqa: S102
