"""The claims that :mod:`posenc.report.experiments.tutorial_tables` measures, as records: what each
sentence says, the test that decides it, its null and the reason for its bar (:class:`posenc.report.claim.Claim`)."""

from __future__ import annotations

from posenc.report.claim import Choice, Claim, Test
from posenc.report.claims.tables import ROUND_OFF
from posenc.report.experiments.tables import DIFFERENT, SAME
from posenc.report.experiments.tutorial_tables import DISTINCT_WIDTHS, FF_OPTIONS, FIGURE_WIDTHS

__all__ = ["CLAIMS"]


# ---------------------------------------------------------------------------------------------------------------
# the claims these experiments test
# ---------------------------------------------------------------------------------------------------------------
EXACT = "the numbers are exact, so any bar between the alternatives gives the same verdict"


#: why an exact number of a formula, a table or a configuration has no null beside it
EXACT_NO_NULL = "exact: computed from the formula, the table or the configuration, not sampled"


#: what the claims of this module compare with
NO_NULL = "exact: no null (formulas, tables and configurations, computed, not sampled)"


CLAIMS: tuple[Claim, ...] = (
    Claim("concat-doubles-parameters", "tutorial 003 §14.3.2", "tutorial", "Concat doubles the later layers",
          "Concatenating the position vector doubles the width (512 -> 1024), and so doubles the parameter count of "
          "every later layer.",
          "concat_parameters", (
              Test("later_layer_ratio", ">", 1.8, "the later layers' parameters grow at least about twofold (the "
                   "claim's direction: concatenation costs parameters)", "'翻倍' (doubles), within 10%",
                   unless="they grow less than twofold", no_null=EXACT_NO_NULL),
              Test("later_layer_ratio", "<", 2.2, "and by no more than about twofold, as stated",
                   "'翻倍' (doubles), within 10%", role="condition",
                   unless="the cost is larger than stated: the later layers grow {value}-fold, not twofold (a "
                          "layer's weights scale with the width squared)", no_null=EXACT_NO_NULL)),
          choice=Choice("feed-forward width", tuple(FF_OPTIONS), "4 x width",
                        "the original's d_ff = 2048 is 4 x d_model, the rule posenc's model and most Transformers "
                        "keep when the width changes"),
          quote="这意味着所有后续层的参数量都要翻倍!", revision=5,
          null=NO_NULL,
          title_zh="拼接让所有后续层的参数量翻倍"),
    Claim("periodicity-distinctness", "tutorial 002", "tutorial", "Long sequences blur positions",
          "As the sequence grows, the sinusoid's periodicity makes different positions gradually less distinct.",
          "sinusoid_distinctness", (
              Test("nearest_ratio", "<", 0.9, "the nearest two of 100,000 positions are at least 10% closer than the "
                   "nearest two of 16", "'逐渐降低' (gradually lower) must show as a drop; " + EXACT, no_null=EXACT_NO_NULL),),
          requires=(Test("table_check", "<", 1e-9, "the formula's nearest distance equals that of posenc's table "
                         "(n=1024, d=512)", "float64 round-off", otherwise="not testable", no_null=EXACT_NO_NULL),),
          choice=Choice("width", DISTINCT_WIDTHS, "d=512",
                        "the width tutorials 001 and 003 name (d_model = 512, the original Transformer's); the narrow "
                        "widths show where the claim starts to hold"),
          quote="随着序列长度的增加，位置编码的周期性可能导致不同位置之间的区分度逐渐降低，难以准确表示极长序列中各个位置的独特信息。",
          revision=4, null=NO_NULL,
          title_zh="序列变长时位置之间的区分度降低"),
    Claim("continuous-compact", "tutorial 001 §3.2", "tutorial", "The sinusoid is more compact than binary",
          "Because its values are floating-point numbers, the continuous (sinusoidal) code needs fewer dimensions "
          "than the binary code to tell the same positions apart.",
          "continuous_compact", (
              Test("dims_ratio_float32", "<", 1, "at float32 resolution (the document's premise) the sinusoid needs "
                   "fewer dimensions than binary for 1024 positions", "fewer dimensions; " + EXACT, no_null=EXACT_NO_NULL),
              Test("dims_ratio_one_bit", "<", 1, "also when positions must stay as far apart as binary neighbours "
                   "(distance 1, one bit flip; both codes have mean square 1/2 per channel)",
                   "fewer dimensions; " + EXACT, role="condition",
                   unless="only when positions may lie closer together than binary neighbours do: at the binary "
                          "code's own spacing (distance 1) the sinusoid needs more dimensions", no_null=EXACT_NO_NULL)),
          quote="由于输出是浮点数,因此此类连续表示比二进制表示法更节省空间。",
          revision=4, null=NO_NULL,
          title_zh="连续表示比二进制表示更节省空间"),
    Claim("one-linear-rule", "tutorial 001 §3.3", "tutorial", "One linear rule for every offset",
          "A model needs to learn only one uniform linear rule to recognise \"delta apart\": the k-step map is the "
          "1-step map applied k times, and a bilinear score built from it finds the position k back at every "
          "position.",
          "sinusoid_offset_rule", (
              Test("max_composition_error", "<", SAME, "the fitted k-step map equals the 1-step map applied k times",
                   ROUND_OFF, no_null="an identity checked to round-off: no chance level"),
              Test("min_recognition_share", ">", 0.99, "the score PE[i] . PE[j] M_k picks the key k back for every "
                   "query (worst offset)", "every query, 1% for ties; between the null (random tables of the same "
                   "shape, each with its own best linear maps, which reach about 0.9 of the queries: a map fitted "
                   "to 256 rows in 64 dimensions recognises most of them) and the effect (every query: 1)",
                   null="null_recognition_share")),
          requires=(Test("max_random_share", "<", 0.99, "a random (learned-like) table with its own best maps does "
                         "not reach the bar at any offset", "the test must be able to fail: the null below the "
                         "test's own bar (it was 0.9, which the random table's 0.891 met by 0.009)",
                         otherwise="not testable", no_null="the null's best offset: a check of the bar itself"),),
          quote="而只需学习一个统一的、线性的变换规则来识别“相距\\(\\delta\\)个单位”这一相对概念。", revision=4,
          null="random N(0, 1) tables of the same shape (5), each with its own least-squares maps",
          title_zh="一个统一的线性规则适用于所有偏移"),
    Claim("worked-example", "tutorial 002", "tutorial", "The worked example: position 2, d = 4",
          "At d = 4, position 2 is encoded as (sin(2), cos(2), sin(0.02), cos(0.02)).",
          "worked_example", (
              Test("max_difference", "<", 1e-6, "posenc's table equals the printed vector", "float32 round-off "
                   "(2^-23 of values up to 1)", no_null=EXACT_NO_NULL),),
          requires=(Test("neighbour_difference", ">", DIFFERENT, "positions 1 and 3 do not match it",
                         "the test must be able to fail", otherwise="not testable", no_null=EXACT_NO_NULL),),
          quote="最终，位置 2 的编码向量为：$(𝑠𝑖𝑛(2),𝑐𝑜𝑠(2),𝑠𝑖𝑛(0.02),𝑐𝑜𝑠(0.02))$",
          revision=3, null=NO_NULL,
          title_zh="计算示例：d = 4 时位置 2 的编码"),
    Claim("dims-period-figure", "tutorial 002", "tutorial", "Figure: higher dims, longer periods",
          "Over 128 positions, dimensions 2, 6 and 12 change periodically, and the higher the dimension, the longer "
          "the period.",
          "dims_figure", (
              Test("min_periods_in_window", ">", 2, "each of the three dims completes at least two periods in the 128 "
                   "positions", "a periodic change is visible with two periods", unless="not periodic within the "
                   "128 positions drawn", no_null=EXACT_NO_NULL),
              Test("min_period_ratio", ">", 1.01, "each higher dim's period is longer than the lower one's",
                   "beyond the period read-out's error (< 0.1%)", unless="the period does not grow with the "
                   "dimension", no_null=EXACT_NO_NULL)),
          requires=(Test("max_period_error", "<", 1e-3, "the periods read off the curves match the formula",
                         "the read-out must be right to judge", otherwise="not testable", no_null=EXACT_NO_NULL),),
          choice=Choice("width", FIGURE_WIDTHS, "d=64",
                        "tutorial 002 prints no width; d=64 is posenc's reproduction of this figure (posenc plot --kind "
                        "dims), fixed before this claim"),
          quote="这三张图分别打印了 128 个位置向量第 2、6、12 维度的编码值的变化，我们发现这些值呈现周期性的变化。另外，我们也可以发现，向量维度越高，其周期就越长。",
          revision=4, null=NO_NULL,
          title_zh="图：向量维度越高，周期越长"),
    Claim("positions-closer-figure", "tutorial 002", "tutorial", "Figure: positions 1 and 5 meet in high dims",
          "Positions 1 and 5 have different vectors, and the higher the dimension, the smaller the values' "
          "fluctuation and the closer the two vectors.",
          "positions_figure", (
              Test("distance", ">", DIFFERENT, "the two vectors differ", "far above round-off",
                   unless="the two positions share a vector", no_null=EXACT_NO_NULL),
              Test("rank_correlation", "<", -0.9, "the pairwise distance falls with the pair index",
                   "a near-monotone trend (Spearman)", unless="the distance does not fall with the dimension", no_null=EXACT_NO_NULL),
              Test("high_low_ratio", "<", 0.1, "the highest quarter of pairs is 10x closer than the lowest",
                   "an order of magnitude", unless="the high dimensions do not bring them close", no_null=EXACT_NO_NULL)),
          choice=Choice("width", FIGURE_WIDTHS, "d=64",
                        "tutorial 002 prints no width; d=64 is posenc's reproduction of this figure (posenc plot --kind "
                        "positions), fixed before this claim"),
          quote="另外，也可以看到，向量的维度越高，编码值的波动就越小，向量就越接近。",
          revision=3, null=NO_NULL,
          title_zh="图：维度越高，位置 1 和 5 越接近"),
    Claim("model-encodings", "tutorial 003 §14.6, tutorial 001 §4.1", "tutorial", "Which model uses which encoding",
          "GPT-2 and the GPT series add a learned position table (BERT too), while LLaMA and GPT-NeoX use RoPE.",
          "model_encodings", (
              Test("mismatches", "<", 0.5, "every named model's configuration describes the encoding the documents "
                   "name", "no mismatch", no_null=EXACT_NO_NULL),),
          requires=(Test("kinds_detected", ">", 1.5, "the reading finds both learned tables and rotary embeddings",
                         "the test must be able to fail", otherwise="not testable", no_null=EXACT_NO_NULL),),
          quote="LLaMA、GPT-NeoX 等现代模型都使用 RoPE。", revision=6,
          null=NO_NULL,
          title_zh="各个模型使用哪种位置编码"),
)
