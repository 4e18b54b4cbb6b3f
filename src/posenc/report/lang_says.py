"""The Chinese of each test's own words: :attr:`posenc.report.claim.Test.says`, keyed by the English exactly as the
ledger writes it.

A verdict's reason is built of these words (:func:`posenc.report.verdict.judge`: ``"{says}: {statistic} = ... (needs
...) — holds"``), so :func:`posenc.report.lang_claims.reason_zh` looks each one up here. The table is the one place a
test's Chinese lives: the experiment modules that declare the tests are not touched (their code is pinned by the
claims' revisions), and a test over the ledger names every ``says`` without its Chinese and every entry no test says
any more. Numbers, model and encoding names, statistics, quoted words and code stay as written, in the same order; the
terms are the tutorials' (位置编码, 注意力头, 外推, 困惑度, 词嵌入, 词元).
"""

from __future__ import annotations

__all__ = ["SAYS_ZH"]

#: a test's ``says`` (English, as in the ledger) -> its Chinese
SAYS_ZH: dict[str, str] = {
    # tutorial 000: word order, naive positions
    "a bidirectional model without positions only reorders its outputs":
        "没有位置信息的双向模型只是把输出重新排列",
    "with the sinusoid or RoPE the outputs change":
        "加上正弦位置编码或 RoPE 后输出会改变",
    "a causal decoder without positions is blind too":
        "没有位置信息的因果解码器同样看不出词序",
    "the same read-out finds the key k back with the sinusoid":
        "同样的读出在正弦位置编码下能找回 k 个位置之前的键",
    "the largest value grows with the length (512 vs 64)":
        "最大值随长度增长（512 对 64）",
    "its RMS swamps a unit-scale embedding (> 10x)":
        "它的 RMS 淹没了单位尺度的词嵌入（> 10 倍）",
    "most test positions carry values never seen in training":
        "大多数测试位置的取值在训练中从未出现过",
    "no position-only attention logit points at the key k places back for more than 10% of the queries (k = 1, 2, 4, "
    "8)":
        "没有哪个只由位置给出的注意力 logit 能对超过 10% 的查询指向 k 个位置之前的键（k = 1, 2, 4, 8）",
    "the neighbour step at n=3 is more than twice that at n=1000":
        "n=3 时相邻位置的步长是 n=1000 时的两倍以上",
    "neighbour distances vary (max >= 2x min)":
        "相邻位置之间的距离不均匀（最大值 >= 2 倍最小值）",
    "their spread (std/mean) exceeds 0.1":
        "它们的离散程度（std/mean）超过 0.1",
    "no linear map independent of p (a full d x d matrix, least squares) predicts PE[p+1] from PE[p]":
        "没有一个与 p 无关的线性映射（完整的 d x d 矩阵，最小二乘）能由 PE[p] 预测 PE[p+1]",
    # tutorial 001-002: the sinusoid
    "no value exceeds 1 in absolute value, at any position tested":
        "在所测的任何位置上，取值的绝对值都不超过 1",
    "the two closest positions are further apart than 1e-3":
        "最接近的两个位置之间的距离也大于 1e-3",
    "every float32 row is distinct":
        "每一行 float32 向量都互不相同",
    "a random table does not fit a linear map":
        "随机表拟合不出一个线性映射",
    "one 2x2 map per pair and offset fits every p":
        "每个维度对、每个偏移量一个 2x2 映射，就能拟合所有 p",
    "maps fitted on either half of the positions agree":
        "在前一半位置和后一半位置上分别拟合的映射彼此一致",
    "the fitted maps are the rotations R(k w_i)":
        "拟合出的映射就是旋转矩阵 R(k w_i)",
    "neighbours move > 10x more in the lowest quarter of dims":
        "在最低的四分之一维度中，相邻位置的变化大 > 10 倍",
    "a linear read-out recovers p from the highest quarter":
        "线性读出能从最高的四分之一维度中恢复 p",
    "but not from the lowest quarter":
        "但从最低的四分之一维度中不能",
    "a block with RoPE attention is not permutation-equivariant":
        "带 RoPE 注意力的块不是置换等变的",
    "permuting the FFN's inputs permutes its outputs exactly":
        "置换 FFN 的输入会精确地置换它的输出",
    "every learned model runs at max_len":
        "每个学习式位置编码的模型都能在 max_len 上运行",
    "no learned model (posenc's table, a Transformer on it, all-MiniLM-L6-v2) runs one token past max_len":
        "没有一个学习式位置编码的模型（posenc 的表、基于它的 Transformer、all-MiniLM-L6-v2）能在超出 max_len 一个词元时运行",
    "adding keeps the width d_model":
        "相加保持宽度 d_model 不变",
    "at the widest width a linear read-out recovers token and position from the sum as well as from the "
    "concatenation":
        "在最大的宽度上，线性读出从和向量中恢复词元和位置的效果与从拼接向量中一样好",
    "also at the narrowest width (d=8)":
        "在最窄的宽度（d=8）上也是如此",
    "far past the trained range the values stay in [-1, 1]":
        "远超训练范围时，取值仍在 [-1, 1] 之内",
    "and stay distinct":
        "并且仍然互不相同",
    "the relative maps fitted inside the range still hold":
        "在范围内拟合的相对位置映射仍然成立",
    "the later layers' parameters grow at least about twofold (the claim's direction: concatenation costs "
    "parameters)":
        "后面各层的参数至少增长到约两倍（这条说法的方向：拼接要付出参数）",
    "and by no more than about twofold, as stated":
        "并且如原文所说，不超过约两倍",
    "the formula's nearest distance equals that of posenc's table (n=1024, d=512)":
        "公式给出的最近距离等于 posenc 的表给出的（n=1024, d=512）",
    "the nearest two of 100,000 positions are at least 10% closer than the nearest two of 16":
        "100,000 个位置中最近的两个至少要近 10%（相对于 16 个位置中最近的两个）",
    "at float32 resolution (the document's premise) the sinusoid needs fewer dimensions than binary for 1024 "
    "positions":
        "在 float32 分辨率下（文档的前提），正弦位置编码表示 1024 个位置所需的维度比二进制编码少",
    "also when positions must stay as far apart as binary neighbours (distance 1, one bit flip; both codes have mean "
    "square 1/2 per channel)":
        "当位置之间必须保持与二进制编码的相邻位置一样远时也是如此（距离 1，翻转一位；两种编码每个通道的均方都是 1/2）",
    "a random (learned-like) table with its own best maps does not reach the bar at any offset":
        "一张随机的（类似学习所得的）表，用它自己最好的映射，在任何偏移量上都达不到阈值",
    "the fitted k-step map equals the 1-step map applied k times":
        "拟合出的 k 步映射等于把 1 步映射连续作用 k 次",
    "the score PE[i] . PE[j] M_k picks the key k back for every query (worst offset)":
        "得分 PE[i] . PE[j] M_k 对每个查询都选中 k 个位置之前的键（最差的偏移量）",
    "positions 1 and 3 do not match it":
        "位置 1 和 3 与它不符",
    "posenc's table equals the printed vector":
        "posenc 的表等于文中印出的向量",
    "the periods read off the curves match the formula":
        "从曲线上读出的周期与公式相符",
    "each of the three dims completes at least two periods in the 128 positions":
        "三个维度中的每一个在 128 个位置内都至少完成两个周期",
    "each higher dim's period is longer than the lower one's":
        "每个较高维度的周期都比较低维度的长",
    "the two vectors differ":
        "两个向量不同",
    "the pairwise distance falls with the pair index":
        "两两之间的距离随维度对的序号下降",
    "the highest quarter of pairs is 10x closer than the lowest":
        "最高的四分之一维度对比最低的四分之一近 10 倍",
    "the reading finds both learned tables and rotary embeddings":
        "这种读取既能找到学习式位置表，也能找到旋转位置编码",
    "every named model's configuration describes the encoding the documents name":
        "每个被点名的模型，其配置描述的都是文档所说的位置编码",
    # tutorial 000-003: mechanics
    "self-attention without positions shows no order effect (the measure can tell the cases apart)":
        "没有位置信息的自注意力看不出词序的影响（这个度量能区分两种情形）",
    "reordering the words changes the outputs of every RNN, GRU and LSTM tried (smallest effect over 5 random "
    "initialisations and 5 reorderings)":
        "打乱词序会改变所试的每个 RNN、GRU 和 LSTM 的输出（取 5 次随机初始化和 5 种重排中最小的影响）",
    "along a run of one repeated token the state still tells neighbouring positions apart":
        "在同一个词元连续重复时，状态仍能区分相邻的位置",
    "a code too short (the document's d_model = 3) does repeat":
        "太短的编码（文档中的 d_model = 3）确实会重复",
    "every position checked (0..8191 and around every power of two up to 2^63 - 1) reads back from its code, so no "
    "two share one":
        "所检查的每个位置（0..8191，以及直到 2^63 - 1 的每个二的幂附近）都能从其编码读回，所以没有两个位置共用一个编码",
    "the same table with its pairs shuffled fails":
        "把维度对打乱顺序后的同一张表不满足",
    "every bit j flips exactly every 2^j numbers":
        "第 j 位恰好每隔 2^j 个数翻转一次",
    "every sinusoid pair (d = 512) has a lower frequency than the pair before it, read off the table":
        "从表中读出，每个正弦维度对（d = 512）的频率都比前一对低",
    "the table's memory grows with d (d = 2048 against 64)":
        "表的内存随 d 增长（d = 2048 对 64）",
    "the time to compute the table grows with d (d = 2048 against 64)":
        "计算这张表的时间随 d 增长（d = 2048 对 64）",
    "at d_model = 512 the table takes at least 1% of a forward pass of the six blocks":
        "在 d_model = 512 时，这张表至少占六个块一次前向计算的 1%",
    "at d_model = 512 the table's bytes are at least a tenth of the six blocks' weights":
        "在 d_model = 512 时，这张表的字节数至少是六个块权重的十分之一",
    "a learned table's entry does move in the same step (by lr x gradient = 0.04)":
        "学习式位置表的元素在同一步中确实会移动（移动 lr x 梯度 = 0.04）",
    "a real SGD step moves the entry from 0.9 to 0.94":
        "一次真实的 SGD 更新把该元素从 0.9 移到 0.94",
    "the next forward pass gives 0.94 + the same position value":
        "下一次前向计算给出 0.94 + 同样的位置值",
    "the sinusoid has nothing to train":
        "正弦位置编码没有可训练的参数",
    "the position values are the same after the step":
        "更新之后位置值不变",
    "RoPE's score is the same for every pair of positions with one offset (16 q/k pairs, 5 offsets, keys 0..3843)":
        "对偏移量相同的每一对位置，RoPE 的得分都相同（16 对 q/k，5 个偏移量，键 0..3843）",
    "with the sinusoid added to q and k instead, the score also depends on where the pair sits":
        "若改为把正弦位置编码加到 q 和 k 上，得分还取决于这对位置所在之处",
    "concatenating instead gives another shape":
        "改用拼接会得到另一种形状",
    "posenc's input layer gives every printed shape":
        "posenc 的输入层给出文中印出的每一种形状",
    # tutorial 001-003: a pretrained model's tables
    "the position table keeps out of the words' principal subspace (the fewest directions holding half the word "
    "variance): its share of variance there is under half what random tables of the same shapes give (k/d); both "
    "tables centred":
        "位置表避开了词的主子空间（容纳一半词方差所需的最少方向）：它在其中的方差占比不到同样形状的随机表所给出的一半"
        "（k/d）；两张表都已中心化",
    "before training they are not: tables drawn as BERT initialises them (N(0, 0.02^2), the same shapes) share the "
    "subspace as random tables do (tutorial 001 §4: '训练初期,他们确实不是近似正交的'; chance overlap counts as not "
    "orthogonal)":
        "训练之前并非如此：按 BERT 的初始化方式抽取的表（N(0, 0.02^2)，同样的形状）像随机表一样共享这个子空间"
        "（教程 001 §4：'训练初期,他们确实不是近似正交的'；随机水平的重叠算作不正交）",
    "in the trained model, position rows are shorter than word rows (reference: MiniLM's own trained word rows, the "
    "vectors its learned positions are added to)":
        "在训练好的模型中，位置行比词行短（参照：MiniLM 自己训练过的词行，即它学到的位置所加上的那些向量）",
    "the fixed sinusoid (RMS 1/sqrt(2) per channel) is smaller than the reference embedding at d=512 (the choice: "
    "how the embedding is initialised and scaled by sqrt(d), Vaswani et al. 2017 §3.4)":
        "固定的正弦位置编码（每个通道 RMS 1/sqrt(2)）在 d=512 时比参照词嵌入小（所作的选择：词嵌入如何初始化并乘以 "
        "sqrt(d)，Vaswani et al. 2017 §3.4）",
    "the fixed sinusoid's RMS per channel and the reference embedding's at d=512 (the choice: how the embedding is "
    "initialised and scaled by sqrt(d), Vaswani et al. 2017 §3.4) round to the same power of ten":
        "固定的正弦位置编码每个通道的 RMS 与参照词嵌入在 d=512 时的（所作的选择：词嵌入如何初始化并乘以 sqrt(d)，"
        "Vaswani et al. 2017 §3.4）取整到同一个十的幂",
    "also next to a trained BERT-style word table, which is added to positions unscaled: the sinusoid at d=384 "
    "against MiniLM's trained word rows (reference: what training makes of N(0, 0.02^2) rows)":
        "与训练好的 BERT 式词表（不经缩放直接与位置相加）相比也是如此：d=384 的正弦位置编码对 MiniLM 训练过的词行"
        "（参照：训练把 N(0, 0.02^2) 的行变成的样子）",
    "the cross terms move the logits less than half as much as the word-word and position-position terms (mean over "
    "heads)":
        "交叉项对 logits 的影响不到词-词项和位置-位置项的一半（对注意力头取平均）",
    "also in every single head":
        "在每一个注意力头中也是如此",
    "the four terms are the whole logit: the remainder (LayerNorm bias, projection biases, token type) carries little "
    "of its variance":
        "四项就是整个 logit：余下的部分（LayerNorm 偏置、投影偏置、token type）只承载其方差的很小一部分",
    "some head draws the majority of its four terms' variance from word-word":
        "有注意力头的四项方差大部分来自词-词项",
    "some head draws the majority from position-position":
        "有注意力头的大部分来自位置-位置项",
    "some query/key dimension draws the majority of its four terms' variance from word-word":
        "有查询/键维度的四项方差大部分来自词-词项",
    "some query/key dimension draws the majority from position-position":
        "有查询/键维度的大部分来自位置-位置项",
    "at least one head meets Voita et al.'s rule in 128-token windows (the length the model was fine-tuned at): the "
    "95% interval of its share of queries with the maximum on one fixed offset lies above 90%":
        "在 128 词元的窗口中（模型微调时的长度）至少有一个注意力头满足 Voita et al. 的规则：它把最大注意力放在同一个"
        "固定偏移量上的查询占比，其 95% 区间高于 90%",
    "also in 256-token windows (sentence-transformers' max_seq_length)":
        "在 256 词元的窗口中（sentence-transformers 的 max_seq_length）也是如此",
    "also in 512-token windows (the whole position table)":
        "在 512 词元的窗口中（整张位置表）也是如此",
    "'king' is among the 1% of words nearest to 'man' + 'royalty' (query words left out)":
        "'king' 在离 'man' + 'royalty' 最近的 1% 的词之中（不计查询词本身）",
    "'rome' is among the 1% nearest to 'paris' - 'france' + 'italy'":
        "'rome' 在离 'paris' - 'france' + 'italy' 最近的 1% 之中",
    "on the top-10 reading: 'king' among the 10 nearest":
        "按前 10 读法：'king' 在最近的 10 个之中",
    "on the top-10 reading: 'rome' among the 10 nearest":
        "按前 10 读法：'rome' 在最近的 10 个之中",
    "on the nearest-word reading (Mikolov et al. 2013's criterion): 'king' is the nearest word":
        "按最近词读法（Mikolov et al. 2013 的标准）：'king' 是最近的词",
    "on the nearest-word reading: 'rome' is the nearest word":
        "按最近词读法：'rome' 是最近的词",
    "in both examples the sum ranks the target above where its best single word does":
        "在两个例子中，和向量都把目标词排在比其中最好的单个词更靠前的位置",
    "the word is still the nearest word in direction to word + position":
        "在方向上，这个词仍是离“词 + 位置”最近的词",
    "the same word at two positions is less than half as far apart in angle as two different words at one position":
        "同一个词在两个位置上的夹角，不到两个不同的词在同一位置上的夹角的一半",
    "the same maps fail on the sum of two words of one table, which cannot say which is which":
        "同样的映射用在同一张表中两个词的和上就失败了，因为分不清哪个是哪个",
    "affine maps fitted by least squares recover both the word and the position of held-out sums":
        "用最小二乘拟合的仿射映射能从留出的和向量中恢复词和位置",
    "the same search fails on the sum of two words of one table":
        "同样的搜索用在同一张表中两个词的和上就失败了",
    "searching both tables recovers the word and the position of held-out sums":
        "在两张表中搜索能从留出的和向量中恢复词和位置",
    "no isotropic table reaches the bar":
        "没有一张各向同性的表达到阈值",
    "the tenth of dimensions that vary most hold more of the words' variance than isotropic tables put there, by at "
    "least half the stated effect":
        "变化最大的十分之一维度所容纳的词方差比各向同性的表在那里的多，至少多出所述效应的一半",
    "isotropic tables of the same shape need more than half":
        "同样形状的各向同性表需要超过一半",
    "under half of the principal directions hold 90% of the position table's variance":
        "不到一半的主方向就容纳了位置表 90% 的方差",
    "MiniLM has positional heads (Voita et al.'s rule)":
        "MiniLM 有位置注意力头（Voita et al. 的规则）",
    "a ridge probe fitted on other windows reads the word a positional head attends to from its output, for at least "
    "one query in five, on average over those heads":
        "在其他窗口上拟合的岭回归探针能从位置注意力头的输出中读出它所关注的词，五个查询中至少读对一个（对这些注意力头取平均）",
    "in SmolLM2-135M, the probe reads the word a positional head attends to from its output, for at least one query "
    "in five":
        "在 SmolLM2-135M 中，探针能从位置注意力头的输出中读出它所关注的词，五个查询中至少读对一个",
    "on the attention reading: swapping the words (positions kept) moves at least 5% of a positional head's "
    "attention, on average over those heads":
        "按注意力的读法：交换词（位置不变）至少移动位置注意力头 5% 的注意力（对这些注意力头取平均）",
    "on the attention reading, in SmolLM2-135M: the swap moves at least 5% of a positional head's attention":
        "按注意力的读法，在 SmolLM2-135M 中：交换至少移动位置注意力头 5% 的注意力",
    "the probe sees words where they are: it reads each word from the hidden states the positional heads read, above "
    "the bar":
        "探针能在有词的地方看到词：它从位置注意力头读取的隐藏状态中读出每个词，准确率高于阈值",
    "the probe reads each word from the hidden states SmolLM2's positional heads read, above the bar":
        "探针从 SmolLM2 的位置注意力头读取的隐藏状态中读出每个词，准确率高于阈值",
    "swapping the words (positions kept) moves at least 5% of a positional head's attention, on average over those "
    "heads":
        "交换词（位置不变）至少移动位置注意力头 5% 的注意力（对这些注意力头取平均）",
    "the probe reads both the token and the position (within +-2 tokens) from the sum itself (the embeddings' output) "
    "for nine tokens in ten":
        "探针从和向量本身（嵌入层的输出）中读出词元和位置（误差在 +-2 个词元以内），十个词元中有九个读对",
    "after every attention and FFN block a linear probe reads the token far above chance":
        "在每个注意力块和 FFN 块之后，线性探针读出词元的准确率都远高于随机水平",
    "and the position within +-2 tokens far above chance":
        "并且读出位置（误差在 +-2 个词元以内）的准确率远高于随机水平",
    "correctly: the token for nine tokens in ten after every module":
        "读得正确：在每个模块之后，十个词元中有九个的词元被读对",
    "and the position within +-2 tokens for nine tokens in ten":
        "并且十个词元中有九个的位置被读对（误差在 +-2 个词元以内）",
    "king and queen are more similar than 99% of random word pairs":
        "king 与 queen 比 99% 的随机词对更相似",
    "king and apple are no more similar than 90% of random pairs":
        "king 与 apple 并不比 90% 的随机词对更相似",
    # tutorial 003 and the lab
    "at least 2 tasks learned in distribution (token accuracy >= 0.95)":
        "至少有 2 个任务在分布内学会了（token accuracy >= 0.95）",
    "at least 2 of them on which the sinusoid scores below 0.99 in distribution, so that a win by more than 0.01 can "
    "happen":
        "其中至少有 2 个任务上正弦位置编码在分布内的得分低于 0.99，使得超过 0.01 的胜出有可能发生",
    "learned beats the sinusoid in distribution (by > 0.01, whole interval) on more than half of the learned tasks "
    "where the sinusoid leaves room for it":
        "在正弦位置编码留有余地的已学会任务中，超过一半的任务上学习式位置编码在分布内胜过正弦位置编码（高出 > 0.01，"
        "整个区间）",
    "RoPE learned the tasks in distribution":
        "RoPE 在分布内学会了这些任务",
    "power: ALiBi, trained and tested alike, keeps at least half its in-distribution token accuracy past the trained "
    "sizes":
        "检验力：以同样方式训练和测试的 ALiBi，在超出训练规模后至少保留其分布内 token accuracy 的一半",
    "past the trained sizes RoPE keeps at least half its in-distribution token accuracy":
        "超出训练规模后，RoPE 至少保留其分布内 token accuracy 的一半",
    "and keeps at least 90% of it":
        "并且至少保留其中的 90%",
    "power: training moved the used word rows at least a third of their norm (|E_end - E_start| / |E_start|, whole "
    "interval over runs)":
        "检验力：训练使用到的词行至少移动了其范数的三分之一（|E_end - E_start| / |E_start|，跨多次运行的整个区间）",
    "the division shows by more than a tenth: with the sinusoid, the word rows' variance moves toward the highest "
    "quarter of dimensions in training; in SmolLM2, the fastest RoPE pairs' logits follow the offset more than the "
    "slowest pairs'; in MiniLM, position holds more of the lowest quarter's variance than of the highest's":
        "分工的差距超过十分之一：用正弦位置编码时，训练使词行的方差移向最高的四分之一维度；在 SmolLM2 中，转得最快的 "
        "RoPE 维度对的 logits 比最慢的维度对更紧地跟随偏移量；在 MiniLM 中，位置占最低四分之一维度方差的比例高于占"
        "最高四分之一的",
    "at initialisation the position table is not orthogonal to the word rows: its variance in the words' principal "
    "subspace is at least half of chance's (enrichment >= 0.5), the premise":
        "初始化时位置表与词行并不正交：它在词的主子空间中的方差至少是随机水平的一半（enrichment >= 0.5），这是前提",
    "when the model reaches the validation bar, the table is orthogonal to the word rows (enrichment below 0.5, "
    "whole interval)":
        "当模型达到验证阈值时，位置表与词行正交（enrichment 低于 0.5，整个区间）",
    "training moves position into the dimensions where meaning is sparse: the share of the position table's variance "
    "in the half of the dimensions where the word rows vary least grows by more than 0.1":
        "训练把位置移入语义稀疏的维度：在词行变化最小的那一半维度中，位置表方差所占的比例增长超过 0.1",
    "most runs with the added sinusoid reach the bar":
        "大多数加上正弦位置编码的运行达到了阈值",
    "with concatenation the model needs at least 10% more steps to the validation bar":
        "用拼接时，模型达到验证阈值至少多需要 10% 的步数",
    "most sinusoid runs reach the bar":
        "大多数正弦位置编码的运行达到了阈值",
    "with a learned table the model needs at least 10% more steps to the validation bar":
        "用学习式位置表时，模型达到验证阈值至少多需要 10% 的步数",
    "every learned-table run solves the tasks at the trained length (the reference must have learned them)":
        "每个学习式位置表的运行都在训练长度上解决了这些任务（参照本身必须学会它们）",
    "no NoPE run reaches the bar on the local task (it needs positions)":
        "没有一个 NoPE 运行在局部任务上达到阈值（这个任务需要位置）",
    "the sinusoid's token accuracy (mean over runs, whole interval) lies below 0.98, so that it can be more than "
    "0.02 behind":
        "正弦位置编码的 token accuracy（对运行取平均，整个区间）低于 0.98，使它有可能落后超过 0.02",
    "on tasks whose answers depend on a neighbouring token, the sinusoid's token accuracy is more than 2 points below "
    "the learned table's (paired by task and seed)":
        "在答案取决于相邻词元的任务上，正弦位置编码的 token accuracy 比学习式位置表的低 2 个百分点以上（按任务和种子配对）",
    # the literature
    "some positional head (Voita's rule, interval above 90%) sits at offset -1 or +1 in 128-token windows (the length "
    "the model was fine-tuned at)":
        "有位置注意力头（Voita 的规则，区间高于 90%）位于偏移量 -1 或 +1，在 128 词元的窗口中（模型微调时的长度）",
    "no positional head sits at another offset":
        "没有位置注意力头位于其他偏移量",
    "at most a tenth of the cross terms' variation runs along positions (mean over heads): word-position along the "
    "key's position within each query, position-word along the query's position within each key":
        "交叉项的变化中至多十分之一沿位置方向（对注意力头取平均）：词-位置项沿每个查询内键的位置，位置-词项沿每个键内"
        "查询的位置",
    "also in the head where it is largest":
        "在它最大的那个注意力头中也是如此",
    "ALiBi's perplexity grows least past L":
        "超过 L 之后 ALiBi 的困惑度增长最少",
    "the sinusoid's grows most":
        "正弦位置编码的增长最多",
    "at least 2 tasks that some encoding learned in distribution (>= 0.95), each ranking all five (one that did not "
    "learn it last)":
        "至少有 2 个任务被某种位置编码在分布内学会（>= 0.95），每个任务都给全部五种位置编码排名（没学会的排最后）",
    "at least 2 of them on which some encoding scores below 0.99 past L, so that the encodings can be ordered":
        "其中至少有 2 个任务上，某种位置编码超过 L 后的得分低于 0.99，使各位置编码可以排出先后",
    "the Spearman correlation of measured and published mean reciprocal ranks exceeds 0.9":
        "测得的与论文发表的平均倒数排名之间的 Spearman 相关系数超过 0.9",
    "within its context (2048 tokens, the same depth) the model retrieves the key: the prompt works":
        "在上下文长度之内（2048 个词元，同样的深度）模型能检索到那个键：提示词有效",
    "without scaling the model fails past its context at the length run (10240 tokens): perplexity above 1.5x the "
    "native model's on the same windows. A rescue needs a failure to rescue: where the unscaled model holds up, "
    "nothing is rescued and the claim is not tested at this length; the length that tests it is one where the "
    "unscaled model fails, e.g. 16384 tokens (twice the native context; `posenc extend smollm2 --lengths 16k "
    "--scalings none,linear,yarn --windows 4`)":
        "不缩放时，模型在所运行的长度（10240 个词元）上超出上下文后失效：在相同窗口上困惑度高于原生模型的 1.5 倍。"
        "要补救，先得有失效：未缩放的模型撑得住时，就没有什么需要补救，这条说法在这个长度上没有被检验；能检验它的长度是"
        "未缩放模型失效之处，例如 16384 个词元（原生上下文的两倍；`posenc extend smollm2 --lengths 16k "
        "--scalings none,linear,yarn --windows 4`）",
    "past the native context, position interpolation lowers perplexity against no scaling (ratio paired by window)":
        "超出原生上下文后，位置插值使困惑度比不缩放时更低（按窗口配对的比值）",
    "past the native context, YaRN lowers perplexity against no scaling (ratio paired by window)":
        "超出原生上下文后，YaRN 使困惑度比不缩放时更低（按窗口配对的比值）",
    "with YaRN, perplexity past the context stays within 1.5x that of the native model on the same text":
        "用 YaRN 时，超出上下文后的困惑度保持在同一文本上原生模型困惑度的 1.5 倍以内",
    "with YaRN and a prompt longer than the native context, the model still retrieves a key hidden near the end "
    "(depth 0.95)":
        "用 YaRN 且提示词长于原生上下文时，模型仍能检索到藏在末尾附近的键（深度 0.95）",
    "without scaling the model fails past its context at the length run (16384 tokens): perplexity above 1.5x the "
    "native model's on the same windows. A rescue needs a failure to rescue: where the unscaled model holds up, "
    "nothing is rescued and the claim is not tested at this length; the length that tests it is one where the "
    "unscaled model fails, e.g. 16384 tokens (twice the native context; `posenc extend smollm2 --lengths 16k "
    "--scalings none,linear,yarn --windows 4`)":
        "不缩放时，模型在所运行的长度（16384 个词元）上超出上下文后失效：在相同窗口上困惑度高于原生模型的 1.5 倍。"
        "要补救，先得有失效：未缩放的模型撑得住时，就没有什么需要补救，这条说法在这个长度上没有被检验；能检验它的长度是"
        "未缩放模型失效之处，例如 16384 个词元（原生上下文的两倍；`posenc extend smollm2 --lengths 16k "
        "--scalings none,linear,yarn --windows 4`）",
    "FIRE's log perplexity past L is below both RoPE's and ALiBi's":
        "超过 L 之后，FIRE 的对数困惑度低于 RoPE 和 ALiBi 的",
    "KERPLE's log perplexity past L is below both RoPE's and ALiBi's":
        "超过 L 之后，KERPLE 的对数困惑度低于 RoPE 和 ALiBi 的",
    "p-RoPE's perplexity at L is at most 2% above RoPE's":
        "在 L 处，p-RoPE 的困惑度至多比 RoPE 的高 2%",
    "CoPE learned both tasks in distribution (token accuracy >= 0.95)":
        "CoPE 在分布内学会了两个任务（token accuracy >= 0.95）",
    "RoPE and learned both score below 0.99 past L on both tasks, so that CoPE can beat them":
        "超过 L 之后，RoPE 和学习式位置编码在两个任务上的得分都低于 0.99，使 CoPE 有可能胜过它们",
    "CoPE beats RoPE and learned on selective copy past L":
        "超过 L 之后，CoPE 在选择性复制任务上胜过 RoPE 和学习式位置编码",
    "CoPE beats RoPE and learned on count past L":
        "超过 L 之后，CoPE 在计数任务上胜过 RoPE 和学习式位置编码",
    "CoPE keeps token accuracy >= 0.95 past L on both tasks":
        "超过 L 之后，CoPE 在两个任务上都保持 token accuracy >= 0.95",
    "PoPE's log perplexity past L is below RoPE's":
        "超过 L 之后，PoPE 的对数困惑度低于 RoPE 的",
    "FoX's log perplexity past L is below RoPE's":
        "超过 L 之后，FoX 的对数困惑度低于 RoPE 的",
    "DAPE-KERPLE's log perplexity past L is below KERPLE's":
        "超过 L 之后，DAPE-KERPLE 的对数困惑度低于 KERPLE 的",
    "the hybrid's log perplexity past L is below both all-RoPE's and all-NoPE's":
        "超过 L 之后，混合方案的对数困惑度低于全 RoPE 和全 NoPE 的",
    # SmolLM2-135M, a causal decoder, for the head claims
    "in SmolLM2-135M, a causal decoder, at least one head meets Voita et al.'s rule in 128-token windows (offsets "
    "-8..0: a causal query sees no later key)":
        "在因果解码器 SmolLM2-135M 中，在 128 词元的窗口里至少有一个注意力头满足 Voita et al. 的规则（偏移量 -8..0："
        "因果的查询看不到后面的键）",
    "SmolLM2 has positional heads (Voita et al.'s rule over offsets -8..0)":
        "SmolLM2 有位置注意力头（Voita et al. 的规则，偏移量 -8..0）",
    "in SmolLM2-135M, a causal decoder, some positional head (Voita's rule, interval above 90%) sits at offset -1, "
    "the previous token, in 128-token windows":
        "在因果解码器 SmolLM2-135M 中，有位置注意力头（Voita 的规则，区间高于 90%）位于偏移量 -1，即前一个词元，在 128 "
        "词元的窗口中",
    "no positional head of SmolLM2 sits at another offset (the token itself, or further back)":
        "SmolLM2 没有位置注意力头位于其他偏移量（词元自身，或更靠前的位置）",
    # earlier wordings that a committed report (docs/reports/*.json) still shows
    "learned beats the sinusoid in distribution (by > 0.01, whole interval) on more than half of the learned tasks":
        "在已学会的任务中，超过一半的任务上学习式位置编码在分布内胜过正弦位置编码（高出 > 0.01，整个区间）",
    "some positional head (Voita's rule, interval above 90%) sits at offset -1 or +1":
        "有位置注意力头（Voita 的规则，区间高于 90%）位于偏移量 -1 或 +1",
}
