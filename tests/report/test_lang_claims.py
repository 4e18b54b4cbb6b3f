"""The Chinese of the conditions a verdict builds: every ``unless`` of the ledger has its Chinese, a qualified
verdict's condition (as :func:`posenc.report.verdict.judge` joins it) reads back into Chinese piece by piece, every
part of the committed report's scope lines, and of those only full and extended runs write, has its Chinese with the
same numbers, every reason and scope of the three committed reports reads with no English sentence left, and the page
carries both languages of each."""

from __future__ import annotations

import re

from lang_check import committed_claims, english_sentences
from markupsafe import escape

from posenc.report.claim import Test
from posenc.report.lang import placeholders
from posenc.report.lang_claims import SCOPE_NUMBER, SCOPE_ZH, UNLESS_ZH, condition_zh, reason_zh, scope_zh
from posenc.report.lang_says import SAYS_ZH
from posenc.report.ledger import LEDGER, get_claim
from posenc.report.verdict import judge
from posenc.stats import MIN_UNITS, exact

CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")


def _ledger_unless() -> dict[str, list[str]]:
    """Every ``unless`` of the ledger -> the claims that use it."""
    found: dict[str, list[str]] = {}
    for claim in LEDGER:
        for test in (*claim.requires, *claim.tests):
            if test.unless:
                found.setdefault(test.unless, []).append(claim.id)
    return found


def test_every_unless_of_the_ledger_has_its_chinese():
    used = _ledger_unless()
    missing = {text: ids for text, ids in used.items() if text not in UNLESS_ZH}
    assert not missing, f"add the Chinese of these unless texts to posenc.report.lang_claims.UNLESS_ZH: {missing}"
    stale = set(UNLESS_ZH) - set(used)
    assert not stale, f"no test of the ledger says these any more; drop them from UNLESS_ZH: {stale}"


def test_each_chinese_is_chinese_with_the_same_placeholders_and_keeps_latin_names():
    for english, chinese in UNLESS_ZH.items():
        assert CJK.search(chinese) and chinese != english, (english, chinese)
        assert placeholders(chinese) == placeholders(english), (english, chinese)
        # model names, code names and quoted words stay in Latin script: each capitalised or quoted one is kept
        for name in re.findall(r"'[a-z]+'|\b[A-Z][A-Za-z]*[A-Z][A-Za-z]*\b|\bd_model\b", english):
            assert name in chinese, (name, english, chinese)


def _judged(claim_id: str, values: dict[str, float]):
    claim = get_claim(claim_id)
    return claim, judge(claim, {name: exact(value) for name, value in values.items()})


def test_a_single_failing_condition_with_its_value_reads_back_with_the_value():
    # later_layer_ratio 4.0: > 1.8 passes (core), < 2.2 fails (condition): qualified, {value} = 4
    claim, verdict = _judged("concat-doubles-parameters", {"later_layer_ratio": 4.0})
    assert verdict.status == "qualified" and "grow 4-fold" in verdict.condition
    assert condition_zh(verdict.condition, claim.tests) == \
        "开销比所说的更大：后面的层增长到 4 倍，而不是两倍（一层的权重与宽度的平方成正比）"


def test_two_failing_conditions_joined_by_semicolons_each_read_back():
    # the core test holds at 128 tokens, both conditions fail; the first unless itself holds "; "
    claim, verdict = _judged("positional-heads", {"positional_heads_128": 1.0, "positional_heads_256": 0.0,
                                                  "positional_heads_512": 0.0})
    assert verdict.condition == ("supported at 128 tokens (the fine-tuning length); refuted at 256 tokens; "
                                 "refuted at 512 tokens")
    assert condition_zh(verdict.condition, claim.tests) == \
        "在 128 个词元（微调长度）时得到支持；在 256 个词元时被推翻；在 512 个词元时被推翻"


def test_a_piece_no_test_accounts_for_stays_as_written():
    unless = Test("x", ">", 1.0, "x is large", "the ledger", unless="only the local part", no_null="exact")
    assert condition_zh("not: y is small; only the local part", [unless]) == "not: y is small；只有局部部分成立"
    assert condition_zh("a condition of an older run", [unless]) == "a condition of an older run"
    assert condition_zh("some tests undecided", [unless]) == "有些检验未能判定"
    assert condition_zh("only the local part", []) == "only the local part"  # not this claim's test


def test_the_page_carries_a_qualified_condition_in_both_languages(tmp_path):
    from posenc.report.measurement import Measurement
    from posenc.report.render import _groups, render_html
    from posenc.report.result import ClaimResult, ReportResult

    claim, verdict = _judged("concat-doubles-parameters", {"later_layer_ratio": 4.0})
    result = ClaimResult(claim, verdict, Measurement({}), True)
    page = render_html(ReportResult(tmp_path, tmp_path / "index.html", tmp_path / "report.json", [result], True, None))
    zh = condition_zh(verdict.condition, claim.tests)
    span = (f'<span class="condition" data-en="{verdict.condition}" data-zh="{zh}">{verdict.condition}</span>'
            ).replace("'", "&#39;")
    assert page.count(span) == 2  # the summary's note and the section's verdict
    [group] = _groups([result], None)
    assert group["rows"][0]["note"] == span


def _committed_scopes() -> set[str]:
    """The scope lines of the committed quick report (docs/reports/quick.json): what the experiments write."""
    import json
    from pathlib import Path

    report = json.loads((Path(__file__).parents[2] / "docs" / "reports" / "quick.json").read_text(encoding="utf-8"))
    return {c["scope"] for c in report["claims"] if c.get("scope")}


def test_every_part_of_the_committed_scope_lines_has_its_chinese():
    scopes = _committed_scopes()
    assert len(scopes) >= 30
    missing = {SCOPE_NUMBER.sub("{}", part) for scope in scopes for part in scope.split("; ")} - set(SCOPE_ZH)
    assert not missing, f"add the Chinese of these scope templates to posenc.report.lang_claims.SCOPE_ZH: {missing}"
    for scope in scopes:
        zh = scope_zh(scope)
        assert CJK.search(zh) and zh != scope, (scope, zh)
        assert SCOPE_NUMBER.findall(zh) == SCOPE_NUMBER.findall(scope), (scope, zh)  # the same numbers, in order


def test_each_scope_template_has_as_many_slots_in_chinese_and_keeps_its_names():
    for english, chinese in SCOPE_ZH.items():
        assert english.count("{}") == chinese.count("{}"), (english, chinese)
        for name in re.findall(r"all-MiniLM-L6-v2|SmolLM2-135M|float32|d_model|max_len|posenc|RoPE|SGD", english):
            assert name in chinese, (name, english, chinese)


def test_a_scope_line_reads_back_with_its_numbers_and_leaves_the_rest():
    # the numbers of names are not slots: L6, v2, 135M and float32 stay in the template
    assert SCOPE_NUMBER.findall("SmolLM2-135M, 4 windows of 64 tokens, float32, d=384, 20,000 pairs, 5.24.0") == \
        ["4", "64", "384", "20,000", "5.24.0"]
    assert scope_zh("all-MiniLM-L6-v2 layer 0, 8 windows of 128, 256, 512 tokens (headline 128)") == \
        "all-MiniLM-L6-v2 第 0 层，8 个窗口，长 128、256、512 个词元（主结论取 128）"
    assert scope_zh("2-layer lab models of width 32, 3 seeds, char-LM trained at 32 characters; 7 random tables") \
        == "2 层、宽度 32 的 lab 模型，3 个种子，char-LM 在 32 个字符上训练；7 个随机表"
    assert scope_zh("a scope no table knows; 5 random tables") == "a scope no table knows；5 个随机表"


def test_the_page_carries_the_scope_line_in_both_languages(tmp_path):
    from posenc.report.measurement import Measurement
    from posenc.report.render import render_html
    from posenc.report.result import ClaimResult, ReportResult
    from posenc.report.verdict import supported

    scope = "posenc's sinusoid table (float32), computed exactly"
    zh = "posenc 的正弦表（float32），精确计算"
    result = ClaimResult(get_claim("sin-bounded"), supported("holds"), Measurement({"x": 1.0}, scope=scope), True)
    page = render_html(ReportResult(tmp_path, tmp_path / "index.html", tmp_path / "report.json", [result], True, None))
    escaped = scope.replace("'", "&#39;")
    assert f'<dd class="scope"><span data-en="{escaped}" data-zh="{zh}">{escaped}</span></dd>' in page
    assert (f'<span data-i18n="verdict.scope" class="scope" data-p-scope="{escaped}" data-p-scope-zh="{zh}">'
            f'on {escaped}</span>') in page


#: the English of the reason's fixed parts (never words of a test's ``says``): none may be left in a Chinese reason
FIXED_ENGLISH = re.compile(r"\(needs [<>]|\) — (?:holds|does not hold|undecided)|requirement (?:not met|undecided)|"
                           r"Undecided: |straddles|samples instead of|Quick mode cannot|the bar does not|past the bar|"
                           r"across the bar|It would be refuted|The claim is hedged|not testable as written|"
                           r"\[Rests on|no interval:|on the threshold; no sample")


def test_the_fixed_parts_of_every_committed_reason_read_in_chinese():
    """Every verdict's reason in the committed full, extended, quick and follow-up reports (what judge wrote):
    after reason_zh none of its fixed English is left, and its numbers are the same, in order."""
    import json
    from pathlib import Path

    folder = Path(__file__).parents[2] / "docs" / "reports"
    reasons = {c["verdict"]["reason"] for path in sorted(folder.glob("*.json"))
               for c in json.loads(path.read_text(encoding="utf-8"))["claims"]}
    fixed = [r for r in reasons if FIXED_ENGLISH.search(r)]
    assert len(fixed) >= 50  # the check reads real reasons
    for reason in fixed:
        zh = reason_zh(reason)
        assert not FIXED_ENGLISH.search(zh), (reason, zh)
        assert re.findall(r"\d+(?:\.\d+)?", zh) == re.findall(r"\d+(?:\.\d+)?", reason), (reason, zh)


def test_an_undecided_reason_reads_in_chinese_with_its_numbers():
    from posenc.stats import Estimate

    claim = get_claim("sin-bounded")  # one core test: max_abs < 1.000001
    # 0.9 [0.5, 1.3] against 1.000001 over 20 units: ((0.4 / 0.100001)^2 * 20 = 319.99 -> 320 samples
    straddles = judge(claim, {"max_abs": Estimate(0.9, 0.5, 1.3, 20, "bootstrap")})
    assert straddles.status == "inconclusive"
    says = "在所测的任何位置上，取值的绝对值都不超过 1"  # the Chinese of its test's words
    assert reason_zh(straddles.reason) == (
        f"{says}：max_abs = 0.9 [0.5, 1.3]（需要 < 1.000001）— 未定。未定：max_abs = 0.9 [0.5, 1.3] 跨过 1.000001；"
        "若数值不变，约 320 个样本（而非 20 个）即可判定")
    too_few = judge(claim, {"max_abs": Estimate(1.0, -float("inf"), float("inf"), 2, "bootstrap")}, quick=True)
    assert too_few.status == "not decided in quick mode"
    k = MIN_UNITS
    assert reason_zh(too_few.reason) == (
        f"{says}：max_abs = 1 [没有区间：n=2，区间至少需要 {k}]（需要 < 1.000001）— 未定（n=2：没有区间）。未定：max_abs 只基于 "
        f"n=2，太少而没有区间：至少需要 {k} 个独立单元。快速模式无法判定：其数字所基于的单元太少，不足以给出区间（至少 {k} 个）；"
        "完整报告可以判定")
    assert reason_zh("a reason no pattern knows") == "a reason no pattern knows"


def test_the_page_carries_the_reason_in_both_languages(tmp_path):
    from posenc.report.measurement import Measurement
    from posenc.report.render import render_html
    from posenc.report.result import ClaimResult, ReportResult

    claim, verdict = _judged("concat-doubles-parameters", {"later_layer_ratio": 4.0})
    result = ClaimResult(claim, verdict, Measurement({}), True)
    page = render_html(ReportResult(tmp_path, tmp_path / "index.html", tmp_path / "report.json", [result], True, None))
    zh = reason_zh(verdict.reason, claim.choice.options)
    assert "（需要 < 2.2）— 不成立" in zh
    for test in claim.tests:  # each test's own words in Chinese, none left in English
        assert f"{SAYS_ZH[test.says]}：{test.statistic} = " in zh and test.says not in zh
    en = escape(verdict.reason)
    assert f'<span class="reason" data-en="{en}" data-zh="{escape(zh)}">{en}</span>' in page


def test_the_summary_note_of_an_undecided_claim_carries_its_shortened_reason_in_both_languages():
    from posenc.report.measurement import Measurement
    from posenc.report.render import _groups, _short
    from posenc.report.result import ClaimResult
    from posenc.stats import Estimate

    claim = get_claim("sin-bounded")
    verdict = judge(claim, {"max_abs": Estimate(0.9, 0.5, 1.3, 20, "bootstrap")})
    [group] = _groups([ClaimResult(claim, verdict, Measurement({}), True)], None)
    note = group["rows"][0]["note"]
    zh = _short(reason_zh(verdict.reason))  # translated whole, then cut: the cut would break the fixed parts
    assert f'data-en="{escape(_short(verdict.reason))}"' in note and f'data-zh="{escape(zh)}"' in note
    assert "max_abs = 0.9 [0.5, 1.3]（需要 < 1.000001）" in zh and "needs" not in zh


def test_the_english_sentence_check_tells_sentences_from_names_numbers_and_code():
    for kept in ("RoPE 和 ALiBi 的对数困惑度", "all-MiniLM-L6-v2，8 个 128 词元的窗口", "Vaswani et al. 2017 §3.4",
                 "max_abs = 1（需要 < 1.001）", "N(0, 1/d) x sqrt(d)：支持", "`posenc report --claim pi-yarn`",
                 "'The sequence length was limited to 128 tokens'", "token accuracy（词元准确率）",
                 "SmolLM2-135M-Instruct（30 层 x 9 个注意力头）", "posenc plot --kind dims"):
        assert english_sentences(kept) == [], kept
    for english in ("the probe reads both: x = 1", "前提未满足：The claim is hedged", "宽度（the width seeds 001）",
                    "king and queen are not close"):
        assert english_sentences(english), english


def test_every_reason_and_scope_of_the_committed_reports_reads_in_chinese():
    """The three committed reports (docs/reports/quick.json, full.json, extended.json), each claim's verdict reason
    and scope line as the page's Chinese reading renders them: no English sentence is left (lang_check's
    definition), the numbers are the same, in order, and the reasons were English to begin with."""
    claims = committed_claims()
    assert {name for name, _ in claims} == {"quick", "full", "extended"} and len(claims) >= 190
    english = 0
    for name, record in claims:
        choice = record.get("choice") or {}
        options = choice.get("options") or (get_claim(record["id"]).choice.options
                                            if get_claim(record["id"]).choice else ())
        reason = record["verdict"]["reason"]
        english += bool(english_sentences(reason))
        zh = reason_zh(reason, options)
        assert not english_sentences(zh), (name, record["id"], english_sentences(zh), zh)
        assert re.findall(r"\d+(?:\.\d+)?", zh) == re.findall(r"\d+(?:\.\d+)?", reason), (name, record["id"], zh)
        scope = record.get("scope") or ""
        if scope:
            assert not english_sentences(scope_zh(scope)), (name, record["id"], scope_zh(scope))
    assert english >= 0.9 * len(claims)  # the check reads English reasons: nearly every one holds a sentence


def _lab_and_extension_scopes() -> set[str]:
    """The scope lines the lab's sweeps and SmolLM2's long runs give in quick and full mode, at 1, 2, 3 and 10
    seeds, computed by the experiments' own functions (the committed quick report holds the quick ones only)."""
    from posenc.report.experiments import extension, field, research, training
    from posenc.report.present.training import lab_scope

    scopes = set()
    for quick in (True, False):
        for seeds in (1, 2, 3, 10):
            for sweep in (training.task_sweep, training.lm_sweep, research.research_lm_sweep, research.prope_sweep,
                          research.counting_sweep, field.field_lm_sweep):
                scopes.add(lab_scope(sweep(quick, seeds)))
            scopes.add(lab_scope({**field.irope_sweep(quick, seeds), "grid": {}}))
    for plan in (extension.FULL, extension.RESCUE):
        scopes.add(f"SmolLM2-135M, {plan.windows} windows of {plan.long} tokens, passkey {plan.trials} trials per cell")
    return scopes


def test_the_scope_lines_only_full_and_extended_runs_show_read_in_chinese():
    scopes = _lab_and_extension_scopes()
    assert any("reverse, sort; addition" in s for s in scopes) and any("passkey" in s for s in scopes)
    for scope in scopes:
        zh = scope_zh(scope)
        assert CJK.search(zh) and not english_sentences(zh), (scope, zh)
        assert SCOPE_NUMBER.findall(zh) == SCOPE_NUMBER.findall(scope), (scope, zh)
    assert scope_zh("2-layer lab models of width 64, 3 seeds, trained on sizes up to 8 (copy, reverse, sort; addition "
                    "at width 128, up to 4)") == \
        "2 层、宽度 64 的 lab 模型，3 个种子，在规模至多 8 的数据上训练（copy、reverse、sort；addition 的宽度为 128，规模至多 4）"
