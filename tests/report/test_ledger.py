"""The ledger's collection of the claims of the claim files, on stand-in claims: the page's fixed order comes first
among the tutorials' claims, ids must be unique and name a registered experiment."""

from __future__ import annotations

import pytest

from posenc.errors import PosencError
from posenc.report import ledger
from posenc.report.claim import Claim, Test


def _claim(claim_id: str, origin: str = "literature", experiment: str = "word_order") -> Claim:
    return Claim(claim_id, "a test", origin, "a title", "A claim.", experiment,
                 (Test("x", ">", 0, "x is positive", "none"),))


def test_claims_are_collected_tutorials_first_in_the_pages_order():
    claims = (_claim("paper-claim"), _claim("tutorial-claim", "tutorial"), _claim("sin-bounded", "tutorial"),
              _claim("word-order", "tutorial"))
    # the tutorials' claims first: word-order and sin-bounded at their places in the fixed order (0 and 4), then the
    # tutorial claim it does not name; the paper's claim last
    assert [c.id for c in ledger._collect(claims)] == ["word-order", "sin-bounded", "tutorial-claim", "paper-claim"]


def test_a_duplicate_id_or_an_unregistered_experiment_is_refused():
    with pytest.raises(PosencError, match=r"duplicate claim ids in the ledger: \['same'\]"):
        ledger._collect((_claim("same"), _claim("same")))
    with pytest.raises(PosencError, match="lost -> no_such_experiment"):
        ledger._collect((_claim("lost", experiment="no_such_experiment"),))


#: the page's fixed order of the tutorials' first claims, written here from the tutorials' argument (000: why
#: positions and the naive codes; 001: the sinusoid's properties; 002: local and global dimensions)
PAGE_ORDER = ["word-order", "integer-positions", "unit-interval-positions", "binary-positions", "sin-bounded",
              "sin-unique", "sin-relative-linear", "local-global-dims"]


@pytest.mark.parametrize("position,claim_id", list(enumerate(PAGE_ORDER)))
def test_the_real_ledger_opens_with_the_fixed_order(position, claim_id):
    from posenc.report.ledger import LEDGER, claim_ids, get_claim

    assert claim_ids()[position] == claim_id
    assert LEDGER[position] is get_claim(claim_id) and get_claim(claim_id).origin == "tutorial"


def test_claims_by_origin_keeps_ledger_order_within_each_group(monkeypatch):
    claims = (_claim("paper-b"), _claim("tutorial-x", "tutorial"), _claim("paper-a"), _claim("word-order", "tutorial"))
    monkeypatch.setattr(ledger, "LEDGER", ledger._collect(claims))
    groups = ledger.claims_by_origin()
    assert [c.id for c in groups["tutorial"]] == ["word-order", "tutorial-x"]
    assert [c.id for c in groups["literature"]] == ["paper-b", "paper-a"]  # declaration order, not sorted by id
    assert ledger.get_claim("paper-a") is groups["literature"][1]
    with pytest.raises(PosencError, match="unknown claim 'paper-c'; valid claims are: word-order, tutorial-x, "
                                          "paper-b, paper-a. Did you mean 'paper-b'\\?"):
        ledger.get_claim("paper-c")
