"""The claims that :mod:`posenc.report.experiments.training` measures, as records: what each
sentence says, the test that decides it, its null and the reason for its bar (:class:`posenc.report.claim.Claim`)."""

from __future__ import annotations

from posenc.report.claim import Choice, Claim, Test
from posenc.report.experiments.training import LEARNED, NOPE_METRICS, RANKED_TASKS_NEEDED, TIE

__all__ = ["CLAIMS"]


# ---------------------------------------------------------------------------------------------------------------
# the claims these experiments test
# ---------------------------------------------------------------------------------------------------------------
_LEARNED_BASIS = "the in-distribution bar fixed for every lab claim"


#: why a precondition that counts learned tasks has no null
_COUNT = "a count of what the models learned: a precondition, not compared with chance"


#: why a comparison of two encodings trained alike has no separate null
_PAIRED = ("a difference between encodings trained and scored alike, paired by seed: its null is exactly 0 "
           "(exchangeable encodings), where the bar sits; the interval over seeds separates the effect from it")


CLAIMS: tuple[Claim, ...] = (
    Claim("learned-beats-fixed", "tutorial 003 §14.8.3", "tutorial", "Learned beats fixed on most tasks",
          "In practice a learned position table does better than the fixed sinusoid on most tasks.",
          "lab_learned_vs_fixed", (
              Test("win_share", ">", 0.5, f"learned beats the sinusoid in distribution (by > {TIE:g}, whole "
                   f"interval) on more than half of the learned tasks where the sinusoid leaves room for it",
                   "tutorial's text: 'most tasks'; the null (the sinusoid against itself across seeds) wins none, "
                   "the stated effect wins every task, and 'most' is the half between them",
                   null="win_share_null"),),
          requires=(Test("learned_tasks", ">", 1.5, f"at least 2 tasks learned in distribution (token accuracy >= "
                         f"{LEARNED:g})", "'most tasks' needs several tasks", no_null=_COUNT),
                    Test("tasks_with_room", ">", 1.5, f"at least 2 of them on which the sinusoid scores below "
                         f"{1 - TIE:g} in distribution, so that a win by more than {TIE:g} can happen",
                         "the ceiling rule: a baseline within the tie of the metric's ceiling cannot be beaten by "
                         "more than the tie", role="headroom", otherwise="not testable", no_null=_COUNT)),
          null="the sinusoid against itself across seeds (seed s against seed s + 1), the same share on the same "
               "tasks",
          quote="实践中,可学习位置编码在多数任务上表现更好,所以 GPT 系列都用可学习的。", revision=8,
          title_zh="可学习位置编码在多数任务上表现更好"),
    Claim("rope-extrapolates", "tutorial 003 §14.6.3", "tutorial", "RoPE extrapolates",
          "RoPE can extrapolate to sequences longer than those seen in training.",
          "lab_rope_extrapolation", (
              Test("kept_past_L", ">", 0.5, "past the trained sizes RoPE keeps at least half its in-distribution "
                   "token accuracy", "half", unless="it runs, but keeps less than half",
                   no_null="a share of RoPE's own in-distribution accuracy: the claim is an ability, not a "
                           "difference from another encoding or from chance; the other encodings' shares are shown "
                           "beside it"),
              Test("kept_past_L", ">", 0.9, "and keeps at least 90% of it", "nearly all", role="condition",
                   unless="only partly: it runs past the trained length but loses accuracy",
                   no_null="the same share as above, read at a second bar")),
          requires=(Test("rope_in_distribution", ">", LEARNED, "RoPE learned the tasks in distribution",
                         _LEARNED_BASIS, no_null="a precondition on what the model learned, not compared with "
                                                 "chance"),
                    Test("control_kept_past_L", ">", 0.5, "power: ALiBi, trained and tested alike, keeps at least "
                         "half its in-distribution token accuracy past the trained sizes",
                         "a positive control (the hedge rule): ALiBi is built to extrapolate (Press et al. 2022); "
                         "where it keeps half, the tasks and lengths let an encoding extrapolate, so a RoPE that "
                         "does not is RoPE's doing; the same bar as the claim's", role="power",
                         no_null="the positive control's own share, read for power, not compared with chance")),
          null="none: a share of RoPE's own accuracy (the other encodings are shown beside it)",
          quote="可以外推到更长的序列", revision=9,
          title_zh="RoPE 可以外推到更长的序列"),
    Claim("alibi-table", "Press et al. 2022 (ALiBi)", "literature", "ALiBi's table: flat past L",
          "Trained at length L, ALiBi's perplexity stays flat at longer lengths while the sinusoid's explodes and "
          "rotary's grows.",
          "lab_alibi_shape", (
              Test("alibi_minus_flattest_other", "<", 0, "ALiBi's perplexity grows least past L", "the paper's "
                   "ordering", no_null=_PAIRED),
              Test("sinusoid_minus_steepest_other", ">", 0, "the sinusoid's grows most", "the paper's ordering",
                   role="condition", unless="ALiBi is flattest, but the sinusoid is not the steepest",
                   no_null=_PAIRED)),
          choice=Choice("evaluation length", ("2L", "4L", "8L"), "8L",
                        "the paper's claim is about lengths far past L; 8L is the longest measured"),
          null="exchangeable encodings: a difference of 0, where the bars sit",
          revision=6,
          title_zh="ALiBi 的结果表：超过 L 后保持平稳"),
    Claim("nope-ranking", "Kazemnejad et al. 2023 (NoPE)", "literature", "NoPE ranks first at length generalisation",
          "On synthetic tasks, length generalisation ranks NoPE > T5 > ALiBi > Rotary > sinusoidal.",
          "lab_nope_ranking", (
              Test("rank_correlation", ">", 0.9, "the Spearman correlation of measured and published mean "
                   "reciprocal ranks exceeds 0.9", "between the null and the effect: five encodings in a random "
                   "order reach a correlation of 0.9 or more with probability 5/120 = 0.042 (0.7 or more: 14/120 = "
                   "0.117, so the former bar of 0.7 did not separate the paper's order from chance); the stated "
                   "effect is the paper's order, 1", null="rank_correlation_null"),),
          requires=(Test("ranked_tasks", ">", RANKED_TASKS_NEEDED - 0.5, f"at least {RANKED_TASKS_NEEDED} tasks "
                         f"that some encoding learned in distribution (>= {LEARNED:g}), each ranking all five "
                         f"(one that did not learn it last)", "a ranking over tasks needs several tasks",
                         no_null=_COUNT),
                    Test("tasks_with_room", ">", RANKED_TASKS_NEEDED - 0.5, f"at least {RANKED_TASKS_NEEDED} of them "
                         f"on which some encoding scores below {1 - TIE:g} past L, so that the encodings can be "
                         f"ordered", "the ceiling rule: accuracies all within the tie of the ceiling carry no order",
                         role="headroom", otherwise="not testable", no_null=_COUNT)),
          choice=Choice("metric", tuple(NOPE_METRICS), "exact match", "the paper ranks by exact-match accuracy"),
          null="the encodings' labels permuted within each task: the same rank correlation of an order unrelated "
               "to the encodings",
          revision=9,
          title_zh="NoPE 在长度泛化上排名第一"),
)
