"""The Chinese of the text a verdict builds from a claim's records: each test's ``unless`` wording, keyed by the
English as the ledger writes it.

A qualified verdict's condition is its failing tests' ``unless`` texts joined by ``"; "`` (``{value}`` filled with
the measured number, :func:`posenc.report.verdict.judge`); :func:`condition_zh` reads a condition back into those
pieces, by the claim's own tests, and gives its Chinese, so the page's Chinese reading shows the condition in
Chinese. Model names, numbers, claim ids and code names stay in Latin script; the terms are the tutorials' own
(位置编码, 注意力头, 外推, 正弦, 旋转位置编码).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from posenc.report.claim import Test

__all__ = ["UNLESS_ZH", "condition_zh"]

#: a test's ``unless`` (English, as in the ledger) -> its Chinese; ``{value}`` stays a placeholder in both
UNLESS_ZH: dict[str, str] = {
    "'Paris' - 'France' + 'Italy' ~ 'Rome' does not hold on any reading":
        "'Paris' - 'France' + 'Italy' ~ 'Rome' 在任何一种读法下都不成立",
    "'king' ~ 'man' + 'royalty' does not hold on any reading":
        "'king' ~ 'man' + 'royalty' 在任何一种读法下都不成立",
    "ALiBi is flattest, but the sinusoid is not the steepest":
        "ALiBi 最平缓，但正弦位置编码并不是最陡的",
    "CoPE does better on counting only":
        "CoPE 只在计数任务上表现更好",
    "CoPE does better on selective copy only":
        "CoPE 只在选择性复制任务上表现更好",
    "CoPE does better than the token-counting encodings but does not solve the tasks past L":
        "CoPE 比按词元计数的位置编码表现更好，但在超过 L 的位置上解决不了这些任务",
    "YaRN helps, but past the context perplexity stays above 1.5x the native value":
        "YaRN 有帮助，但超出上下文长度后困惑度仍高于原生值的 1.5 倍",
    "YaRN keeps perplexity, but the model stops retrieving the key past its context":
        "YaRN 保住了困惑度，但超出上下文长度后模型不再能检索到那个键",
    "a linear relative map exists":
        "存在一个线性的相对位置映射",
    "after some module the position is not read beyond chance":
        "经过某个模块之后，位置的读出不高于随机水平",
    "after some module the position is read beyond chance but not correctly":
        "经过某个模块之后，位置的读出高于随机水平，但并不正确",
    "after some module the token is not read beyond chance":
        "经过某个模块之后，词元的读出不高于随机水平",
    "after some module the token is read beyond chance but not correctly":
        "经过某个模块之后，词元的读出高于随机水平，但并不正确",
    "an added table's score depends on the offset only too: RoPE is no more explicit":
        "加到输入上的位置表，其得分同样只取决于偏移量：旋转位置编码（RoPE）并不更显式",
    "attention can read relative position from it":
        "注意力能从中读出相对位置",
    "but not because of training: tables drawn as BERT initialises them are already in near-orthogonal subspaces":
        "但这并非训练所致：按 BERT 的初始化方式抽取的表本来就处在近乎正交的子空间中",
    "flat on average over heads, not in every head":
        "对所有注意力头取平均时是平的，但并非每个注意力头都如此",
    "for YaRN only: position interpolation without fine-tuning (Chen et al. 2023 fine-tune 1000 steps) does not beat "
    "no scaling":
        "只对 YaRN 成立：不经微调的位置插值（Chen et al. 2023 微调了 1000 步）不比不缩放更好",
    "for bidirectional (encoder) self-attention; a causal mask alone tells the orders apart (Kazemnejad et al. 2023)":
        "只对双向（编码器）自注意力成立；单靠因果掩码就能区分不同的顺序（Kazemnejad et al. 2023）",
    "for position interpolation only: YaRN without fine-tuning does not beat no scaling":
        "只对位置插值成立：不经微调的 YaRN 不比不缩放更好",
    "in the trained model only: the fixed sinusoid is larger than this reference embedding":
        "只在训练好的模型中成立：固定的正弦位置编码比这个参照词嵌入更大",
    "it carries the order of different words, but along a run of one repeated token its state stops telling positions "
    "apart":
        "它能携带不同词的顺序，但在同一个词元连续重复时，它的状态不再能区分位置",
    "it does not grow with length":
        "它不随长度增长",
    "it does not swamp the embedding":
        "它不会淹没词嵌入",
    "it runs, but keeps less than half":
        "它能运行，但保留下来的不到一半",
    "its cost grows with d, but at d_model = 512 it takes under 1% of a forward pass: no visible effect on efficiency":
        "它的开销随 d 增长，但在 d_model = 512 时占一次前向计算的不到 1%：对效率没有可见的影响",
    "its memory grows with d, but at 512 positions it is under a tenth of the blocks' weights: not a lot of memory":
        "它的内存随 d 增长，但在 512 个位置时不到各个块权重的十分之一：并不占很多内存",
    "king and apple are closer than unrelated words typically are":
        "king 与 apple 比通常不相关的词更接近",
    "king and queen are not close":
        "king 与 queen 并不接近",
    "neighbour distances are even":
        "相邻位置之间的距离是均匀的",
    "no dimension is a position expert":
        "没有哪个维度专门负责位置",
    "no dimension is a word expert":
        "没有哪个维度专门负责词",
    "no head is a position expert":
        "没有哪个注意力头专门负责位置",
    "no head is a word expert":
        "没有哪个注意力头专门负责词",
    "no information lost only when the width is large enough":
        "只有宽度足够大时才不丢失信息",
    "no positional head at +-1 at 128 tokens":
        "在 128 个词元时没有关注 +-1 位置的位置注意力头",
    "no positional head at 128 tokens":
        "在 128 个词元时没有位置注意力头",
    "not at 512 tokens":
        "在 512 个词元时不成立",
    "not periodic within the 128 positions drawn":
        "在所画的 128 个位置内不呈周期性",
    "on the looser readings, not on the nearest-word one: 'king' is not the nearest word":
        "在较宽松的读法下成立，在最近词读法下不成立：'king' 不是最近的词",
    "on the looser readings, not on the nearest-word one: 'rome' is not the nearest word":
        "在较宽松的读法下成立，在最近词读法下不成立：'rome' 不是最近的词",
    "on the top-1% reading only: 'rome' not among the 10 nearest words":
        "只在前 1% 读法下成立：'rome' 不在最近的 10 个词之中",
    "on the top-1% reading only: not among the 10 nearest words":
        "只在前 1% 读法下成立：不在最近的 10 个词之中",
    "only for the four terms: a fifth part the split leaves out (biases and LayerNorm) carries much of the logits' "
    "variance":
        "只对四项成立：分解遗漏的第五部分（偏置和 LayerNorm）承载了 logits 方差的很大一部分",
    "only next to an embedding of the reference's scale: next to a trained, unscaled BERT-style word table the "
    "sinusoid is not of the same order of magnitude":
        "只在与参照尺度相当的词嵌入旁成立：与训练好、未缩放的 BERT 式词表相比，正弦位置编码不在同一数量级",
    "only partly: it runs past the trained length but loses accuracy":
        "只部分成立：它能在超出训练长度后运行（外推），但准确率下降",
    "only the global part":
        "只有全局部分成立",
    "only the local part":
        "只有局部部分成立",
    "only when positions may lie closer together than binary neighbours do: at the binary code's own spacing "
    "(distance 1) the sinusoid needs more dimensions":
        "只在位置可以比二进制编码的相邻位置靠得更近时成立：在二进制编码自身的间距（距离 1）上，正弦位置编码需要更多维度",
    "position does not move into the dimensions where meaning is sparse":
        "位置信息并没有移入语义稀疏的那些维度",
    "positional heads exist at +-1, but some look further than one token":
        "存在关注 +-1 位置的位置注意力头，但有些看得比一个词元更远",
    "refuted at 512 tokens":
        "在 512 个词元时被推翻",
    "some positions nearly collide":
        "有些位置几乎重合",
    "supported at 128 tokens (the fine-tuning length); not at 256 tokens":
        "在 128 个词元（微调长度）时得到支持；在 256 个词元时不成立",
    "supported at 128 tokens (the fine-tuning length); refuted at 256 tokens":
        "在 128 个词元（微调长度）时得到支持；在 256 个词元时被推翻",
    "test values stay within the training range":
        "测试值没有超出训练范围",
    "the cost is larger than stated: the later layers grow {value}-fold, not twofold (a layer's weights scale with "
    "the width squared)":
        "开销比所说的更大：后面的层增长到 {value} 倍，而不是两倍（一层的权重与宽度的平方成正比）",
    "the distance does not fall with the dimension":
        "距离不随维度下降",
    "the high dimensions do not bring them close":
        "高维度并没有让它们变得接近",
    "the period does not grow with the dimension":
        "周期不随维度增长",
    "the positions are not kept out of the words' principal subspace":
        "位置没有被排除在词的主子空间之外",
    "the sum finds its target no better than one of its words alone does":
        "和向量找到目标词的效果并不比其中单独一个词更好",
    "the two positions share a vector":
        "这两个位置共用同一个向量",
    "they grow less than twofold":
        "它们增长不到两倍",
    "training does not make them orthogonal":
        "训练并没有让它们正交",
    "weak on average over heads, not in every head":
        "对所有注意力头取平均时较弱，但并非每个注意力头都如此",
}

#: the condition of a qualified verdict whose failing tests are all undecided (:func:`posenc.report.verdict.judge`)
_UNDECIDED = {"some tests undecided": "有些检验未能判定"}

#: how :func:`posenc.report.verdict.judge` joins the failing tests' wordings, and how Chinese joins them
_JOIN_EN, _JOIN_ZH = "; ", "；"


def _pattern(unless: str) -> re.Pattern[str]:
    """``unless`` as a pattern matching it with ``{value}`` filled by a number (captured)."""
    return re.compile(re.escape(unless).replace(re.escape("{value}"), r"(?P<value>[^;]+?)"))


def condition_zh(condition: str, tests: Iterable[Test]) -> str:
    """The Chinese of a qualified verdict's ``condition``, read back into the ``unless`` texts of ``tests`` (the
    claim's) that it joins; a piece no test's ``unless`` accounts for (a ``not: ...`` wording, a condition from an
    older run) stays as written.

    >>> from posenc.report.claim import Test
    >>> t = Test("x", ">", 1.0, "x is large", "the ledger", unless="only the local part")
    >>> condition_zh("only the local part", [t])
    '只有局部部分成立'
    """
    known = [(u, _pattern(u)) for u in dict.fromkeys(t.unless for t in tests if t.unless) if u in UNLESS_ZH]
    pieces, rest = [], condition
    while rest:
        for english, pattern in known + [(k, re.compile(re.escape(k))) for k in _UNDECIDED]:
            found = pattern.match(rest)
            if found and (found.end() == len(rest) or rest.startswith(_JOIN_EN, found.end())):
                zh = UNLESS_ZH.get(english) or _UNDECIDED[english]
                value = found.groupdict().get("value")
                pieces.append(zh.replace("{value}", value) if value is not None else zh)
                rest = rest[found.end() + len(_JOIN_EN):]
                break
        else:  # no test accounts for the next piece: it (up to the next join) stays in English
            head, _, rest = rest.partition(_JOIN_EN)
            pieces.append(head)
    return _JOIN_ZH.join(pieces)
