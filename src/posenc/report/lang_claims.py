"""The Chinese of the text a claim's section builds per claim: each test's ``unless`` wording, keyed by the English
as the ledger writes it; the parts of a measurement's scope line ("rests on"), keyed by their templates; and the
fixed parts of a verdict's reason, as patterns.

A qualified verdict's condition is its failing tests' ``unless`` texts joined by ``"; "`` (``{value}`` filled with
the measured number, :func:`posenc.report.verdict.judge`); :func:`condition_zh` reads a condition back into those
pieces, by the claim's own tests, and gives its Chinese, so the page's Chinese reading shows the condition in
Chinese. Model names, numbers, claim ids and code names stay in Latin script; the terms are the tutorials' own
(位置编码, 注意力头, 外推, 正弦, 旋转位置编码).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from posenc.report.claim import Test
from posenc.report.lang import TEXT, status_key
from posenc.report.lang_records import CHOICE_ZH, NULL_ZH, RUN_REASON_ZH, UNTESTABLE_ZH
from posenc.report.lang_says import SAYS_ZH

__all__ = ["UNLESS_ZH", "condition_zh", "SCOPE_ZH", "SCOPE_NUMBER", "scope_zh", "REASON_ZH", "reason_zh"]

#: a test's ``unless`` (English, as in the ledger) -> its Chinese; ``{value}`` stays a placeholder in both
UNLESS_ZH: dict[str, str] = {
    "on the output reading only: the output names the words, but where the heads look does not move with them (the "
    "swap moves {value} of their attention)":
        "只在输出的读法下成立：输出能说出词，但注意力头关注的位置并不随词移动（交换只移动了它们 {value} 的注意力）",
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
    "positional heads exist at -1, but some hold another offset (the token itself or further back)":
        "存在位于 -1 的位置注意力头，但有些位于其他偏移量（词元自身或更靠前的位置）",
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
#: how :func:`posenc.report.verdict.judge` words a failing test that has no ``unless``, and its Chinese
_NOT_EN, _NOT_ZH = "not: ", "不成立："
#: the tests' own words, longest first (a ``says`` that ends another is tried after it)
_SAYS_BY_LENGTH = sorted(SAYS_ZH, key=len, reverse=True)


def _pattern(unless: str) -> re.Pattern[str]:
    """``unless`` as a pattern matching it with ``{value}`` filled by a number (captured)."""
    return re.compile(re.escape(unless).replace(re.escape("{value}"), r"(?P<value>[^;]+?)"))


def condition_zh(condition: str, tests: Iterable[Test] | None = None) -> str:
    """The Chinese of a qualified verdict's ``condition``, read back into the ``unless`` texts of ``tests`` (the
    claim's; ``None``: every ``unless`` of :data:`UNLESS_ZH`) that it joins; a failing test without an ``unless``
    (``not: <its says>``) reads through :data:`~posenc.report.lang_says.SAYS_ZH`; a piece nothing accounts for (a
    condition from an older run) stays as written.

    >>> from posenc.report.claim import Test
    >>> t = Test("x", ">", 1.0, "x is large", "the ledger", unless="only the local part")
    >>> condition_zh("only the local part", [t])
    '只有局部部分成立'
    """
    unlesses = UNLESS_ZH if tests is None else (t.unless for t in tests if t.unless)
    known = [(u, _pattern(u)) for u in dict.fromkeys(unlesses) if u in UNLESS_ZH]
    known.sort(key=lambda pair: -len(pair[0]))
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
        else:
            said = next((s for s in _SAYS_BY_LENGTH if rest.startswith(f"{_NOT_EN}{s}")
                         and rest[len(_NOT_EN) + len(s):len(_NOT_EN) + len(s) + len(_JOIN_EN)] in ("", _JOIN_EN)), None)
            if said is not None:  # a failing test without an unless: "not: <says>"
                pieces.append(_NOT_ZH + SAYS_ZH[said])
                rest = rest[len(_NOT_EN) + len(said) + len(_JOIN_EN):]
                continue
            head, _, rest = rest.partition(_JOIN_EN)  # nothing accounts for it: up to the next join, as written
            pieces.append(head)
    return _JOIN_ZH.join(pieces)


#: a number in a scope line, a slot of its template: ``128``, ``20,000``, ``5.24.0``; not the digits of a name
#: (``all-MiniLM-L6-v2``, ``SmolLM2-135M``, ``float32``)
SCOPE_NUMBER = re.compile(r"(?<![\w.^])\d+(?:[.,]\d+)*(?!\w)")

#: how an experiment joins the parts of a scope line, and how Chinese joins them
_SCOPE_JOIN_EN, _SCOPE_JOIN_ZH = "; ", "；"

#: a part of a measurement's scope line (:attr:`~posenc.report.measurement.Measurement.scope`) with each number
#: replaced by ``{}`` (:data:`SCOPE_NUMBER`) -> its Chinese, the numbers filled back in the same order
SCOPE_ZH: dict[str, str] = {
    "SmolLM2-135M, {} windows of {} tokens": "SmolLM2-135M，{} 个 {} 词元的窗口",
    "all-MiniLM-L6-v2 ({} layers x {} heads), {} windows of {}, {}, {} tokens":
        "all-MiniLM-L6-v2（{} 层 x {} 个注意力头），{} 个窗口，长 {}、{}、{} 个词元",
    "all-MiniLM-L6-v2 layer {}, {} windows of {}, {}, {} tokens (headline {})":
        "all-MiniLM-L6-v2 第 {} 层，{} 个窗口，长 {}、{}、{} 个词元（主结论取 {}）",
    "all-MiniLM-L6-v2's embedding tables (d={}): {} trained word rows x {} position rows":
        "all-MiniLM-L6-v2 的嵌入表（d={}）：{} 个训练过的词行 x {} 个位置行",
    "all-MiniLM-L6-v2's input word table, {} random pairs": "all-MiniLM-L6-v2 的输入词表，{} 个随机词对",
    "all-MiniLM-L6-v2's input word table, {} tokens": "all-MiniLM-L6-v2 的输入词表，{} 个词元",
    "all-MiniLM-L6-v2's learned table": "all-MiniLM-L6-v2 的学习式位置表",
    "all-MiniLM-L6-v2's positional heads, {} windows of {} tokens":
        "all-MiniLM-L6-v2 的位置注意力头，{} 个 {} 词元的窗口",
    "all-MiniLM-L6-v2's tables (d = {}), {} held-out sums": "all-MiniLM-L6-v2 的表（d = {}），{} 个留出的和向量",
    "all-MiniLM-L6-v2's tables ({} trained word rows, {} position rows)":
        "all-MiniLM-L6-v2 的表（{} 个训练过的词行，{} 个位置行）",
    "all-MiniLM-L6-v2's tables ({} word rows, {} position rows), {} isotropic tables":
        "all-MiniLM-L6-v2 的表（{} 个词行，{} 个位置行），{} 个各向同性的表",
    "all-MiniLM-L6-v2's tables, {} draws": "all-MiniLM-L6-v2 的表，{} 次抽取",
    "all-MiniLM-L6-v2, {} windows of {} tokens": "all-MiniLM-L6-v2，{} 个 {} 词元的窗口",
    "an attention read-out over {} positions": "在 {} 个位置上的一个注意力读出",
    "nothing measured": "没有测量任何数字",
    "one SGD step of posenc's input layer, computed exactly": "posenc 输入层的一步 SGD，精确计算",
    "one posenc block, random weights": "一个 posenc 块，随机权重",
    "posenc Transformers of width {}, {} layers, random weights": "宽度 {}、{} 层的 posenc Transformer，随机权重",
    "posenc's RoPE (float32 tables), {} random query/key pairs":
        "posenc 的旋转位置编码 RoPE（float32 表），{} 对随机的查询/键",
    "posenc's Transformer at the original's sizes (d_model {}, {} layers, {} heads), counted":
        "按原论文尺寸的 posenc Transformer（d_model {}，{} 层，{} 个注意力头），逐一计数",
    "posenc's binary and sinusoid tables, computed exactly": "posenc 的二进制表和正弦表，精确计算",
    "posenc's binary code of {} bits, computed exactly": "posenc 的 {} 位二进制编码，精确计算",
    "posenc's binary table and sinusoid (d = {}), computed exactly": "posenc 的二进制表和正弦编码（d = {}），精确计算",
    "posenc's input layer at the document's shapes, computed exactly": "按文档中形状的 posenc 输入层，精确计算",
    "posenc's integer, normalised, binary and sinusoid tables, computed exactly":
        "posenc 的整数表、归一化表、二进制表和正弦表，精确计算",
    "posenc's learned table, a posenc Transformer, all-MiniLM-L6-v2 (max_len {})":
        "posenc 的学习式位置表、一个 posenc Transformer、all-MiniLM-L6-v2（max_len {}）",
    "posenc's normalised table at lengths {} to {}, computed exactly": "posenc 的归一化表，长度 {} 到 {}，精确计算",
    "posenc's sinusoid and one posenc block of width {} on this machine's CPU, one thread, {} positions, {} repeats":
        "posenc 的正弦编码和一个宽度 {} 的 posenc 块，在本机 CPU 上单线程运行，{} 个位置，重复 {} 次",
    "posenc's sinusoid table (float32), computed exactly": "posenc 的正弦表（float32），精确计算",
    "posenc's sinusoid table (float32), positions up to {}^40, computed exactly":
        "posenc 的正弦表（float32），位置直到 {}^40，精确计算",
    "posenc's sinusoidal table at d={}": "posenc 在 d={} 时的正弦表",
    "random N({}, {}) token embeddings with posenc's sinusoid, linear read-outs":
        "随机 N({}, {}) 词嵌入加 posenc 的正弦位置编码，线性读出",
    "sequences of up to {} positions": "长达 {} 个位置的序列",
    "the sinusoid (base {}) at d={}, {} to {}": "正弦编码（底数 {}），d={}，{} 到 {}",
    "the sinusoid and the binary code for {} positions": "{} 个位置的正弦编码和二进制编码",
    "the sinusoid at d={} and d={}": "d={} 和 d={} 时的正弦编码",
    "the sinusoid at d={}, {} positions": "d={} 时的正弦编码，{} 个位置",
    "the sinusoid, positions {} and {}, widths d={}, d={}, d={}": "正弦编码，位置 {} 和 {}，宽度 d={}、d={}、d={}",
    "the sinusoid, {} positions, widths d={}, d={}, d={}": "正弦编码，{} 个位置，宽度 d={}、d={}、d={}",
    "torch RNN, GRU and LSTM and posenc's position-free attention, {} random initialisations":
        "torch 的 RNN、GRU 和 LSTM 以及 posenc 不带位置的注意力，{} 次随机初始化",
    "transformers {}'s default configurations": "transformers {} 的默认配置",
    "{} random tables": "{} 个随机表",
    "{}-layer lab models of width {}, {} seeds, char-LM trained at {} characters":
        "{} 层、宽度 {} 的 lab 模型，{} 个种子，char-LM 在 {} 个字符上训练",
    "{}-layer lab models of width {}, {} seeds, copy at sizes up to {} and local tasks at {} tokens":
        "{} 层、宽度 {} 的 lab 模型，{} 个种子，copy 的规模至多 {}，局部任务在 {} 个词元上",
    "{}-layer lab models of width {}, {} seeds, trained on sizes up to {} (copy)":
        "{} 层、宽度 {} 的 lab 模型，{} 个种子，在规模至多 {} 的数据上训练（copy）",
    # the parts only full and extended runs show: the lab's full task sweep (its addition at another width is a part
    # of its own, after "; "), the counting sweep, SmolLM2 past its context, SmolLM2 for the head claims
    "{}-layer lab models of width {}, {} seeds, trained on sizes up to {} (copy, reverse, sort":
        "{} 层、宽度 {} 的 lab 模型，{} 个种子，在规模至多 {} 的数据上训练（copy、reverse、sort",
    "addition at width {}, up to {})": "addition 的宽度为 {}，规模至多 {}）",
    "{}-layer lab models of width {}, {} seeds, trained on sizes up to {} (selective_copy, count)":
        "{} 层、宽度 {} 的 lab 模型，{} 个种子，在规模至多 {} 的数据上训练（selective_copy、count）",
    "SmolLM2-135M, {} windows of {} tokens, passkey {} trials per cell":
        "SmolLM2-135M，{} 个 {} 词元的窗口，passkey 每格 {} 次试验",
    "smollm2, {} windows of {} tokens, passkey {} trials per cell":
        "smollm2，{} 个 {} 词元的窗口，passkey 每格 {} 次试验",
    "SmolLM2-135M-Instruct ({} layers x {} heads, causal), {} windows of {} tokens":
        "SmolLM2-135M-Instruct（{} 层 x {} 个注意力头，因果），{} 个 {} 词元的窗口",
    "SmolLM2-135M-Instruct's positional heads, {} windows of {} tokens":
        "SmolLM2-135M-Instruct 的位置注意力头，{} 个 {} 词元的窗口",
    "SmolLM2-135M-Instruct: not run in quick mode": "SmolLM2-135M-Instruct：快速模式不运行",
    # one seed (--seeds 1)
    "{}-layer lab models of width {}, {} seed, char-LM trained at {} characters":
        "{} 层、宽度 {} 的 lab 模型，{} 个种子，char-LM 在 {} 个字符上训练",
    "{}-layer lab models of width {}, {} seed, copy at sizes up to {} and local tasks at {} tokens":
        "{} 层、宽度 {} 的 lab 模型，{} 个种子，copy 的规模至多 {}，局部任务在 {} 个词元上",
    "{}-layer lab models of width {}, {} seed, trained on sizes up to {} (copy)":
        "{} 层、宽度 {} 的 lab 模型，{} 个种子，在规模至多 {} 的数据上训练（copy）",
    "{}-layer lab models of width {}, {} seed, trained on sizes up to {} (copy, reverse, sort":
        "{} 层、宽度 {} 的 lab 模型，{} 个种子，在规模至多 {} 的数据上训练（copy、reverse、sort",
    "{}-layer lab models of width {}, {} seed, trained on sizes up to {} (selective_copy, count)":
        "{} 层、宽度 {} 的 lab 模型，{} 个种子，在规模至多 {} 的数据上训练（selective_copy、count）",
}


def scope_zh(scope: str) -> str:
    """The Chinese of a measurement's scope line: each ``"; "``-joined part looked up in :data:`SCOPE_ZH` by its
    template (numbers as ``{}``) and its numbers filled back in order; a part without Chinese stays as written.

    >>> scope_zh("all-MiniLM-L6-v2, 8 windows of 128 tokens; 5 random tables")
    'all-MiniLM-L6-v2，8 个 128 词元的窗口；5 个随机表'
    """
    parts = []
    for part in scope.split(_SCOPE_JOIN_EN):
        zh = SCOPE_ZH.get(SCOPE_NUMBER.sub("{}", part))
        if zh is None:
            parts.append(part)
            continue
        parts.append(zh.format(*SCOPE_NUMBER.findall(part)))
    return _SCOPE_JOIN_ZH.join(parts)


#: the fixed parts of a verdict's reason (:func:`posenc.report.verdict.judge` and the helpers it writes with), each
#: a pattern over the English and its Chinese; applied in order, the numbers, statistics and a test's own words
#: (``says``, a claim's null) carried over as written
REASON_ZH: tuple[tuple[str, str | Callable[[re.Match[str]], str]], ...] = (
    (r"\[no interval: n=(\d+), an interval needs (\d+)\]", r"[没有区间：n=\1，区间至少需要 \2]"),
    (r"\) — holds\b", "）— 成立"),
    (r"\) — does not hold\b", "）— 不成立"),
    (r"\) — undecided \(n=(\d+): no interval\)", r"）— 未定（n=\1：没有区间）"),
    (r"\) — undecided\b", "）— 未定"),
    (r" \(needs ([<>]) ([^;)）]+)(?:; null ([^)）]+))?(?=）— )",
     lambda m: f"（需要 {m[1]} {m[2]}" + (f"；零基线 {m[3]}" if m[3] else "")),
    (r"^requirement not met, so the test cannot tell the cases apart: ", "前提未满足，因此检验无法区分两种情形："),
    (r"^requirement not met: ", "前提未满足："),
    (r"^requirement undecided: ", "前提未定："),
    (r"\. Undecided: ", "。未定："),
    (r"([\w.]+) rests on n=(\d+), too few for an interval: at least (\d+) independent units are needed",
     r"\1 只基于 n=\2，太少而没有区间：至少需要 \3 个独立单元"),
    (r"([\w.]+) sits on the threshold; no sample size would settle it", r"\1 正好落在阈值上；多大的样本都无法判定"),
    (r"([\w.]+) = ([^;:：]+?) straddles (\S+); about (\d+) samples instead of (\d+) would settle it if the value held",
     r"\1 = \2 跨过 \3；若数值不变，约 \4 个样本（而非 \5 个）即可判定"),
    (r"\. Quick mode cannot decide this: its numbers rest on too few units for an interval \(at least (\d+)\); the "
     r"full report decides it", r"。快速模式无法判定：其数字所基于的单元太少，不足以给出区间（至少 \1 个）；完整报告可以判定"),
    (r"^the null already passes the bar, so the test cannot tell the cases apart: ",
     "零基线已经越过阈值，因此检验无法区分两种情形："),
    (r"^the bar does not separate the null from the effect: ", "阈值没有把零基线与效应分开："),
    (r" already gives ([\w.]+) = ([^;]+?), past the bar ([<>] \S+) \(measured: ([\w.]+) = ([^;]+?)\)",
     r" 已经给出 \1 = \2，越过阈值 \3（测得：\4 = \5）"),
    (r" gives ([\w.]+) = ([^;]+?), across the bar ([<>] \S+) \(measured: ([\w.]+) = ([^;]+?)\)",
     r" 给出 \1 = \2，跨在阈值 \3 上（测得：\4 = \5）"),
    (r"\. It would be refuted, but only a test with power to see the effect refutes it, and the power requirement is "
     r"not met: ", "。它本会被推翻，但只有能看到效应的检验才能推翻它，而检验力的前提未满足："),
    (r"\. The claim is hedged \(([^)]*)\): a 'may' is refuted only by showing it cannot happen in the setting tested, "
     r"with power to see it if it did, and this claim shows no power \(a power requirement: a positive control, or "
     r"the null's separation from the stated effect\); its sampled numbers alone leave it open",
     r"。这条说法带有保留（\1）：一个“可能”只有在所测的情形中证明它不会发生、且若发生也有检验力能看到时才被推翻，"
     r"而这条说法没有给出检验力（检验力前提：阳性对照，或零基线与所述效应之间的分离）；单凭其抽样数字无法定论"),
    (r"^not testable as written: ", "按原文无法检验："),
    (r"(?<=[\u4e00-\u9fff）]); ", "；"),  # the joins between parts now in Chinese
)

_REASON_ZH = tuple((re.compile(pattern), zh) for pattern, zh in REASON_ZH)

#: a test's own words where a reason names them, with their colon: at the start of a part, before its statistic
#: (``"{says}: "``)
_SAYS = re.compile(r"(?:^|(?<=; )|(?<=: ))(" + "|".join(map(re.escape, _SAYS_BY_LENGTH)) + r"): ")
#: a claim's null where a reason names it: before what it gives (:func:`posenc.report.verdict.judge`)
_NULLS = re.compile(r"(?:(?<=: )|(?<=：))(" + "|".join(map(re.escape, sorted(NULL_ZH, key=len, reverse=True)))
                    + r"|the null)(?= (?:already )?gives )")
_UNTESTABLE = re.compile(r"^not testable as written: (.*)$", re.DOTALL)
#: the note a choice's headline adds (:func:`posenc.report.run.judge_claim`)
_RESTS_ON = re.compile(r" \[Rests on (.+?) = (.+); under the other options: (.*)\.\]$", re.DOTALL)
_STATUS = r"supported|refuted|inconclusive|not testable|not decided in quick mode|not run|failed"


def _option_pattern(options: Iterable[str]) -> re.Pattern[str]:
    """A pattern reading one ``option: label`` of the note's list; ``options`` (the choice's) tell where a label
    ends, since labels and option names both may hold commas (any other option name: the text up to a colon)."""
    names = "|".join(map(re.escape, sorted(set(options), key=len, reverse=True)))
    name = f"(?:{names})" if names else "[^:]+?"
    return re.compile(rf"(?:, )?({names + '|' if names else ''}.+?): ({_STATUS}|qualified: .+?)"
                      rf"(?=, {name}: (?:{_STATUS}|qualified)\b|$)", re.DOTALL)


def _choice(text: str) -> str:
    return CHOICE_ZH.get(text, text)


def _label(label: str) -> str:
    """A verdict's label under an option (``refuted``, ``qualified: <condition>``) in Chinese."""
    status, _, condition = label.partition(": ")
    name = TEXT["zh"].get(status_key(status), status)
    return f"{name}：{condition_zh(condition)}" if condition else name


def _rests_on(found: re.Match[str], options: Iterable[str]) -> str:
    """The note of a choice's headline in Chinese: the choice, its headline and why, the verdict under each other
    option."""
    name, rest, others = found[1], found[2], found[3]
    why = next((w for w in sorted(CHOICE_ZH, key=len, reverse=True) if rest.endswith(f" ({w})")), None)
    if why is not None:
        headline = rest[:-len(why) - 3]
    else:  # a reason no table knows: split at the first parenthesis
        headline, _, why = rest.partition(" (")
        why = why[:-1]
    options = "，".join(f"{_choice(o)}：{_label(label)}" for o, label in _option_pattern(options).findall(others)) or others
    return f" [依据 {_choice(name)} = {_choice(headline)}（{_choice(why)}）；其他选项下：{options}。]"


def reason_zh(reason: str, options: Iterable[str] = ()) -> str:
    """A verdict's reason in Chinese: the fixed parts (:data:`REASON_ZH`), each test's own words
    (:data:`~posenc.report.lang_says.SAYS_ZH`), the claim's null, why it is not testable and its choice's note
    (:mod:`posenc.report.lang_records`), and a reason an experiment wrote when it did not run
    (:data:`~posenc.report.lang_records.RUN_REASON_ZH`). ``options``: the options of the claim's choice, which tell
    where each verdict of the note's "under the other options" ends. The numbers, statistics and names stay as
    written; text no table knows (an error, a wording no table holds) stays in English.

    >>> reason_zh("no value exceeds 1 in absolute value, at any position tested: max_abs = 1 (needs < 1.001) — holds")
    '在所测的任何位置上，取值的绝对值都不超过 1：max_abs = 1（需要 < 1.001）— 成立'
    """
    for pattern, zh in RUN_REASON_ZH:
        if pattern.search(reason):
            return pattern.sub(zh, reason)
    note = _RESTS_ON.search(reason)
    head = reason[:note.start()] if note else reason
    untestable = _UNTESTABLE.match(head)
    if untestable:
        return "按原文无法检验：" + UNTESTABLE_ZH.get(untestable[1], untestable[1])
    head = _SAYS.sub(lambda m: SAYS_ZH[m[1]] + "：", head)
    head = _NULLS.sub(lambda m: NULL_ZH.get(m[1], "零基线"), head)
    for pattern, zh in _REASON_ZH:
        head = pattern.sub(zh, head)
    return head + (_rests_on(note, options) if note else "")
