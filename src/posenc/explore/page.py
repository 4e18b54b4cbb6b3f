"""Write the explorer: one self-contained ``explore.html`` (its CSS, JS and data inlined; no network, no CDN).

The page is the template ``assets/explore.html`` with ``explore.css``, ``strings.json`` (every label, caption and
explanation in Chinese (``zh``) and English (``en``): one key, two texts, ``{0}, {1}, ...`` filled in by the page; a key
missing in one language is reported by the page's self-check), ``explore.js`` (every panel's formula and drawing) and one JSON block of data: the panels'
quotes and claims with their verdicts, the real models read by posenc, and the golden table (posenc's float64 values
at a grid of settings) the page checks itself against on load.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from posenc.errors import PosencError
from posenc.explore.golden import golden_table
from posenc.explore.measured import measured_curves
from posenc.explore.models import model_entries
from posenc.explore.panels import PANELS, claim_verdicts

__all__ = ["write_explorer", "explorer_data", "LANGUAGES", "PAGE_NAME"]

#: the page's languages: Chinese (the tutorials' language) first
LANGUAGES = ("zh", "en")
PAGE_NAME = "explore.html"


def _asset(name: str) -> str:
    return (resources.files("posenc.explore") / "assets" / name).read_text(encoding="utf-8")


def _check_lang(lang: object) -> str:
    if lang not in LANGUAGES:
        raise PosencError(f"the explorer's language must be one of {', '.join(LANGUAGES)}, got {lang!r}; "
                          f"e.g. --lang en")
    return str(lang)


def explorer_data(configs: Sequence[Path] = ()) -> dict[str, Any]:
    """Everything the page needs besides its code: panels (quote, source, claims with verdicts), models, golden,
    and the report's measured curves drawn beside the formulas."""
    verdicts = claim_verdicts()
    panels = [{"id": p.id, "quote": p.quote, "where": p.where,
               "claims": [{"id": c, **verdicts.get(c, {})} for c in p.claims]} for p in PANELS]
    return {"panels": panels, "models": model_entries(configs), "golden": golden_table(), "measured": measured_curves()}


def _json_for_script(value: Any) -> str:
    """JSON safe inside ``<script type="application/json">``: no ``</script>`` or ``<!--`` can close it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c").replace(
        ">", "\\u003e").replace("&", "\\u0026")


def _strings_script() -> str:
    """``strings.json`` as the page's ``STRINGS`` constant, which ``explore.js`` reads."""
    return f"const STRINGS = {_json_for_script(json.loads(_asset('strings.json')))};"


def write_explorer(out_dir: Path, *, lang: str = "zh", configs: Sequence[Path] = ()) -> Path:
    """Write ``out_dir / "explore.html"`` and return its path.

    ``lang`` is the language the page opens in when its URL names none (``?lang=zh|en`` wins); ``configs`` are
    Hugging Face ``config.json`` files shown beside the shipped presets. A missing or unreadable config, an unknown
    language or an output folder that cannot be written is a :class:`~posenc.errors.PosencError`.

    Example::

        >>> from pathlib import Path; import tempfile
        >>> page = write_explorer(Path(tempfile.mkdtemp()), lang="en")
        >>> page.name, page.stat().st_size < 400_000
        ('explore.html', True)
    """
    lang = _check_lang(lang)
    out_dir = Path(out_dir).expanduser()
    if out_dir.exists() and not out_dir.is_dir():
        raise PosencError(f"the explorer's output {out_dir} is a file, not a folder; pass a folder, e.g. --out explore")
    data = explorer_data(configs)
    html = _asset("explore.html")
    for key, value in (("LANG", lang), ("CSS", _asset("explore.css")), ("STRINGS", _strings_script()),
                       ("SCRIPT", _asset("explore.js")), ("DATA", _json_for_script(data))):
        html = html.replace(f"/*@{key}@*/", value)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / PAGE_NAME
        path.write_text(html, encoding="utf-8")
    except OSError as exc:
        raise PosencError(f"cannot write the explorer into {out_dir} ({exc.strerror or exc}); pass a folder you can "
                          f"write, e.g. --out ./explore") from exc
    return path
