"""Bad input to the lab's Python API: run settings, seeds, sweeps and sweep files, and run_sweep's own options. Each
raises a one-line PosencError naming the value before any run starts (``issue-*``: the second round's findings,
``r3-*``: a further round)."""

import json

import pytest

from posenc.errors import PosencError
from posenc.lab.grid import Sweep
from posenc.lab.sweep import resolve_sweep, run_sweep
from posenc.lab.train import RunConfig, train_run
from posenc.model import ModelConfig
from posenc.names import UnknownName

TINY = {"steps": 2, "warmup": 1, "train_len": 4, "d_model": 16, "n_heads": 2, "n_layers": 1, "eval_samples": 4}

CASES = [("issue-warmup-past-steps", lambda tmp: RunConfig(warmup=600, steps=10),
          ["RunConfig.warmup (600) exceeds steps (10)", "use warmup <= 10"]),
         ("issue-seed-negative", lambda tmp: train_run(RunConfig.from_dict(TINY), seed=-1, progress=False),
          ["seed must be an integer in 0..4294967295, got -1"]),
         ("issue-seed-beyond-64-bits", lambda tmp: train_run(RunConfig.from_dict(TINY), seed=2 ** 70, progress=False),
          [f"got {2 ** 70}"]),
         ("issue-grid-file-list", lambda tmp: resolve_sweep(_write(tmp, "list.json", "[1, 2]")),
          ["holds a JSON list, not an object"]),
         ("issue-grid-file-binary", lambda tmp: resolve_sweep(_write(tmp, "binary.json", b"\xff\xfe{}")),
          ["is not UTF-8 text (byte 0 is 0xff)"]),
         ("issue-grid-file-folder", lambda tmp: resolve_sweep(_folder(tmp, "folder.json")),
          ["is a folder, not a file"]),
         ("issue-grid-file-empty-object", lambda tmp: resolve_sweep(_write(tmp, "empty.json", "{}")),
          ["sets no run ({})"]),
         ("r3-grid-file-empty", lambda tmp: resolve_sweep(_write(tmp, "zero.json", "")), ["is not valid JSON"]),
         ("r3-seed-string", lambda tmp: train_run(RunConfig.from_dict(TINY), seed="0", progress=False), ["got '0'"]),
         ("r3-seed-float", lambda tmp: train_run(RunConfig.from_dict(TINY), seed=1.0, progress=False), ["got 1.0"]),
         ("r3-warmup-negative", lambda tmp: RunConfig(warmup=-1),
          ["RunConfig.warmup must be an integer >= 0 or None, " "got -1"]),
         ("r3-steps-float", lambda tmp: RunConfig(steps=10.0),
          ["RunConfig.steps must be a positive integer, got 10.0"]),
         ("r3-eval-lengths-string", lambda tmp: RunConfig(eval_lengths="10"),
          ["eval_lengths must be a list of positive integers, got '10'"]),
         ("r3-stride-zero", lambda tmp: RunConfig(stride=0), ["stride must be a positive integer or None, got 0"]),
         ("r3-dtype-number", lambda tmp: RunConfig(dtype=5), ["RunConfig.dtype must be a string", "got 5"]),
         ("r3-label-empty", lambda tmp: RunConfig(label=" "), ["RunConfig.label must be a non-empty string or None"]),
         ("r3-options-not-a-dict", lambda tmp: RunConfig(model=ModelConfig(encoding_options="combine=concat")),
          ["encoding_options must be a dict, got 'combine=concat'"]),
         ("r3-unknown-setting", lambda tmp: RunConfig.from_dict({"lr": 1e-3, "lrr": 1}),
          ["unknown run setting(s) ['lrr']"]),
         ("r3-randomized-range",
          lambda tmp: RunConfig(model=ModelConfig(encoding="randomized", encoding_options={"max_len": 8}),
                                train_len=20),
          ["randomized positions are drawn from [0, 8) but the longest sequence has"]),
         ("r3-seeds-repeated", lambda tmp: Sweep("s", base={"steps": 10}, seeds=[0, 0]), ["seeds lists a seed twice"]),
         ("r3-seeds-negative", lambda tmp: Sweep("s", base={"steps": 10}, seeds=[-1]), ["got [-1]"]),
         ("r3-seeds-not-a-list", lambda tmp: Sweep("s", base={"steps": 10}, seeds=3), ["got 3"]),
         ("r3-grid-axis-empty", lambda tmp: Sweep("s", grid={"encoding": []}),
          ["grid['encoding'] must be a non-empty list"]),
         ("r3-grid-axis-string", lambda tmp: Sweep("s", grid={"encoding": "rope"}), ["got 'rope'"]),
         ("r3-base-string", lambda tmp: Sweep("s", base="copy"),
          ["base must be a JSON object of settings, got 'copy'"]),
         ("r3-grid-list", lambda tmp: Sweep("s", grid=["encoding"]), ["grid must be a JSON object of settings"]),
         ("r3-variant-not-a-dict", lambda tmp: Sweep("s", grid={"variant": ["rope"]}),
          ["every 'variant' must be a dict"]),
         ("r3-name-number", lambda tmp: Sweep(5, base={"steps": 10}),
          ["a sweep's name must be a non-empty string, got 5"]),
         ("r3-sweep-key-unknown", lambda tmp: Sweep.from_dict({"base": {"steps": 10}, "seed": [0]}),
          ["unknown sweep key(s) ['seed']"]),
         ("r3-preset-typo", lambda tmp: resolve_sweep("quik"),
          ["unknown preset or sweep file 'quik'", "Did you mean 'quick'?"]),
         ("r3-run-sweep-threads",
          lambda tmp: run_sweep({"base": TINY}, tmp / "runs.sqlite", threads=-1, progress=False),
          ["threads must be an integer >= 0", "got -1"]),
         ("r3-run-sweep-workers",
          lambda tmp: run_sweep({"base": TINY}, tmp / "runs.sqlite", workers=0, progress=False),
          ["workers must be a positive integer, got 0"]),
         ("r3-run-sweep-limit", lambda tmp: run_sweep({"base": TINY}, tmp / "runs.sqlite", limit=-1, progress=False),
          ["limit must be an integer >= 0", "got -1"]),
         ("r3-run-sweep-executor",
          lambda tmp: run_sweep({"base": TINY}, tmp / "runs.sqlite", executor="dask", progress=False),
          ["unknown executor 'dask'"]),
         ("r3-with-settings-axis", lambda tmp: resolve_sweep("quick").with_settings({"task": "sort"}),
          ["varies ['task'] in its grid"]),]


def _write(tmp, name, content):
    path = tmp / name
    path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
    return path


def _folder(tmp, name):
    (tmp / name).mkdir()
    return tmp / name


@pytest.mark.parametrize("call, fragments", [pytest.param(call, fragments, id=name) for name, call, fragments in CASES])
def test_bad_input_raises_one_line_naming_the_value(call, fragments, tmp_path):
    with pytest.raises(PosencError) as caught:
        call(tmp_path)
    # PosencError itself, or UnknownName (a PosencError) for a name no table has
    assert type(caught.value) in (PosencError, UnknownName) and "\n" not in str(caught.value)
    for fragment in fragments:
        assert fragment in str(caught.value), str(caught.value)
    assert not (tmp_path / "runs.sqlite").exists()  # refused before the store was made


def test_warmup_defaults_to_fifty_or_the_steps_when_fewer():
    # one rule, an error for warm-up past the steps; a run that names no warm-up gets one that fits
    assert RunConfig().warmup == 50 and RunConfig(steps=20).warmup == 20
    assert RunConfig(steps=20).as_dict() == RunConfig.from_dict(RunConfig(steps=20).as_dict()).as_dict()
    assert json.loads(json.dumps(RunConfig().as_dict()))["warmup"] == 50  # the store keys of default runs stay
