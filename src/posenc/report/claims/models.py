"""The claims that :mod:`posenc.report.experiments.models` measures, as records: what each
sentence says, the test that decides it, its null and the reason for its bar (:class:`posenc.report.claim.Claim`)."""

from __future__ import annotations

from posenc.report.claim import Claim, Test
from posenc.report.claims.tables import COMPUTED, ROUND_OFF, without_null
from posenc.report.experiments.tables import DIFFERENT, SAME

__all__ = ["CLAIMS"]


# ---------------------------------------------------------------------------------------------------------------
# the claims these experiments test
# ---------------------------------------------------------------------------------------------------------------
#: a read-out accuracy lost by adding, below this, is no loss (2 points of accuracy)
NO_LOSS = 0.02


#: why the claims of random-weight models have no separate null
_IDENTITY = ("an identity checked on random weights against float32 round-off: the claim's effect is the null itself "
             "(the same function whatever the order), and the requirement or condition shows a case that breaks it")


_LOSS = ("a difference from concatenation, the reference that loses nothing: no loss (0) is the null, and the bar "
         "sits two points of accuracy from it")


_REASONS = {"word-order": _IDENTITY, "ffn-position-blind": _IDENTITY, "learned-max-len": COMPUTED,
            "add-vs-concat": _LOSS}


CLAIMS: tuple[Claim, ...] = tuple(without_null(c, _REASONS[c.id]) for c in (
    Claim("word-order", "tutorial 000 intro, §3.2", "tutorial", "No positions, no word order",
          "Without position information self-attention cannot tell \"I love you\" from \"you love I\".",
          "word_order", (
              Test("blind_encoder_difference", "<", SAME, "a bidirectional model without positions only reorders "
                   "its outputs", ROUND_OFF),
              Test("positions_see_order", ">", DIFFERENT, "with the sinusoid or RoPE the outputs change",
                   "far above round-off"),
              Test("causal_no_positions_difference", "<", DIFFERENT, "a causal decoder without positions is blind "
                   "too", "far above round-off", role="condition",
                   unless="for bidirectional (encoder) self-attention; a causal mask alone tells the orders apart "
                          "(Kazemnejad et al. 2023)")),
          quote="当抛弃循环神经网络结构, 完全采用Attention取而代之, 这些词序信息就会丢失",
          revision=3, title_zh="没有位置信息，词序信息就会丢失"),
    Claim("ffn-position-blind", "tutorial 001 §5.1", "tutorial", "The FFN is position-blind",
          "The position-wise FFN applies the same function at every position.",
          "ffn_position_blind", (
              Test("ffn_relative_error", "<", SAME, "permuting the FFN's inputs permutes its outputs exactly",
                   ROUND_OFF),),
          requires=(Test("rope_block_permutation_error", ">", DIFFERENT, "a block with RoPE attention is not "
                         "permutation-equivariant", "the test must be able to fail", otherwise="not testable"),),
          quote="FFN本身是一个“位置盲”的模块。",
          revision=3, title_zh="FFN 是“位置盲”的模块"),
    Claim("learned-max-len", "tutorial 002, tutorial 003 §14.8.3", "tutorial", "A learned table stops at max_len",
          "A learned position table trained with max_len = 512 cannot run a longer sequence.",
          "learned_max_len", (
              Test("models_running_past_max_len", "<", 0.5, "no learned model (posenc's table, a Transformer on it, "
                   "all-MiniLM-L6-v2) runs one token past max_len", "none may run"),),
          requires=(Test("models_running_at_max_len", ">", 0.5, "every learned model runs at max_len",
                         "else the limit is not what stops them", otherwise="not testable"),),
          quote="如果训练时 max_len=512，测试时输入 1024 长度的序列，模型就无法处理了",
          revision=3, title_zh="可学习位置表处理不了超过 max_len 的序列"),
    Claim("add-vs-concat", "tutorial 003 §14.3", "tutorial", "Adding keeps the width, loses nothing",
          "Adding the position vector keeps d_model, and loses no information compared with concatenating it.",
          "add_vs_concat", (
              Test("width_change_by_adding", "<", 0.5, "adding keeps the width d_model", "no change"),
              Test("loss_at_widest", "<", NO_LOSS, "at the widest width a linear read-out recovers token and position "
                   "from the sum as well as from the concatenation", "2 points of accuracy"),
              Test("loss_at_narrowest", "<", NO_LOSS, "also at the narrowest width (d=8)", "2 points of accuracy",
                   role="condition", unless="no information lost only when the width is large enough")),
          quote="两个向量相加后,信息并没有丢失,而是\"叠加\"在一起",
          revision=4, title_zh="相加保持维度，信息并没有丢失"),
))
