"""The Chinese of the tests' own words: every ``says`` of the ledger has its Chinese (and the table holds nothing no
test or committed report says), each keeps the numbers, names and code of its English in order, and a verdict's
reason built from them reads in Chinese, its statistics and numbers as written."""

from __future__ import annotations

import math
import re

from lang_check import committed_text, english_sentences

from posenc.report.lang_claims import condition_zh, reason_zh
from posenc.report.lang_says import SAYS_ZH
from posenc.report.ledger import LEDGER, get_claim
from posenc.report.verdict import judge
from posenc.stats import Estimate, exact

CJK = re.compile(r"[\u4e00-\u9fff]")
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
#: what stays as written: quoted words, code, CamelCase and capitalised names, statistics and code names
NAMES = re.compile(r"'[a-z]+'|`[^`]+`|\b[A-Z][A-Za-z]*[A-Z][A-Za-z]*\b|\b[a-z]+(?:_[a-z0-9]+)+\b|\bd_model\b")


def _ledger_says() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for claim in LEDGER:
        for test in (*claim.requires, *claim.tests):
            found.setdefault(test.says, []).append(claim.id)
    return found


def test_every_says_of_the_ledger_has_its_chinese():
    said = _ledger_says()
    assert len(said) >= 150  # the check reads the whole ledger
    missing = {text: ids for text, ids in said.items() if text not in SAYS_ZH}
    assert not missing, f"add the Chinese of these tests' words to posenc.report.lang_says.SAYS_ZH: {missing}"
    committed = committed_text()
    stale = {text for text in set(SAYS_ZH) - set(said) if text not in committed}
    assert not stale, f"no test of the ledger and no committed report says these; drop them from SAYS_ZH: {stale}"


def test_each_chinese_is_chinese_with_the_numbers_and_names_of_its_english():
    for english, chinese in SAYS_ZH.items():
        assert CJK.search(chinese) and chinese != english, (english, chinese)
        assert NUMBER.findall(chinese) == NUMBER.findall(english), (english, chinese)  # the same numbers, in order
        for name in NAMES.findall(english):
            assert name in chinese, (name, english, chinese)
        assert not english_sentences(chinese), (english, chinese, english_sentences(chinese))


def test_a_judged_reason_reads_in_chinese_word_for_word():
    claim = get_claim("sin-bounded")  # one core test: max_abs < 1.000001
    verdict = judge(claim, {"max_abs": exact(1.0)})
    assert verdict.reason == ("no value exceeds 1 in absolute value, at any position tested: max_abs = 1 "
                              "(needs < 1.000001) — holds")
    assert reason_zh(verdict.reason) == "在所测的任何位置上，取值的绝对值都不超过 1：max_abs = 1（需要 < 1.000001）— 成立"


def test_words_that_hold_a_colon_are_read_whole_and_a_shorter_says_inside_another_is_not_taken():
    # the first says holds ": " itself; "and stay distinct" must not be taken out of a longer text
    reason = ("correctly: the token for nine tokens in ten after every module: min_token_accuracy = 0.95 (needs > 0.9)"
              " — holds; and the position within +-2 tokens for nine tokens in ten: min_position_accuracy = 0.5 "
              "(needs > 0.9) — does not hold")
    assert reason_zh(reason) == ("读得正确：在每个模块之后，十个词元中有九个的词元被读对：min_token_accuracy = 0.95（需要 > 0.9）"
                                 "— 成立；并且十个词元中有九个的位置被读对（误差在 +-2 个词元以内）：min_position_accuracy = "
                                 "0.5（需要 > 0.9）— 不成立")
    assert reason_zh("the values do not stay distinct: x = 1 (needs > 2) — does not hold") == \
        "the values do not stay distinct: x = 1（需要 > 2）— 不成立"  # no says of the ledger: stays as written


def test_a_null_that_passes_its_bar_reads_in_chinese_with_the_claims_null():
    claim = get_claim("one-linear-rule")  # min_recognition_share > 0.99, its null null_recognition_share
    verdict = judge(claim, {"max_random_share": exact(0.5), "max_composition_error": exact(0.0),
                            "min_recognition_share": exact(1.0), "null_recognition_share": exact(1.0)})
    assert verdict.status == "not testable"
    assert reason_zh(verdict.reason) == (
        "零基线已经越过阈值，因此检验无法区分两种情形：得分 PE[i] . PE[j] M_k 对每个查询都选中 k 个位置之前的键（最差的偏移量）："
        "同样形状的随机 N(0, 1) 表（5 张），每张用它自己的最小二乘映射 已经给出 null_recognition_share = 1，越过阈值 > 0.99"
        "（测得：min_recognition_share = 1）")


def test_a_failing_test_without_an_unless_reads_in_a_condition():
    says = "also at the narrowest width (d=8)"
    assert condition_zh(f"not: {says}; only the local part") == "不成立：在最窄的宽度（d=8）上也是如此；只有局部部分成立"
    assert condition_zh("not: a test no ledger has") == "not: a test no ledger has"


def _scenarios(claim) -> list[dict]:
    """Estimates for every statistic and null ``claim`` reads, in five readings that take the reason down each of
    judge's paths: everything passes; the tests fail (a power requirement too); a null passes its bar; every number
    straddles its bar; every number too thin for an interval."""
    tests = (*claim.requires, *claim.tests)

    def side(t, passes: bool) -> float:
        step = max(1.0, abs(t.threshold))
        return t.threshold + step if (t.op == ">") == passes else t.threshold - step

    def reading(stat_passes, null_passes, kind="exact"):
        found = {}
        for t in tests:
            value = side(t, stat_passes(t))
            found[t.statistic] = exact(value) if kind == "exact" else \
                Estimate(t.threshold, t.threshold - 1, t.threshold + 1, 20, "bootstrap") if kind == "straddle" else \
                Estimate(value, -math.inf, math.inf, 2, "bootstrap")
            if t.null:
                found[t.null] = exact(side(t, null_passes))
        return found

    return [reading(lambda t: True, False), reading(lambda t: t in claim.requires and t.role != "power", False),
            reading(lambda t: True, True), reading(lambda t: True, False, "straddle"),
            reading(lambda t: True, False, "thin")]


def test_every_reason_the_ledger_can_give_reads_in_chinese():
    """Every claim of the ledger judged on made-up numbers along each of judge's paths (and under each option of its
    choice, with the headline's note), in full and quick mode: no English sentence is left in its Chinese, and each
    of its tests' words that the reason names is read in Chinese. Independent of any committed report, so a test
    added to the ledger without its Chinese fails here."""
    from posenc.report.measurement import Measurement
    from posenc.report.run import judge_claim

    read = set()
    for claim in LEDGER:
        options = claim.choice.options if claim.choice else ()
        for estimates in ([{}] if claim.untestable else _scenarios(claim)):
            for quick in (False, True):
                measurement = Measurement({}, estimates=estimates, variants={o: estimates for o in options})
                verdict, _ = judge_claim(claim, measurement, quick=quick)
                zh = reason_zh(verdict.reason, options)
                assert not english_sentences(zh), (claim.id, english_sentences(zh), verdict.reason)
                read |= {t.says for t in (*claim.requires, *claim.tests) if f"{t.says}: " in verdict.reason}
    assert len(read) >= 0.9 * len(_ledger_says())  # the made-up numbers reach nearly every test's words
