"""The page's two languages: the tables hold the same keys and placeholders, every verdict has a name in both, every
claim of the ledger has its own Chinese title, and the page renders each fixed text as its key's English."""

from __future__ import annotations

import re

import pytest

from posenc.errors import PosencError
from posenc.report.lang import DEFAULT_LANG, LANGS, TEXT, fill, placeholders, status_key
from posenc.report.verdict import STATUSES

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_the_two_tables_have_the_same_keys():
    assert LANGS == ("en", "zh") and DEFAULT_LANG == "en" and set(TEXT) == set(LANGS)
    assert sorted(TEXT["en"]) == sorted(TEXT["zh"])


def test_each_key_has_the_same_placeholders_in_both_languages():
    differ = {key: (placeholders(TEXT["en"][key]), placeholders(TEXT["zh"][key])) for key in TEXT["en"]
              if placeholders(TEXT["en"][key]) != placeholders(TEXT["zh"][key])}
    assert differ == {}


def test_every_chinese_text_is_chinese_and_differs_from_the_english():
    """A key left in English in the Chinese table would be a text the switch does not switch (the '#' column
    header and a run's kind name excepted)."""
    same = {"th.number"}
    for key, text in TEXT["zh"].items():
        if key in same:
            assert text == TEXT["en"][key]
            continue
        assert text != TEXT["en"][key], key
        assert CJK.search(text), (key, text)


def test_the_markup_in_both_languages_is_the_same():
    """The texts carry a little markup (<b>, <code>, &ne;): the same tags, in the same number, in both."""
    for key in TEXT["en"]:
        tags = [sorted(re.findall(r"</?[a-z]+>|&[a-z]+;", TEXT[lang][key])) for lang in LANGS]
        assert tags[0] == tags[1], key


def test_every_verdict_has_a_name_in_both_languages():
    names = {lang: [TEXT[lang][status_key(s)] for s in STATUSES] for lang in LANGS}
    assert names["en"] == list(STATUSES)
    assert len(set(names["zh"])) == len(STATUSES)
    assert names["zh"][:5] == ["支持", "有条件支持", "被推翻", "无定论", "无法检验"]


def test_fill_replaces_placeholders_and_refuses_what_is_missing():
    assert fill("en", "meta.claims", {"n": "67"}) == "67 claims"
    assert fill("zh", "meta.claims", {"n": "67"}) == "67 条说法"
    assert fill("zh", "how.computed", {"seconds": "1.5", "provenance": ""}) == "用时 1.5 秒计算"
    with pytest.raises(PosencError, match=r"'meta.claims' needs n"):
        fill("en", "meta.claims", {})
    with pytest.raises(PosencError, match=r"no page text in language 'fr'; the page speaks en, zh"):
        fill("fr", "meta.claims", {"n": "1"})
    with pytest.raises(PosencError, match=r"no page text 'nope' in en"):
        fill("en", "nope", {})


def test_every_claim_has_its_own_chinese_title():
    from posenc.report.ledger import LEDGER

    assert len(LEDGER) >= 60
    for claim in LEDGER:
        assert claim.title_zh.strip() and CJK.search(claim.title_zh), (claim.id, claim.title_zh)
        assert claim.title_zh != claim.title
    titles = [c.title_zh for c in LEDGER]
    assert len(set(titles)) == len(titles), sorted({t for t in titles if titles.count(t) > 1})


def test_titles_reuse_the_tutorials_own_words_where_the_claim_quotes_them():
    """Spot checks against the quoted sentence (the Chinese title keeps the document's wording)."""
    from posenc.report.ledger import get_claim

    for claim_id, words in {"small-magnitude": "位置编码的幅度较小,不会淹没词向量", "position-own-space": "位置信息有自己的空间",
                            "rope-extrapolates": "可以外推到更长的序列", "ffn-position-blind": "“位置盲”的模块"}.items():
        claim = get_claim(claim_id)
        assert words in claim.quote
        assert words.replace(",", "，") in claim.title_zh, (claim_id, claim.title_zh)


def test_the_page_renders_each_fixed_text_as_its_english_with_its_key(tmp_path):
    from posenc.report.ledger import get_claim
    from posenc.report.measurement import Measurement
    from posenc.report.render import render_html
    from posenc.report.result import ClaimResult, ReportResult
    from posenc.report.verdict import supported

    claim = get_claim("sin-bounded")
    page = render_html(ReportResult(tmp_path, tmp_path / "index.html", tmp_path / "report.json",
                                    [ClaimResult(claim, supported("holds"), Measurement({}), True)], True, None))
    assert '<h1 data-i18n="h1">Positional encodings: what holds up?</h1>' in page
    assert '<span data-i18n="status.supported">supported</span>' in page
    assert '<span data-i18n="meta.claims" data-p-n="1">1 claims</span>' in page
    assert (f'<span class="claim-title" data-en="{claim.title}" data-zh="{claim.title_zh}">{claim.title}</span>'
            in page)
    used = set(re.findall(r'data-(?:i18n|k-[a-z]+|i18n-title)="([^"]+)"', page))
    assert used and used <= set(TEXT["en"])
    assert '<html lang="en">' in page and 'href="?lang=zh"' in page
    assert "explore.html" not in page and 'class="explore-link"' not in page  # no explorer page, no link


def test_the_page_links_the_explorer_with_its_language(tmp_path):
    from posenc.report.render import render_html
    from posenc.report.result import ReportResult

    page = render_html(ReportResult(tmp_path, tmp_path / "index.html", tmp_path / "report.json", [], True, None),
                       explorer="explore.html")
    assert '<a class="explore-link" href="explore.html?lang=en" data-href="explore.html">' in page


def test_the_report_writes_the_explorer_beside_its_page_and_links_it(small_report):
    page = small_report.index_html.read_text(encoding="utf-8")
    explorer = small_report.out_dir / "explore.html"
    assert explorer.is_file() and explorer.stat().st_size > 10_000 and small_report.explorer_html == explorer
    assert '<a class="explore-link" href="explore.html?lang=en" data-href="explore.html">' in page


def test_an_explorer_that_cannot_be_written_costs_the_link_not_the_report(tmp_path):
    """A folder in the explorer page's place: the report still writes its page, without the link, and warns."""
    from posenc.report.run import run_report

    out = tmp_path / "r"
    (out / "explore.html").mkdir(parents=True)
    with pytest.warns(RuntimeWarning, match=r"explorer page was not written .* `posenc explore --out "):
        result = run_report(out, quick=True, progress=False, claims=["sin-bounded"])
    page = result.index_html.read_text(encoding="utf-8")
    assert result.counts["supported"] == 1 and 'class="explore-link"' not in page and "explore.html" not in page
    assert result.explorer_html is None
