"""The presets as the docs state them: the run counts in the module docstring and in docs/lab.md, the seeds and
learning rates in the module docstring."""

import re
from pathlib import Path

import pytest

import posenc
from posenc.lab import presets
from posenc.lab.presets import PRESETS, get_preset

DOCS = Path(__file__).resolve().parents[2] / "docs" / "lab.md"


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_docs_give_each_preset_its_run_count(name):
    runs = len(get_preset(name).runs())
    row = next(line for line in DOCS.read_text().splitlines() if line.startswith(f"| `{name}` |"))
    entry = presets.__doc__.split(f"``{name}``", 1)[1].split("\n``", 1)[0]
    if name == "quick":  # it grows with the registry, so the docs give its rule: 2 n + 4 for n encodings
        assert runs == 2 * len(posenc.available()) + 4
        assert "2 n + 4 runs" in row.split("|")[3], f"docs/lab.md says {row.split('|')[3][:40]!r}"
        assert "2 n + 4 runs" in " ".join(entry.split()), f"the presets docstring of {name}: {entry[-120:]}"
        return
    assert re.search(rf"\b{runs} runs\b", row.split("|")[3]), f"docs/lab.md says {row.split('|')[3][:40]!r}"
    assert re.search(rf"\({runs} runs\)|\b{runs} runs\b", entry), f"the presets docstring of {name}: {entry[-120:]}"


def _entry(name: str) -> str:
    """The presets docstring's paragraph on ``name``, on one line."""
    return " ".join(presets.__doc__.split(f"``{name}``", 1)[1].split("\n``", 1)[0].split())


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_docstring_gives_each_preset_its_seeds_and_learning_rate(name):
    entry, sweep = _entry(name), get_preset(name)
    seeds = re.search(r"\bseeds ((?:\d+, )*\d+)\b", entry)
    if seeds:  # "seeds 0, 1, 2"
        assert sweep.seeds == [int(s) for s in seeds.group(1).split(", ")]
    else:  # "one seed": the first
        assert "one seed" in entry and sweep.seeds == [0]
    lr = re.search(r"\blr (\d(?:\.\d+)?e-\d+)\b", entry)
    assert lr, f"the presets docstring of {name} names no lr: {entry[-200:]}"
    assert sweep.base["lr"] == float(lr.group(1))
