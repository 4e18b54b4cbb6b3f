"""The claims ledger: every claim posenc tests, in the page's order.

The claims themselves are records in :mod:`posenc.report.claims` (a TOML file per module of
:mod:`posenc.report.experiments`, which measure); this module only collects them, checks that ids are unique and that every claim
names a registered experiment, and looks them up. The verdict comes from :func:`posenc.report.verdict.judge`.

Tutorials: 000 (why Transformers need positions; naive encodings), 001 (sin/cos properties; MiniLM/BERT geometry;
FFN and attention), 002 (absolute encodings: local/global dims, learned tables), 003 (input layer: add vs concat,
learned vs fixed, RoPE). Papers: see ``shared/reference/FACTS.md`` §4.
"""

from __future__ import annotations

from posenc.errors import PosencError
from posenc.names import Registry
from posenc.report.claim import Claim
from posenc.report.claims import all_claims
from posenc.report.experiments import EXPERIMENTS

__all__ = ["LEDGER", "claims", "get_claim", "claim_ids", "claims_by_origin"]

#: the page's order: the tutorials' argument first (why positions, the naive codes, the sinusoid, pretrained models,
#: the input layer), then the papers
_ORDER = ("word-order", "integer-positions", "unit-interval-positions", "binary-positions", "sin-bounded",
          "sin-unique", "sin-relative-linear", "local-global-dims")


def _collect(claims: tuple[Claim, ...] | None = None) -> tuple[Claim, ...]:
    """``claims`` (default: every claim file's, :func:`posenc.report.claims.all_claims`) in the page's order."""
    claims = list(all_claims() if claims is None else claims)
    ids = [c.id for c in claims]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise PosencError(f"duplicate claim ids in the ledger: {duplicates}")
    unknown = [f"{c.id} -> {c.experiment}" for c in claims if c.experiment not in EXPERIMENTS]
    if unknown:
        raise PosencError(f"claims name experiments that are not registered: {unknown}")
    rank = {claim_id: i for i, claim_id in enumerate(_ORDER)}
    # stable sort: the ordered ids first, then each file's claims in their order, tutorials before literature
    return tuple(sorted(claims, key=lambda c: (c.origin != "tutorial", rank.get(c.id, len(rank)))))


LEDGER: tuple[Claim, ...] = _collect()


def claims() -> Registry[Claim]:
    """Every claim by id, in ledger order (read from :data:`LEDGER` at each call, so a test's ledger is seen)."""
    table: Registry[Claim] = Registry("claim")
    for claim in LEDGER:
        table.register(claim.id, claim)
    return table


def claim_ids() -> list[str]:
    """Every claim id, in ledger order."""
    return claims().choices


def get_claim(claim_id: str) -> Claim:
    """The claim with this id; an unknown id lists the valid ones and the closest."""
    return claims().get(claim_id)


def claims_by_origin() -> dict[str, list[Claim]]:
    """``{"tutorial": [...], "literature": [...]}`` in ledger order (the page's summary groups them)."""
    out: dict[str, list[Claim]] = {"tutorial": [], "literature": []}
    for claim in LEDGER:
        out[claim.origin].append(claim)
    return out
