"""docs/encodings.md's table of encodings against the registry: every row names a registered encoding, with the
family and hook its class declares. The table describes; ``posenc list`` is the full list, so an encoding without a
row is not an error (its family file and test are all it needs)."""

from pathlib import Path

import pytest

import posenc

DOC = Path(__file__).resolve().parents[2] / "docs" / "encodings.md"


def _rows() -> dict[str, tuple[str, str]]:
    """``{name: (family, hook)}`` of the table under "## The encodings"."""
    section = DOC.read_text(encoding="utf-8").split("## The encodings", 1)[1].split("\n## ", 1)[0]
    table = section.split("| name | family | hook | source |", 1)[1].split("\n\n", 1)[0]  # the first table only
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0].startswith("`") and cells[0].endswith("`"):
            rows[cells[0].strip("`")] = (cells[1], cells[2])
    return rows


def test_the_table_is_found():
    assert len(_rows()) >= 20 and "rope" in _rows()


@pytest.mark.parametrize("name", sorted(_rows()))
def test_each_row_is_a_registered_encoding_with_its_declared_family_and_hook(name):
    assert name in posenc.available(), f"docs/encodings.md lists {name!r}, which is not registered"
    family, hook = _rows()[name]
    info = posenc.get_class(name).info
    assert family == info.family
    if info.family == "wrapper":
        assert hook == "the wrapped one's"
    else:
        assert hook == (", ".join(info.hooks) or "—")
