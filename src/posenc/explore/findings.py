"""``posenc inspect``'s findings in Chinese, for the explorer's Chinese page.

posenc writes each finding in English with the config's values in it (:mod:`posenc.inspection`). Each template below
is one of those sentences with its values as ``{name}`` fields, beside the same sentence in Chinese with the same
fields: :func:`chinese` matches a message against the English templates and fills the Chinese one with the values it
read. A message no template matches (a finding added to posenc after these were written) gets ``None``, and the page
shows a Chinese line naming the finding's code above the English message; ``tests/explore/test_findings.py`` fails
for any preset's finding that would need that.

>>> chinese("partial-rotary", "the rotary width head_dim x factor = 64 x 0.3 = 19 is odd: RoPE turns pairs of "
...         "channels, and code differs on what to do with the odd one")
'旋转宽度 head_dim × factor = 64 × 0.3 = 19 是奇数：RoPE 成对旋转通道，而各家代码对多出来的那一个通道处理不一。'
"""

from __future__ import annotations

import re
from functools import cache

__all__ = ["TEMPLATES", "chinese"]

#: (code, English sentence as posenc.inspection writes it, the Chinese sentence); ``{name}`` is a value
TEMPLATES: tuple[tuple[str, str, str], ...] = (
    ("rope-theta",
     "rope_theta is {top} at the top level but {inner} in {where}: transformers 5 reads rope_parameters, code that "
     "reads the top-level field gets {top}; make them equal",
     "顶层的 rope_theta 是 {top}，而 {where} 里是 {inner}：transformers 5 读 rope_parameters，读顶层字段的代码得到 "
     "{top}；请让两者一致。"),
    ("rope-theta",
     "{where} in the config has no rope_theta: the base is whatever default the reading code assumes (transformers "
     "fills in {filled} for this model type, other code usually {default}); write the base the model was trained "
     "with into the config",
     "配置里的 {where} 没有 rope_theta：底数取决于读取代码假定的默认值（transformers 对这个模型类型填入 {filled}，"
     "其他代码通常用 {default}）；请把模型训练时的底数写进配置。"),
    ("rope-theta",
     "the config has no rope_theta (and no rope_parameters): the RoPE base is a default, {filled} as transformers "
     "fills it in for model type {model_type}, {default} in most other code; write the base the model was trained "
     "with into the config",
     "配置里没有 rope_theta（也没有 rope_parameters）：RoPE 底数是默认值，transformers 对模型类型 {model_type} "
     "填入 {filled}，其他多数代码用 {default}；请把模型训练时的底数写进配置。"),
    ("rope-theta",
     "the config sets {name} = {value}, which transformers 5 moves into {target}; code that reads config.{name} or "
     "config.rope_theta from a loaded config gets nothing there and falls back to its default, and code that reads "
     "only rope_theta gives every layer the global base",
     "配置设置了 {name} = {value}，transformers 5 会把它移到 {target}；从载入后的配置读 config.{name} 或 "
     "config.rope_theta 的代码在那里读不到值，只能退回它的默认值，而只读 rope_theta 的代码会让每一层都用全局底数。"),
    ("rope-theta",
     "the RoPE base is {values}, kept only in rope_parameters: config.rope_theta does not exist in transformers 5, "
     "so code that reads it with a fallback (getattr(config, 'rope_theta', {default})) runs base {fallback}; read "
     "config.rope_parameters['rope_theta'] (per layer type where it is a dict of dicts)",
     "RoPE 底数是 {values}，只保存在 rope_parameters 里：transformers 5 中不存在 config.rope_theta，所以带默认值读取它的"
     "代码（getattr(config, 'rope_theta', {default})）会用底数 {fallback} 运行；请读 "
     "config.rope_parameters['rope_theta']（按层类型分成字典的字典时，逐层类型读取）。"),
    ("yarn-factor",
     "{where} is {scaling} (factor {factor}) without original_max_position_embeddings: the original length is then "
     "taken to be max_position_embeddings ({max_pos}), which is wrong if that was raised to the extended context "
     "(the ramp between interpolated and kept frequencies moves by the factor); set original_max_position_embeddings "
     "to the pre-training length",
     "{where} 是 {scaling}（factor {factor}），但没有 original_max_position_embeddings：原始长度于是取 "
     "max_position_embeddings（{max_pos}），如果它已被调成扩展后的上下文长度就错了（插值频率与保留频率之间的过渡"
     "区会按 factor 移动）；请把 original_max_position_embeddings 设为预训练长度。"),
    ("yarn-factor",
     "{where} is {scaling} with factor {factor}, but max_position_embeddings / original_max_position_embeddings = "
     "{max_pos} / {original} = {implicit}: one of the three is not what the model was extended with (transformers "
     "uses the explicit factor and only logs this); make factor x original = max_position_embeddings",
     "{where} 是 {scaling}，factor 为 {factor}，但 max_position_embeddings / original_max_position_embeddings = "
     "{max_pos} / {original} = {implicit}：三者中有一个不是模型扩展时用的值（transformers 采用显式的 factor，只记一条"
     "日志）；请让 factor × original = max_position_embeddings。"),
    ("partial-rotary",
     "partial_rotary_factor is {top} at the top level but {inner} in {where}; transformers 5 reads rope_parameters",
     "顶层的 partial_rotary_factor 是 {top}，而 {where} 里是 {inner}；transformers 5 读 rope_parameters。"),
    ("partial-rotary",
     "the config sets rotary_dim = {rotary_dim}, which {model_type}'s code never reads: it rotates {derived} "
     "channels (head_dim {head_dim} x partial_rotary_factor); code that reads rotary_dim rotates another part of "
     "the head",
     "配置设置了 rotary_dim = {rotary_dim}，但 {model_type} 的代码从不读它：它旋转 {derived} 个通道（head_dim "
     "{head_dim} × partial_rotary_factor）；读 rotary_dim 的代码会旋转头里的另一部分。"),
    ("partial-rotary",
     "only {width} of the {head_dim} channels of each head rotate{where} (partial rotary factor {factor}); "
     "transformers 5 keeps the factor in rope_parameters, so code that reads config.partial_rotary_factor (or "
     "ignores it) rotates all {all} and changes every attention logit",
     "每个头的 {head_dim} 个通道中只有 {width} 个旋转{where}（部分旋转比例 {factor}）；transformers 5 把这个比例保存在 "
     "rope_parameters 里，所以读 config.partial_rotary_factor（或忽略它）的代码会旋转全部 {all} 个通道，改变每个注意力"
     "分数。"),
    ("partial-rotary",
     "the rotary width head_dim x factor = {head_dim} x {factor} = {width} is odd: RoPE turns pairs of channels, "
     "and code differs on what to do with the odd one",
     "旋转宽度 head_dim × factor = {head_dim} × {factor} = {width} 是奇数：RoPE 成对旋转通道，而各家代码对多出来的"
     "那一个通道处理不一。"),
    ("pairing",
     "this GGUF file ({arch}) stores the q and k projection rows permuted for interleaved pairing (llama.cpp's "
     "conversion); transformers' GGUF loader permutes them back to half pairing. Code that reads the GGUF tensors "
     "into half-pairing attention (rotate_half) must permute them too: {call}",
     "这个 GGUF 文件（{arch}）按交错配对存储 q、k 投影的行（llama.cpp 的转换）；transformers 的 GGUF 加载器会把它们"
     "换回半分配对。把 GGUF 张量读进半分配对注意力（rotate_half）的代码也必须做同样的置换：{call}"),
    ("pairing",
     "this model rotates adjacent channel pairs (2i, 2i+1), interleaved (GPT-J / Meta), since {why}; weights or "
     "code written for half pairing (rotate_half: i with i + R/2) need the q/k rows permuted ({call}), or every "
     "logit changes",
     "这个模型旋转相邻的通道对 (2i, 2i+1)，即交错配对（GPT-J / Meta），因为{why}；为半分配对（rotate_half：i 与 "
     "i + R/2 配对）写的权重或代码需要置换 q/k 的行（{call}），否则每个注意力分数都会改变。"),
    ("dynamic-cache",
     "{where} is {scaling}: its frequencies change with the sequence length past {max_pos} tokens, but a KV cache "
     "keeps keys rotated with the frequencies of the length at which they were written (transformers #25306), so "
     "cached decoding differs from a full pass; fix the length the scaling is taken at (posenc.extend."
     "FixedLengthRope) or use a fixed scaling (yarn)",
     "{where} 是 {scaling}：序列超过 {max_pos} 个 token 后它的频率随长度变化，但 KV 缓存里的键保持写入时那个长度的"
     "频率（transformers #25306），所以带缓存的解码与整段前向计算不同；请固定缩放所取的长度"
     "（posenc.extend.FixedLengthRope），或改用固定的缩放（yarn）。"),
    ("schedule",
     "posenc cannot derive this model's schedule: {error}",
     "posenc 无法推出这个模型的逐层编码安排：{error}"),
)

#: values that are English phrases of their own, said in Chinese (the rest are numbers, names and code)
_PHRASES = {
    "why": {"its config sets rope_interleave": "它的配置设置了 rope_interleave",
            re.compile(r"(?P<model>.+)'s code in transformers does so"): "transformers 中 {model} 的代码就是这样做的"},
    "where": {re.compile(r" on (?P<kind>.+) layers"): "（{kind} 层上）"},
    "filled": {"nothing": "空值"},
}


@cache
def _compiled() -> tuple[tuple[str, re.Pattern[str], str], ...]:
    out = []
    for code, english, zh in TEMPLATES:
        pattern, seen = "", set()
        for literal, field in re.findall(r"([^{]*)(?:\{(\w+)\})?", english):
            pattern += re.escape(literal)
            if field:
                pattern += f"(?P={field})" if field in seen else f"(?P<{field}>.*?)"
                seen.add(field)
        out.append((code, re.compile(pattern + r"\Z"), zh))
    return tuple(out)


def _phrase(field: str, value: str) -> str:
    for english, zh in _PHRASES.get(field, {}).items():
        if isinstance(english, str) and value == english:
            return zh
        if isinstance(english, re.Pattern) and (found := english.fullmatch(value)):
            return zh.format(**found.groupdict())
    return value


def chinese(code: str, message: str) -> str | None:
    """The Chinese sentence of one of ``posenc inspect``'s findings (its ``code`` and English ``message``), with the
    message's values in it; ``None`` when no template matches the message."""
    for template_code, pattern, zh in _compiled():
        found = pattern.match(message) if template_code == code else None
        if found:
            return zh.format(**{k: _phrase(k, v) for k, v in found.groupdict().items()})
    return None
