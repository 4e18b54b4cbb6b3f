"""The claims that :mod:`posenc.report.experiments.field` measures, as records: what each
sentence says, the test that decides it, its null and the reason for its bar (:class:`posenc.report.claim.Claim`)."""

from __future__ import annotations

from posenc.report.claim import Choice, Claim, Test
from posenc.report.claims.tables import without_null

__all__ = ["CLAIMS"]


# ---------------------------------------------------------------------------------------------------------------
# the claims these experiments test
# ---------------------------------------------------------------------------------------------------------------
#: why a difference of two encodings trained alike has no separate null
_PAIRED = ("a difference of log perplexities of two encodings trained alike, paired by seed: its null (exchangeable "
           "encodings) is 0, where the bar sits; the interval over seeds separates the effect from it")


_NULL = "exchangeable encodings: a difference of 0, where the bar sits"


_LENGTH = Choice("evaluation length", ("2L", "4L", "8L"), "8L",
                 "the paper's claim is about lengths far past training; 8L is the longest measured")


CLAIMS: tuple[Claim, ...] = tuple(without_null(c, _PAIRED, _NULL) for c in (
    Claim("pope-extrapolates", "Gopalakrishnan et al. 2025 (PoPE)", "literature", "PoPE beats RoPE past L",
          "Trained at length L, PoPE's perplexity at longer lengths is lower than RoPE's, with no fine-tuning or "
          "interpolation.",
          "lab_field_lm", (
              Test("pope_minus_rope", "<", 0.0, "PoPE's log perplexity past L is below RoPE's",
                   "the paper's ordering"),),
          choice=_LENGTH, revision=5,
          title_zh="超过训练长度 L 时 PoPE 优于 RoPE"),
    Claim("fox-extrapolates", "Lin et al. 2025 (FoX)", "literature", "Forgetting attention beats RoPE past L",
          "Trained at length L, a Transformer with forgetting attention and no other positional encoding has lower "
          "perplexity than a RoPE Transformer at longer lengths.",
          "lab_field_lm", (
              Test("fox_minus_rope", "<", 0.0, "FoX's log perplexity past L is below RoPE's", "the paper's ordering"),),
          choice=_LENGTH, revision=5,
          title_zh="超过训练长度 L 时遗忘注意力优于 RoPE"),
    Claim("dape-extrapolates", "Zheng et al. 2024 (DAPE)", "literature", "DAPE improves KERPLE past L",
          "Trained at length L, adjusting KERPLE's bias with DAPE's MLP over the attention scores lowers perplexity "
          "at longer lengths.",
          "lab_field_lm", (
              Test("dape_minus_kerple", "<", 0.0, "DAPE-KERPLE's log perplexity past L is below KERPLE's",
                   "the paper's ordering"),),
          choice=_LENGTH, revision=5,
          title_zh="超过训练长度 L 时 DAPE 改进 KERPLE"),
    Claim("nope-layer-pattern", "the layer pattern of Meta 2025 (Llama 4) and Yang et al. 2025, without their "
          "chunked attention and attention temperature", "literature",
          "A NoPE layer every fourth layer, alone, generalises past L",
          "A model whose every fourth layer has no positional encoding (the others RoPE, every layer attending to "
          "every earlier key) has lower perplexity past its training length than all-RoPE and all-NoPE models of "
          "the same size. This is the layer pattern alone: Llama 4's iRoPE also confines its RoPE layers to chunks "
          "and scales its NoPE layers' queries by a temperature (posenc's schedule has both), which this test "
          "leaves out, so it says nothing about iRoPE as designed.",
          "lab_irope", (
              Test("hybrid_minus_best", "<", 0.0, "the hybrid's log perplexity past L is below both all-RoPE's and "
                   "all-NoPE's", "the ordering the hybrid is built for",
                   no_null="a difference from the better of two models trained alike, paired by seed: its null "
                           "(exchangeable layer patterns) is 0, where the bar sits"),),
          choice=_LENGTH, null="exchangeable layer patterns: a difference of 0, where the bar sits", revision=5,
          title_zh="每四层一个 NoPE 层（仅层模式）让模型超过 L 后泛化更好"),
))
