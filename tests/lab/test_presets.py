"""The presets' sizes as the docs state them: the run counts in the module docstring and in docs/lab.md."""

import re
from pathlib import Path

import pytest

from posenc.lab import presets
from posenc.lab.presets import PRESETS, get_preset

DOCS = Path(__file__).resolve().parents[2] / "docs" / "lab.md"


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_docs_give_each_preset_its_run_count(name):
    runs = len(get_preset(name).runs())
    row = next(line for line in DOCS.read_text().splitlines() if line.startswith(f"| `{name}` |"))
    assert re.search(rf"\b{runs} runs\b", row.split("|")[3]), f"docs/lab.md says {row.split('|')[3][:40]!r}"
    entry = presets.__doc__.split(f"``{name}``", 1)[1].split("\n``", 1)[0]
    assert re.search(rf"\({runs} runs\)|\b{runs} runs\b", entry), f"the presets docstring of {name}: {entry[-120:]}"
