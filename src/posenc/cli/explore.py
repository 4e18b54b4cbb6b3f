"""``posenc explore``: write the explorer page (the tutorials' figures live in the browser, in Chinese and English)."""

from __future__ import annotations

from pathlib import Path

import typer

from posenc.cli.output import Printer
from posenc.cli.paths import output_dir
from posenc.errors import PosencError

console = Printer()  # plain and unwrapped in a pipe or a log (posenc.cli.output)

#: the page's languages (posenc.explore.LANGUAGES; repeated here so --help does not import the page's code)
LANGUAGES = ("zh", "en")


def register(app: typer.Typer) -> None:
    app.command("explore")(explore_command)


def explore_command(out: Path = typer.Option(Path("explore"), "--out", help="folder the page is written into "
                                                                             "(explore.html)"),
                    lang: str = typer.Option("zh", "--lang", help=f"the language the page opens in: "
                                                                  f"{' or '.join(LANGUAGES)} (its switch and "
                                                                  f"?lang= in the URL change it)"),
                    config: list[Path] = typer.Option(None, "--config", metavar="PATH", help="a model's config.json (or its folder) "
                                                                             "shown beside the presets; repeatable"),
                    ) -> None:
    """Write one self-contained page (explore.html: no network, opens from a file) with the four tutorials'
    figures live: naive encodings, the sinusoid, relative position as a rotation, RoPE, context-extension scalings
    with real models' configurations, bias encodings and precision. Every panel quotes its tutorial, links to its
    claim in the evidence report (index.html beside it), and the page checks its formulas against posenc on load.

    Example: posenc explore --out site --lang en --config ~/models/llama/config.json
    """
    if lang not in LANGUAGES:
        raise PosencError(f"--lang must be one of {', '.join(LANGUAGES)}, got {lang!r}; e.g. --lang en")
    folder = output_dir(out)
    configs = [Path(p).expanduser() for p in config or ()]
    for path in configs:
        if not path.exists():
            raise PosencError(f"--config {path} does not exist; pass a model's config.json or its folder, e.g. "
                              f"--config ~/models/llama/config.json")
    from posenc.explore import write_explorer

    page = write_explorer(folder, lang=lang, configs=configs)
    console.print(f"wrote {page} ({page.stat().st_size / 1024:.0f} KiB); open it in a browser (file://{page.resolve()})")
