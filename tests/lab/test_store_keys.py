"""A lab run's store key: schema 2 holds every setting, defaults included, under ``"schema": 2``; a store written
before the key had a schema (schema 1: settings at their defaults left out) is still found and read, and nothing in
it is trained again.

The old store is built here the way posenc wrote it before: each row's key written by hand from schema 1's
definition (``asdict`` of the config, without ``dtype`` when float32, ``schedule`` when empty, ``lr_decay`` when
cosine, ``encoding_revision`` when 1), with metrics no training produces, so a run that was trained again shows.
"""

import dataclasses

import pytest

from posenc.errors import PosencError
from posenc.lab import KIND, run_sweep
from posenc.lab.tables import summarize
from posenc.lab.train import CODE_VERSION, KEY_SCHEMA, RunConfig
from posenc.store import ResultStore, config_hash

BASE = {"task": "copy", "train_len": 3, "eval_lengths": [3], "d_model": 8, "n_layers": 1, "n_heads": 2,
        "batch_size": 2, "eval_samples": 2, "steps": 2, "warmup": 1}


def _schema_1(config: RunConfig) -> dict:
    """The key posenc wrote for ``config`` before keys had a schema, written out from that rule."""
    key = dataclasses.asdict(config)
    if key["dtype"] == "float32":
        del key["dtype"]
    if key["schedule"] == []:
        del key["schedule"]
    if key["lr_decay"] == "cosine":
        del key["lr_decay"]
    return key


def test_the_key_holds_every_setting_and_its_schema():
    config = RunConfig(**BASE)
    key = config.as_dict()
    assert key["schema"] == KEY_SCHEMA == 2
    assert set(key) == {f.name for f in dataclasses.fields(RunConfig)} | {"schema", "encoding_revision"}
    assert (key["dtype"], key["schedule"], key["lr_decay"], key["encoding_revision"]) == ("float32", [], "cosine", 1)
    assert config.earlier_keys() == [_schema_1(config)]
    assert config_hash(key) != config_hash(_schema_1(config))  # a new key: old rows are found through earlier_keys


@pytest.mark.parametrize("settings", [{}, {"dtype": "bfloat16"}, {"schedule": ["rope", "nope"], "n_layers": 2},
                                      {"lr_decay": "constant"}, {"encoding": "cope"}],
                         ids=["defaults", "bfloat16", "schedule", "constant-decay", "revision-2"])
def test_a_key_of_either_schema_reads_back_as_the_same_config(settings):
    config = RunConfig(**{**BASE, **settings})
    assert RunConfig.from_dict(config.as_dict()) == config
    assert RunConfig.from_dict(config.earlier_keys()[0]) == config


def test_a_key_of_a_later_schema_is_refused():
    with pytest.raises(PosencError, match="key schema 3: this posenc reads schemas 1 to 2"):
        RunConfig.from_dict({**RunConfig(**BASE).as_dict(), "schema": 3})


def test_a_store_written_with_schema_1_keys_is_read_and_not_trained_again(tmp_path):
    path = tmp_path / "old.sqlite"
    old = ResultStore(path)
    spec = {"name": "old", "base": BASE, "grid": {"encoding": ["nope", "alibi"], "lr_decay": ["cosine", "constant"]},
            "seeds": [0]}
    configs = [RunConfig(**{**BASE, "encoding": e, "lr_decay": d}) for e in ("nope", "alibi")
               for d in ("cosine", "constant")]
    for config in configs:
        stored = {"stored": config.label + "/" + config.lr_decay,
                  "by_length": {"3": {"exact_match": 0.25, "token_accuracy": 0.5}}}
        old.put(KIND, _schema_1(config), 0, stored, 1.5, code=CODE_VERSION)
    rows_before = [(r.config, r.created_at) for r in ResultStore(path).runs(KIND)]
    assert all("schema" not in key for key, _ in rows_before) and "lr_decay" not in rows_before[0][0]

    results = run_sweep(spec, path, progress=False)

    assert [r.skipped for r in results] == [True] * 4  # every run found under its old key: none trained
    assert [r.metrics["stored"] for r in results] == ["nope/cosine", "nope/constant", "alibi/cosine",
                                                      "alibi/constant"]
    assert [r.config for r in results] == [c.as_dict() for c in configs]  # handed on under the current key
    assert [(r.config, r.created_at) for r in ResultStore(path).runs(KIND)] == rows_before  # nothing written
    summary = summarize(path, spec)  # the table of the sweep reads the old rows too
    assert summary["missing"] == 0


def test_a_new_run_is_stored_under_the_schema_2_key(tmp_path):
    path = tmp_path / "new.sqlite"
    spec = {"name": "new", "base": BASE, "grid": {"encoding": ["nope"]}, "seeds": [0]}
    (result,) = run_sweep(spec, path, progress=False)
    assert not result.skipped and result.status == "done"
    (row,) = ResultStore(path).runs(KIND)
    assert row.config == RunConfig(**{**BASE, "encoding": "nope"}).as_dict() and row.config["schema"] == 2
    (again,) = run_sweep(spec, path, progress=False)
    assert again.skipped and again.metrics == result.metrics
