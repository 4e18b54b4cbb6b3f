"""The results store: one SQLite file, one row per finished run, shared by the lab, extend and the report.

A run is identified by ``(kind, config_hash, seed)``; ``config_hash`` is the SHA-256 of the config's canonical JSON.
Beside its metrics, each row records what computed it (``versions``: posenc, torch, transformers and Python, and
``code``, the version of the experiment's own code its caller passes) and where it was computed (``setup``:
``{"device": "cpu", "dtype": "float32"}``, plus ``"gpu"`` on CUDA; see :func:`posenc.device.setup`). ``setup`` is
metadata, not part of the key: a run computed on a GPU answers for the same config on the CPU. The ``setup`` column
was added to schema version 1 without changing it: a store written before it gets the column on first open (old
rows read ``{}``), and an older posenc still reads and writes the file.

Provenance is checked on read: :meth:`ResultStore.get` returns a row only if the libraries that compute the numbers
(:data:`PROVENANCE`: torch and transformers) and the caller's ``code`` version are the ones of this process, so a row
computed by other versions is never reused as valid: the caller computes it again and its ``put`` replaces the row.
``get(..., any_version=True)`` and :meth:`ResultStore.runs` still read every row, and :meth:`RunRecord.computed_by`
tells which versions computed one.

Resuming is one rule, written once here: a row is reused when it is *finished* (status ``done``: an ``error`` row is
tried again) and current (the provenance check above); :meth:`~ResultStore.finished` reads such a row or ``None``.
A caller that computes one config at a time asks :meth:`~ResultStore.get_or_compute`: the finished row, or
``compute()`` run, timed and stored, and its row read back (so a computed row and a reused one look the same).
Callers that compute in batches (a sweep's worker pool, the report's experiments) use :meth:`~ResultStore.finished`
to split their work into stored and missing, and :meth:`~ResultStore.put` as each result arrives. A caller whose key
format changed passes the keys a run had before (``earlier``; the lab's schema-1 keys), so an older store is still
read and nothing in it is computed again. A run that keeps
nothing on disk uses a :class:`MemoryStore`, the same reads and writes held in this process.
Writes are single transactions in WAL mode with a busy timeout, so concurrent workers (processes or Ray tasks on a
shared file system) write safely, and a run killed part-way leaves every finished row intact.

Example::

    store = ResultStore("runs/results.sqlite")
    record, computed = store.get_or_compute("lab", {"task": "copy"}, lambda: {"acc": 1.0}, code=2)
    record.metrics  # {"acc": 1.0}: computed the first time, read back from the file every later time
"""

from __future__ import annotations

import functools
import hashlib
import json
import platform
import sqlite3
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from posenc.errors import PosencError, PosencWarning

__all__ = ["ResultStore", "MemoryStore", "RunRecord", "config_hash", "package_versions", "provenance", "PROVENANCE",
           "SCHEMA_VERSION", "StoreError"]

SCHEMA_VERSION = 1
#: seconds a store waits for another process's lock before it gives up (SQLite's busy timeout)
WAIT_S = 60.0
_APP_ID = 0x706F7365  # "pose": marks a SQLite file as a posenc store

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
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
    setup TEXT,
    UNIQUE (kind, config_hash, seed)
);
"""
#: columns added to schema version 1 after its first release, added to an older file on open: name -> SQL type
_ADDED_COLUMNS = {"setup": "TEXT"}
_COLUMNS = "kind, config, seed, status, metrics, wall_s, versions, error, created_at, setup"


class StoreError(PosencError):
    """The file is not a posenc store, is corrupt, or comes from another schema version."""


def config_hash(config: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``config`` (sorted keys), as hex."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()


def package_versions() -> dict[str, str]:
    """Versions that matter for reproducing a run: posenc, Python, torch and (where installed) transformers."""
    from posenc._version import __version__

    return {"posenc": __version__, "python": platform.python_version(), **_library_versions()}


@functools.lru_cache(maxsize=1)
def _library_versions() -> dict[str, str]:
    """torch's own version string (it names the build: ``2.13.0+cpu``) and transformers' from its installed metadata
    (no import: importing transformers takes seconds)."""
    from importlib import metadata

    import torch

    versions = {"torch": torch.__version__}
    try:
        versions["transformers"] = metadata.version("transformers")
    except metadata.PackageNotFoundError:
        pass
    return versions


#: the packages whose versions a stored row must share with this process to be reused: the ones that compute numbers
PROVENANCE = ("torch", "transformers")


def provenance(code: int | str | None = None) -> dict[str, Any]:
    """What computes a row in this process: the versions of :data:`PROVENANCE` (``None`` where not installed) and the
    caller's ``code`` version."""
    versions = package_versions()
    return {**{name: versions.get(name) for name in PROVENANCE}, "code": code}


@dataclass
class RunRecord:
    kind: str
    config: dict[str, Any]
    seed: int
    status: str
    metrics: dict[str, Any]
    wall_s: float
    versions: dict[str, str]
    error: str | None
    created_at: float
    setup: dict[str, Any] = field(default_factory=dict)  #: where it ran: ``device``, ``dtype`` (``{}``: not recorded)

    def computed_by(self) -> dict[str, Any]:
        """The :func:`provenance` of the process that computed this row (``code`` ``None`` where none was given)."""
        return {**{name: self.versions.get(name) for name in PROVENANCE}, "code": self.versions.get("code")}

    def is_current(self, code: int | str | None = None) -> bool:
        """Whether this row was computed by this process's versions of torch and transformers and by ``code``."""
        return self.computed_by() == provenance(code)

    def is_finished(self, code: int | str | None = None) -> bool:
        """Whether a resumed run reuses this row: it finished (status ``done``) and :meth:`is_current`."""
        return self.status == "done" and self.is_current(code)


class _Resuming:
    """Resuming from a store (the module docstring): :meth:`finished` and :meth:`get_or_compute`, on a store's own
    ``get`` and ``put``."""

    def get(self, kind: str, config: dict[str, Any], seed: int = 0, code: int | str | None = None,
            any_version: bool = False) -> RunRecord | None:
        raise NotImplementedError

    def put(self, kind: str, config: dict[str, Any], seed: int, metrics: dict[str, Any], wall_s: float,
            status: str = "done", error: str | None = None, setup: dict[str, Any] | None = None,
            code: int | str | None = None) -> None:
        raise NotImplementedError

    def has(self, kind: str, config: dict[str, Any], seed: int = 0, code: int | str | None = None) -> bool:
        """Whether :meth:`get` finds a current row for ``(kind, config, seed)``."""
        return self.get(kind, config, seed, code) is not None

    def finished(self, kind: str, config: dict[str, Any], seed: int = 0, code: int | str | None = None,
                 earlier: Iterable[dict[str, Any]] = ()) -> RunRecord | None:
        """The row a resumed run reuses for ``(kind, config, seed)``: finished (status ``done``) and computed by this
        process's versions and ``code``; ``None`` when it must be computed (missing, failed, or of other versions).

        ``earlier``: the keys the same run had under the caller's earlier key schemas (a lab run's
        :meth:`~posenc.lab.train.RunConfig.earlier_keys`), asked in order when ``config`` has no finished row, so a
        store written before the key changed is still read and nothing in it is computed again."""
        for key in (config, *earlier):
            record = self.get(kind, key, seed, code, any_version=True)
            if record is not None and record.is_finished(code):
                return record
        return None

    def get_or_compute(self, kind: str, config: dict[str, Any], compute: Callable[[], dict[str, Any]], seed: int = 0,
                       code: int | str | None = None, setup: dict[str, Any] | None = None,
                       earlier: Iterable[dict[str, Any]] = ()) -> tuple[RunRecord, bool]:
        """``(row, computed)``: the :meth:`finished` row of ``(kind, config, seed)`` (or of one of its ``earlier``
        keys), or else ``compute()`` (which returns the metrics) run and timed, stored under ``config`` with ``setup``
        and ``code``, and its row read back.

        An exception in ``compute`` (Ctrl-C included) stores nothing and goes on to the caller; rows stored before it
        stay.
        """
        record = self.finished(kind, config, seed, code, earlier)
        if record is not None:
            return record, False
        started = time.perf_counter()
        metrics = compute()
        self.put(kind, config, seed, metrics, time.perf_counter() - started, setup=setup, code=code)
        stored = self.get(kind, config, seed, code)
        if stored is None:  # a put that cannot be read back would make every resume compute again
            raise StoreError(f"the {kind!r} run just stored in {self} cannot be read back; the store is damaged — "
                             f"point posenc at another file (--store PATH)")
        return stored, True


def _locked(path: Path, exc: sqlite3.DatabaseError) -> StoreError | None:
    """The error for a store another process kept locked past :data:`WAIT_S`; ``None`` for any other SQLite error."""
    if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
        return StoreError(f"{path} is locked by another process (waited {WAIT_S:g} s; SQLite: {exc}); it was left "
                          f"untouched — let the other posenc command finish (or stop it), then run again")
    return None


class ResultStore(_Resuming):
    """Open (or create) a store at ``path``.

    Example::

        store = ResultStore("runs/results.sqlite")
        if store.finished("lab", config, seed=0) is None:
            store.put("lab", config, seed=0, metrics={"acc_by_len": {...}}, wall_s=12.3)
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if self.path.exists() and self.path.is_dir():
            raise StoreError(f"store path {self.path} is a folder; pass a file path such as {self.path / 'results.sqlite'}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder for the store {self.path}: {exc}; pick a writable path") from exc
        existed = self.path.exists() and self.path.stat().st_size > 0
        if existed:
            self._check_existing()  # read-only, before any pragma could change the file
        try:
            with self._connect() as con:
                if not existed:
                    for statement in filter(str.strip, _SCHEMA.split(";")):
                        con.execute(statement)
                    con.execute(f"PRAGMA application_id = {_APP_ID}")
                    con.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            if existed and self._missing_columns():
                with self._connect() as con:  # BEGIN IMMEDIATE: one process adds them, the others see them added
                    have = {row[1] for row in con.execute("PRAGMA table_info(runs)")}
                    for name, kind in _ADDED_COLUMNS.items():
                        if name not in have:
                            con.execute(f"ALTER TABLE runs ADD COLUMN {name} {kind}")
        except sqlite3.DatabaseError as exc:
            raise _locked(self.path, exc) or StoreError(f"{self.path} is not a readable SQLite file ({exc}); it was "
                                                        f"left untouched — point posenc at another file "
                                                        f"(--store PATH)") from exc

    def __str__(self) -> str:
        return str(self.path)

    def _check_existing(self) -> None:
        """Refuse, without writing a byte, a file that is not a posenc store of this schema version.

        The checks go through a read-only SQLite connection (never a plain ``open()``, whose ``close()`` would drop
        this process's POSIX locks on the database) and run before any pragma that could rewrite the header.
        """
        untouched = "it was left untouched — point posenc at another file (--store PATH)"
        try:
            con = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=WAIT_S)
            try:
                app_id = con.execute("PRAGMA application_id").fetchone()[0]
                tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
                row = (con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
                       if "meta" in tables else None)
            finally:
                con.close()
        except sqlite3.DatabaseError as exc:
            raise _locked(self.path, exc) or StoreError(f"{self.path} is not a posenc store: SQLite cannot read it "
                                                        f"({exc}); {untouched}") from exc
        if app_id != _APP_ID or not {"meta", "runs"} <= tables:
            raise StoreError(f"{self.path} is a SQLite file of another program (tables: {sorted(tables) or 'none'}); "
                             f"{untouched}")
        try:
            version = int(str(row[0]).strip()) if row else 0
        except ValueError:  # a text or a blob where posenc writes a number
            raise StoreError(f"{self.path} records schema version {row[0]!r}, which is not a number: the file is "
                             f"damaged or was not written by posenc; {untouched}") from None
        if version != SCHEMA_VERSION:
            raise StoreError(f"{self.path} holds posenc results of schema version {version}, this posenc reads "
                             f"version {SCHEMA_VERSION}; it was left untouched — use a new store file (--store PATH) "
                             f"or the posenc version that wrote it")

    def _missing_columns(self) -> list[str]:
        con = sqlite3.connect(self.path, timeout=WAIT_S)
        try:
            have = {row[1] for row in con.execute("PRAGMA table_info(runs)")}
        finally:
            con.close()
        return [name for name in _ADDED_COLUMNS if name not in have]

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.path, timeout=WAIT_S, isolation_level=None)  # the timeout is SQLite's busy wait
        con.execute("PRAGMA journal_mode = WAL")
        return _Transaction(con)

    # -- reads -------------------------------------------------------------------------------------------------
    def get(self, kind: str, config: dict[str, Any], seed: int = 0, code: int | str | None = None,
            any_version: bool = False) -> RunRecord | None:
        """The run stored for ``(kind, config, seed)``, or ``None``; ``None`` too for a row computed by other versions
        of torch or transformers or by another ``code`` version (see the module docstring), unless ``any_version``."""
        with self._connect() as con:
            row = con.execute(f"SELECT {_COLUMNS} FROM runs WHERE kind=? AND config_hash=? AND seed=?",
                              (kind, config_hash(config), seed)).fetchone()
        record = _record(row, self.path) if row else None
        if record is None:
            return None
        return record if any_version or record.is_current(code) else None

    def runs(self, kind: str | None = None) -> Iterator[RunRecord]:
        """Every stored run (of one kind), oldest first."""
        query = f"SELECT {_COLUMNS} FROM runs"
        args: tuple = ()
        if kind is not None:
            query += " WHERE kind=?"
            args = (kind,)
        with self._connect() as con:
            rows = con.execute(query + " ORDER BY id", args).fetchall()
        return iter([record for record in (_record(r, self.path) for r in rows) if record is not None])

    # -- writes ------------------------------------------------------------------------------------------------
    def put(self, kind: str, config: dict[str, Any], seed: int, metrics: dict[str, Any], wall_s: float,
            status: str = "done", error: str | None = None, setup: dict[str, Any] | None = None,
            code: int | str | None = None) -> None:
        """Store one run atomically (replacing an earlier row for the same key); ``setup`` records where it ran
        (:func:`posenc.device.setup`: ``{"device": "cpu", "dtype": "float32"}``), outside the key; ``code`` the
        version of the code that computed it (read back by :meth:`get`)."""
        versions = {**package_versions(), **({"code": code} if code is not None else {})}
        payload = (kind, config_hash(config), int(seed), json.dumps(config, sort_keys=True, default=str), status,
                   json.dumps(metrics, default=float), float(wall_s), json.dumps(versions), error,
                   time.time(), json.dumps(dict(setup or {}), sort_keys=True, default=str))
        with self._connect() as con:
            con.execute("INSERT OR REPLACE INTO runs (kind, config_hash, seed, config, status, metrics, wall_s, "
                        "versions, error, created_at, setup) VALUES (?,?,?,?,?,?,?,?,?,?,?)", payload)


class MemoryStore(_Resuming):
    """A store held in this process only, for a run that keeps nothing on disk: :class:`ResultStore`'s ``get``,
    ``has``, ``put``, ``runs`` and resuming, with the same keys, provenance check and records, forgotten when it is
    dropped."""

    def __init__(self) -> None:
        self._rows: dict[tuple[str, str, int], RunRecord] = {}

    def __str__(self) -> str:
        return "this process's memory"

    def get(self, kind: str, config: dict[str, Any], seed: int = 0, code: int | str | None = None,
            any_version: bool = False) -> RunRecord | None:
        record = self._rows.get((kind, config_hash(config), int(seed)))
        if record is None:
            return None
        return record if any_version or record.is_current(code) else None

    def runs(self, kind: str | None = None) -> Iterator[RunRecord]:
        return iter([r for r in self._rows.values() if kind is None or r.kind == kind])

    def put(self, kind: str, config: dict[str, Any], seed: int, metrics: dict[str, Any], wall_s: float,
            status: str = "done", error: str | None = None, setup: dict[str, Any] | None = None,
            code: int | str | None = None) -> None:
        """Keep one run (replacing an earlier one for the same key), as :meth:`ResultStore.put` would store it."""
        versions = {**package_versions(), **({"code": code} if code is not None else {})}
        self._rows.pop((kind, config_hash(config), int(seed)), None)  # a replaced run goes last, as in the file
        self._rows[(kind, config_hash(config), int(seed))] = RunRecord(
            kind, json.loads(json.dumps(config, sort_keys=True, default=str)), int(seed), status,
            json.loads(json.dumps(metrics, default=float)), float(wall_s), versions, error, time.time(),
            json.loads(json.dumps(dict(setup or {}), sort_keys=True, default=str)))


def _record(row: tuple, path: Path) -> RunRecord | None:
    """The row as a :class:`RunRecord`; ``None`` (with a warning naming the row) when a JSON column is damaged: such a
    run counts as missing, so the next run of its command computes it again and replaces the row."""
    kind, config, seed, status, metrics, wall_s, versions, error, created, setup = row
    parsed = {}
    for name, text, default in (("config", config, None), ("metrics", metrics, None), ("versions", versions, None),
                                ("setup", setup, {})):
        try:
            value = json.loads(text) if text else default
        except (TypeError, ValueError):
            value = None
        if not isinstance(value, dict):
            warnings.warn(f"store {path}: the stored {kind!r} run with seed {seed} has a damaged {name} column (not a "
                          f"JSON object: {str(text)[:60]!r}); it counts as missing and is computed again by the next "
                          f"run of its command", PosencWarning, stacklevel=3)
            return None
        parsed[name] = value
    return RunRecord(kind, parsed["config"], seed, status, parsed["metrics"], wall_s, parsed["versions"], error,
                     created, parsed["setup"])


class _Transaction:
    """A connection used as ``with``: BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error), then close."""

    def __init__(self, con: sqlite3.Connection):
        self.con = con

    def __enter__(self) -> sqlite3.Connection:
        self.con.execute("BEGIN IMMEDIATE")
        return self.con

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            self.con.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self.con.close()
