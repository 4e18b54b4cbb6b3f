"""Resuming from the store: ``finished`` (the one reuse rule) and ``get_or_compute``, on the SQLite file and in
memory alike, and rows written by ``put`` (as every earlier caller wrote them) read back without computing."""

import json
import sqlite3

import pytest

from posenc.store import MemoryStore, ResultStore, StoreError


@pytest.fixture(params=["file", "memory"])
def store(request, tmp_path):
    return ResultStore(tmp_path / "r.sqlite") if request.param == "file" else MemoryStore()


class Counter:
    """A compute function that counts its calls and returns ``metrics``."""

    def __init__(self, metrics):
        self.metrics, self.calls = metrics, 0

    def __call__(self):
        self.calls += 1
        return self.metrics


def test_get_or_compute_computes_once_and_then_reads(store):
    compute = Counter({"acc": 0.75, "by_len": {"20": 1.0}})
    first, computed = store.get_or_compute("lab", {"task": "copy"}, compute, seed=1, code=3,
                                           setup={"device": "cpu", "dtype": "float32"})
    second, again = store.get_or_compute("lab", {"task": "copy"}, compute, seed=1, code=3)
    assert (computed, again, compute.calls) == (True, False, 1)
    assert first.metrics == second.metrics == {"acc": 0.75, "by_len": {"20": 1.0}}
    assert first.setup == second.setup == {"device": "cpu", "dtype": "float32"}
    assert second.versions["code"] == 3 and second.status == "done" and second.wall_s >= 0.0
    # another seed or another config is another row
    assert store.get_or_compute("lab", {"task": "copy"}, compute, seed=2, code=3)[1]
    assert store.get_or_compute("lab", {"task": "sort"}, compute, seed=1, code=3)[1]
    assert compute.calls == 3


def test_a_computed_row_and_a_reused_one_are_the_same_record(store):
    """What get_or_compute returns after computing is read back: tuples become lists, as in a reused row."""
    made, _ = store.get_or_compute("k", {"a": 1}, lambda: {"pair": (1, 2)})
    kept, _ = store.get_or_compute("k", {"a": 1}, lambda: pytest.fail("computed again"))
    assert made.metrics == kept.metrics == {"pair": [1, 2]} and made.created_at == kept.created_at


@pytest.mark.parametrize("row", [dict(status="error", error="RuntimeError: boom"), dict(code=1)],
                         ids=["failed", "other-code"])
def test_failed_rows_and_rows_of_other_code_are_computed_again(store, row):
    config = {"task": "copy"}
    store.put("lab", config, 0, {"acc": 0.1}, wall_s=1.0, **{"code": 2, **row})
    assert store.finished("lab", config, 0, code=2) is None
    assert store.get("lab", config, 0, code=row.get("code", 2)) is not None  # the row is there, just not reused
    record, computed = store.get_or_compute("lab", config, lambda: {"acc": 0.9}, code=2)
    assert computed and record.metrics == {"acc": 0.9}
    assert store.finished("lab", config, 0, code=2).metrics == {"acc": 0.9}  # the put replaced the row


def test_an_interrupted_compute_stores_nothing_and_keeps_earlier_rows(store):
    store.get_or_compute("k", {"job": 0}, lambda: {"x": 0})

    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.get_or_compute("k", {"job": 1}, interrupted)
    assert store.finished("k", {"job": 0}).metrics == {"x": 0}
    assert store.get("k", {"job": 1}, any_version=True) is None


def test_rows_put_by_earlier_callers_are_reused_without_computing(tmp_path):
    """A store filled through put (how the lab, extend and the report wrote rows before get_or_compute) resumes:
    same keys, same rows, nothing computed, and the file's rows are untouched."""
    path = tmp_path / "old.sqlite"
    old = ResultStore(path)
    window_key = {"model": "m", "dtype": "float32", "corpus": "shakespeare:0123", "length": 128, "offset": 0,
                  "rope": "abc"}
    old.put("extend.window", window_key, 0, {"mean_nll": 3.5}, wall_s=2.0, setup={"device": "cpu"}, code=2)
    old.put("lab", {"task": "copy", "encoding": "rope"}, 4, {"acc": 1.0}, wall_s=5.0, code=7)
    old.put("report:c1", {"experiment": "e", "revision": 1}, 0, {"ran": True}, wall_s=9.0)
    before = sqlite3.connect(path).execute("SELECT * FROM runs ORDER BY id").fetchall()

    new = ResultStore(path)
    for kind, key, seed, code, metrics in (("extend.window", window_key, 0, 2, {"mean_nll": 3.5}),
                                           ("lab", {"encoding": "rope", "task": "copy"}, 4, 7, {"acc": 1.0}),
                                           ("report:c1", {"revision": 1, "experiment": "e"}, 0, None, {"ran": True})):
        record, computed = new.get_or_compute(kind, key, lambda: pytest.fail("computed again"), seed=seed, code=code)
        assert not computed and record.metrics == metrics
    assert sqlite3.connect(path).execute("SELECT * FROM runs ORDER BY id").fetchall() == before


def test_memory_store_keeps_what_the_file_would():
    memory = MemoryStore()
    memory.put("k", {"a": 1}, 0, {"nan": float("nan"), "n": 3}, wall_s=1.0, setup={"device": "cpu"}, code=2)
    record = memory.finished("k", {"a": 1}, code=2)
    assert record.metrics["n"] == 3 and json.dumps(record.metrics) == '{"nan": NaN, "n": 3}'
    assert record.setup == {"device": "cpu"} and record.is_finished(2) and not record.is_finished(1)
    assert [r.config for r in memory.runs("k")] == [{"a": 1}] and list(memory.runs("other")) == []
    assert str(memory) == "this process's memory"



def test_a_config_value_json_cannot_hold_is_kept_as_its_text(store, tmp_path):
    # a path in a config is stored as the text str() gives it, on the file and in memory alike, and found again
    config = {"corpus": tmp_path / "corpus.txt", "n": 2}
    store.put("k", config, 0, {"acc": 1.0}, wall_s=1.0)
    assert [r.config for r in store.runs("k")] == [{"corpus": f"{tmp_path}/corpus.txt", "n": 2}]
    assert store.finished("k", config).metrics == {"acc": 1.0}

def test_a_row_that_cannot_be_read_back_is_an_error(tmp_path):
    class Forgetful(ResultStore):
        def put(self, *args, **kwargs):  # a write that is lost
            pass

    with pytest.raises(StoreError, match="cannot be read back"):
        Forgetful(tmp_path / "r.sqlite").get_or_compute("k", {"a": 1}, lambda: {"x": 1})
