"""``posenc bench``: every RoPE provider side by side, after a correctness gate.

Its settings are the fields of :class:`~posenc.kernels.bench.BenchConfig` (:mod:`posenc.cli.settings`).
"""

from __future__ import annotations

import typer
from rich.table import Table

from posenc.cli.output import JSON_HELP, STDOUT, Printer, json_target
from posenc.cli.settings import CommandSettings, Flag, settings_command
from posenc.kernels.bench import BenchConfig

console = Printer()


def register(app: typer.Typer) -> None:
    app.command("bench")(bench)


#: bytes per element of q and k (``E = batch (q_heads + kv_heads) seq_len head_dim``) the benchmark holds at its
#: peak: the float32 draw, the float64 gate (inputs and reference), and per mode the inputs, outputs and clones of
#: the providers in the benchmark's dtype. Measured: 59 bytes per element for float32 and two modes (peak resident
#: memory 0.81 GB at seq_len 1024, 1.74 GB at 4096); the estimate takes 84
BENCH_FIXED_BYTES = 4 + 4 * 8
BENCH_COPIES_PER_MODE = 6
#: Python with torch imported (torch.compile's inductor included; measured 0.5 GB)
BENCH_RUNTIME_BYTES = int(1.0 * 1024 ** 3)


def check_bench_fits(cfg) -> int:
    """Refuse a benchmark whose q and k (and their copies) would not fit in memory, before anything is allocated.

    On CPU everything is on the host; on CUDA the inputs are drawn and the float64 gate runs on the host, and the
    providers' copies live on the device. Returns the host estimate in bytes."""
    import torch

    from posenc.resources import check_memory, format_bytes

    elements = cfg.batch * (cfg.q_heads + cfg.kv_heads) * cfg.seq_len * cfg.head_dim
    size = torch.empty((), dtype=getattr(torch, cfg.dtype)).element_size()
    copies = size * BENCH_COPIES_PER_MODE * len(cfg.modes)
    on_cpu = torch.device(cfg.device).type == "cpu"
    per_element = BENCH_FIXED_BYTES + (copies if on_cpu else 0)
    what = f"the benchmark's q and k ({elements:,} elements of {cfg.dtype})"
    fix = "use a smaller --seq-len, --batch or fewer heads"
    needed = BENCH_RUNTIME_BYTES + elements * per_element
    check_memory(needed, what, fix, device="cpu", detail=f"{per_element} bytes per element on the host: the draw, "
                 f"the float64 correctness gate" + (f" and copies for {len(cfg.modes)} mode(s)" if on_cpu else "")
                 + f"; {format_bytes(BENCH_RUNTIME_BYTES)} of runtime")
    if not on_cpu and torch.cuda.is_available():
        check_memory(elements * copies, what, fix, device=cfg.device,
                     detail=f"{copies} bytes per element: copies for {len(cfg.modes)} mode(s)")
    return needed


def result_table(result: dict) -> Table:
    """A rich table of a :func:`posenc.kernels.bench.run_benchmark` result."""
    cfg = result["config"]
    title = (f"RoPE apply: q [{cfg['batch']},{cfg['q_heads']},{cfg['seq_len']},{cfg['head_dim']}] "
             f"k [{cfg['batch']},{cfg['kv_heads']},{cfg['seq_len']},{cfg['head_dim']}] {cfg['dtype']} "
             f"{cfg['pairing']} on {cfg['device']} "
             f"({result['environment'].get('cuda') or str(result['environment']['threads']) + ' threads'})")
    table = Table(title=title)
    for column in ("provider", "mode", "gate", "median ms", "IQR ms", "GB/s", "% of copy", "vs HF eager",
                   "vs HF compile", "vs mul / mul_"):
        table.add_column(column, justify="left" if column in ("provider", "mode", "gate") else "right")

    def fmt(value, spec):
        return "" if value is None else format(value, spec)

    for row in result["rows"]:
        gate = row.get("gate", "")
        if "gate_error" in row:
            gate = f"{gate} ({row['gate_error']:.2g})"
        iqr = f"{row['q25_ms']:.2f}-{row['q75_ms']:.2f}" if "q25_ms" in row else row.get("error", "")
        vs_base = row.get("speed_vs_mul", row.get("speed_vs_mul_"))
        table.add_row(row["provider"], row["mode"], gate, fmt(row.get("median_ms"), ".2f"), iqr,
                      fmt(row.get("gbps"), ".1f"), fmt(row.get("pct_of_copy"), ".0f"),
                      fmt(row.get("speedup_vs_hf_eager"), ".2f") + ("x" if "speedup_vs_hf_eager" in row else ""),
                      fmt(row.get("speedup_vs_hf_compile"), ".2f") + ("x" if "speedup_vs_hf_compile" in row else ""),
                      fmt(vs_base, ".2f") + ("x" if vs_base is not None else ""))
    return table


@settings_command(BenchConfig, flags={"modes": Flag(names=("--mode",), repeatable=True),
                                     "only": Flag(repeatable=True), "device": Flag(default="auto")})
def bench(settings: CommandSettings,
          json_path: str = typer.Option(None, "--json", help=JSON_HELP + ": the full result")) -> None:
    """Time every available RoPE provider on the same q and k, after a float64 correctness gate."""
    from posenc.kernels.bench import run_benchmark, write_json

    target = json_target(json_path)
    cfg = settings.build()
    check_bench_fits(cfg)
    result = run_benchmark(cfg)
    if target == STDOUT:
        import json
        import sys

        sys.stdout.write(json.dumps(result, indent=1, default=str) + "\n")
        return
    console.print(result_table(result))
    for note in result["skipped"]:
        console.print(f"[dim]skipped {note}[/dim]")
    env = result["environment"]
    console.print(f"[dim]load average before {env['loadavg_before'][0]:.2f}, after {env['loadavg_after'][0]:.2f} "
                  f"(other processes on this machine skew CPU timings)[/dim]")
    if target is not None:
        console.print(f"wrote {write_json(result, target)}")
