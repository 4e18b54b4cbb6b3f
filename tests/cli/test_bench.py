"""``posenc bench``'s table (posenc.cli.bench): its columns, how numbers are aligned, and each row's numbers as the
``--json`` file of the same run holds them, on a benchmark small enough to take a moment."""

import json

import pytest

from posenc.cli import main

#: a few hundred elements of q and k, no torch.compile: the gate and three timed rounds take well under a second
TINY = ["bench", "--seq-len", "8", "--q-heads", "2", "--kv-heads", "1", "--head-dim", "8", "--repeats", "3",
        "--warmup", "1", "--no-compile", "--device", "cpu", "--mode", "out-of-place", "--mode", "in-place"]
#: the columns a reader of the table sees, left to right
COLUMNS = ["provider", "mode", "gate", "median ms", "IQR ms", "GB/s", "% of copy", "vs HF eager", "vs HF compile",
           "vs mul / mul_"]
#: columns of names, read from the left; every other column holds numbers, read from the right
TEXT_COLUMNS = {"provider", "mode", "gate"}


def _cells(line: str, bar: str) -> list[str]:
    """The cells of one drawn table line, with their padding (the text between the vertical bars)."""
    return line.split(bar)[1:-1]


def _run_tiny(tmp_path, capsys) -> tuple[list[str], list[list[str]], dict]:
    path = tmp_path / "bench.json"
    assert main([*TINY, "--json", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = _cells(next(line for line in lines if line.startswith("┃")), "┃")
    rows = [_cells(line, "│") for line in lines if line.startswith("│")]
    return header, rows, json.loads(path.read_text())


def test_the_table_names_its_columns_and_right_aligns_its_numbers(tmp_path, capsys):
    header, rows, result = _run_tiny(tmp_path, capsys)
    assert [cell.strip() for cell in header] == COLUMNS
    assert len(rows) == len(result["rows"])
    for row in rows:
        for name, cell in zip(COLUMNS, row, strict=True):
            text = cell.strip()
            if not text:
                continue
            inner = cell[1:-1]  # one space of padding on each side
            aligned = text.ljust(len(inner)) if name in TEXT_COLUMNS else text.rjust(len(inner))
            assert inner == aligned, (name, cell)
    # a median (e.g. "0.06") is narrower than its header "median ms", so left or right alignment shows
    medians = [row[COLUMNS.index("median ms")] for row in rows if row[COLUMNS.index("median ms")].strip()]
    assert medians and all(len(cell.strip()) < len("median ms") for cell in medians)


def test_each_row_shows_the_numbers_of_its_json_row(tmp_path, capsys):
    _, rows, result = _run_tiny(tmp_path, capsys)
    shown = {(row[0].strip(), row[1].strip()): [cell.strip() for cell in row] for row in rows}
    in_place = set()
    for data in result["rows"]:
        cells = dict(zip(COLUMNS, shown[data["provider"], data["mode"]], strict=True))
        # the gate's verdict, with the worst error against the float64 reference where it was measured
        worst = f" ({data['gate_error']:.2g})" if "gate_error" in data else ""
        assert cells["gate"] == f"{data.get('gate', '')}{worst}"
        if "median_ms" in data:
            assert cells["median ms"] == f"{data['median_ms']:.2f}"
        if "speedup_vs_hf_eager" in data:
            assert cells["vs HF eager"] == f"{data['speedup_vs_hf_eager']:.2f}x"
        # the last column compares an out-of-place provider with mul, an in-place one with mul_; baselines: blank
        key = {"out-of-place": "speed_vs_mul", "in-place": "speed_vs_mul_"}.get(data["mode"])
        assert cells["vs mul / mul_"] == (f"{data[key]:.2f}x" if key in data else "")
        if data["mode"] == "in-place" and not data["baseline"]:
            in_place.add(data["provider"])
            assert "speed_vs_mul_" in data and cells["vs mul / mul_"].endswith("x")
    # posenc's two providers each have an in-place mode (the C++ one where its extension is built)
    skipped = {note.split(":")[0] for note in result["skipped"]}
    assert in_place == {"posenc:cpp", "posenc:reference"} - skipped and "posenc:reference" in in_place


def _config(**sizes):
    from posenc.kernels.bench import BenchConfig

    return BenchConfig(**{"batch": 1, "q_heads": 2, "kv_heads": 1, "seq_len": 8, "head_dim": 8, **sizes})


@pytest.mark.parametrize("sizes, needed", [
    # E = batch (q_heads + kv_heads) seq_len head_dim = 1 x 3 x 8 x 8 = 192 elements; on the CPU each takes 4 bytes
    # of float32 draw and 32 of float64 gate, plus 6 copies per mode in the benchmark's dtype; 1 GiB of runtime
    ({}, 2 ** 30 + 192 * (36 + 4 * 6 * 2)),  # float32, two modes: 84 bytes per element
    ({"dtype": "bfloat16", "modes": ("backward",)}, 2 ** 30 + 192 * (36 + 2 * 6 * 1)),  # 48
    ({"batch": 2, "seq_len": 16}, 2 ** 30 + 768 * 84),
])
def test_the_memory_estimate_is_counted_per_element(sizes, needed, monkeypatch):
    from posenc.cli.bench import check_bench_fits

    monkeypatch.setattr("posenc.resources.available_memory", lambda device="cpu": needed)  # just enough
    assert check_bench_fits(_config(**sizes)) == needed


def test_a_benchmark_one_byte_too_big_is_refused_with_the_fix(monkeypatch):
    from posenc.cli.bench import check_bench_fits
    from posenc.errors import PosencError

    needed = 2 ** 30 + 192 * 84
    monkeypatch.setattr("posenc.resources.available_memory", lambda device="cpu": needed - 1)
    with pytest.raises(PosencError) as caught:
        check_bench_fits(_config())
    message = str(caught.value)
    assert message.startswith("the benchmark's q and k (192 elements of float32) does not fit in memory: estimated ")
    assert "(84 bytes per element on the host: the draw, the float64 correctness gate and copies for 2 mode(s); " \
           in message
    assert message.endswith("is available on cpu; use a smaller --seq-len, --batch or fewer heads")


def test_the_command_checks_memory_before_the_benchmark(monkeypatch, capsys):
    def run_benchmark(cfg):
        raise AssertionError("the benchmark ran before its memory was checked")

    monkeypatch.setattr("posenc.kernels.bench.run_benchmark", run_benchmark)
    monkeypatch.setattr("posenc.resources.available_memory", lambda device="cpu": 2 ** 30)  # the runtime alone
    assert main(["bench", "--seq-len", "8", "--device", "cpu"]) == 2
    assert "does not fit in memory" in capsys.readouterr().err


def test_on_cuda_the_copies_are_checked_against_that_devices_memory(monkeypatch):
    """On CUDA the host holds the draw and the float64 gate, and the providers' copies must fit in the free memory
    of the GPU the benchmark runs on: the second check asks that device (not the host) and names it.

    No GPU is needed: ``torch.cuda.is_available`` is faked, and ``available_memory`` answers by device (plenty on
    the host, 1 MB on the GPU), recording which devices it was asked about."""
    from posenc.cli.bench import check_bench_fits
    from posenc.errors import PosencError

    asked = []

    def available_memory(device="cpu"):
        asked.append(device)
        return 2 ** 40 if str(device) == "cpu" else 2 ** 20

    monkeypatch.setattr("torch.cuda.is_available", lambda: True)
    monkeypatch.setattr("posenc.resources.available_memory", available_memory)
    cfg = _config(seq_len=4096)  # built on the CPU (this machine may have no GPU), then pointed at one
    cfg.device = "cuda:1"
    with pytest.raises(PosencError) as caught:
        check_bench_fits(cfg)
    assert asked == ["cpu", "cuda:1"]
    # E = 1 x 3 x 4096 x 8 = 98,304 elements; float32, two modes: 4 x 6 x 2 = 48 bytes each on the GPU
    # = 4,718,592 bytes = 4.5 MiB, over the GPU's 1 MB
    message = str(caught.value)
    assert "(48 bytes per element: copies for 2 mode(s))" in message
    assert message.endswith("is available on cuda:1; use a smaller --seq-len, --batch or fewer heads")


def _rendered(table) -> list[list[str]]:
    """The body rows of a rich table as drawn, each a list of its stripped cells."""
    import io

    from rich.console import Console

    console = Console(file=io.StringIO(), width=300, color_system=None)
    console.print(table)
    return [[cell.strip() for cell in _cells(line, "│")] for line in console.file.getvalue().splitlines()
            if line.startswith("│")]


def test_the_speedups_over_hf_are_marked_x_where_the_row_has_them():
    """The "vs HF eager" and "vs HF compile" cells are ratios, shown as ``1.25x``; a row without the ratio (the
    baselines; backward, which hf-compile does not time) shows an empty cell, not a bare ``x``. The result is written
    by hand in the shape of :func:`posenc.kernels.bench.run_benchmark`'s: the real run would need torch.compile."""
    from posenc.cli.bench import result_table

    result = {
        "config": {"batch": 1, "q_heads": 2, "kv_heads": 1, "seq_len": 8, "head_dim": 8, "dtype": "float32",
                   "pairing": "half", "device": "cpu"},
        "environment": {"cuda": None, "threads": 2},
        "rows": [
            {"provider": "mul", "mode": "baseline", "median_ms": 0.2, "q25_ms": 0.1, "q75_ms": 0.3},
            {"provider": "posenc:reference", "mode": "out-of-place", "gate": "ok", "median_ms": 0.4, "q25_ms": 0.3,
             "q75_ms": 0.5, "speedup_vs_hf_eager": 2.0, "speedup_vs_hf_compile": 1.25, "speed_vs_mul": 0.5},
            {"provider": "posenc:reference", "mode": "backward", "gate": "ok", "median_ms": 1.0, "q25_ms": 0.9,
             "q75_ms": 1.1, "speedup_vs_hf_eager": 1.5},
        ],
    }
    shown = {(row[0], row[1]): dict(zip(COLUMNS, row, strict=True)) for row in _rendered(result_table(result))}
    ratios = {key: (cells["vs HF eager"], cells["vs HF compile"]) for key, cells in shown.items()}
    assert ratios == {("mul", "baseline"): ("", ""),
                      ("posenc:reference", "out-of-place"): ("2.00x", "1.25x"),
                      ("posenc:reference", "backward"): ("1.50x", "")}
