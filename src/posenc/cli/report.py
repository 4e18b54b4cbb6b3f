"""``posenc report``: the evidence report, one web page with a verdict for every claim.

Its settings are the fields of :class:`~posenc.report.config.ReportConfig` (:mod:`posenc.cli.settings`); only
``--no-progress`` is the command's own.
"""

from __future__ import annotations

import typer

from posenc.cli.output import Printer
from posenc.cli.settings import CommandSettings, Flag, settings_command
from posenc.errors import PosencError
from posenc.report.config import ReportConfig

console = Printer(stderr=True)


def register(app: typer.Typer) -> None:
    app.command("report")(report)


@settings_command(ReportConfig, exclude=("progress", "references"), flags={
    "out_dir": Flag(names=("--out",), metavar="<path>"), "quick": Flag(default=False),
    "store_path": Flag(names=("--store",), metavar="<path>"), "claims": Flag(names=("--claim",), repeatable=True),
    "thresholds": Flag(metavar="<path>")})
def report(settings: CommandSettings,
           no_progress: bool = typer.Option(False, "--no-progress", help="hide the progress bar")) -> None:
    """Test every claim of the ledger and write OUT/index.html (self-contained), OUT/report.json and the explorer
    OUT/explore.html (the tutorials' figures, live; linked from the page).

    Every sampled number carries a 95% interval; a verdict is supported or refuted only when the intervals clear
    the thresholds fixed before the run, and inconclusive when one straddles a threshold.
    """
    from posenc.cli.paths import output_dir, output_file
    from posenc.report.run import check_setup, run_report

    executor, address = settings["executor"], settings["address"]
    if address != "auto" and executor != "ray":
        raise PosencError(f"--address {address} applies to the Ray executor; add --executor ray, or leave --address "
                          f"out to run here")
    # before anything else, nothing created yet
    target = check_setup(settings["device"], settings["dtype"], executor, address)["device"]
    _check_claims(settings["claims"] or [])
    out = output_dir(settings["out_dir"], "--out")  # before any experiment runs
    store = output_file(settings["store_path"], "--store") if settings["store_path"] is not None else None
    config = settings.build(out_dir=str(out), store_path=str(store) if store is not None else None,
                            device=str(target), progress=not no_progress)
    result = run_report(config)
    counts = ", ".join(f"{n} {status}" for status, n in result.counts.items() if n)
    if result.store_note:
        console.print(f"[yellow]note:[/yellow] {result.store_note}")
    console.print(f"{len(result.results)} claims: {counts}; {len(result.computed)} computed, "
                  f"{len(result.results) - len(result.computed)} from the store or failed; {result.wall_s:.0f} s "
                  f"(lab and extend on {result.setup['device']} in {result.setup['dtype']}"
                  + (f", on the Ray cluster at {result.setup['address']})" if config.executor == "ray" else ")"))
    for r in result.results:
        if r.verdict.status == "failed":
            console.print(f"[magenta]failed[/magenta] {r.claim.id}: {r.verdict.reason}")
    typer.echo(f"report: {result.index_html.resolve()}")
    if result.explorer_html is not None:
        typer.echo(f"explorer: {result.explorer_html.resolve()}")


def _check_claims(claims: list[str]) -> None:
    """Refuse an unknown ``--claim`` id at once, with the closest known id (the ledger's table's message)."""
    from posenc.report.ledger import claims as ledger_claims

    known = ledger_claims()
    for claim in claims:
        if claim not in known:
            raise known.unknown(claim, where=" for --claim")
