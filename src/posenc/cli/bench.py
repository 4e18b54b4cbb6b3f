"""``posenc bench``: every RoPE provider side by side, after a correctness gate."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

console = Console()
if not console.is_terminal:  # logs and pipes: keep the table on one line per row
    console = Console(width=160)


def register(app: typer.Typer) -> None:
    app.command("bench")(bench)


def result_table(result: dict) -> Table:
    """A rich table of a :func:`posenc.kernels.bench.run_benchmark` result."""
    cfg = result["config"]
    title = (f"RoPE apply: q [{cfg['batch']},{cfg['q_heads']},{cfg['seq_len']},{cfg['head_dim']}] "
             f"k [{cfg['batch']},{cfg['kv_heads']},{cfg['seq_len']},{cfg['head_dim']}] {cfg['dtype']} "
             f"{cfg['pairing']} on {cfg['device']} ({result['environment']['threads']} threads)")
    table = Table(title=title)
    for column in ("provider", "mode", "gate", "median ms", "IQR ms", "GB/s", "% of copy", "vs HF eager",
                   "vs mul / mul_"):
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
                      fmt(vs_base, ".2f") + ("x" if vs_base is not None else ""))
    return table


def bench(batch: int = typer.Option(1, help="batch size B"),
          q_heads: int = typer.Option(32, "--q-heads", help="query heads H"),
          kv_heads: int = typer.Option(8, "--kv-heads", help="key/value heads Hk (H must be a multiple)"),
          seq_len: int = typer.Option(4096, "--seq-len", help="tokens T"),
          head_dim: int = typer.Option(128, "--head-dim", help="channels per head Dh"),
          rotary_dim: int = typer.Option(None, "--rotary-dim", help="rotary width R (default: head_dim)"),
          dtype: str = typer.Option("float32", help="float32, bfloat16 or float16"),
          pairing: str = typer.Option("half", help="half (GPT-NeoX / HF) or interleaved (GPT-J / Meta)"),
          device: str = typer.Option("cpu", help="cpu or cuda"),
          mode: list[str] = typer.Option(["out-of-place", "in-place"], "--mode",
                                         help="out-of-place, in-place, backward (repeatable)"),
          repeats: int = typer.Option(21, help="timed rounds on CPU (median reported)"),
          warmup: int = typer.Option(3, help="untimed rounds first"),
          threads: int = typer.Option(None, help="torch / OpenMP threads (default: torch's)"),
          compile: bool = typer.Option(True, "--compile/--no-compile", help="include torch.compile providers"),
          only: list[str] = typer.Option(None, "--only", help="provider name prefix to keep (repeatable)"),
          json_path: Path = typer.Option(None, "--json", help="write the full result as JSON here")) -> None:
    """Time every available RoPE provider on the same q and k, after a float64 correctness gate."""
    from posenc.kernels.bench import BenchConfig, run_benchmark, write_json

    cfg = BenchConfig(batch=batch, q_heads=q_heads, kv_heads=kv_heads, seq_len=seq_len, head_dim=head_dim,
                      rotary_dim=rotary_dim, dtype=dtype, pairing=pairing, device=device, modes=tuple(mode),
                      repeats=repeats, warmup=warmup, threads=threads, compile=compile, only=tuple(only or ()))
    result = run_benchmark(cfg)
    console.print(result_table(result))
    for note in result["skipped"]:
        console.print(f"[dim]skipped {note}[/dim]")
    env = result["environment"]
    console.print(f"[dim]load average before {env['loadavg_before'][0]:.2f}, after {env['loadavg_after'][0]:.2f} "
                  f"(other processes on this machine skew CPU timings)[/dim]")
    if json_path is not None:
        console.print(f"wrote {write_json(result, json_path)}")
