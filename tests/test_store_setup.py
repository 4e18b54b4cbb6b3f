"""The store's ``setup`` column: where each run was computed, outside the key; a store written before the column
existed opens, gains it, and keeps every row and key."""

from __future__ import annotations

import json
import sqlite3

from posenc.store import _APP_ID, SCHEMA_VERSION, ResultStore, config_hash

#: the runs table as posenc wrote it before the setup column
_OLD_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    config_hash TEXT NOT NULL,
    seed INTEGER NOT NULL,
    config TEXT NOT NULL,
    status TEXT NOT NULL,
    metrics TEXT NOT NULL,
    wall_s REAL NOT NULL,
    versions TEXT NOT NULL,
    error TEXT,
    created_at REAL NOT NULL,
    UNIQUE (kind, config_hash, seed)
);
"""


def _old_store(path, config):
    con = sqlite3.connect(path)
    con.executescript(_OLD_SCHEMA)
    con.execute(f"PRAGMA application_id = {_APP_ID}")
    con.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    con.execute("INSERT INTO runs (kind, config_hash, seed, config, status, metrics, wall_s, versions, error, "
                "created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                ("lab", config_hash(config), 0, json.dumps(config), "done", '{"acc": 1.0}', 2.0, "{}", None, 1.0))
    con.commit()
    con.close()


def test_setup_is_recorded_beside_the_run_and_not_in_its_key(tmp_path):
    store = ResultStore(tmp_path / "s.sqlite")
    config = {"task": "copy"}
    store.put("lab", config, 0, {"acc": 1.0}, 1.0, setup={"device": "cuda:0", "dtype": "bfloat16", "gpu": "X"})
    record = store.get("lab", config, 0)
    assert record.setup == {"device": "cuda:0", "dtype": "bfloat16", "gpu": "X"}
    store.put("lab", config, 0, {"acc": 0.5}, 1.0)  # the same key from elsewhere replaces it
    assert store.get("lab", config, 0).setup == {} and len(list(store.runs())) == 1


def test_a_store_from_before_the_setup_column_opens_and_keeps_its_rows(tmp_path):
    path = tmp_path / "old.sqlite"
    config = {"task": "copy", "encoding": "rope"}
    _old_store(path, config)
    store = ResultStore(path)
    assert store.get("lab", config, 0) is None  # it records no versions: not reused as valid
    old = store.get("lab", config, 0, any_version=True)
    assert old is not None and old.metrics == {"acc": 1.0} and old.setup == {}  # found under its old key
    store.put("lab", {"task": "sort"}, 0, {}, 0.0, setup={"device": "cpu", "dtype": "float32"})
    assert store.get("lab", {"task": "sort"}, 0).setup == {"device": "cpu", "dtype": "float32"}
    with sqlite3.connect(path) as con:
        columns = [row[1] for row in con.execute("PRAGMA table_info(runs)")]
    assert columns[-1] == "setup" and columns.count("setup") == 1
    ResultStore(path)  # opening again adds nothing
    with sqlite3.connect(path) as con:
        assert [row[1] for row in con.execute("PRAGMA table_info(runs)")] == columns
        # an older posenc's insert, naming its own columns, still works
        con.execute("INSERT INTO runs (kind, config_hash, seed, config, status, metrics, wall_s, versions, error, "
                    "created_at) VALUES ('lab', 'h', 1, '{}', 'done', '{}', 0, '{}', NULL, 0)")
    assert [r.setup for r in ResultStore(path).runs() if r.seed == 1] == [{}]
