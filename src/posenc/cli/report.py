"""``posenc report``: the evidence report, one web page with a verdict for every claim."""

from __future__ import annotations

import difflib
from pathlib import Path

import typer

from posenc.cli.output import Printer
from posenc.device import DEVICE_HELP, DTYPE_HELP
from posenc.errors import PosencError

console = Printer(stderr=True)


def register(app: typer.Typer) -> None:
    app.command("report")(report)


def report(out: Path = typer.Option(Path("posenc-report"), "--out", help="folder for index.html and report.json"),
           quick: bool = typer.Option(False, "--quick", help="small sweeps and short contexts (a few minutes)"),
           store: Path = typer.Option(None, "--store", help="SQLite results store (default: OUT/results.sqlite)"),
           claim: list[str] = typer.Option(None, "--claim", help="only this claim id (repeatable)"),
           seeds: int = typer.Option(None, "--seeds", help="training seeds per configuration (default: 2 with "
                                                          "--quick, 3 without); must be >= 1"),
           thresholds: Path = typer.Option(None, "--thresholds", help="JSON file replacing claims' thresholds: "
                                                                      '{"claim id": {"statistic": number}}'),
           no_progress: bool = typer.Option(False, "--no-progress", help="hide the progress bar"),
           device: str = typer.Option("auto", "--device", help=DEVICE_HELP + ": where the lab sweeps and extend "
                                      "runs compute (the other experiments are small and stay on the CPU)"),
           dtype: str = typer.Option("float32", "--dtype", help=DTYPE_HELP + ": their precision (float16 needs a "
                                     "GPU; a dtype other than float32 is stored apart)"),
           executor: str = typer.Option("local", "--executor", help="local (this machine) or ray (every experiment "
                                        "and every lab run a Ray task; results stored here)"),
           address: str = typer.Option("auto", "--address", help="Ray address: auto (the cluster `ray start` runs "
                                       "here), HOST:PORT, or local (a private one-machine Ray)"),
           extended: bool = typer.Option(False, "--extended", help="also run the claims that train past the hour "
                                         "(FIRE, KERPLE, p-RoPE, CoPE, PoPE, FoX, DAPE, iRoPE: about 45 min more on 2 "
                                         "cores); a claim named "
                                         "with --claim runs either way")) -> None:
    """Test every claim of the ledger and write OUT/index.html (self-contained) and OUT/report.json.

    Every sampled number carries a 95% interval; a verdict is supported or refuted only when the intervals clear
    the thresholds fixed before the run, and inconclusive when one straddles a threshold.
    """
    from posenc.cli.paths import output_dir, output_file
    from posenc.report.run import check_setup, run_report

    if address != "auto" and executor != "ray":
        raise PosencError(f"--address {address} applies to the Ray executor; add --executor ray, or leave --address "
                          f"out to run here")
    target = check_setup(device, dtype, executor, address)["device"]  # before anything else, nothing created yet
    _check_claims(claim or [])
    out = output_dir(out, "--out")  # before any experiment runs
    if store is not None:
        store = output_file(store, "--store")
    result = run_report(out, quick=quick, store_path=store, progress=not no_progress, claims=claim or None,
                        seeds=seeds, thresholds=thresholds, device=str(target), dtype=dtype, executor=executor,
                        address=address, extended=extended)
    counts = ", ".join(f"{n} {status}" for status, n in result.counts.items() if n)
    if result.store_note:
        console.print(f"[yellow]note:[/yellow] {result.store_note}")
    console.print(f"{len(result.results)} claims: {counts}; {len(result.computed)} computed, "
                  f"{len(result.results) - len(result.computed)} from the store or failed; {result.wall_s:.0f} s "
                  f"(lab and extend on {result.setup['device']} in {result.setup['dtype']}"
                  + (f", on the Ray cluster at {result.setup['address']})" if executor == "ray" else ")"))
    for r in result.results:
        if r.verdict.status == "failed":
            console.print(f"[magenta]failed[/magenta] {r.claim.id}: {r.verdict.reason}")
    typer.echo(f"report: {result.index_html.resolve()}")


def _check_claims(claims: list[str]) -> None:
    """Refuse an unknown ``--claim`` id at once, with the closest known id (as encoding names get)."""
    from posenc.report.ledger import claim_ids

    known = claim_ids()
    for claim in claims:
        if claim not in known:
            close = difflib.get_close_matches(claim, known, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise PosencError(f"unknown claim {claim!r} for --claim.{hint} Known claims: {', '.join(known)}")
