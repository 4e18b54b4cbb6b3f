"""The claims that :mod:`posenc.report.experiments.pretrained` measures, as records: what each
sentence says, the test that decides it, its null and the reason for its bar (:class:`posenc.report.claim.Claim`)."""

from __future__ import annotations

import dataclasses

from posenc.probe.geometry import ORTHOGONAL_ENRICHMENT
from posenc.report.claim import Choice, Claim, Test
from posenc.report.experiments.pretrained import (
    COMPARABLE_LOG10,
    EXPERT,
    LITTLE,
    MODEL_OPTIONS,
    NULL_WORDS,
    REFERENCE,
    SAMPLE,
    UNIFORM,
    WEAK_RATIO,
    WINDOW,
)

__all__ = ["CLAIMS"]


HEAD_MODEL = Choice(
    "model", MODEL_OPTIONS, MODEL_OPTIONS[0],
    "the claims were judged on all-MiniLM-L6-v2 before a second model was added, and it stands in for the "
    "BERT-family encoder the tutorial reads (Voita et al. and Clark et al. read encoders too); SmolLM2-135M-Instruct, "
    "a causal decoder with RoPE and the one other model that installs offline, tests whether the same heads exist "
    "in a decoder, as the scope rule asks where a sentence speaks of Transformers in general. SmolLM2 runs in full "
    "mode only (minutes of CPU)")


#: a count of heads "is at least one" above this
AT_LEAST_ONE = 0.5


_REST_CONDITION = Test("rest_share", "<", LITTLE, "the four terms are the whole logit: the remainder (LayerNorm bias, "
                       "projection biases, token type) carries little of its variance",
                       "10% of the variance", role="condition",
                       unless="only for the four terms: a fifth part the split leaves out (biases and LayerNorm) "
                              "carries much of the logits' variance")


#: why the Voita rule needs no random model beside it: the rule is a bar far above chance by construction
VOITA_CHANCE = ("Voita et al.'s rule is calibrated against chance by construction: a head with no preference for an "
                "offset puts its maximum on a given one of the 17 offsets -8..8 for about 1/17 of queries (1/T if "
                "any key is as likely), far below the 90% the rule asks")


#: why a magnitude claim has no random model beside it
MAGNITUDE_NO_NULL = ("a ratio of two measured sizes read against equality or a power of ten: the sentence defines "
                     "'small' and 'comparable' against the word vector itself, not against chance")


#: the expert bar's place between the null and the effect (formatted per term)
EXPERT_BASIS = ("majority: more than the other three terms together, the sentence's 'mainly'. The null, random "
                "weights of matched norms, gives {term} about {chance} of a head's four terms (word rows twice as "
                "long as position rows: ww : wp : pw : pp = 16 : 4 : 4 : 1); the effect the sentence states is a "
                "head that follows {term} alone (1). Where the null already passes the bar, the sentence's "
                "'mainly' cannot tell an expert from chance here")


#: the options a head test reads (the claims' choice of model)
MINILM_ONLY, SMOLLM2_ONLY = (MODEL_OPTIONS[0],), (MODEL_OPTIONS[1],)


#: SmolLM2's head count bar between its null and the effect, fixed before the run (formatted per test)
SMOLLM2_HEAD_BASIS = ("Voita et al. 2019's rule (90% of queries, the interval above it) and {what}, as for MiniLM. "
                      "Unlike MiniLM's, this count is read beside a null computed the same way: SmolLM2-135M with "
                      "re-initialised weights of matched norms on the same 16 windows, judged by the same rule. A "
                      "random head has no reason to hold one offset (chance about 1/17 of queries, or 1/(i+1) for "
                      "query i of a causal head), but RoPE makes every logit depend on the offset and a deep random "
                      "network makes its tokens alike, so the architecture alone could make fixed-offset heads; the "
                      "null shows whether it does (none: the bar, one head, lies between it and the effect the "
                      "sentence states, some heads)")


CLAIMS: tuple[Claim, ...] = (
    Claim("near-orthogonal", "tutorial 001 §4.1, §6", "tutorial", "Words and positions in near-orthogonal subspaces",
          "In a pretrained BERT-family model, word embeddings and position embeddings lie in two nearly orthogonal "
          "subspaces, and training makes them so (orthogonal means more orthogonal than chance: "
          "posenc.probe.geometry.orthogonality_against_chance).",
          "minilm_geometry", (
              Test("position_enrichment", "<", ORTHOGONAL_ENRICHMENT, "the position table keeps out of the words' "
                   "principal subspace (the fewest directions holding half the word variance): its share of variance "
                   "there is under half what random tables of the same shapes give (k/d); both tables centred",
                   "halfway between the null (random vectors of this dimension: enrichment 1, chance overlap) and "
                   "the effect the sentence states (orthogonal subspaces: 0)",
                   unless="the positions are not kept out of the words' principal subspace",
                   null="init_position_enrichment"),
              Test("init_position_enrichment", ">", ORTHOGONAL_ENRICHMENT, "before training they are not: tables "
                   "drawn as BERT initialises them (N(0, 0.02^2), the same shapes) share the subspace as random "
                   "tables do (tutorial 001 §4: '训练初期,他们确实不是近似正交的'; chance overlap counts as not "
                   "orthogonal)", "the same bar", role="condition",
                   unless="but not because of training: tables drawn as BERT initialises them are already in "
                          "near-orthogonal subspaces",
                   no_null="this statistic is the null itself: random tables of the initialisation's law")),
          choice=SAMPLE, quote="经过训练,模型会学习到将词嵌入所代表的语义信息和位置编码所代表的序列顺序信息,分别映射到高维空间中两个近似正交的子空间内",
          revision=6, null="word and position tables of the same shapes drawn as BERT initialises them (N(0, 0.02^2)): "
                           "random vectors of this dimension, through the same subspace statistic",
          title_zh="语义与位置映射到两个近似正交的子空间"),
    Claim("small-magnitude", "tutorial 000 §3.3", "tutorial", "Positions are small next to words",
          "The position encoding's magnitude is small next to the word embedding's, so it does not drown it.",
          "magnitude", (
              Test("position_to_word_norm", "<", 1.0, "in the trained model, position rows are shorter than word "
                   "rows (reference: MiniLM's own trained word rows, the vectors its learned positions are added "
                   "to)", "equal size: 'small' means smaller than the word vector it is added to",
                   no_null=MAGNITUDE_NO_NULL),
              Test("sinusoid_to_reference_rms", "<", 1.0, "the fixed sinusoid (RMS 1/sqrt(2) per channel) is "
                   "smaller than the reference embedding at d=512 (the choice: how the embedding is initialised and "
                   "scaled by sqrt(d), Vaswani et al. 2017 §3.4)", "equal size", role="condition",
                   unless="in the trained model only: the fixed sinusoid is larger than this reference embedding",
                   no_null="exact: a ratio of two computed RMS values")),
          choice=REFERENCE, quote="2. 位置编码的幅度较小,不会淹没词向量", revision=7,
          null="exact and measured sizes against equality: no null (the bar is the word vector's own size)",
          title_zh="位置编码的幅度较小，不会淹没词向量"),
    Claim("comparable-magnitude", "tutorial 003 §14.8.2", "tutorial", "The sinusoid is comparable to embeddings",
          "The sinusoid's values lie in [-1, 1], the same order of magnitude as the word embedding's.",
          "magnitude", (
              Test("sinusoid_reference_log10_gap", "<", COMPARABLE_LOG10, "the fixed sinusoid's RMS per channel and "
                   "the reference embedding's at d=512 (the choice: how the embedding is initialised and scaled by "
                   "sqrt(d), Vaswani et al. 2017 §3.4) round to the same power of ten",
                   "same order of magnitude: |log10(ratio)| < 0.5, a ratio between 0.32 and 3.2",
                   no_null="exact: a ratio of two computed RMS values"),
              Test("sinusoid_minilm_word_log10_gap", "<", COMPARABLE_LOG10, "also next to a trained BERT-style "
                   "word table, which is added to positions unscaled: the sinusoid at d=384 against MiniLM's "
                   "trained word rows (reference: what training makes of N(0, 0.02^2) rows)", "the same bar",
                   role="condition",
                   unless="only next to an embedding of the reference's scale: next to a trained, unscaled "
                          "BERT-style word table the sinusoid is not of the same order of magnitude",
                   no_null=MAGNITUDE_NO_NULL)),
          choice=REFERENCE, quote="所以正弦/余弦位置编码的值在 [-1, 1] 之间,和 embedding 的量级相当。", revision=5,
          null="exact and measured sizes against a power of ten: no null (the bar is the embedding's own "
               "scale)",
          title_zh="正弦/余弦位置编码和 embedding 的量级相当"),
    Claim("four-terms-weak", "tutorial 001 §5.2", "tutorial", "Word-position logit terms are weak",
          "Attention logits split into word-word, word-position, position-word and position-position terms, and the "
          "word-position ones are weak: small next to the main terms (their size; how flat they run along positions "
          "is tupe-uniform's question).",
          "minilm_four_terms", (
              Test("cross_to_main_spread", "<", WEAK_RATIO, "the cross terms move the logits less than half as much "
                   "as the word-word and position-position terms (mean over heads)",
                   "half the main terms' spread, between the null and the effect the sentence states (weak: 0). The "
                   "null, random weights of matched norms, puts the cross terms at their size by chance: with word "
                   "rows twice as long as position rows (|e| = 2|p|) the spreads go as |e||p| + |p||e| against "
                   "|e|^2 + |p|^2, 4/5 = 0.8 of the main terms",
                   null="null_cross_to_main_spread"),
              Test("max_head_cross_to_main_spread", "<", WEAK_RATIO, "also in every single head", "the same bar",
                   role="condition", unless="weak on average over heads, not in every head",
                   null="null_max_head_cross_to_main_spread"),
              dataclasses.replace(_REST_CONDITION, null="null_rest_share")),
          choice=WINDOW, quote="这部分捕捉\"某个特定词\"对\"某个特定位置\"的偏好。虽然比较少见,但理论上是存在的。", revision=7,
          null=NULL_WORDS,
          title_zh="“词-位置”项较弱"),
    Claim("head-experts", "tutorial 001 §5.2", "tutorial", "Word experts and position experts",
          "Some attention heads mainly follow word-word relations (word experts), others mainly position-position "
          "relations (position experts).",
          "minilm_four_terms", (
              Test("max_head_word_share", ">", EXPERT, "some head draws the majority of its four terms' variance "
                   "from word-word", EXPERT_BASIS.format(term="word-word", chance="16/25 = 0.64"),
                   unless="no head is a word expert", null="null_max_head_word_share"),
              Test("max_head_position_share", ">", EXPERT, "some head draws the majority from position-position",
                   EXPERT_BASIS.format(term="position-position", chance="1/25 = 0.04"),
                   unless="no head is a position expert", null="null_max_head_position_share")),
          choice=WINDOW, quote="有的头可能主要关注“语义-语义”,成为语义专家;有的头可能主要关注“位置-位置”,成为位置专家",
          revision=6, null=NULL_WORDS + "; the largest share over the 12 heads of each draw, as measured",
          title_zh="语义专家与位置专家"),
    Claim("qk-dimension-experts", "tutorial 003 §14.5.3", "tutorial", "Query/key dimensions specialise",
          "W_q and W_k can learn that some dimensions mainly follow semantic similarity and others mainly position "
          "(tested on the dimensions of all-MiniLM-L6-v2's layer-0 queries and keys, in the projections' own "
          "basis, the one the sentence names).",
          "minilm_four_terms", (
              Test("max_dim_word_share", ">", EXPERT, "some query/key dimension draws the majority of its four "
                   "terms' variance from word-word", EXPERT_BASIS.format(term="word-word", chance="16/25 = 0.64"),
                   unless="no dimension is a word expert", null="null_max_dim_word_share"),
              Test("max_dim_position_share", ">", EXPERT, "some query/key dimension draws the majority from "
                   "position-position", EXPERT_BASIS.format(term="position-position", chance="1/25 = 0.04"),
                   unless="no dimension is a position expert", null="null_max_dim_position_share")),
          choice=WINDOW, quote="某些维度主要关注语义相似度\n  • 某些维度主要关注位置关系", revision=5,
          null=NULL_WORDS + "; the largest share over the 384 query/key dimensions of each draw, as measured",
          title_zh="查询/键的某些维度关注语义，某些关注位置"),
    Claim("positional-heads", "tutorial 001 §5.2", "tutorial", "Some heads are positional",
          "Some attention heads specialise in position. Judged on two models: MiniLM, an encoder, at three window "
          "lengths, and SmolLM2-135M, a causal decoder, where a query sees only itself and earlier tokens, so a "
          "positional head attends to one fixed offset back (Voita et al.'s rule over offsets -8..0).",
          "model_heads", (
              Test("positional_heads_128", ">", AT_LEAST_ONE, "at least one head meets Voita et al.'s rule in "
                   "128-token windows (the length the model was fine-tuned at): the 95% interval of its share of "
                   "queries with the maximum on one fixed offset lies above 90%", "Voita et al. 2019: 90% of queries",
                   unless="no positional head at 128 tokens", no_null=VOITA_CHANCE, options=MINILM_ONLY),
              Test("positional_heads_256", ">", AT_LEAST_ONE, "also in 256-token windows (sentence-transformers' "
                   "max_seq_length)", "the same rule", role="condition",
                   unless="supported at 128 tokens (the fine-tuning length); refuted at 256 tokens",
                   no_null=VOITA_CHANCE, options=MINILM_ONLY),
              Test("positional_heads_512", ">", AT_LEAST_ONE, "also in 512-token windows (the whole position table)",
                   "the same rule", role="condition", unless="refuted at 512 tokens", no_null=VOITA_CHANCE,
                   options=MINILM_ONLY),
              Test("smollm2_positional_heads", ">", AT_LEAST_ONE, "in SmolLM2-135M, a causal decoder, at least one "
                   "head meets Voita et al.'s rule in 128-token windows (offsets -8..0: a causal query sees no later "
                   "key)", SMOLLM2_HEAD_BASIS.format(what="at least one head"),
                   null="null_smollm2_positional_heads", options=SMOLLM2_ONLY)),
          quote="针对多头注意力的研究中,论文《Analyzing Multi-Head Self-Attention: Specialized Heads Do the Heavy "
                "Lifting》是通过”剪枝“来分析哪些头重要,其中明确功能的就包括:“位置头”。", revision=11, choice=HEAD_MODEL,
          null="MiniLM: no random model, Voita et al.'s rule is itself calibrated against chance (see each test); "
               "SmolLM2: SmolLM2-135M with re-initialised weights of matched norms on the same windows, judged by "
               "the same rule",
          title_zh="有些头是“位置头”"),
    Claim("voita-heads", "Voita et al. 2019; Clark et al. 2019", "literature",
          "Positional heads by Voita's definition sit at ±1",
          "Heads that are positional by Voita et al.'s definition (the maximum attention weight on one fixed "
          "relative offset for at least 90% of queries) exist, and each points at the previous or the next token. "
          "Voita et al.'s main result, that pruning heads by role keeps the positional heads among the few that "
          "matter, is not tested here. The window length is a condition of the verdict. Judged on MiniLM, an "
          "encoder, and on SmolLM2-135M, a causal decoder, whose heads cannot see the next token: there a positional "
          "head must point at the previous one.",
          "model_heads", (
              Test("adjacent_positional_heads_128", ">", AT_LEAST_ONE, "some positional head (Voita's rule, interval "
                   "above 90%) sits at offset -1 or +1 in 128-token windows (the length the model was fine-tuned "
                   "at)", "Voita et al. 2019: 90% of queries", unless="no positional head at +-1 at 128 tokens",
                   no_null=VOITA_CHANCE, options=MINILM_ONLY),
              Test("other_positional_heads_128", "<", AT_LEAST_ONE, "no positional head sits at another offset",
                   "none may", role="condition",
                   unless="positional heads exist at +-1, but some look further than one token",
                   no_null="a count the claim bounds by zero, not a statistic read against chance",
                   options=MINILM_ONLY),
              Test("adjacent_positional_heads_256", ">", AT_LEAST_ONE, "also in 256-token windows "
                   "(sentence-transformers' max_seq_length)", "the same rule", role="condition",
                   unless="supported at 128 tokens (the fine-tuning length); not at 256 tokens",
                   no_null=VOITA_CHANCE, options=MINILM_ONLY),
              Test("adjacent_positional_heads_512", ">", AT_LEAST_ONE, "also in 512-token windows (the whole "
                   "position table)", "the same rule", role="condition", unless="not at 512 tokens",
                   no_null=VOITA_CHANCE, options=MINILM_ONLY),
              Test("smollm2_adjacent_positional_heads", ">", AT_LEAST_ONE, "in SmolLM2-135M, a causal decoder, some "
                   "positional head (Voita's rule, interval above 90%) sits at offset -1, the previous token, in "
                   "128-token windows", SMOLLM2_HEAD_BASIS.format(what="at least one head at -1"),
                   null="null_smollm2_adjacent_positional_heads", options=SMOLLM2_ONLY),
              Test("smollm2_other_positional_heads", "<", AT_LEAST_ONE, "no positional head of SmolLM2 sits at "
                   "another offset (the token itself, or further back)", "none may", role="condition",
                   unless="positional heads exist at -1, but some hold another offset (the token itself or further "
                          "back)",
                   no_null="a count the claim bounds by zero, not a statistic read against chance",
                   options=SMOLLM2_ONLY)),
          revision=12, choice=HEAD_MODEL,
          null="MiniLM: no random model, Voita et al.'s rule is itself calibrated against chance (see each test); "
               "SmolLM2: SmolLM2-135M with re-initialised weights of matched norms on the same windows, judged by "
               "the same rule",
          title_zh="按 Voita 定义的位置头指向 ±1"),
    Claim("tupe-uniform", "Ke et al. 2021 (TUPE)", "literature", "Word-position terms look uniform",
          "In BERT-family models the word-position and position-word terms of the first layer's logits look uniform: "
          "flat along positions (word-position hardly changes with the key's position, position-word hardly with the "
          "query's), so they carry little positional correlation. This is their shape, not their size: the share "
          "is scale-free, so a term can be weak (four-terms-weak) and still vary along positions.",
          "minilm_four_terms", (
              Test("cross_along_positions", "<", UNIFORM, "at most a tenth of the cross terms' variation runs along "
                   "positions (mean over heads): word-position along the key's position within each query, "
                   "position-word along the query's position within each key",
                   "uniform: flat along positions; the report's tenth for a share that matters (LITTLE), between the "
                   "effect TUPE states (uniform: 0) and the null, random weights of matched norms, whose random "
                   "position rows make a cross term vary along positions almost wholly (near 1)",
                   null="null_cross_along_positions"),
              Test("max_head_cross_along_positions", "<", UNIFORM, "also in the head where it is largest",
                   "the same bar", role="condition", unless="flat on average over heads, not in every head",
                   null="null_max_head_cross_along_positions")),
          choice=WINDOW, revision=7, null=NULL_WORDS,
          title_zh="“词-位置”项看起来是均匀的"),
)
