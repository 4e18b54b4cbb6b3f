"""A lab run's store key: schema 3 holds every setting, defaults included, the model's nested under ``"model"``;
stores written under the earlier schemas are still found and read, and nothing in them is trained again: schema 2
(every setting flat, under ``"schema": 2``) and schema 1 (no schema; settings at their defaults left out).

The old stores are built here the way posenc wrote them before: each row's key written by hand from its schema's
definition, with metrics no training produces, so a run that was trained again shows.
"""

import dataclasses

import pytest

from posenc.errors import PosencError
from posenc.lab import KIND, run_sweep
from posenc.lab.tables import summarize
from posenc.lab.train import CODE_VERSION, KEY_SCHEMA, RunConfig
from posenc.model import ModelConfig
from posenc.store import ResultStore, config_hash

BASE = {"task": "copy", "train_len": 3, "eval_lengths": [3], "d_model": 8, "n_layers": 1, "n_heads": 2,
        "batch_size": 2, "eval_samples": 2, "steps": 2, "warmup": 1}
#: the settings of a run when keys were flat (schemas 1 and 2), in their order then
FLAT = ("task", "encoding", "encoding_options", "label", "fmt", "d_model", "n_layers", "n_heads", "d_ff", "dropout",
        "train_len", "min_train_len", "eval_lengths", "steps", "batch_size", "lr", "warmup", "weight_decay",
        "grad_clip", "val_every", "patience", "val_samples", "eval_samples", "eval_tokens", "protocols", "stride",
        "max_len", "dtype", "schedule", "lr_decay")


def _flat(config: RunConfig) -> dict:
    """Every setting of ``config`` that flat keys had, by name."""
    return {name: getattr(config.model if hasattr(config.model, name) else config, name) for name in FLAT}


def _schema_2(config: RunConfig) -> dict:
    """The key posenc wrote for ``config`` under schema 2, written out from that rule."""
    return {"schema": 2, **_flat(config), "encoding_revision": config.as_dict()["encoding_revision"]}


def _schema_1(config: RunConfig) -> dict:
    """The key posenc wrote for ``config`` before keys had a schema, written out from that rule."""
    key = _flat(config)
    if key["dtype"] == "float32":
        del key["dtype"]
    if key["schedule"] == []:
        del key["schedule"]
    if key["lr_decay"] == "cosine":
        del key["lr_decay"]
    revision = config.as_dict()["encoding_revision"]
    if revision != 1:
        key["encoding_revision"] = revision
    return key


EARLIER = {1: _schema_1, 2: _schema_2}


def test_the_key_holds_every_setting_and_its_schema():
    config = RunConfig.from_dict(BASE)
    key = config.as_dict()
    assert key["schema"] == KEY_SCHEMA == 3
    assert set(key) == {f.name for f in dataclasses.fields(RunConfig)} | {"schema", "encoding_revision"}
    assert key["model"] == {"encoding": "rope", "encoding_options": {}, "d_model": 8, "n_layers": 1, "n_heads": 2,
                            "n_kv_heads": None, "d_ff": None, "dropout": 0.0, "scale_embedding": False}
    assert (key["dtype"], key["schedule"], key["lr_decay"], key["encoding_revision"]) == ("float32", [], "cosine", 1)
    assert config.earlier_keys() == [_schema_2(config), _schema_1(config)]
    hashes = {config_hash(k) for k in (key, _schema_2(config), _schema_1(config))}
    assert len(hashes) == 3  # new keys: old rows are found through earlier_keys


@pytest.mark.parametrize("settings", [{}, {"dtype": "bfloat16"}, {"schedule": ["rope", "nope"], "n_layers": 2},
                                      {"lr_decay": "constant"}, {"encoding": "cope"}],
                         ids=["defaults", "bfloat16", "schedule", "constant-decay", "revision-2"])
def test_a_key_of_any_schema_reads_back_as_the_same_config(settings):
    config = RunConfig.from_dict({**BASE, **settings})
    assert RunConfig.from_dict(config.as_dict()) == config
    assert [RunConfig.from_dict(key) for key in config.earlier_keys()] == [config, config]


@pytest.mark.parametrize("settings", [{"n_kv_heads": 1}, {"scale_embedding": True}])
def test_a_run_with_a_model_setting_earlier_keys_lacked_has_no_earlier_key(settings):
    assert RunConfig.from_dict({**BASE, **settings}).earlier_keys() == []


def test_a_key_of_a_later_schema_is_refused():
    with pytest.raises(PosencError, match="key schema 4: this posenc reads schemas 1 to 3"):
        RunConfig.from_dict({**RunConfig.from_dict(BASE).as_dict(), "schema": 4})


@pytest.mark.parametrize("schema", [1, 2])
def test_a_store_written_with_earlier_keys_is_read_and_not_trained_again(tmp_path, schema):
    path = tmp_path / "old.sqlite"
    old = ResultStore(path)
    spec = {"name": "old", "base": BASE, "grid": {"encoding": ["nope", "alibi"], "lr_decay": ["cosine", "constant"]},
            "seeds": [0]}
    configs = [RunConfig.from_dict({**BASE, "encoding": e, "lr_decay": d}) for e in ("nope", "alibi")
               for d in ("cosine", "constant")]
    for config in configs:
        stored = {"stored": config.label + "/" + config.lr_decay,
                  "by_length": {"3": {"exact_match": 0.25, "token_accuracy": 0.5}}}
        old.put(KIND, EARLIER[schema](config), 0, stored, 1.5, code=CODE_VERSION)
    rows_before = [(r.config, r.created_at) for r in ResultStore(path).runs(KIND)]
    assert all(key.get("schema", 1) == schema and "model" not in key for key, _ in rows_before)

    results = run_sweep(spec, path, progress=False)

    assert [r.skipped for r in results] == [True] * 4  # every run found under its old key: none trained
    assert [r.metrics["stored"] for r in results] == ["nope/cosine", "nope/constant", "alibi/cosine",
                                                      "alibi/constant"]
    assert [r.config for r in results] == [c.as_dict() for c in configs]  # handed on under the current key
    assert [(r.config, r.created_at) for r in ResultStore(path).runs(KIND)] == rows_before  # nothing written
    summary = summarize(path, spec)  # the table of the sweep reads the old rows too
    assert summary["missing"] == 0


def test_a_new_run_is_stored_under_the_schema_3_key(tmp_path):
    path = tmp_path / "new.sqlite"
    spec = {"name": "new", "base": BASE, "grid": {"encoding": ["nope"]}, "seeds": [0]}
    (result,) = run_sweep(spec, path, progress=False)
    assert not result.skipped and result.status == "done"
    (row,) = ResultStore(path).runs(KIND)
    assert row.config == RunConfig.from_dict({**BASE, "encoding": "nope"}).as_dict() and row.config["schema"] == 3
    assert row.config["model"]["encoding"] == "nope"
    (again,) = run_sweep(spec, path, progress=False)
    assert again.skipped and again.metrics == result.metrics
    assert ModelConfig(**row.config["model"]) == RunConfig.from_dict(row.config).model
