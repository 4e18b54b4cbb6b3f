"""Bad input to the commands, issue 40's cases: each ends in exit status 2 with one line naming the value given (no
traceback), before any work and without writing a file.

Empty list options (``--lengths ''``) are refused like an empty item, never read as the default; a value given twice
to an option that collects values (``--claim X --claim X``) is refused, never run twice; a damaged GGUF file and a
store whose schema version is not a number are named; the run's head width is said in the options ``train`` has.
The commands run in this process through :func:`posenc.cli.main`. ``{tmp}`` is the test's own folder.
"""

import socket
import sqlite3
import time

import numpy as np
import pytest
from one_line_error import check_one_line_error

from posenc.cli import main
from posenc.store import ResultStore

STORE = ["--store", "{tmp}/runs.sqlite", "--limit", "0"]  # a sweep that got past its checks would run nothing

CASES = [
    # -- an empty list option is an error, never the default ---------------------------------------------------------
    ("extend-lengths-empty", ["extend", "--lengths", "", "--plan"],
     ["--lengths '' is empty", "e.g. --lengths 2k,4k,8k", "leave --lengths out for its default"]),
    ("extend-scalings-empty", ["extend", "--scalings", "", "--plan"], ["--scalings '' is empty", "--scalings none,yarn"]),
    ("extend-depths-empty", ["extend", "--depths", "", "--plan"], ["--depths '' is empty", "--depths 0.25,0.75"]),
    ("extend-protocols-blank", ["extend", "--protocols", " ", "--plan"], ["--protocols ' ' is empty"]),
    ("train-eval-lengths-empty", ["train", "--eval-lengths", ""], ["--eval-lengths '' is empty", "10,20,40"]),
    ("train-protocols-empty", ["train", "--protocols", ""], ["--protocols '' is empty"]),
    ("train-schedule-empty", ["train", "--schedule", ""], ["--schedule '' is empty"]),
    # -- one value twice in an option that collects values: refused, not run twice ----------------------------------
    ("report-claim-twice", ["report", "--claim", "sin-bounded", "--claim", "sin-bounded", "--out", "{tmp}/report"],
     ["option --claim was given 'sin-bounded' 2 times", "give each value once"]),
    ("report-claim-twice-apart", ["report", "--claim", "sin-bounded", "--claim", "rope-decay", "--claim",
                                  "sin-bounded", "--out", "{tmp}/report"], ["--claim was given 'sin-bounded' 2 times"]),
    ("probe-only-twice", ["probe", "minilm", "--only", "geometry", "--only", "geometry"],
     ["option --only was given 'geometry' 2 times"]),
    ("bench-mode-twice", ["bench", "--mode", "in-place", "--mode", "in-place"], ["option --mode was given 'in-place'"]),
    ("bench-only-twice", ["bench", "--only", "posenc", "--only", "posenc"], ["option --only was given 'posenc'"]),
    ("show-o-twice-same", ["show", "rope", "-o", "base=500", "-o", "base=500", "--out", "{tmp}/x.png"],
     ["option -o was given 'base=500' 2 times"]),
    # -- messages that name what exists ------------------------------------------------------------------------------
    ("report-seeds-0", ["report", "--seeds", "0", "--claim", "sin-bounded", "--out", "{tmp}/report"],
     ["seeds must be a whole number >= 1, got 0", "the default, 3 in both modes"]),
    ("train-odd-head-width", ["train", "-e", "rope", "--d-model", "30", "--n-heads", "2"],
     ["head_dim must be an even integer >= 2, got 15", "head_dim is d_model / n_heads = 30 / 2 = 15",
      "change --d-model or --n-heads, e.g. --d-model 32 (head_dim 16)"]),
    ("train-option-head-dim", ["train", "-o", "head_dim=8"],
     ["encoding_options ['head_dim'] are model sizes", "options --d-model, --n-heads"]),
    # -- damaged files -----------------------------------------------------------------------------------------------
    ("probe-gguf-cut", ["probe", "{tmp}/cut.gguf"], ["model file {tmp}/cut.gguf is not a readable GGUF file",
                                                     "struct.error"]),
    ("inspect-gguf-cut", ["inspect", "{tmp}/cut.gguf"], ["{tmp}/cut.gguf is not a readable GGUF file"]),
    ("extend-gguf-cut", ["extend", "{tmp}/cut.gguf", "--plan"], ["{tmp}/cut.gguf is not a readable GGUF file"]),
    ("probe-gguf-data-cut", ["probe", "{tmp}/short.gguf"], ["{tmp}/short.gguf is not a readable GGUF file",
                                                            "it is cut short"]),
    ("sweep-store-version-text", ["sweep", "--preset", "quick", "--store", "{tmp}/odd.sqlite", "--limit", "0"],
     ["records schema version 'one', which is not a number", "left untouched"]),
]


def _files(tmp) -> None:
    import gguf

    writer = gguf.GGUFWriter(str(tmp / "whole.gguf"), "llama")
    writer.add_tensor("token_embd.weight", np.zeros((4, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    whole = (tmp / "whole.gguf").read_bytes()
    (tmp / "whole.gguf").unlink()
    (tmp / "cut.gguf").write_bytes(whole[:40])  # cut in its metadata
    (tmp / "short.gguf").write_bytes(whole[:-16])  # cut in its tensor data
    ResultStore(tmp / "odd.sqlite")
    con = sqlite3.connect(tmp / "odd.sqlite")
    con.execute("UPDATE meta SET value = 'one' WHERE key = 'schema_version'")
    con.commit()
    con.close()


def _snapshot(tmp) -> dict[str, bytes]:
    """Every file's bytes; SQLite's shared-memory files (-shm, -wal), which even a read-only look at a store opens,
    are not the store."""
    return {p.name: p.read_bytes() for p in sorted(tmp.iterdir()) if not p.name.endswith(("-shm", "-wal"))}


@pytest.mark.parametrize("argv, fragments", [pytest.param(argv, fragments, id=name) for name, argv, fragments in CASES])
def test_bad_input_is_one_line_naming_the_value(argv, fragments, tmp_path, capsys):
    _files(tmp_path)
    check_one_line_error(argv, fragments, tmp_path, capsys, _snapshot)  # the store untouched, byte for byte


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed once the block ends: a connection there is refused


@pytest.mark.parametrize("command", [
    ["sweep", "--preset", "quick", "--executor", "ray", "--store", "{tmp}/runs.sqlite"],
    ["report", "--executor", "ray", "--claim", "sin-bounded", "--out", "{tmp}/report"],
])
def test_a_ray_address_that_refuses_is_named_within_seconds(command, tmp_path, capsys):
    import posenc.lab.sweep  # noqa: F401 - the modules the commands import, imported before the clock starts
    import posenc.report.run  # noqa: F401

    port = _closed_port()
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in [*command, "--address", f"127.0.0.1:{port}"]]
    start = time.monotonic()
    assert main(argv) == 2
    took = time.monotonic() - start
    err = capsys.readouterr().err
    assert f"cannot reach a Ray head at 127.0.0.1:{port}" in err and "Traceback" not in err
    assert took < 3.0, took  # refused before Ray is imported or the grid is read (it took 24 s)
    assert not (tmp_path / "report").exists() and not (tmp_path / "runs.sqlite").exists()
