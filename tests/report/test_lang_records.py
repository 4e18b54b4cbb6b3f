"""The Chinese of the words a claim's record and its experiment put in a reason: every claim's null, every reason a
claim is not testable, every test's reason it has no null, every choice's name, worded options and reason, every experiment's cost past the full
report's hour (and the tables hold nothing no record or committed report says); each keeps the numbers and names of
its English; the reasons the runner and the experiments write when a claim does not run read in Chinese."""

from __future__ import annotations

import re

from lang_check import committed_text, english_sentences

from posenc.report.executors import flag
from posenc.report.lang_claims import reason_zh
from posenc.report.lang_records import CHOICE_ZH, EXTENDED_ZH, NO_NULL_ZH, NULL_ZH, UNTESTABLE_ZH
from posenc.report.ledger import LEDGER, get_claim

CJK = re.compile(r"[\u4e00-\u9fff]")
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
NAMES = re.compile(r"`[^`]+`|\b[A-Z][A-Za-z]*[A-Z][A-Za-z0-9]*\b|\b[a-z]+(?:_[a-z0-9]+)+\b|all-MiniLM-L6-v2|"
                   r"SmolLM2-135M(?:-Instruct)?|posenc")


def _worded(option: str) -> bool:
    """Whether a choice's option holds English words (``equal block width (32)``), not only a name or a formula
    (``d=512``, ``8L``, ``N(0, 1/d) x sqrt(d)``)."""
    return bool(set(re.findall(r"[a-z]{3,}", option)) - {"sqrt"})


def _ledger_texts() -> dict[str, set[str]]:
    """The ledger's words each table translates."""
    extended = {flag(c.experiment, "extended") for c in LEDGER} - {None, False, True}
    return {"NULL_ZH": {c.null for c in LEDGER if c.null},
            "NO_NULL_ZH": {t.no_null for c in LEDGER for t in (*c.requires, *c.tests) if t.no_null},
            "UNTESTABLE_ZH": {c.untestable for c in LEDGER if c.untestable},
            "CHOICE_ZH": {text for c in LEDGER if c.choice for text in
                          (c.choice.name, c.choice.why, *filter(_worded, c.choice.options))},
            "EXTENDED_ZH": {text for text in extended if isinstance(text, str)}}


TABLES = {"NULL_ZH": NULL_ZH, "NO_NULL_ZH": NO_NULL_ZH, "UNTESTABLE_ZH": UNTESTABLE_ZH, "CHOICE_ZH": CHOICE_ZH, "EXTENDED_ZH": EXTENDED_ZH}


def test_every_record_text_of_the_ledger_has_its_chinese_and_none_is_stale():
    texts, committed = _ledger_texts(), committed_text()
    assert len(texts["NULL_ZH"]) >= 30 and len(texts["CHOICE_ZH"]) >= 40 and len(texts["EXTENDED_ZH"]) >= 6
    for name, table in TABLES.items():
        missing = texts[name] - set(table)
        assert not missing, f"add the Chinese of these to posenc.report.lang_records.{name}: {missing}"
        stale = {text for text in set(table) - texts[name] if text not in committed}
        assert not stale, f"no record of the ledger and no committed report says these; drop them from {name}: {stale}"


def test_each_chinese_is_chinese_with_the_numbers_and_names_of_its_english():
    for table in TABLES.values():
        for english, chinese in table.items():
            assert CJK.search(chinese) and chinese != english, (english, chinese)
            assert NUMBER.findall(chinese) == NUMBER.findall(english), (english, chinese)
            for name in NAMES.findall(english):
                assert name in chinese, (name, english, chinese)
            # the English quoted inside a Chinese text is the document's or a model card's own words
            assert not english_sentences(chinese), (english, chinese, english_sentences(chinese))


def test_a_claim_past_the_full_reports_hour_says_why_in_chinese():
    from posenc.report.run import not_extended

    past = [c for c in LEDGER if isinstance(flag(c.experiment, "extended"), str)]
    assert len(past) >= 6
    for claim in past:
        reason = not_extended(claim).missing
        zh = reason_zh(reason)
        assert zh.startswith("未运行：它") and zh.endswith("`posenc report --extended` 会运行所有这类说法"), zh
        assert EXTENDED_ZH[flag(claim.experiment, "extended")] in zh
        assert NUMBER.findall(zh) == NUMBER.findall(reason) and not english_sentences(zh), (reason, zh)


def test_the_reason_smollm2_does_not_run_in_quick_mode_reads_in_chinese():
    from posenc.report.experiments.extension import quick_reason

    assert reason_zh(quick_reason("pi-yarn", 9)) == (
        "快速模式不运行：SmolLM2 超出其 8192 词元的上下文后，每次前向计算要花一分钟以上的 CPU，比整个快速报告还多；请运行 "
        "`posenc report --claim pi-yarn`（完整模式，约 9 分钟，在 2 个核上）")


def test_a_claim_not_testable_as_written_reads_in_chinese():
    claim = get_claim("static-vs-dynamic")
    zh = reason_zh(f"not testable as written: {claim.untestable}")
    assert zh == "按原文无法检验：" + UNTESTABLE_ZH[claim.untestable] and not english_sentences(zh)


def test_a_choices_note_reads_in_chinese_with_a_qualified_option_whose_condition_holds_commas():
    claim = get_claim("comparable-magnitude")
    choice = claim.choice
    [unless] = [t.unless for t in claim.tests if t.unless.startswith("only next to")]
    others = f"{choice.options[1]}: qualified: {unless}, {choice.options[2]}: supported"
    reason = f"x: y = 1 (needs < 2) — holds [Rests on {choice.name} = {choice.headline} ({choice.why}); under the " \
             f"other options: {others}.]"
    zh = reason_zh(reason, choice.options)
    assert zh.endswith(f" [依据 参照词嵌入 = N(0, 1/d) x sqrt(d)（{CHOICE_ZH[choice.why]}）；其他选项下："
                       f"N(0, 0.02^2) x sqrt(d)：有条件支持：只在与参照尺度相当的词嵌入旁成立：与训练好、未缩放的 BERT 式词表相比，"
                       f"正弦位置编码不在同一数量级，N(0, 1) x sqrt(d)：支持。]"), zh


def test_the_page_carries_the_tests_words_the_null_and_the_choice_in_both_languages(tmp_path):
    from markupsafe import escape

    from posenc.report.lang_says import SAYS_ZH
    from posenc.report.measurement import Measurement
    from posenc.report.render import render_html
    from posenc.report.result import ClaimResult, ReportResult
    from posenc.report.run import judge_claim
    from posenc.stats import exact

    claim = get_claim("concat-doubles-parameters")  # a choice (feed-forward width), a null, two tests
    estimates = {"later_layer_ratio": exact(4.0)}
    verdict, variants = judge_claim(claim, Measurement({}, estimates=estimates,
                                                       variants={o: estimates for o in claim.choice.options}))
    result = ClaimResult(claim, verdict, Measurement({}, estimates=estimates), True, variants=variants)
    page = render_html(ReportResult(tmp_path, tmp_path / "index.html", tmp_path / "report.json", [result], True, None))

    def both(en: str, zh: str) -> str:
        return f'<span data-en="{escape(en)}" data-zh="{escape(zh)}">{escape(en)}</span>'

    for test in claim.tests:
        assert both(test.says, SAYS_ZH[test.says]) + ":" in page
    assert f'<dd class="null">{both(claim.null, NULL_ZH[claim.null])}</dd>' in page
    choice = claim.choice
    assert f"<th>{both(choice.name, '前馈层宽度')}</th>" in page
    assert both("fixed 2048", "固定为 2048") in page and both("4 x width", "4 x 宽度") in page
    assert f'data-p-why="{escape(choice.why)}" data-p-why-zh="{escape(CHOICE_ZH[choice.why])}"' in page
    no_null = claim.tests[0].no_null  # why its statistic has no null, beside the test
    assert f'data-p-reason="{escape(no_null)}" data-p-reason-zh="{escape(NO_NULL_ZH[no_null])}"' in page
