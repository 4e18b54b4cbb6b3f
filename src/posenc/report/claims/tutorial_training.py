"""The claims that :mod:`posenc.report.experiments.tutorial_training` measures, as records: what each
sentence says, the test that decides it, its null and the reason for its bar (:class:`posenc.report.claim.Claim`)."""

from __future__ import annotations

from posenc.probe.geometry import ORTHOGONAL_ENRICHMENT
from posenc.report.claim import Claim, Test
from posenc.report.experiments.tutorial_training import (
           ADD_CONCAT,
           BAR,
           DIVISION,
           DIVISION_CHOICE,
           DIVISION_OPTIONS,
           EVALUATED,
           GAP,
           MOVE_POWER,
           SPARSE_GAIN,
)

__all__ = ["CLAIMS"]


#: "easier" / "slower" needs at least 10% fewer / more steps to the bar
FASTER = 1.1


_FASTER_BASIS = "10% of the steps: a smaller gap is not 'easier' or 'harder' to train"


_REACHED_BASIS = "the ratio needs a crossing, not a censored step count, in the denominator"


#: why a ratio or difference of two encodings trained alike has no separate null
_PAIRED = ("two encodings trained alike, paired by task and seed: exchangeable encodings give a ratio of 1 or a "
           "difference of 0, and the bar sits a stated margin past that null; the interval over runs separates them")


_COUNT = "a precondition on what the runs reached, not compared with chance"


CLAIMS: tuple[Claim, ...] = (
    Claim("low-dims-position", "tutorial 002", "tutorial", "Low dimensions position, high dimensions meaning",
          "In training, a model may learn a division of labour: more position in the low dimensions, more meaning "
          "in the high ones (where a dimension's index means frequency, as in the sinusoid and RoPE).",
          "dimension_division", (
              Test("division", ">", DIVISION, "the division shows by more than a tenth: with the sinusoid, the word "
                   "rows' variance moves toward the highest quarter of dimensions in training; in SmolLM2, the "
                   "fastest RoPE pairs' logits follow the offset more than the slowest pairs'; in MiniLM, position "
                   "holds more of the lowest quarter's variance than of the highest's", "a tenth of the variance, "
                   "the report's bar for a share that matters (LITTLE), between each option's null (no preference "
                   "for any dimension: about 0 in the lab and in MiniLM) and a division that matters",
                   null="division_null"),),
          requires=(Test("word_moved", ">", MOVE_POWER, "power: training moved the used word rows at least a third "
                         "of their norm (|E_end - E_start| / |E_start|, whole interval over runs)",
                         "the division statistic's reach, fixed before the run: a move of relative size r that adds "
                         "variance to the highest quarter alone raises its share minus the lowest's by "
                         "r^2 / (1 + r^2), which reaches the bar 0.1 at r = 1/3",
                         role="power", options=(DIVISION_OPTIONS[0],),
                         no_null="how far training moved the rows, read for the test's reach, not compared with "
                                 "chance"),),
          choice=DIVISION_CHOICE,
          quote="虽然位置和语义在所有维度上混合，但在训练中，模型可能学到一种“低维更多位置，高维更多语义”的分工模式。",
          null="per option: the lab's start rows moved as far in a random direction; SmolLM2-135M with "
               "re-initialised weights of matched norms on the same windows; MiniLM's per-dimension shares with the "
               "dimensions in random orders",
          revision=8,
          title_zh="低维更多位置，高维更多语义"),
    Claim("orthogonality-learned", "tutorial 001 §4", "tutorial", "Orthogonality is learned in training",
          "At the start of training word and position embeddings are not near-orthogonal; training separates them "
          "into near-orthogonal directions, by pushing position into the dimensions where meaning is sparse.",
          "orthogonality_training", (
              Test("init_enrichment", ">", ORTHOGONAL_ENRICHMENT, "at initialisation the position table is not "
                   "orthogonal to the word rows: its variance in the words' principal subspace is at least half of "
                   "chance's (enrichment >= 0.5), the premise", "the report's one definition of 'orthogonal' "
                   "(probe.geometry.orthogonality_against_chance, shared with near-orthogonal): more orthogonal than "
                   "random vectors of the dimension, halfway between chance (1) and orthogonal subspaces (0); chance "
                   "overlap counts as not orthogonal",
                   no_null="the premise is that initialisation is random: random tables of the same shapes "
                           "(init_enrichment_null, shown) are what it is compared with, not a null it must beat"),
              Test("final_enrichment", "<", ORTHOGONAL_ENRICHMENT, "when the model reaches the validation bar, the "
                   "table is orthogonal to the word rows (enrichment below 0.5, whole interval)", "the same "
                   "definition; the null, random tables of the same shapes, gives about 1",
                   null="final_enrichment_null", role="condition",
                   unless="training does not make them orthogonal"),
              Test("sparse_share_gain", ">", SPARSE_GAIN, "training moves position into the dimensions where meaning "
                   "is sparse: the share of the position table's variance in the half of the dimensions where the "
                   "word rows vary least grows by more than 0.1", "a tenth of the position variance, the report's "
                   "bar for a share that matters", role="condition",
                   unless="position does not move into the dimensions where meaning is sparse",
                   no_null="a change through training, paired by run: no change (0) is its null, and the bar sits "
                           "a tenth past it")),
          null="random tables of the same shapes, N(0, 0.02^2), through the same subspace statistic",
          quote="训练初期,他们确实不是近似正交的。", revision=8,
          title_zh="近似正交是训练中学到的"),
    Claim("add-easier-to-learn", "tutorial 003 §14 (summary)", "tutorial", "Adding is easier to learn than concatenating",
          "Adding the position vector (rather than concatenating it) makes the model easier to train.",
          "add_vs_concat_training", (
              Test("concat_over_add_steps", ">", FASTER, "with concatenation the model needs at least 10% more "
                   "steps to the validation bar", _FASTER_BASIS, no_null=_PAIRED),),
          requires=(Test("add_reached", ">", 0.5, "most runs with the added sinusoid reach the bar",
                         _REACHED_BASIS, no_null=_COUNT),),
          choice=ADD_CONCAT,
          null="exchangeable encodings: a ratio of steps of 1, the bar 10% past it",
          quote="Transformer 把它们直接相加而不是拼接,因为相加既能保留两种信息,又不增加维度,还让模型更容易学习。",
          revision=7,
          title_zh="相加比拼接更容易学习"),
    Claim("learned-slows-convergence", "tutorial 002", "tutorial", "A learned table converges slower",
          "Storing a max_len x d_model learned table makes training harder to converge than the fixed sinusoid "
          "(tested with a table that is 1.5% of a small model's parameters, more than in large models; the "
          "setup says what this size can and cannot show).",
          "learned_convergence", (
              Test("learned_over_sinusoid_steps", ">", FASTER, "with a learned table the model needs at least 10% "
                   "more steps to the validation bar", _FASTER_BASIS, no_null=_PAIRED),),
          requires=(Test("sinusoid_reached", ">", 0.5, "most sinusoid runs reach the bar", _REACHED_BASIS,
                         no_null=_COUNT),),
          null="exchangeable encodings: a ratio of steps of 1, the bar 10% past it",
          quote="需要存储 max_len×d_model 维度的参数，可能导致大模型训练更难收敛", revision=7,
          title_zh="可学习位置表让训练更难收敛"),
    Claim("sinusoid-weak-local", "tutorial 002", "tutorial", "The fixed sinusoid is weak on local dependencies",
          "Because it is fixed and not learned, the sinusoid models local dependencies worse than a learned table.",
          "local_dependency", (
              Test("learned_minus_sinusoid_accuracy", ">", GAP, "on tasks whose answers depend on a neighbouring "
                   "token, the sinusoid's token accuracy is more than 2 points below the learned table's (paired "
                   "by task and seed)", "twice the lab's tie of one point of accuracy (training.TIE)",
                   no_null=_PAIRED),),
          requires=(Test("learned_accuracy_trained", ">", BAR, "every learned-table run solves the tasks at the "
                         "trained length (the reference must have learned them)", "the claims' bar (0.95)",
                         no_null=_COUNT),
                    Test("nope_best_accuracy", "<", BAR, "no NoPE run reaches the bar on the local task (it needs "
                         "positions)", "the task must test positions", otherwise="not testable", no_null=_COUNT),
                    Test("sinusoid_accuracy", "<", 1 - GAP, f"the sinusoid's token accuracy (mean over runs, whole "
                         f"interval) lies below {1 - GAP:g}, so that it can be more than {GAP:g} behind",
                         "the ceiling rule: a baseline within the claimed gap of the metric's ceiling cannot fall "
                         "that far behind", role="headroom", otherwise="not testable",
                         no_null="the baseline's own accuracy, read for room, not compared with chance")),
          choice=EVALUATED,
          null="exchangeable encodings: a difference of 0, the bar two points past it",
          quote="虽然正弦余弦位置编码能够隐含地表达一定的局部位置信息，但由于它是固定的、不可学习的，并没有专门针对局部依赖关系进行优化，因此在建模局部依赖关系时能力相对不足。",
          revision=7,
          title_zh="固定的正弦编码建模局部依赖的能力不足"),
)
