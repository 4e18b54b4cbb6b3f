"""The claims that :mod:`posenc.report.experiments.tutorial_mechanics` measures, as records: what each
sentence says, the test that decides it, its null and the reason for its bar (:class:`posenc.report.claim.Claim`)."""

from __future__ import annotations

from posenc.report.claim import Claim, Test, untestable_claim
from posenc.report.claims.tables import COMPUTED, ROUND_OFF, without_null
from posenc.report.experiments.tables import DIFFERENT, SAME

__all__ = ["CLAIMS"]


# ---------------------------------------------------------------------------------------------------------------
# the claims these experiments test
# ---------------------------------------------------------------------------------------------------------------
EXACT = "exact, so any bar between the alternatives gives the same verdict"


CLAIMS: tuple[Claim, ...] = tuple(without_null(c, COMPUTED) for c in (
    Claim("rnn-word-order", "tutorial 000 intro", "tutorial", "An RNN carries word order by construction",
          "A recurrent network is itself a sequential structure: with any weights, reordering its input changes what "
          "it computes, and its state tells positions apart.",
          "rnn_order", (
              Test("rnn_min_order_effect", ">", DIFFERENT, "reordering the words changes the outputs of every RNN, "
                   "GRU and LSTM tried (smallest effect over 5 random initialisations and 5 reorderings)",
                   "far above float32 round-off",
                   no_null="its null is this claim's requirement: self-attention without positions through the same "
                           "order-effect function on the same inputs (attention_max_order_effect, float32 round-off); "
                           "the bar sits a thousand times above it"),
              Test("rnn_min_position_gap", ">", DIFFERENT, "along a run of one repeated token the state still tells "
                   "neighbouring positions apart", "far above float32 round-off", role="condition",
                   unless="it carries the order of different words, but along a run of one repeated token its state "
                          "stops telling positions apart",
                   no_null="no position information means equal states, a gap of 0 up to float32 round-off (about "
                           "1e-7); the bar sits a thousand times above it, and a state that settles to a fixed point "
                           "reaches that null")),
          requires=(Test("attention_max_order_effect", "<", SAME, "self-attention without positions shows no order "
                         "effect (the measure can tell the cases apart)", ROUND_OFF, otherwise="not testable",
                         no_null="an identity: self-attention without positions is permutation-equivariant, so its "
                                 "order effect is 0 up to float32 round-off on any draw; it is the null of the tests"),),
          null="self-attention without positions through the same order-effect function (the requirement); float32 "
               "round-off for the position gap",
          quote="循环神经网络本身就是一种顺序结构, 天然包含了词在序列中的位置信息",
          revision=4, title_zh="RNN 天然包含词序信息"),
    Claim("binary-512-positions", "tutorial 000 §2.3", "tutorial", "512 bits can mark every position",
          "With d_model = 512 (or larger), the binary code can give basically every token's position a code of its "
          "own.",
          "binary_capacity", (
              Test("decode_errors", "<", 0.5, "every position checked (0..8191 and around every power of two up to "
                   "2^63 - 1) reads back from its code, so no two share one", "no error; " + EXACT),),
          requires=(Test("small_code_duplicates", ">", 0.5, "a code too short (the document's d_model = 3) does "
                         "repeat", "the check must be able to fail", otherwise="not testable"),),
          quote="d_model一般比较大(512, 1024…), 基本可以把每个token的位置都编码出来",
          revision=4, title_zh="512 位足以编码每个位置"),
    Claim("binary-alternation", "tutorial 001 §3.2", "tutorial", "Frequencies fall along the dimension, as in binary",
          "In binary, bit 0 alternates with every number, bit 1 every two, bit 2 every four: higher bits alternate "
          "less often; the sinusoid likewise lowers its frequency along the encoding dimension.",
          "frequency_order", (
              Test("binary_violations", "<", 0.5, "every bit j flips exactly every 2^j numbers", "none; " + EXACT),
              Test("sinusoid_order_violations", "<", 0.5, "every sinusoid pair (d = 512) has a lower frequency than "
                   "the pair before it, read off the table", "none; " + EXACT)),
          requires=(Test("shuffled_order_violations", ">", 0.5, "the same table with its pairs shuffled fails",
                         "the check must be able to fail", otherwise="not testable"),),
          quote="在二进制表示中,较高比特位的交替频率低于较低比特位,与下面的热图所示相似,只是位置编码通过使用三角函数在编码维度上降低频率。",
          revision=4, title_zh="频率沿维度降低，与二进制相似"),
    Claim("sinusoid-cost", "tutorial 002", "tutorial", "The sinusoid's cost grows with d and affects efficiency",
          "The sinusoid's compute and memory grow with the dimension, take more time and possibly a lot of memory, "
          "and affect the model's running efficiency (judged at 512 positions, the length the document names).",
          "sinusoid_cost", (
              Test("memory_growth", ">", 1.5, "the table's memory grows with d (d = 2048 against 64)", EXACT,
                   no_null="an exact byte count (positions x width x 4), not sampled"),
              Test("time_growth", ">", 1.5, "the time to compute the table grows with d (d = 2048 against 64)",
                   "between the null (the d = 64 table timed again in its place: 1) and a time that grows with the "
                   "width (32 for a 32 times wider table): 1.5 sits just past the null's timer noise, far below the "
                   "effect", null="time_growth_null"),
              Test("step_share", ">", 0.01, "at d_model = 512 the table takes at least 1% of a forward pass of the "
                   "six blocks", "between the null (an empty call timed in the table's place: the timer's own "
                   "share, about 1e-5) and a cost that shows in a step: 1% is the smallest share a step's "
                   "run-to-run spread does not hide", null="step_share_null",
                   role="condition", unless="its cost grows with d, but at d_model = 512 it takes under 1% of a "
                                            "forward pass: no visible effect on efficiency"),
              Test("memory_share", ">", 0.1, "at d_model = 512 the table's bytes are at least a tenth of the six "
                   "blocks' weights", "'大量' (a lot of memory): a tenth of what the model's own weights take",
                   no_null="an exact byte ratio, not sampled",
                   role="condition", unless="its memory grows with d, but at 512 positions it is under a tenth of the "
                                            "blocks' weights: not a lot of memory")),
          null="the same timer on a call that does no table work (an empty call; the d = 64 table again), in the "
               "same repeats; exact byte counts: no null",
          not_hedged="its 可能 hedges only the memory ('还可能占用大量的内存空间'), which is judged on exact byte "
                     "counts; the growth of compute with the dimension and its effect on efficiency are stated "
                     "plainly",
          revision=4,
          quote="正弦余弦位置编码通常是高维向量，其计算量会随着维度的增加不仅需要更多的计算时间，还可能占用大量的内存空间，影响模型的运行效率。",
          title_zh="正弦编码的计算量随维度增长，影响运行效率"),
    Claim("worked-update", "tutorial 003 §14.4", "tutorial", "The worked update: 0.9 - 0.1 x (-0.4) = 0.94",
          "One backpropagation step with learning rate 0.1 and gradient -0.4 moves an embedding value from 0.9 to "
          "0.94, while the fixed (sinusoidal) position encoding takes no part in training: the next forward pass "
          "adds the same position value again.",
          "worked_update", (
              Test("embedding_error", "<", 1e-6, "a real SGD step moves the entry from 0.9 to 0.94",
                   "float32 round-off (0.94 is 6e-8 from the nearest float32)"),
              Test("combined_error", "<", 1e-6, "the next forward pass gives 0.94 + the same position value",
                   "float32 round-off"),
              Test("sinusoid_trainable_parameters", "<", 0.5, "the sinusoid has nothing to train", EXACT),
              Test("sinusoid_change", "<", SAME, "the position values are the same after the step", ROUND_OFF)),
          requires=(Test("learned_change", ">", DIFFERENT, "a learned table's entry does move in the same step (by "
                         "lr x gradient = 0.04)", "the check must be able to fail", otherwise="not testable"),),
          quote="Positional Encoding 是固定的:不参与训练(使用正弦/余弦函数)",
          revision=3, title_zh="计算示例：0.9 - 0.1 × (-0.4) = 0.94"),
    Claim("rope-relative-explicit", "tutorial 003 §14.6.3", "tutorial", "RoPE makes relative position explicit",
          "With RoPE the attention score of a query and a key depends on their offset only, wherever the pair sits; "
          "an added position table gives no such guarantee.",
          "rope_offset_only", (
              Test("rope_max_spread", "<", SAME, "RoPE's score is the same for every pair of positions with one "
                   "offset (16 q/k pairs, 5 offsets, keys 0..3843)", ROUND_OFF + " (float32 tables)",
                   no_null="an identity (R_m^T R_n = R_(n-m): the score depends on the offset alone), checked on "
                           "random pairs against float32 round-off: a round-off bound needs no null"),
              Test("added_min_spread", ">", DIFFERENT, "with the sinusoid added to q and k instead, the score also "
                   "depends on where the pair sits", "far above round-off", role="condition",
                   unless="an added table's score depends on the offset only too: RoPE is no more explicit",
                   no_null="its null is RoPE's spread through the same function on the same pairs (rope_max_spread, "
                           "float32 round-off); the bar sits a thousand times above it")),
          null="RoPE's own spread on the same pairs (an identity, round-off) for the added table's",
          quote="相对位置信息更明确",
          revision=4, title_zh="RoPE 的相对位置信息更明确"),
    Claim("input-shapes", "tutorial 003 §14.7.2", "tutorial", "The input layer's shapes",
          "Token ids [4, 16] give token embeddings [4, 16, 512]; the position embedding [16, 512] is broadcast over "
          "the batch, and their sum is [4, 16, 512].",
          "input_shapes", (
              Test("shape_mismatches", "<", 0.5, "posenc's input layer gives every printed shape", "none; " + EXACT),),
          requires=(Test("concat_mismatches", ">", 0.5, "concatenating instead gives another shape",
                         "the check must be able to fail", otherwise="not testable"),),
          quote="[4, 16, 512] + [4, 16, 512] = [4, 16, 512]",
          revision=3, title_zh="输入层的张量形状"),
    untestable_claim("ffn-would-mix", "tutorial 001 §5.1", "tutorial",
                     "Without separability the FFN would mix everything",
                     "The model must keep word and position separable inside each vector, otherwise the "
                     "position-blind FFN would confuse the information completely.",
                     "ffn_position_blind",
                     untestable="a counterfactual with no measure: it names neither how separable the vectors must "
                                "be nor what 'completely confused' means, and the FFN's part in a confusion cannot "
                                "be isolated: a position-wise function's output is a function of its input, so "
                                "whatever is confused after the FFN was already inseparable before it, or was merged "
                                "by the FFN's own weights, which the sentence does not speak of. The measurable "
                                "half, that the FFN is position-blind, is ffn-position-blind (its numbers are shown "
                                "here)",
                     quote="否则经过FFN这个“盲处理”后,信息就会彻底混淆",
                     revision=3, title_zh="不可分离时，经过 FFN 信息就会彻底混淆"),
    untestable_claim("start-attends-verbs", "tutorial 001 §5.2", "tutorial", "Sentence-initial words attend to verbs",
                     "In some tasks, the first word of a sentence may attend more to the sequence's verbs (the "
                     "position-to-word term at work).",
                     "nothing_measured",
                     untestable="an example offered to illustrate a logit term ('例如', for example), not a "
                                "statement about a model: it names no model, task or size of the preference, so "
                                "nothing measured could bear on it. Its hedges ('在某些任务中', in some tasks; '可能', "
                                "may) are not the reason: under the report's hedge rule a 'may' is an existence "
                                "claim, supported by one setting where it happens, and this one would need words "
                                "marked as verbs, which posenc has no offline tagger or treebank to mark",
                     quote="例如,在某些任务中,句首的词可能更倾向于关注序列中的动词。",
                     revision=3, title_zh="句首的词更倾向于关注动词"),
    untestable_claim("static-vs-dynamic", "tutorial 002", "tutorial",
                     "Static positions may not complement dynamic attention",
                     "The sinusoid is a static representation of position while attention captures dynamic semantic "
                     "relations; the two differ in form and focus, so they may not complement each other well when "
                     "combined.",
                     "nothing_measured",
                     untestable="'may not complement each other well' names no measure of complementing and no "
                                "alternative that would complement better: there is nothing to measure, with or "
                                "without its hedge ('可能', may; under the report's hedge rule a hedge alone makes a "
                                "claim an existence claim, not untestable). Comparing the sinusoid with learned or "
                                "rotary encodings on tasks measures something else (learned-beats-fixed, "
                                "sinusoid-weak-local test those sentences)",
                     quote="这两种信息在表示形式和语义侧重点上存在差异，导致在融合时可能无法很好地相互补充。",
                     revision=3, title_zh="静态位置与动态注意力可能无法很好地相互补充"),
))
