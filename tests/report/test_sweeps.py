"""The report's sweeps as presets (posenc.report.sweeps): each preset is the sweep the report trains, every sweep
builder of the report's experiments is registered (a run's store key is its config and seed, so equal runs are the
report's stored runs). ``posenc sweep --preset NAME``: tests/cli/test_lab.py."""

import inspect
import json

import pytest

from posenc.lab.presets import PRESETS, get_preset
from posenc.lab.sweep import Sweep
from posenc.report.experiments import MODULES
from posenc.report.experiments.base import Context
from posenc.report.sweeps import BUILDERS, REPORT_SWEEPS


def runs(sweep: Sweep) -> list[tuple[str, int]]:
    return [(json.dumps(config.as_dict(), sort_keys=True), seed) for config, seed in sweep.runs()]


@pytest.mark.parametrize("quick", [False, True])
@pytest.mark.parametrize("builder", BUILDERS, ids=lambda b: b.__name__)
def test_each_preset_is_the_sweep_the_report_trains(builder, quick, tmp_path):
    ctx = Context(quick=quick, store_path=None, work_dir=tmp_path)  # the report's default seeds
    trained = builder(ctx.quick, ctx.seed_count)
    preset = get_preset(trained["name"])
    assert preset.name == trained["name"] == (trained["name"].removesuffix("-quick") + ("-quick" if quick else ""))
    assert runs(preset) == runs(Sweep.from_dict(trained))
    assert [seed for _, seed in preset.runs()][:1] == [0]


def test_every_sweep_builder_of_the_report_is_registered():
    found = {fn for module in MODULES for name, fn in vars(module).items()
             if name.endswith("_sweep") and inspect.isfunction(fn) and fn.__module__ == module.__name__}
    assert found == set(BUILDERS), f"sweep builders not registered as presets: {sorted(f.__name__ for f in found - set(BUILDERS))}"
    names = tuple(REPORT_SWEEPS)
    assert len(names) == len(set(names)) == 2 * len(BUILDERS)
    assert all(name in PRESETS for name in names)
    assert PRESETS.names()[-len(names):] == names  # after the lab's own presets
