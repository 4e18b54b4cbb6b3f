"""The explorer's panels: what each shows, the tutorial sentence it quotes and the report's claims it links to.

The claim ids are the ledger's (:mod:`posenc.report.ledger`); the verdicts shown beside them are read from the
committed full report (``docs/reports/full.json``) when the page is written inside a checkout, and left out otherwise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Panel", "PANELS", "claim_verdicts", "checkout_report"]


@dataclass(frozen=True)
class Panel:
    """``id`` (the HTML id), ``claims`` (ledger ids), ``quote`` (the tutorial's sentence) and ``where`` it is from."""

    id: str
    claims: tuple[str, ...]
    quote: str
    where: str


PANELS: tuple[Panel, ...] = (
    Panel("naive", ("integer-positions", "unit-interval-positions", "binary-positions"),
          "这样产生的问题是, 序列长度不同, 相对距离也不同, 模型可能认为这是单词语义发生了变化",
          "tutorial 000, §2.2"),
    Panel("sinusoid", ("dims-period-figure", "positions-closer-figure", "local-global-dims"),
          "这三张图分别打印了 128 个位置向量第 2、6、12 维度的编码值的变化，我们发现这些值呈现周期性的变化。"
          "另外，我们也可以发现，向量维度越高，其周期就越长。", "tutorial 002, §2"),
    Panel("rotation", ("sin-relative-linear", "one-linear-rule"),
          "一个位置到另一个相对偏移为δ的位置,其位置编码向量的变化规律是固定的,与初始绝对位置无关。", "tutorial 001, §3.3"),
    Panel("rope", ("rope-relative-explicit", "rope-extrapolates"),
          "更现代的方法是 RoPE(Rotary Position Embedding),它不是简单地相加,而是通过旋转来编码位置", "tutorial 003, §14.6.3"),
    Panel("scaling", ("pi-yarn", "model-encodings"), "RoPE 的优势: 相对位置信息更明确; 可以外推到更长的序列",
          "tutorial 003, §14.6.3"),
    Panel("bias", ("alibi-table", "kerple-extrapolates", "fire-extrapolates"),
          "模型可能遇见比训练时所用序列更长的序列, 不利于模型泛化", "tutorial 000, §2.1"),
    Panel("precision", ("periodicity-distinctness",),
          "随着序列长度的增加，位置编码的周期性可能导致不同位置之间的区分度逐渐降低，难以准确表示极长序列中各个位置的独特信息。",
          "tutorial 002, §3"),
)

#: the committed full report, relative to the repository root
_REPORT = Path("docs/reports/full.json")


def checkout_report() -> Path | None:
    """The committed full report of the checkout this package runs from (or of the working folder), if any."""
    for folder in (Path(__file__).resolve().parents[3], Path.cwd()):
        if (folder / _REPORT).is_file():
            return folder / _REPORT
    return None


def report_claims(report: Path | None = None) -> dict[str, dict[str, Any]]:
    """``{claim id: claim record}`` of a report json (default: the checkout's committed full report); ``{}`` when
    there is none or it cannot be read."""
    path = report if report is not None else checkout_report()
    if path is None:
        return {}
    try:
        claims = json.loads(Path(path).read_text()).get("claims", [])
    except (OSError, ValueError):
        return {}
    return {c["id"]: c for c in claims if isinstance(c, dict) and "id" in c}


def claim_verdicts(report: Path | None = None) -> dict[str, dict[str, Any]]:
    """``{claim id: {"status", "title"}}`` of every claim the panels link to, from a committed report json."""
    claims = report_claims(report)
    wanted = {c for panel in PANELS for c in panel.claims}
    out = {}
    for claim in claims.values():
        if claim.get("id") in wanted:
            verdict = claim.get("verdict")
            status = verdict.get("status") if isinstance(verdict, dict) else verdict
            out[claim["id"]] = {"status": status, "title": claim.get("title") or claim.get("statement") or ""}
    return out
