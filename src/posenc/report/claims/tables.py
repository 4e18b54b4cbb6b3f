"""The claims that :mod:`posenc.report.experiments.tables` measures, as records: what each
sentence says, the test that decides it, its null and the reason for its bar (:class:`posenc.report.claim.Claim`)."""

from __future__ import annotations

from posenc.report.claim import Claim, Test
from posenc.report.experiments.tables import DIFFERENT, SAME

__all__ = ["CLAIMS"]


ROUND_OFF = "float32 round-off"


#: why a computed table's numbers have no null: nothing is sampled, so chance has no part in them
COMPUTED = ("computed exactly from the table (no sample, no random draw): chance has no part in it; where the check "
            "must be able to fail, a requirement shows that it does")


def without_null(claim: Claim, reason: str = COMPUTED, null: str = "exact: no null") -> Claim:
    """``claim`` with ``reason`` as the :attr:`~posenc.report.claim.Test.no_null` of every test and requirement that
    names neither a null nor a reason, and ``null`` as its :attr:`~posenc.report.claim.Claim.null` when it has none:
    for claims whose numbers are computed, not sampled."""
    from dataclasses import replace

    def fill(t: Test) -> Test:
        return t if t.null or t.no_null else replace(t, no_null=reason)

    return replace(claim, tests=tuple(fill(t) for t in claim.tests), requires=tuple(fill(t) for t in claim.requires),
                   null=claim.null or null)


CLAIMS: tuple[Claim, ...] = tuple(without_null(c) for c in (
    Claim("integer-positions", "tutorial 000 §2.1", "tutorial", "Integer positions fail",
          "Marking positions 1, 2, 3, ... grows without bound, swamps the embedding, leaves the training range and "
          "cannot express relative position: moving k places is an exact translation (PE[p+k] = PE[p] + k), but "
          "attention compares positions by dot products, and with integer codes every position-only logit is, for a "
          "given query, affine in the key's number, so it can favour the first or the last key, never the key k "
          "places back.",
          "naive_integer_relative", (
              Test("growth_test_over_train", ">", 2, "the largest value grows with the length (512 vs 64)",
                   "tutorial's text: 'grows without bound'", unless="it does not grow with length"),
              Test("rms_ratio_test", ">", 10, "its RMS swamps a unit-scale embedding (> 10x)",
                   "an order of magnitude", unless="it does not swamp the embedding"),
              Test("unseen_fraction_test", ">", 0.5, "most test positions carry values never seen in training",
                   "a majority", unless="test values stay within the training range"),
              Test("integer_best_share", "<", 0.1, "no position-only attention logit points at the key k places "
                   "back for more than 10% of the queries (k = 1, 2, 4, 8)", "a relative pattern must hold at most "
                   "positions; the number is an exact bound", unless="attention can read relative position from it")),
          requires=(Test("sinusoid_shift_share", ">", 0.9, "the same read-out finds the key k back with the sinusoid",
                         "the test must be able to pass", otherwise="not testable"),),
          quote="无法表达相对位置信息", revision=5,
          title_zh="用增长数值标记位置行不通"),
    Claim("unit-interval-positions", "tutorial 000 §2.2", "tutorial", "[0, 1] positions depend on length",
          "Squeezing positions into [0, 1] makes the distance between neighbours depend on the sequence length.",
          "naive_normalized", (
              Test("step_ratio_shortest_longest", ">", 2, "the neighbour step at n=3 is more than twice that at "
                   "n=1000", "a factor of 2"),),
          quote="这样产生的问题是, 序列长度不同, 相对距离也不同, 模型可能认为这是单词语义发生了变化",
          revision=4, title_zh="用 [0, 1] 范围标记位置，相对距离随长度而变"),
    Claim("binary-positions", "tutorial 000 §2.3", "tutorial", "Binary positions jump",
          "Binary position vectors change discontinuously between neighbours, so relative position is hard to infer.",
          "naive_binary", (
              Test("neighbour_distance_max_over_min", ">", 2, "neighbour distances vary (max >= 2x min)",
                   "a factor of 2", unless="neighbour distances are even"),
              Test("neighbour_distance_cv", ">", 0.1, "their spread (std/mean) exceeds 0.1", "10% spread",
                   unless="neighbour distances are even"),
              Test("relative_map_residual", ">", 0.05, "no linear map independent of p (a full d x d matrix, least squares) "
                   "predicts PE[p+1] from PE[p]", "5% residual", unless="a linear relative map exists")),
          quote="但这样也存在问题, 不同单词间的位置变化不连续, 难以推测相对位置信息",
          revision=4, title_zh="用二进制向量标记位置，位置变化不连续"),
    Claim("sin-bounded", "tutorial 001 §3.1", "tutorial", "Sin/cos values are bounded",
          "Sinusoidal position values always lie in [-1, 1].",
          "sinusoid_bounded", (
              Test("max_abs", "<", 1 + 1e-6, "no value exceeds 1 in absolute value, at any position tested",
                   "the bound of sin and cos, plus float32 rounding"),),
          quote="正弦和余弦函数的值域永远被限制在\u00a0[-1, 1]\u00a0之间。",
          revision=4, title_zh="正弦/余弦的值域限制在 [-1, 1] 之间"),
    Claim("sin-unique", "tutorial 001 §3.2, tutorial 002", "tutorial", "Every position is unique",
          "Every position gets a different sinusoidal vector.",
          "sinusoid_unique", (
              Test("min_pairwise_distance", ">", DIFFERENT, "the two closest positions are further apart than "
                   "1e-3", "far above float32 round-off", unless="some positions nearly collide"),
              Test("duplicate_rows_float32", "<", 0.5, "every float32 row is distinct", "no duplicates")),
          quote="位置编码向量是唯一的，因为不同位置的编码由不同的正弦和余弦值组成",
          revision=4, title_zh="位置编码向量是唯一的"),
    Claim("sin-relative-linear", "tutorial 001 §3.3", "tutorial", "PE[p+k] is linear in PE[p]",
          "For every offset k, PE[p+k] is a fixed linear function (a rotation per channel pair) of PE[p], the same "
          "for every p.",
          "sinusoid_relative_linear", (
              Test("max_residual", "<", SAME, "one 2x2 map per pair and offset fits every p", ROUND_OFF),
              Test("max_half_difference", "<", DIFFERENT, "maps fitted on either half of the positions agree",
                   "far above round-off"),
              Test("max_vs_rotation", "<", DIFFERENT, "the fitted maps are the rotations R(k w_i)",
                   "far above round-off")),
          requires=(Test("min_random_residual", ">", 0.1, "a random table does not fit a linear map",
                         "the test must be able to fail", otherwise="not testable"),),
          quote="这是因为对于任何确定的位置偏移\\(\\delta\\),位置\\(i + \\delta\\)处的位置编码可以线性投影位置\\(i\\)处的"
                "位置编码来表示。",
          revision=4, title_zh="PE[p+k] 可由 PE[p] 线性投影得到"),
    Claim("local-global-dims", "tutorial 002", "tutorial", "Low dims local, high dims global",
          "Low (fast) dimensions of the sinusoid capture local position, high (slow) dimensions global position.",
          "sinusoid_local_global", (
              Test("step_ratio_low_high", ">", 10, "neighbours move > 10x more in the lowest quarter of dims",
                   "an order of magnitude", unless="only the global part"),
              Test("high_position_r2", ">", 0.9, "a linear read-out recovers p from the highest quarter",
                   "R^2 0.9", unless="only the local part"),
              Test("low_position_r2", "<", 0.5, "but not from the lowest quarter", "R^2 0.5",
                   unless="only the local part")),
          quote="正余弦位置编码通过在不同维度上引入不同波长的正余弦信号，使得低维对局部位置变化敏感，高维对全局位置变化敏感。",
          revision=3, title_zh="低维对局部位置敏感，高维对全局位置敏感"),
    Claim("sin-extrapolates-theory", "tutorial 003 §14.8.3", "tutorial", "The sinusoid extrapolates in theory",
          "The fixed sinusoid can in theory be extended to any length.",
          "sinusoid_extrapolation_theory", (
              Test("far_max_abs", "<", 1 + 1e-6, "far past the trained range the values stay in [-1, 1]", "bound"),
              Test("far_min_distance", ">", DIFFERENT, "and stay distinct", "far above round-off"),
              Test("transfer_residual", "<", SAME, "the relative maps fitted inside the range still hold",
                   ROUND_OFF)),
          quote="固定(正弦/余弦)理论上可外推到任意长度",
          revision=4, title_zh="正弦/余弦编码理论上可外推到任意长度"),
))
