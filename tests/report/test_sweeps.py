"""The report's sweeps as presets (posenc.report.sweeps): each preset is the sweep the report trains, every sweep
builder of the report's experiments is registered (a run's store key is its config and seed, so equal runs are the
report's stored runs). ``posenc sweep --preset NAME``: tests/cli/test_lab.py."""

import importlib
import inspect
import json
import pkgutil

import pytest

from posenc.lab.presets import PRESETS, get_preset
from posenc.lab.sweep import Sweep
from posenc.report import experiments
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
    modules = [importlib.import_module(f"{experiments.__name__}.{info.name}")
               for info in pkgutil.iter_modules(experiments.__path__)]
    assert len(modules) >= 12
    found = {fn for module in modules for name, fn in vars(module).items()
             if name.endswith("_sweep") and inspect.isfunction(fn) and fn.__module__ == module.__name__}
    assert found == set(BUILDERS), f"sweep builders not registered as presets: {sorted(f.__name__ for f in found - set(BUILDERS))}"
    names = tuple(REPORT_SWEEPS)
    assert len(names) == len(set(names)) == 2 * len(BUILDERS)
    assert all(name in PRESETS for name in names)
    assert PRESETS.names()[-len(names):] == names  # after the lab's own presets


@pytest.mark.parametrize("quick", [False, True])
def test_each_training_step_asks_for_its_modes_presets(quick, tmp_path, monkeypatch):
    # the steps that train ahead of their claims (every ``prepare`` that goes through the lab; the tutorial's own
    # runs, ``prepare_here``, train in this process and are tested with their claims): each asks for registered
    # presets only, and only those of the mode it runs in, so a quick report never trains the full sweeps
    from posenc.report.experiments import training
    from posenc.report.experiments.base import EXPERIMENTS

    asked: list[str] = []
    monkeypatch.setattr(training, "run_lab", lambda sweep, ctx: asked.append(sweep["name"]) or [])
    steps = {e.prepare for e in EXPERIMENTS.values() if e.prepare is not None and not e.prepare_here}
    assert len(steps) >= 7
    for step in steps:
        asked.clear()
        step(Context(quick=quick, store_path=None, work_dir=tmp_path))
        assert asked, step.__name__
        assert all(name in REPORT_SWEEPS and name.endswith("-quick") == quick for name in asked), (step, asked)
