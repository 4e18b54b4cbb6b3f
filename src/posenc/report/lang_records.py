"""The Chinese of the words a claim's record and its experiment put in a verdict's reason, besides the tests' own
(:mod:`posenc.report.lang_says`): each claim's null (:attr:`~posenc.report.claim.Claim.null`, named in a reason when
a null passes or straddles a bar), why a test's statistic has none (:attr:`~posenc.report.claim.Test.no_null`, shown
beside the test), the reason a claim cannot be tested as written
(:attr:`~posenc.report.claim.Claim.untestable`), a methodological choice's name, options and reason
(:class:`~posenc.report.claim.Choice`, in the reason's "[Rests on ...]"), and the reasons an experiment writes when
it does not run here (quick mode, or past the full report's hour), as patterns with their numbers carried over.

Each table is keyed by the English exactly as the ledger or the experiment writes it, the one place its Chinese lives
(the experiment modules are not touched: their code is pinned by the claims' revisions). A few entries hold the
wording of an earlier ledger that a committed report (``docs/reports/*.json``) still shows; a test drops them once no
committed report holds them. Numbers, names, statistics, quoted words and code stay as written, in the same order.
"""

from __future__ import annotations

import re

__all__ = ["NULL_ZH", "NO_NULL_ZH", "UNTESTABLE_ZH", "CHOICE_ZH", "EXTENDED_ZH", "RUN_REASON_ZH"]

_MATCHED = ("all-MiniLM-L6-v2 with random weights of matched norms (every row of the embeddings and of layer 0's "
            "matrices a random direction of its trained length, every bias and LayerNorm vector permuted: "
            "posenc.probe.random_weights.matched_norm_copy), 3 draws, the same windows through the same split")
_MATCHED_ZH = ("权重随机但范数匹配的 all-MiniLM-L6-v2（嵌入层和第 0 层各矩阵的每一行换成长度等于其训练后长度的随机方向，"
               "每个偏置和 LayerNorm 向量打乱顺序：posenc.probe.random_weights.matched_norm_copy），3 次抽取，"
               "同样的窗口经过同样的分解")

#: a claim's ``null`` (English, as in the ledger) -> its Chinese
NULL_ZH: dict[str, str] = {
    "exact: no null": "精确计算：没有零基线",
    "exact: no null (formulas, tables and configurations, computed, not sampled)":
        "精确计算：没有零基线（公式、表和配置都是计算出来的，不是抽样）",
    "random N(0, 1) tables of the same shape (5), each with its own least-squares maps":
        "同样形状的随机 N(0, 1) 表（5 张），每张用它自己的最小二乘映射",
    "self-attention without positions through the same order-effect function (the requirement); float32 round-off "
    "for the position gap":
        "没有位置信息的自注意力经过同一个词序效应函数（前提）；位置差距对照 float32 舍入误差",
    "the same timer on a call that does no table work (an empty call; the d = 64 table again), in the same repeats; "
    "exact byte counts: no null":
        "同一个计时器测一个不做表计算的调用（空调用；再算一次 d = 64 的表），重复次数相同；精确的字节数：没有零基线",
    "RoPE's own spread on the same pairs (an identity, round-off) for the added table's":
        "对加法位置表的离散程度，以 RoPE 在同样位置对上自身的离散程度（一个恒等式，舍入误差）为零基线",
    "none: not testable as written": "无：按原文无法检验",
    "word and position tables of the same shapes drawn as BERT initialises them (N(0, 0.02^2)): random vectors of this "
    "dimension, through the same subspace statistic":
        "按 BERT 的初始化方式抽取的同样形状的词表和位置表（N(0, 0.02^2)）：这个维度下的随机向量，经过同一个子空间统计量",
    "exact and measured sizes against equality: no null (the bar is the word vector's own size)":
        "精确与测得的大小对照相等：没有零基线（阈值就是词向量自身的大小）",
    "exact and measured sizes against a power of ten: no null (the bar is the embedding's own scale)":
        "精确与测得的大小对照十的幂：没有零基线（阈值就是词嵌入自身的尺度）",
    _MATCHED: _MATCHED_ZH,
    _MATCHED + "; the largest share over the 12 heads of each draw, as measured":
        _MATCHED_ZH + "；与测量时一样，取每次抽取中 12 个注意力头里最大的占比",
    _MATCHED + "; the largest share over the 384 query/key dimensions of each draw, as measured":
        _MATCHED_ZH + "；与测量时一样，取每次抽取中 384 个查询/键维度里最大的占比",
    "MiniLM: no random model, Voita et al.'s rule is itself calibrated against chance (see each test); SmolLM2: "
    "SmolLM2-135M with re-initialised weights of matched norms on the same windows, judged by the same rule":
        "MiniLM：没有随机模型，Voita et al. 的规则本身就以随机水平校准（见各检验）；SmolLM2：权重重新初始化但范数匹配的 "
        "SmolLM2-135M，用同样的窗口，按同样的规则判定",
    "random analogies of both shapes with a random target: how often chance 'hits' on each reading":
        "两种形式的随机类比加上一个随机目标词：在每种读法下随机“命中”的频率",
    "no random model: each statistic is read against a reference measured beside it (the nearest of 29,000 words; two "
    "different words' angle)":
        "没有随机模型：每个统计量都对照在旁边测得的参照来读（29,000 个词中最近的那个；两个不同词的夹角）",
    "the same maps fitted the same way on sums of two words of one 512-row table (E + E')":
        "以同样方式拟合的同样映射，用在一张 512 行表中两个词的和上（E + E'）",
    "the same search on sums of two words of one 512-row table (E + E')":
        "同样的搜索，用在一张 512 行表中两个词的和上（E + E'）",
    "isotropic Gaussian tables of the same shape through the same top-tenth share (5 quick, 20 full)":
        "同样形状的各向同性高斯表，经过同一个前十分之一占比（快速模式 5 张，完整模式 20 张）",
    "isotropic Gaussian tables of 512 rows through the same count of principal directions":
        "512 行的各向同性高斯表，经过同一个主方向计数",
    "the same heads' position-only output (their mean over windows at each position) through the same probe; for the "
    "attention reading, a purely positional head (0 by construction)":
        "同样的注意力头只含位置的输出（在每个位置上对窗口取平均）经过同一个探针；对注意力的读法，则是纯位置注意力头（按构造为 0）",
    "chance: the most frequent token's share and 5/128 for a position within +-2 (computed on the same windows)":
        "随机水平：最常见词元的占比，以及 5/128，即位置落在 +-2 以内的概率（在同样的窗口上计算）",
    "20,000 random pairs of trained tokens: each statistic is a percentile among them":
        "20,000 个训练过的词元组成的随机词对：每个统计量都是其中的一个百分位",
    "the sinusoid against itself across seeds (seed s against seed s + 1), the same share on the same tasks":
        "正弦位置编码跨种子与自身对比（种子 s 对种子 s + 1），在同样的任务上取同样的占比",
    "none: a share of RoPE's own accuracy (the other encodings are shown beside it)":
        "无：它是 RoPE 自身准确率的一个比例（其他位置编码列在旁边）",
    "per option: the lab's start rows moved as far in a random direction; SmolLM2-135M with re-initialised weights of "
    "matched norms on the same windows; MiniLM's per-dimension shares with the dimensions in random orders":
        "按选项：lab 的初始行朝随机方向移动同样远；权重重新初始化但范数匹配的 SmolLM2-135M，用同样的窗口；MiniLM 逐维度的"
        "占比，把维度随机排序",
    "random tables of the same shapes, N(0, 0.02^2), through the same subspace statistic":
        "同样形状的随机表，N(0, 0.02^2)，经过同一个子空间统计量",
    "exchangeable encodings: a ratio of steps of 1, the bar 10% past it":
        "可互换的位置编码：步数之比为 1，阈值比它高 10%",
    "exchangeable encodings: a difference of 0, the bar two points past it":
        "可互换的位置编码：差为 0，阈值比它高两个百分点",
    "exchangeable encodings: a difference of 0, where the bars sit":
        "可互换的位置编码：差为 0，即阈值所在之处",
    "the encodings' labels permuted within each task: the same rank correlation of an order unrelated to the "
    "encodings":
        "在每个任务内打乱位置编码的标签：与位置编码无关的顺序给出的同一个秩相关",
    "no scaling on the same windows (the ratios' 1); chance for the passkey":
        "同样窗口上的不缩放（比值中的 1）；passkey 取随机水平",
    "exchangeable encodings: a difference of 0": "可互换的位置编码：差为 0",
    "exchangeable encodings: a difference of 0, where the bar sits": "可互换的位置编码：差为 0，即阈值所在之处",
    "exchangeable layer patterns: a difference of 0, where the bar sits": "可互换的层排布：差为 0，即阈值所在之处",
}

#: a test's ``no_null``, why its statistic has no null (English, as in the ledger) -> its Chinese, shown beside the
#: test on the page
NO_NULL_ZH: dict[str, str] = {
    "an identity checked on random weights against float32 round-off: the claim's effect is the null itself (the same "
    "function whatever the order), and the requirement or condition shows a case that breaks it":
        "在随机权重上对照 float32 舍入误差检验的恒等式：这条说法的效应本身就是零基线（无论顺序如何都是同一个函数），"
        "前提或条件给出了打破它的情形",
    "computed exactly from the table (no sample, no random draw): chance has no part in it; where the check must be "
    "able to fail, a requirement shows that it does":
        "由表精确计算（没有抽样，没有随机抽取）：与随机无关；在检验必须可能失败之处，由一个前提表明它确实会失败",
    "a difference from concatenation, the reference that loses nothing: no loss (0) is the null, and the bar sits two "
    "points of accuracy from it":
        "与拼接（不丢失任何信息的参照）之差：没有损失（0）就是零基线，阈值离它两个百分点的准确率",
    "exact: computed from the formula, the table or the configuration, not sampled":
        "精确计算：由公式、表或配置算出，不是抽样",
    "the null's best offset: a check of the bar itself": "零基线最好的偏移量：对阈值本身的检查",
    "an identity checked to round-off: no chance level": "检验到舍入误差的恒等式：没有随机水平",
    "an identity: self-attention without positions is permutation-equivariant, so its order effect is 0 up to float32 "
    "round-off on any draw; it is the null of the tests":
        "恒等式：没有位置信息的自注意力是置换等变的，所以它的词序效应为 0（在 float32 舍入误差以内），任何一次抽取都如此；"
        "它就是各检验的零基线",
    "its null is this claim's requirement: self-attention without positions through the same order-effect function on "
    "the same inputs (attention_max_order_effect, float32 round-off); the bar sits a thousand times above it":
        "它的零基线就是这条说法的前提：没有位置信息的自注意力在同样的输入上经过同一个词序效应函数"
        "（attention_max_order_effect，float32 舍入误差）；阈值是它的一千倍",
    "no position information means equal states, a gap of 0 up to float32 round-off (about 1e-7); the bar sits a "
    "thousand times above it, and a state that settles to a fixed point reaches that null":
        "没有位置信息就意味着状态相同，差距为 0（在 float32 舍入误差以内，约 1e-7）；阈值是它的一千倍，而收敛到不动点的状态"
        "会落到这个零基线上",
    "an exact byte count (positions x width x 4), not sampled": "精确的字节数（位置数 x 宽度 x 4），不是抽样",
    "an exact byte ratio, not sampled": "精确的字节数之比，不是抽样",
    "an identity (R_m^T R_n = R_(n-m): the score depends on the offset alone), checked on random pairs against float32 "
    "round-off: a round-off bound needs no null":
        "恒等式（R_m^T R_n = R_(n-m)：得分只取决于偏移量），在随机位置对上对照 float32 舍入误差检验：舍入误差的界不需要"
        "零基线",
    "its null is RoPE's spread through the same function on the same pairs (rope_max_spread, float32 round-off); the "
    "bar sits a thousand times above it":
        "它的零基线是 RoPE 在同样的位置对上经过同一个函数的离散程度（rope_max_spread，float32 舍入误差）；阈值是它的一千倍",
    "this statistic is the null itself: random tables of the initialisation's law":
        "这个统计量本身就是零基线：按初始化分布抽取的随机表",
    "a ratio of two measured sizes read against equality or a power of ten: the sentence defines 'small' and "
    "'comparable' against the word vector itself, not against chance":
        "两个测得大小之比，对照相等或十的幂来读：句子是相对词向量本身、而不是相对随机水平来定义'small'（小）和"
        "'comparable'（相当）的",
    "exact: a ratio of two computed RMS values": "精确计算：两个算出的 RMS 值之比",
    "Voita et al.'s rule is calibrated against chance by construction: a head with no preference for an offset puts "
    "its maximum on a given one of the 17 offsets -8..8 for about 1/17 of queries (1/T if any key is as likely), far "
    "below the 90% the rule asks":
        "Voita et al. 的规则按构造就以随机水平校准：对偏移量没有偏好的注意力头，在 17 个偏移量 -8..8 中把最大值放在某一个"
        "上的查询约占 1/17（若每个键可能性相同则为 1/T），远低于规则要求的 90%",
    "a difference of exact ranks read against 0: the single words are its control":
        "精确排名之差，对照 0 来读：单个词就是它的对照",
    "chance is one word in 29,000 (a random word is the nearest almost never): the bar sits between that and every "
    "pair kept":
        "随机水平是 29,000 个词中的一个（随机的词几乎从不是最近的）：阈值位于它与保留下来的每一对之间",
    "a ratio of two measured angles: the angle between different words is its reference":
        "两个测得夹角之比：不同词之间的夹角就是它的参照",
    "the null itself (two words of one table): a check that it stays well below":
        "零基线本身（同一张表中的两个词）：检查它远低于阈值",
    "the null's own largest draw: a check that the bar is past every draw":
        "零基线自身最大的一次抽取：检查阈值超过了每一次抽取",
    "the null's own fewest count: a check that the bar is past every draw":
        "零基线自身最少的计数：检查阈值超过了每一次抽取",
    "a count of heads found by Voita et al.'s rule, itself calibrated against chance":
        "按 Voita et al. 的规则找到的注意力头数，这条规则本身就以随机水平校准",
    "the positive control itself": "阳性对照本身",
    "a count of heads found by Voita et al.'s rule; positional-heads reads it beside its null":
        "按 Voita et al. 的规则找到的注意力头数；positional-heads 把它与其零基线并列来读",
    "a head that attends by position alone moves exactly 0 under the swap, by construction; the heads that are not "
    "positional are shown beside as the other side":
        "只按位置分配注意力的注意力头，在交换下按构造恰好移动 0；非位置注意力头列在旁边，作为另一边",
    "the probe's own reach on the input, not a statistic read against chance":
        "探针在输入上自身能达到的程度，不是对照随机水平来读的统计量",
    "chance is the majority token's share, computed on the same windows and shown beside":
        "随机水平是最常见词元的占比，在同样的窗口上计算并列在旁边",
    "chance is 5/128, exact for a reading within +-2 of 128 positions":
        "随机水平是 5/128，对误差在 +-2 以内的读出（共 128 个位置）是精确的",
    "chance is the majority token's share, shown beside": "随机水平是最常见词元的占比，列在旁边",
    "chance is 5/128": "随机水平是 5/128",
    "a percentile among 20,000 random pairs: the null is built into the statistic (chance: 0.5)":
        "在 20,000 个随机词对中的百分位：零基线已经内置在统计量中（随机水平：0.5）",
    "a count of what the models learned: a precondition, not compared with chance":
        "模型学会了什么的计数：是前提，不与随机水平比较",
    "a precondition on what the model learned, not compared with chance": "关于模型学会了什么的前提，不与随机水平比较",
    "the positive control's own share, read for power, not compared with chance":
        "阳性对照自身的占比，为检验力而读，不与随机水平比较",
    "a share of RoPE's own in-distribution accuracy: the claim is an ability, not a difference from another encoding "
    "or from chance; the other encodings' shares are shown beside it":
        "RoPE 自身分布内准确率的一个比例：这条说法讲的是一种能力，不是与另一种位置编码或随机水平之差；其他位置编码的比例列"
        "在旁边",
    "the same share as above, read at a second bar": "与上面相同的比例，按第二个阈值来读",
    "how far training moved the rows, read for the test's reach, not compared with chance":
        "训练把行移动了多远，为检验的覆盖范围而读，不与随机水平比较",
    "the premise is that initialisation is random: random tables of the same shapes (init_enrichment_null, shown) are "
    "what it is compared with, not a null it must beat":
        "前提是初始化是随机的：同样形状的随机表（init_enrichment_null，已列出）是它的比较对象，不是它必须胜过的零基线",
    "a change through training, paired by run: no change (0) is its null, and the bar sits a tenth past it":
        "训练带来的变化，按运行配对：没有变化（0）就是它的零基线，阈值比它高十分之一",
    "a precondition on what the runs reached, not compared with chance": "关于各次运行达到了什么的前提，不与随机水平比较",
    "two encodings trained alike, paired by task and seed: exchangeable encodings give a ratio of 1 or a difference "
    "of 0, and the bar sits a stated margin past that null; the interval over runs separates them":
        "两种以同样方式训练的位置编码，按任务和种子配对：可互换的位置编码给出比值 1 或差 0，阈值比这个零基线高出一个所述的"
        "幅度；跨运行的区间把两者分开",
    "the baseline's own accuracy, read for room, not compared with chance":
        "基线自身的准确率，为判断余地而读，不与随机水平比较",
    "a count the claim bounds by zero, not a statistic read against chance":
        "这条说法以零为界的一个计数，不是对照随机水平来读的统计量",
    "a difference between encodings trained and scored alike, paired by seed: its null is exactly 0 (exchangeable "
    "encodings), where the bar sits; the interval over seeds separates the effect from it":
        "以同样方式训练和评分的位置编码之差，按种子配对：它的零基线恰好是 0（可互换的位置编码），即阈值所在之处；跨种子的"
        "区间把效应与它分开",
    "a precondition (the prompt works), not compared with chance": "前提（提示词有效），不与随机水平比较",
    "a precondition (the unscaled model fails), not compared with chance": "前提（未缩放的模型失效），不与随机水平比较",
    "a ratio to the unscaled model on the same windows: no scaling is itself the null (1)":
        "与同样窗口上未缩放模型之比：不缩放本身就是零基线（1）",
    "a ratio to the native model on the same text, the reference it must come near":
        "与同一文本上原生模型之比，即它必须接近的参照",
    "retrieval against guessing a 5-digit key (chance 1 in 90000, computed, not sampled)":
        "检索对照猜一个 5 位数的键（随机水平为 1/90000，计算所得，不是抽样）",
    "a difference of two encodings trained alike, paired by seed: its null (exchangeable encodings) is 0, where the "
    "bar sits (or, for p-RoPE, a non-inferiority margin past it); the interval over seeds separates the effect from "
    "it":
        "两种以同样方式训练的位置编码之差，按种子配对：它的零基线（可互换的位置编码）是 0，即阈值所在之处（对 p-RoPE 则是"
        "比它高出一个非劣效幅度）；跨种子的区间把效应与它分开",
    "a count of tasks with room: a precondition, not compared with chance": "有余地的任务数：是前提，不与随机水平比较",
    "an absolute bar for 'solves' (the in-distribution bar), far above any chance accuracy":
        "'solves'（解决）的绝对阈值（分布内的阈值），远高于任何随机准确率",
    "a difference of log perplexities of two encodings trained alike, paired by seed: its null (exchangeable "
    "encodings) is 0, where the bar sits; the interval over seeds separates the effect from it":
        "两种以同样方式训练的位置编码的对数困惑度之差，按种子配对：它的零基线（可互换的位置编码）是 0，即阈值所在之处；跨"
        "种子的区间把效应与它分开",
    "a difference from the better of two models trained alike, paired by seed: its null (exchangeable layer patterns) "
    "is 0, where the bar sits":
        "与两个以同样方式训练的模型中较好者之差，按种子配对：它的零基线（可互换的层排布）是 0，即阈值所在之处",
}

#: a claim's ``untestable`` reason (English, as in the ledger) -> its Chinese
UNTESTABLE_ZH: dict[str, str] = {
    "a counterfactual with no measure: it names neither how separable the vectors must be nor what 'completely "
    "confused' means, and the FFN's part in a confusion cannot be isolated: a position-wise function's output is a "
    "function of its input, so whatever is confused after the FFN was already inseparable before it, or was merged by "
    "the FFN's own weights, which the sentence does not speak of. The measurable half, that the FFN is position-blind, "
    "is ffn-position-blind (its numbers are shown here)":
        "一个没有度量的反事实：它既没说向量要可分到什么程度，也没说'completely confused'（完全混淆）指什么，而且 FFN 在混淆"
        "中所起的作用无法单独分离：逐位置函数的输出是其输入的函数，所以 FFN 之后混淆的东西在它之前就已经分不开，或是被 "
        "FFN 自己的权重合并的，而这句话并没有说到后者。可测量的那一半（FFN 对位置是盲的）是 ffn-position-blind"
        "（其数字列在这里）",
    "an example offered to illustrate a logit term ('例如', for example), not a statement about a model: it names no "
    "model, task or size of the preference, so nothing measured could bear on it. Its hedges ('在某些任务中', in some "
    "tasks; '可能', may) are not the reason: under the report's hedge rule a 'may' is an existence claim, supported by "
    "one setting where it happens, and this one would need words marked as verbs, which posenc has no offline tagger "
    "or treebank to mark":
        "这是为说明一个 logit 项而举的例子（'例如'），不是关于某个模型的陈述：它没有指明模型、任务或偏好的大小，所以任何测量"
        "都与它无关。它的保留语（'在某些任务中'；'可能'）并不是原因：按本报告的保留规则，一个“可能”是存在性的说法，只要一个"
        "情形中发生就得到支持，而这一条需要标注为动词的词，posenc 没有离线的词性标注器或树库来标注",
    "'may not complement each other well' names no measure of complementing and no alternative that would complement "
    "better: there is nothing to measure, with or without its hedge ('可能', may; under the report's hedge rule a "
    "hedge alone makes a claim an existence claim, not untestable). Comparing the sinusoid with learned or rotary "
    "encodings on tasks measures something else (learned-beats-fixed, sinusoid-weak-local test those sentences)":
        "'may not complement each other well'（可能不能很好地互补）既没有给出互补的度量，也没有给出能更好互补的替代方案："
        "无论有没有保留语都没有可测的东西（'可能'；按本报告的保留规则，单凭保留语只会让说法成为存在性的说法，而不是无法"
        "检验）。在任务上比较正弦位置编码与学习式或旋转位置编码测量的是别的东西（learned-beats-fixed、sinusoid-weak-local "
        "检验的是那些句子）",
}

_WINDOW_WHY = ("the length all-MiniLM-L6-v2 was fine-tuned at: its tokenizer.json truncates and pads to 128 tokens "
               "and its model card says 'The sequence length was limited to 128 tokens'. 256 is "
               "sentence_bert_config.json's max_seq_length (where sentence-transformers truncates inputs in use, past "
               "anything it was fine-tuned on) and 512 the position table inherited from MiniLM; the experiment "
               "checks that the package still says 128")
_MAGNITUDE_WHY = ("the embedding the sinusoid was designed next to: the original Transformer's implementations "
                  "(tensor2tensor, fairseq) draw embeddings from N(0, 1/d) and multiply them by sqrt(d) (§3.4), RMS 1 "
                  "per channel; an nn.Embedding's N(0, 1) rows without the scale ({t} 003 §14.7.1 marks it optional) "
                  "have the same RMS. N(0, 0.02^2) is BERT's and GPT-2's initialisation; N(0, 1) x sqrt(d) is {t} 003 "
                  "§14.7.1's code with its optional scale on")
_MAGNITUDE_WHY_ZH = ("正弦位置编码当初设计时所配的词嵌入：原始 Transformer 的实现（tensor2tensor、fairseq）从 N(0, 1/d) 抽取"
                     "词嵌入再乘以 sqrt(d)（§3.4），每个通道 RMS 1；nn.Embedding 的 N(0, 1) 行不乘缩放因子（教程 003 "
                     "§14.7.1 说它可选）时 RMS 相同。N(0, 0.02^2) 是 BERT 和 GPT-2 的初始化；N(0, 1) x sqrt(d) 是教程 "
                     "003 §14.7.1 的代码打开其可选缩放")

#: a choice's name, an option's name and a choice's reason (English, as in the ledger) -> its Chinese; an option
#: that is a name or a number only (``d=512``, ``8L``, ``N(0, 1/d) x sqrt(d)``) stays as written and has no entry
CHOICE_ZH: dict[str, str] = {
    "feed-forward width": "前馈层宽度",
    "4 x width": "4 x 宽度",
    "fixed 2048": "固定为 2048",
    "the original's d_ff = 2048 is 4 x d_model, the rule posenc's model and most Transformers keep when the width "
    "changes":
        "原论文的 d_ff = 2048 是 4 x d_model，这也是 posenc 的模型和大多数 Transformer 在宽度改变时保持的规则",
    "width": "宽度",
    "the width tutorials 001 and 003 name (d_model = 512, the original Transformer's); the narrow widths show where "
    "the claim starts to hold":
        "教程 001 和 003 所说的宽度（d_model = 512，原始 Transformer 的）；较窄的宽度显示这条说法从哪里开始成立",
    "tutorial 002 prints no width; d=64 is posenc's reproduction of this figure (posenc plot --kind dims), fixed "
    "before this claim":
        "教程 002 没有给出宽度；d=64 是 posenc 复现这张图时用的（posenc plot --kind dims），在这条说法之前就已确定",
    "tutorial 002 prints no width; d=64 is posenc's reproduction of this figure (posenc plot --kind positions), fixed "
    "before this claim":
        "教程 002 没有给出宽度；d=64 是 posenc 复现这张图时用的（posenc plot --kind positions），在这条说法之前就已确定",
    "word rows": "词行",
    "trained rows": "训练过的行",
    "tutorial rows 100..1099": "教程中的行 100..1099",
    "1000 most frequent tokens": "1000 个最常见的词元",
    "the claim is about word embeddings that training shaped: every row except BERT's [unused] placeholders, which no "
    "text produces (895 of the tutorial's 1000 rows 100..1099 are placeholders). The tutorial's rows are kept as its "
    "reproduction, the tokens Shakespeare uses most as the words text actually brings":
        "这条说法讲的是训练塑造出的词嵌入：除 BERT 的 [unused] 占位行（没有任何文本会产生它们）之外的每一行（教程的行中有 "
        "895 行是占位行，共 1000 行 100..1099）。教程的行作为对它的复现保留，莎士比亚（Shakespeare）用得最多的词元代表真实文本"
        "实际带来的词",
    "reference embedding": "参照词嵌入",
    _MAGNITUDE_WHY.format(t="tutorial"): _MAGNITUDE_WHY_ZH,
    "window length": "窗口长度",
    "128 tokens": "128 个词元",
    "256 tokens": "256 个词元",
    "512 tokens": "512 个词元",
    _WINDOW_WHY:
        "all-MiniLM-L6-v2 微调时的长度：它的 tokenizer.json 截断并填充到 128 个词元，它的模型卡写着'The sequence length "
        "was limited to 128 tokens'。256 是 sentence_bert_config.json 的 max_seq_length"
        "（sentence-transformers 实际使用时截断输入之处，超出了它微调过的任何长度），512 是从 MiniLM 继承的位置表；实验会"
        "检查这个包是否仍写着 128",
    "model": "模型",
    "all-MiniLM-L6-v2 (encoder)": "all-MiniLM-L6-v2（编码器）",
    "SmolLM2-135M (causal decoder)": "SmolLM2-135M（因果解码器）",
    "the claims were judged on all-MiniLM-L6-v2 before a second model was added, and it stands in for the BERT-family "
    "encoder the tutorial reads (Voita et al. and Clark et al. read encoders too); SmolLM2-135M-Instruct, a causal "
    "decoder with RoPE and the one other model that installs offline, tests whether the same heads exist in a "
    "decoder, as the scope rule asks where a sentence speaks of Transformers in general. SmolLM2 runs in full mode "
    "only (minutes of CPU)":
        "在加入第二个模型之前，这些说法都在 all-MiniLM-L6-v2 上判定，它代表教程所读的 BERT 系编码器（Voita et al. 和 "
        "Clark et al. 读的也是编码器）；SmolLM2-135M-Instruct 是带 RoPE 的因果解码器，也是另一个能离线安装的模型，用来检验"
        "解码器中是否有同样的注意力头，这是句子泛指 Transformer 时范围规则的要求。SmolLM2 只在完整模式下运行（要几分钟 CPU）",
    "vector": "向量",
    "E + P (the document's formula)": "E + P（文档的公式）",
    "after the embedding LayerNorm": "经过嵌入层的 LayerNorm 之后",
    "the sentence speaks of new_embedding = semantic_embedding + position_offset; what MiniLM's first layer reads "
    "after its LayerNorm is shown beside":
        "句子讲的是 new_embedding = semantic_embedding + position_offset；MiniLM 第一层在其 LayerNorm 之后读到的东西列在旁边",
    "dimensions": "维度",
    "coordinate dimensions": "坐标维度",
    "principal directions": "主方向",
    "the sentence speaks of the values on a vector's 512 dimensions (its coordinates); directions found by PCA are "
    "shown beside":
        "句子讲的是向量 512 个维度上的取值（它的坐标）；PCA 找到的方向列在旁边",
    "where": "在哪里",
    "sinusoid, trained in the lab": "正弦位置编码，在 lab 中训练",
    "SmolLM2's RoPE frequency bands": "SmolLM2 的 RoPE 频段",
    "MiniLM's learned table (index carries no frequency)": "MiniLM 的学习式位置表（维度序号不带频率）",
    "the tutorial's mechanism is the sinusoid's frequency order (low dimensions turn fast, high ones slowly), so the "
    "headline is a model trained with the sinusoid added; SmolLM2's RoPE orders its query/key pairs by frequency the "
    "same way (Barbero et al. 2024 study which bands carry position and which meaning); in MiniLM's learned table a "
    "dimension's index means nothing, kept as the test the report ran before":
        "教程的机制是正弦位置编码的频率顺序（低维度转得快，高维度转得慢），所以主结论取加上正弦位置编码训练的模型；SmolLM2 的 "
        "RoPE 也按频率排列其查询/键维度对（Barbero et al. 2024 研究了哪些频段承载位置、哪些承载语义）；在 MiniLM 的学习式"
        "位置表中维度的序号没有意义，保留它是因为报告以前做过这个检验",
    "what is held equal": "保持相同的是什么",
    "equal parameters (width 64)": "参数量相同（宽度 64）",
    "equal block width (32)": "块宽度相同（32）",
    "document's setting (concat doubles the width)": "文档的设置（拼接使宽度加倍）",
    "'easier to learn' is a claim about optimisation, which compares models of one capacity: equal parameters (both "
    "at width 64; the added model's token table is twice as wide, 0.4% of its parameters here). Equal block width "
    "(concatenation then gives the tokens only half the channels) and the document's setting (concatenation doubles "
    "the width and about quadruples the blocks' parameters, tutorial 003 §14.3.2) are shown beside it":
        "'easier to learn'（更容易学习）是关于优化的说法，要比较同等容量的模型：参数量相同（两者宽度都是 64；相加模型的词元"
        "表宽一倍，这里占其参数的 0.4%）。块宽度相同（此时拼接只给词元一半的通道）和文档的设置（拼接使宽度加倍、块的参数约"
        "变为四倍，教程 003 §14.3.2）列在旁边",
    "evaluated at": "评估长度",
    "12 tokens": "12 个词元",
    "24 tokens": "24 个词元",
    "the claim is about modelling local dependencies, which the trained length tests; past it (24 tokens) the learned "
    "table meets rows it never trained, a question of extrapolation the seed does not raise here":
        "这条说法讲的是建模局部依赖，训练长度就能检验它；超出训练长度（24 个词元）时学习式位置表会遇到从未训练过的行，"
        "那是外推的问题，原文在这里并没有提出",
    "evaluation length": "评估长度",
    "the paper's claim is about lengths far past L; 8L is the longest measured":
        "论文的说法讲的是远超 L 的长度；8L 是测过的最长长度",
    "metric": "指标",
    "exact match": "完全匹配",
    "token accuracy": "token accuracy（词元准确率）",
    "the paper ranks by exact-match accuracy": "论文按完全匹配准确率排名",
    "the paper's claim is about lengths far past training; 8L is the longest measured":
        "论文的说法讲的是远超训练长度的长度；8L 是测过的最长长度",
    # earlier wordings that a committed report (docs/reports/*.json) still shows
    "nearest word (rank 1)": "最近的词（排名 1）",
    "among the 10 nearest": "在最近的 10 个之中",
    "top 1% of the vocabulary": "词表的前 1%",
    "measure": "度量",
    "raw cosine": "原始余弦",
    "centred cosine": "中心化后的余弦",
}

#: an experiment's ``extended`` flag (what it costs, in the reason a claim past the full report's hour is not run)
#: -> its Chinese
EXTENDED_ZH: dict[str, str] = {
    "reads SmolLM2-135M at 16384 tokens, twice its context (twelve windows of about 105 s, and twenty passkey trials "
    "with YaRN there): about 26 minutes on 2 cores":
        "要读 SmolLM2-135M，长 16384 个词元，是其上下文的两倍（十二个窗口，每个约 105 s，另有二十次用 YaRN 的 passkey "
        "试验）：约 26 分钟，在 2 个核上",
    "trains 6 char-LM models (FIRE and KERPLE, 3 seeds each; 11 min of one core in all) besides the char-LM sweep the "
    "report trains anyway":
        "除了报告本来就要训练的 char-LM 扫描之外，还要训练 6 个 char-LM 模型（FIRE 和 KERPLE，各 3 个种子；共占一个核 11 分钟）",
    "trains 3 char-LM models (p-RoPE, 3 seeds; 5 min of one core in all) besides the char-LM sweep":
        "除了 char-LM 扫描之外，还要训练 3 个 char-LM 模型（p-RoPE，3 个种子；共占一个核 5 分钟）",
    "trains 18 models (CoPE, RoPE and a learned table on two counting tasks, 3 seeds; 12 min of one core in all)":
        "要训练 18 个模型（CoPE、RoPE 和学习式位置表，两个计数任务，3 个种子；共占一个核 12 分钟）",
    "trains 9 char-LM models (PoPE, FoX and DAPE, 3 seeds each; about 20 min of one core) besides RoPE's and KERPLE's, "
    "shared with the char-LM and research sweeps":
        "除了与 char-LM 扫描和研究扫描共用的 RoPE 和 KERPLE 的模型之外，还要训练 9 个 char-LM 模型（PoPE、FoX 和 DAPE，"
        "各 3 个种子；约占一个核 20 分钟）",
    "trains 9 char-LM models of 4 layers (the iRoPE hybrid, all-RoPE and all-NoPE, 3 seeds each; about 30 min of one "
    "core)":
        "要训练 9 个 4 层的 char-LM 模型（iRoPE 混合方案、全 RoPE 和全 NoPE，各 3 个种子；约占一个核 30 分钟）",
}


def _extended(found: re.Match[str]) -> str:
    what = EXTENDED_ZH.get(found[1], found[1])
    return f"未运行：它{what}，超出了完整报告在 {found[2]} 个核上一小时的时间预算；`posenc report --extended` 会运行所有这类说法"


#: the reasons an experiment or the runner writes when a claim does not run here, as patterns over the English and
#: their Chinese (the numbers and commands carried over); applied to a whole reason
RUN_REASON_ZH: tuple[tuple[re.Pattern[str], str | object], ...] = (
    (re.compile(r"^quick mode trains (\d+) task; 'most tasks' needs at least (\d+) learned ones, so only the full "
                r"report \((\d+) tasks, (\d+) seeds\) can decide it$"),
     r"快速模式只训练 \1 个任务；'most tasks'（大多数任务）至少需要 \2 个学会的任务，所以只有完整报告（\3 个任务，\4 个种子）"
     r"能判定"),
    (re.compile(r"^quick mode trains (\d+) task; a ranking over tasks needs at least (\d+), so only the full report "
                r"\((\d+) tasks, (\d+) seeds\) can decide it$"),
     r"快速模式只训练 \1 个任务；跨任务的排名至少需要 \2 个，所以只有完整报告（\3 个任务，\4 个种子）能判定"),
    (re.compile(r"^not run in quick mode: SmolLM2 past its (\d+)-token context costs more than a minute of CPU per "
                r"forward pass, more than the whole quick report; run `([^`]+)` \(full mode, about (\d+) minutes on "
                r"(\d+) cores\)$"),
     r"快速模式不运行：SmolLM2 超出其 \1 词元的上下文后，每次前向计算要花一分钟以上的 CPU，比整个快速报告还多；请运行 "
     r"`\2`（完整模式，约 \3 分钟，在 \4 个核上）"),
    (re.compile(r"^not run: it (.+), past the hour the full report keeps to on (\d+) cores; `posenc report --extended` "
                r"runs every such claim$"), _extended),
)
