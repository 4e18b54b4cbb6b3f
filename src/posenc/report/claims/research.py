"""The claims that :mod:`posenc.report.experiments.research` measures, as records: what each
sentence says, the test that decides it, its null and the reason for its bar (:class:`posenc.report.claim.Claim`)."""

from __future__ import annotations

import math

from posenc.report.claim import Choice, Claim, Test
from posenc.report.claims.tables import without_null
from posenc.report.experiments.research import COUNTING_TASKS, PROPE_MARGIN
from posenc.report.experiments.training import LEARNED, TIE

__all__ = ["CLAIMS"]


# ---------------------------------------------------------------------------------------------------------------
# the claims these experiments test
# ---------------------------------------------------------------------------------------------------------------
_LENGTH = Choice("evaluation length", ("2L", "4L", "8L"), "8L",
                 "the paper's claim is about lengths far past training; 8L is the longest measured")


#: why the research claims' paired differences have no separate null
_PAIRED = ("a difference of two encodings trained alike, paired by seed: its null (exchangeable encodings) is 0, "
           "where the bar sits (or, for p-RoPE, a non-inferiority margin past it); the interval over seeds separates "
           "the effect from it")


_REQUIREMENT = "a precondition on what the model learned, not compared with chance"


CLAIMS: tuple[Claim, ...] = tuple(without_null(c, _PAIRED, "exchangeable encodings: a difference of 0") for c in (
    Claim("fire-extrapolates", "Li et al. 2023 (FIRE)", "literature", "FIRE beats RoPE and ALiBi past L",
          "Trained at length L, FIRE's perplexity at longer lengths is lower than RoPE's and ALiBi's.",
          "lab_fire_kerple", (
              Test("fire_minus_best", "<", 0.0, "FIRE's log perplexity past L is below both RoPE's and ALiBi's",
                   "the paper's ordering"),),
          choice=_LENGTH, revision=5,
          title_zh="超过 L 时 FIRE 优于 RoPE 和 ALiBi"),
    Claim("kerple-extrapolates", "Chi et al. 2022 (KERPLE)", "literature", "KERPLE beats RoPE and ALiBi past L",
          "Trained at length L, KERPLE's (log kernel) perplexity at longer lengths is lower than RoPE's and ALiBi's.",
          "lab_fire_kerple", (
              Test("kerple_minus_best", "<", 0.0, "KERPLE's log perplexity past L is below both RoPE's and "
                   "ALiBi's", "the paper's ordering"),),
          choice=_LENGTH, revision=5,
          title_zh="超过 L 时 KERPLE 优于 RoPE 和 ALiBi"),
    Claim("p-rope-in-distribution", "Barbero et al. 2024 (p-RoPE)", "literature",
          "p-RoPE costs nothing in distribution",
          "Keeping only RoPE's highest frequencies (p = 0.75) does not hurt perplexity at the trained length.",
          "lab_prope", (
              Test("prope_minus_rope", "<", math.log(PROPE_MARGIN), f"p-RoPE's perplexity at L is at most "
                   f"{100 * (PROPE_MARGIN - 1):.0f}% above RoPE's", "non-inferiority margin fixed before the run"),),
          revision=5,
          title_zh="p-RoPE 在训练长度内没有代价"),
    Claim("cope-counts", "Golovneva et al. 2024 (CoPE)", "literature", "CoPE counts where token positions fail",
          "CoPE solves selective copy and counting past the trained size, where encodings that count every token "
          "(RoPE, a learned table) fail.",
          "lab_cope_counting", (
              Test("selective_copy_margin", ">", 0.0, "CoPE beats RoPE and learned on selective copy past L",
                   "the paper's ordering", unless="CoPE does better on counting only"),
              Test("count_margin", ">", 0.0, "CoPE beats RoPE and learned on count past L", "the paper's ordering",
                   unless="CoPE does better on selective copy only"),
              Test("cope_past_L", ">", LEARNED, f"CoPE keeps token accuracy >= {LEARNED:g} past L on both tasks",
                   "'solves': the in-distribution bar", role="condition",
                   unless="CoPE does better than the token-counting encodings but does not solve the tasks past L",
                   no_null="an absolute bar for 'solves' (the in-distribution bar), far above any chance accuracy")),
          requires=(Test("cope_in_distribution", ">", LEARNED, f"CoPE learned both tasks in distribution (token "
                         f"accuracy >= {LEARNED:g})", "the in-distribution bar fixed for every lab claim",
                         no_null=_REQUIREMENT),
                    Test("tasks_with_room", ">", len(COUNTING_TASKS) - 0.5, f"RoPE and learned both score below "
                         f"{1 - TIE:g} past L on both tasks, so that CoPE can beat them",
                         "the ceiling rule: a baseline within the tie of the metric's ceiling cannot be beaten",
                         role="headroom", otherwise="not testable",
                         no_null="a count of tasks with room: a precondition, not compared with chance")),
          revision=6,
          title_zh="CoPE 能计数，按词元计位置的编码做不到"),
))
