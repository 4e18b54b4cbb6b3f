"""Every file and name docs/architecture.md points to exists, so the map cannot drift from the code it describes."""

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
TOKENS = sorted(set(re.findall(r"`([^`\s]+)`", DOC)))
FILES = [t for t in TOKENS if re.fullmatch(r"[\w/]+\.(py|cpp)", t)]
NAMES = [t for t in TOKENS if re.fullmatch(r"posenc(\.\w+)+", t)]
SOURCES = [p.relative_to(ROOT).as_posix() for p in (ROOT / "src").rglob("*") if p.suffix in (".py", ".cpp")]
TESTS = [p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("*.py")]


def test_the_document_names_files_and_names():
    assert len(FILES) >= 20 and len(NAMES) >= 10  # the patterns still find what the document refers to


@pytest.mark.parametrize("name", FILES)
def test_every_file_named_exists(name):
    # a bare name (``sweep.py``, ``test_rope_scaling.py``) is a file somewhere in src/ or tests/, a path
    # (``lab/sweep.py``, ``tests/test_registry.py``) ends a real path
    candidates = TESTS if name.startswith("tests/") else SOURCES + TESTS if "/" not in name else SOURCES
    assert any(path == name or path.endswith("/" + name) for path in candidates), f"{name} is not in the tree"


@pytest.mark.parametrize("name", NAMES)
def test_every_dotted_name_imports(name):
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):  # the longest importable module, then attributes below it
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            assert hasattr(obj, attr), f"{name}: {'.'.join(parts[:cut])} has no {attr}"
            obj = getattr(obj, attr)
        return
    pytest.fail(f"{name}: no module of it imports")


def test_every_package_has_its_folder_of_tests():
    packages = {p.parent.relative_to(ROOT / "src" / "posenc").parts[0] for p in (ROOT / "src" / "posenc").rglob(
        "__init__.py") if p.parent != ROOT / "src" / "posenc"}
    assert packages and all((ROOT / "tests" / name).is_dir() for name in packages), packages


def test_no_two_test_files_share_a_name():
    """pytest's default import mode imports a test file by its basename: two tests/**/test_x.py stop collection
    (found when tests/report/test_schedule.py met tests/encodings/test_schedule.py)."""
    names = [p.name for p in (Path(__file__).resolve().parent).rglob("test_*.py")]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []
