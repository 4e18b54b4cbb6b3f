"""The SQLite results store: round trips, refusal of foreign / corrupt / old files without touching them, concurrency."""

import multiprocessing as mp
import platform
import re
import sqlite3

import pytest
import torch

import posenc
from posenc.store import SCHEMA_VERSION, ResultStore, StoreError, config_hash, package_versions


def test_round_trip_and_replace(tmp_path):
    store = ResultStore(tmp_path / "r.sqlite")
    config = {"task": "copy", "encoding": "rope", "L": 20}
    assert store.get("lab", config, 0) is None
    store.put("lab", config, 0, {"acc": {"20": 1.0}}, wall_s=1.5)
    record = store.get("lab", config, 0)
    assert record.metrics == {"acc": {"20": 1.0}} and record.wall_s == 1.5 and "torch" in record.versions
    store.put("lab", config, 0, {"acc": {"20": 0.5}}, wall_s=2.0)
    assert store.get("lab", config, 0).metrics == {"acc": {"20": 0.5}}
    assert len(list(ResultStore(tmp_path / "r.sqlite").runs("lab"))) == 1  # reopened: nothing lost


def test_package_versions_name_posenc_torch_transformers_and_python():
    import transformers

    versions = package_versions()
    assert set(versions) == {"posenc", "torch", "transformers", "python"}
    assert versions["posenc"] == posenc.__version__ and versions["torch"] == torch.__version__
    assert versions["transformers"] == transformers.__version__
    assert versions["python"] == platform.python_version()


def _computed_under(path, **versions):
    """Rewrite every row of the store at ``path`` as computed by other versions (as an older install would have)."""
    import json

    con = sqlite3.connect(path)
    rows = con.execute("SELECT id, versions FROM runs").fetchall()
    for row_id, stored in rows:
        con.execute("UPDATE runs SET versions=? WHERE id=?", (json.dumps({**json.loads(stored), **versions}), row_id))
    con.commit()
    con.close()


@pytest.mark.parametrize("versions", [{"transformers": "0.0.1"}, {"torch": "0.0.1"}, {"code": 1}])
def test_a_row_computed_by_other_versions_is_not_reused(tmp_path, versions):
    path = tmp_path / "r.sqlite"
    config = {"task": "copy"}
    ResultStore(path).put("lab", config, 0, {"acc": 1.0}, wall_s=1.0, code=2)
    assert ResultStore(path).get("lab", config, 0, code=2).metrics == {"acc": 1.0}
    _computed_under(path, **versions)
    store = ResultStore(path)
    assert store.get("lab", config, 0, code=2) is None and not store.has("lab", config, 0, code=2)
    old = store.get("lab", config, 0, code=2, any_version=True)  # still readable, and says what computed it
    assert old.computed_by() == {**{"torch": torch.__version__, "transformers": package_versions()["transformers"],
                                    "code": 2}, **versions}
    assert not old.is_current(2)
    store.put("lab", config, 0, {"acc": 0.5}, wall_s=1.0, code=2)  # recomputed: the new row replaces it
    assert store.get("lab", config, 0, code=2).metrics == {"acc": 0.5}
    assert len(list(store.runs("lab"))) == 1


def test_the_code_version_is_part_of_what_must_match(tmp_path):
    store = ResultStore(tmp_path / "r.sqlite")
    store.put("extend.window", {"length": 64}, 0, {"nll": 1.0}, wall_s=1.0, code=2)
    assert store.get("extend.window", {"length": 64}, 0, code=3) is None  # a bumped code version recomputes
    assert store.get("extend.window", {"length": 64}, 0) is None  # a row with a code version is not code-less
    store.put("plain", {"a": 1}, 0, {"x": 1}, wall_s=0.0)
    assert store.get("plain", {"a": 1}, 0).versions.get("code") is None

def test_config_hash_ignores_key_order():
    assert config_hash({"a": 1, "b": [1, 2]}) == config_hash({"b": [1, 2], "a": 1})
    assert config_hash({"a": 1}) != config_hash({"a": 2})


def test_foreign_sqlite_file_is_refused_and_left_byte_for_byte(tmp_path):
    path = tmp_path / "other.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE users (name TEXT)")
    con.execute("INSERT INTO users VALUES ('ada')")
    con.commit()
    con.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="another program"):
        ResultStore(path)
    assert path.read_bytes() == before


def test_corrupt_file_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "broken.sqlite"
    path.write_bytes(b"this is not a database at all" * 10)
    with pytest.raises(StoreError, match="untouched"):
        ResultStore(path)
    assert path.read_bytes() == b"this is not a database at all" * 10


def test_store_of_another_schema_version_is_refused(tmp_path):
    path = tmp_path / "old.sqlite"
    ResultStore(path).put("lab", {"x": 1}, 0, {}, 0.0)
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match=f"version 0.*reads version {SCHEMA_VERSION}"):
        ResultStore(path)


@pytest.mark.parametrize("version", ["one", "", "1.0", b"\x01"])
def test_a_schema_version_that_is_not_a_number_is_refused_untouched(tmp_path, version):
    path = tmp_path / "odd.sqlite"
    ResultStore(path).put("lab", {"x": 1}, 0, {}, 0.0)
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (version,))
    con.commit()
    con.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match=f"records schema version {re.escape(repr(version))}, which is not a number"):
        ResultStore(path)
    assert path.read_bytes() == before


def test_folder_path_is_a_clear_error(tmp_path):
    with pytest.raises(StoreError, match="is a folder"):
        ResultStore(tmp_path)


def _writer(path: str, worker: int, n: int) -> None:
    store = ResultStore(path)
    for i in range(n):
        store.put("lab", {"worker": worker, "i": i}, 0, {"value": i}, 0.0)


def test_concurrent_processes_write_safely(tmp_path):
    path = str(tmp_path / "c.sqlite")
    ResultStore(path)
    ctx = mp.get_context("spawn")
    workers = [ctx.Process(target=_writer, args=(path, w, 25)) for w in range(3)]
    for p in workers:
        p.start()
    for p in workers:
        p.join(120)
        assert p.exitcode == 0
    runs = list(ResultStore(path).runs("lab"))
    assert len(runs) == 75
    assert {(r.config["worker"], r.config["i"]) for r in runs} == {(w, i) for w in range(3) for i in range(25)}


@pytest.mark.parametrize("metrics", ["{not json", "[1, 2]", "null", "7"])
def test_a_row_with_damaged_metrics_counts_as_missing_and_is_named(tmp_path, metrics):
    # a row whose metrics are not valid JSON, or not an object, used to raise out of json.loads (or hand a list to
    # the code reading it); now it warns naming the row and is missing, so the next run computes and replaces it
    from posenc.errors import PosencWarning

    store = ResultStore(tmp_path / "s.sqlite")
    config = {"task": "copy", "encoding": "rope"}
    store.put("lab", config, 0, {"acc": 1.0}, 1.0)
    store.put("lab", {**config, "encoding": "alibi"}, 0, {"acc": 0.5}, 1.0)
    con = sqlite3.connect(store.path)
    con.execute("UPDATE runs SET metrics = ? WHERE config_hash = ?", (metrics, config_hash(config)))
    con.commit()
    con.close()
    with pytest.warns(PosencWarning, match=r"the stored 'lab' run with seed 0 has a damaged metrics column .*it counts "
                                           r"as missing and is computed again"):
        assert store.get("lab", config, 0) is None
    with pytest.warns(PosencWarning, match="damaged metrics column"):
        assert [r.config["encoding"] for r in store.runs("lab")] == ["alibi"]  # the intact row is still read
    store.put("lab", config, 0, {"acc": 0.9}, 1.0)  # computed again: the row is replaced
    assert store.get("lab", config, 0).metrics == {"acc": 0.9}


def test_the_key_is_kind_config_and_seed_each_on_its_own(tmp_path):
    store = ResultStore(tmp_path / "r.sqlite")
    config = {"task": "copy"}
    store.put("lab", config, 0, {"run": "lab-0"}, wall_s=1.0)
    store.put("lab", config, 1, {"run": "lab-1"}, wall_s=1.0)
    store.put("probe", config, 0, {"run": "probe-0"}, wall_s=1.0)
    store.put("lab", {"task": "sort"}, 0, {"run": "sort-0"}, wall_s=1.0)
    assert store.get("lab", config, 0).metrics == {"run": "lab-0"}
    assert store.get("lab", config).metrics == {"run": "lab-0"}  # seed 0 by default
    assert store.get("lab", config, 1).metrics == {"run": "lab-1"}
    assert store.get("probe", config, 0).metrics == {"run": "probe-0"}
    assert store.get("lab", {"task": "sort"}, 0).metrics == {"run": "sort-0"}
    assert store.get("lab", config, 2) is None and store.get("probe", config, 1) is None
    assert [r.metrics["run"] for r in store.runs("lab")] == ["lab-0", "lab-1", "sort-0"]  # oldest first
    assert [r.metrics["run"] for r in store.runs()] == ["lab-0", "lab-1", "probe-0", "sort-0"]
    store.put("lab", config, 0, {"run": "lab-0 again"}, wall_s=1.0)  # the replacement is the newest row
    assert [r.metrics["run"] for r in store.runs("lab")] == ["lab-1", "sort-0", "lab-0 again"]


def test_every_column_reads_back_as_written(tmp_path):
    import time

    import numpy as np

    store = ResultStore(tmp_path / "r.sqlite")
    before = time.time()
    store.put("lab", {"task": "copy", "lengths": [4, 8]}, np.int64(3), {"acc": np.float32(0.5), "n": 7}, wall_s=2.25,
              status="failed", error="ValueError: boom", setup={"device": "cpu", "dtype": "float32"}, code=4)
    after = time.time()
    record = store.get("lab", {"lengths": [4, 8], "task": "copy"}, 3, code=4)
    assert (record.kind, record.config, record.seed, record.status, record.error) == (
        "lab", {"task": "copy", "lengths": [4, 8]}, 3, "failed", "ValueError: boom")
    assert record.metrics == {"acc": 0.5, "n": 7} and type(record.metrics["acc"]) is float  # numpy -> float
    assert record.wall_s == 2.25 and before <= record.created_at <= after
    assert record.setup == {"device": "cpu", "dtype": "float32"}
    assert record.versions == {**package_versions(), "code": 4}
    store.put("lab", {"task": "sort"}, 0, {}, wall_s=0)
    plain = store.get("lab", {"task": "sort"})
    assert (plain.status, plain.error, plain.setup) == ("done", None, {})  # the defaults


def test_config_hash_is_the_sha256_of_the_sorted_json():
    import hashlib

    # json.dumps with sort_keys and the default separators, written out by hand
    assert config_hash({"b": 2, "a": [1, "x"]}) == hashlib.sha256(b'{"a": [1, "x"], "b": 2}').hexdigest()


def test_a_store_waits_for_another_process_s_lock_as_long_as_it_says(tmp_path):
    """SQLite's busy wait is the store's WAIT_S (60 s), read back from the connection the store opens."""
    from posenc import store

    with ResultStore(tmp_path / "runs.sqlite")._connect() as con:
        assert con.execute("PRAGMA busy_timeout").fetchone()[0] == int(store.WAIT_S * 1000) == 60000


def test_a_store_locked_past_the_wait_says_so_and_is_left_untouched(tmp_path, monkeypatch):
    """Another process holding an exclusive lock on the file (here a second connection, in rollback-journal mode, where
    an exclusive lock keeps readers out) longer than the wait: the store says the file is locked and how to go on,
    not that it is unreadable; the file is not changed."""
    path = tmp_path / "runs.sqlite"
    ResultStore(path).put("lab", {"a": 1}, 0, {"loss": 1.0}, 1.0)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("PRAGMA journal_mode = DELETE")
    before = path.read_bytes()
    other.execute("BEGIN EXCLUSIVE")
    monkeypatch.setattr("posenc.store.WAIT_S", 0.2)
    try:
        with pytest.raises(StoreError, match=r"is locked by another process \(waited 0\.2 s; SQLite: database is "
                                             r"locked\); it was left untouched — let the other posenc command finish"):
            ResultStore(path)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert path.read_bytes() == before
