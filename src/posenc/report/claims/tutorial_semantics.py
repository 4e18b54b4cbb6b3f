"""The claims that :mod:`posenc.report.experiments.tutorial_semantics` measures, as records: what each
sentence says, the test that decides it, its null and the reason for its bar (:class:`posenc.report.claim.Claim`)."""

from __future__ import annotations

from posenc.report.claim import Choice, Claim, Test
from posenc.report.claims.pretrained import HEAD_MODEL, MINILM_ONLY, SMOLLM2_ONLY
from posenc.report.experiments.tutorial_semantics import CONCENTRATION_OPTIONS, OUTPUT_BAR, SHIFT_OPTIONS

__all__ = ["CLAIMS"]


# ---------------------------------------------------------------------------------------------------------------
# the claims these experiments test
# ---------------------------------------------------------------------------------------------------------------
EXACT = "exact, so any bar between the alternatives gives the same verdict"


#: the analogies' bars, between the null (random triples hit a random target by chance) and the effect
HIT_BASIS = ("{reading}: the target is found (1) or not (0), exact; the null, random analogies of the same shapes "
             "with a random target, hits at the chance rate shown beside, far below the bar")


#: why a percentile among random pairs needs no separate null
PERCENTILE_NO_NULL = "a percentile among 20,000 random pairs: the null is built into the statistic (chance: 0.5)"


#: semantic-concentration's bar: halfway between the null (1) and the effect stated before any run (1.1)
CONCENTRATION_BAR = 1.05


STANDS_IN = "all-MiniLM-L6-v2 stands in for the document's model"


#: why positional-head-content's attention reading has no computed null
POSITIONAL_NULL = ("a head that attends by position alone moves exactly 0 under the swap, by construction; the heads "
                   "that are not positional are shown beside as the other side")


OUTPUT_BASIS = ("'部分语义' (some semantic information): the head's output names the word it attends to for at least one "
                "query in five; between the null (the same heads' position-only output through the same probe, which "
                "can name one word per position: at most each position's most frequent word, near the most frequent "
                "token's share, 0.065 on MiniLM's windows) and a head that passes its word on whole (the same kind of "
                "probe reads every token from MiniLM's embeddings, later-modules-extract); later-modules-extract's "
                "bar for 'far above chance'")


def _fails_on_one_table(statistic: str, says: str) -> Test:
    """The requirement of the two sum read-out claims: the read-out fails on the sum of two words of one table
    (E + E'), whose order it cannot tell, so that the test can fail."""
    return Test(statistic, "<", 0.75, says, "the test must be able to fail: such a sum gets the order right no better "
                "than a coin (0.5)", otherwise="not testable",
                no_null="the null itself (two words of one table): a check that it stays well below")


CLAIMS: tuple[Claim, ...] = (
    Claim("vector-composition", "tutorial 000 §3.2", "tutorial", "Adding vectors composes meaning",
          "In the embedding space addition superposes meanings: \"king\" ~ \"man\" + \"royalty\" and \"Paris\" - "
          "\"France\" + \"Italy\" ~ \"Rome\" (tested in MiniLM's input word table: " + STANDS_IN + "). '~' has "
          "three readings, each judged: the target among the top 1% of the vocabulary (the core), among the 10 "
          "nearest words, the nearest word; readings that disagree qualify the verdict and name themselves.",
          "minilm_analogies", (
              Test("king_hit_top1pct", ">", 0.5, "'king' is among the 1% of words nearest to 'man' + 'royalty' "
                   "(query words left out)", HIT_BASIS.format(reading="the loosest reading, the top 1%"),
                   unless="'king' ~ 'man' + 'royalty' does not hold on any reading", null="chance_hit_rate_top1pct"),
              Test("rome_hit_top1pct", ">", 0.5, "'rome' is among the 1% nearest to 'paris' - 'france' + 'italy'",
                   HIT_BASIS.format(reading="the loosest reading, the top 1%"),
                   unless="'Paris' - 'France' + 'Italy' ~ 'Rome' does not hold on any reading",
                   null="chance_hit_rate_top1pct"),
              Test("king_hit_top10", ">", 0.5, "on the top-10 reading: 'king' among the 10 nearest",
                   HIT_BASIS.format(reading="the top-10 reading"), role="condition",
                   unless="on the top-1% reading only: not among the 10 nearest words",
                   null="chance_hit_rate_top10"),
              Test("rome_hit_top10", ">", 0.5, "on the top-10 reading: 'rome' among the 10 nearest",
                   HIT_BASIS.format(reading="the top-10 reading"), role="condition",
                   unless="on the top-1% reading only: 'rome' not among the 10 nearest words",
                   null="chance_hit_rate_top10"),
              Test("king_hit_rank1", ">", 0.5, "on the nearest-word reading (Mikolov et al. 2013's criterion): "
                   "'king' is the nearest word", HIT_BASIS.format(reading="the strictest reading, the nearest word"),
                   role="condition", unless="on the looser readings, not on the nearest-word one: 'king' is not the "
                   "nearest word", null="chance_hit_rate_rank1"),
              Test("rome_hit_rank1", ">", 0.5, "on the nearest-word reading: 'rome' is the nearest word",
                   HIT_BASIS.format(reading="the strictest reading, the nearest word"), role="condition",
                   unless="on the looser readings, not on the nearest-word one: 'rome' is not the nearest word",
                   null="chance_hit_rate_rank1"),
              Test("composition_gain", ">", 0, "in both examples the sum ranks the target above where its best "
                   "single word does", "Linzen 2016: an analogy is only shown when the sum does better than one "
                   "word alone", role="condition",
                   unless="the sum finds its target no better than one of its words alone does",
                   no_null="a difference of exact ranks read against 0: the single words are its control")),
          quote="在向量空间中,加法表示叠加不同的语义因素", revision=4,
          null="random analogies of both shapes with a random target: how often chance 'hits' on each reading",
          title_zh="向量加法表示叠加不同的语义因素"),
    Claim("same-word-shifted", "tutorial 000 §3.2", "tutorial", "Positions shift a word's direction slightly",
          "Adding the position does not destroy the word's meaning: the same word at different positions points in "
          "slightly different directions (MiniLM's tables).",
          "minilm_shifted_words", (
              Test("word_kept", ">", 0.95, "the word is still the nearest word in direction to word + position",
                   "'不是词义被破坏' (meaning not destroyed): for 19 pairs in 20",
                   no_null="chance is one word in 29,000 (a random word is the nearest almost never): the bar sits "
                           "between that and every pair kept"),
              Test("angle_ratio", "<", 0.5, "the same word at two positions is less than half as far apart in angle "
                   "as two different words at one position", "'略微' (slightly), against the angle that separates "
                   "different words",
                   no_null="a ratio of two measured angles: the angle between different words is its reference")),
          choice=Choice("vector", SHIFT_OPTIONS, SHIFT_OPTIONS[0],
                        "the sentence speaks of new_embedding = semantic_embedding + position_offset; what MiniLM's "
                        "first layer reads after its LayerNorm is shown beside"),
          quote="所以模型看到的不是“词义被破坏”,而是“相同词在不同位置处于略微不同的方向”。", revision=4,
          null="no random model: each statistic is read against a reference measured beside it (the nearest of "
               "29,000 words; two different words' angle)",
          title_zh="相同词在不同位置处于略微不同的方向"),
    Claim("linear-separation", "tutorial 000 §3.3", "tutorial", "A linear layer can separate the sum",
          "If the word and position distributions are relatively independent, a later linear layer can separate "
          "E_word + E_pos back into its two parts (MiniLM's tables, independent draws).",
          "minilm_sum_readout", (
              Test("linear_both", ">", 0.9, "affine maps fitted by least squares recover both the word and the "
                   "position of held-out sums", "'分离' (separated) for nine sums in ten; between the null (a sum of "
                   "two words of one table, whose order no map can read: 0.5 at best) and every sum separated (1)",
                   null="collision_linear_both"),),
          requires=(_fails_on_one_table("collision_linear_both", "the same maps fail on the sum of two words of one "
                                        "table, which cannot say which is which"),),
          quote="如果两个向量空间的分布相对独立,线性相加仍能被后续层(线性变换)分离", revision=4,
          null="the same maps fitted the same way on sums of two words of one 512-row table (E + E')",
          title_zh="线性相加仍能被后续层分离"),
    Claim("sum-capacity", "tutorial 000 §3.3, tutorial 003 §14.8.1", "tutorial", "High dimension: the sum keeps both",
          "In 512 or more dimensions the sum does not make word and position information overlap badly: both can "
          "still be told apart and extracted (MiniLM's tables, d = 384).",
          "minilm_sum_readout", (
              Test("decoded_both", ">", 0.95, "searching both tables recovers the word and the position of held-out "
                   "sums", "'不会导致严重的信息重叠' (no serious overlap): at most one sum in twenty confused; "
                   "between the null (two words of one table: 0.5 at best) and no confusion (1)",
                   null="collision_decoded_both"),),
          requires=(_fails_on_one_table("collision_decoded_both", "the same search fails on the sum of two words of "
                                        "one table"),),
          quote="在 512 维或更高的空间中,向量叠加后不会导致严重的信息重叠。", revision=4,
          null="the same search on sums of two words of one 512-row table (E + E')",
          title_zh="高维空间中向量叠加不会严重重叠"),
    Claim("semantic-concentration", "tutorial 001 §4", "tutorial", "Meaning is not spread evenly over dimensions",
          "The values of a word vector are not evenly distributed over its dimensions: some dimensions are rich in "
          "meaning, others sparse (MiniLM's word table against isotropic tables of the same shape).",
          "minilm_spectra", (
              Test("concentration_ratio", ">", CONCENTRATION_BAR, "the tenth of dimensions that vary most hold more "
                   "of the words' variance than isotropic tables put there, by at least half the stated effect",
                   "halfway between the null (isotropic tables of this shape through the same ratio: 1, each within "
                   "about 1% of it) and the effect the claim stated before any run (the richest tenth holding 10% "
                   "more than an even spread: 1.1); the earlier bar sat on the effect itself, above both",
                   null="null_concentration_ratio"),),
          requires=(Test("isotropic_ratio_max", "<", CONCENTRATION_BAR, "no isotropic table reaches the bar",
                         "the test must be able to fail", otherwise="not testable",
                         no_null="the null's own largest draw: a check that the bar is past every draw"),),
          choice=Choice("dimensions", CONCENTRATION_OPTIONS, CONCENTRATION_OPTIONS[0],
                        "the sentence speaks of the values on a vector's 512 dimensions (its coordinates); directions "
                        "found by PCA are shown beside"),
          quote="一定有一部分是语义的富集,一些值的语义是稀疏的。", revision=4,
          null="isotropic Gaussian tables of the same shape through the same top-tenth share (5 quick, 20 full)",
          title_zh="语义在各维度上的分布不均匀"),
    Claim("position-own-space", "tutorial 001 §4", "tutorial", "Position information has its own space",
          "Position information occupies a space of its own: MiniLM's position table holds 90% of its variance in "
          "a small part of the dimensions. (Whether that space lies apart from the words' is near-orthogonal.)",
          "minilm_spectra", (
              Test("position_dims_share", "<", 0.5, "under half of the principal directions hold 90% of the position "
                   "table's variance", "a space of its own is a part of the whole: under half of it, between the "
                   "null (isotropic 512-row tables, which need more than half) and a space of a few directions; "
                   + EXACT, null="null_position_dims_share"),),
          requires=(Test("isotropic_position_dims_share", ">", 0.5, "isotropic tables of the same shape need more "
                         "than half", "the test must be able to fail", otherwise="not testable",
                         no_null="the null's own fewest count: a check that the bar is past every draw"),),
          quote="位置信息有自己的空间", revision=4,
          null="isotropic Gaussian tables of 512 rows through the same count of principal directions",
          title_zh="位置信息有自己的空间"),
    Claim("positional-head-content", "tutorial 001 §5.2", "tutorial", "Positional heads' output carries words",
          "A head that mainly attends by position still encodes some semantic information: what it outputs names "
          "the word it attends to, which a linear probe reads from it far above what the same head's position-only "
          "output gives (the positional heads at 128 tokens of MiniLM, an encoder, and of SmolLM2-135M, a causal "
          "decoder, where they attend to the token itself or one back). A second reading, judged as a condition: "
          "where the head looks moves with the words. Word identity stands for 'semantic or syntactic': no tagger "
          "installs offline to read syntax apart.",
          "model_head_content", (
              Test("output_word_accuracy", ">", OUTPUT_BAR, "a ridge probe fitted on other windows reads the word a "
                   "positional head attends to from its output, for at least one query in five, on average over "
                   "those heads", OUTPUT_BASIS, null="null_output_word_accuracy", options=MINILM_ONLY),
              Test("smollm2_output_word_accuracy", ">", OUTPUT_BAR, "in SmolLM2-135M, the probe reads the word a "
                   "positional head attends to from its output, for at least one query in five",
                   "the same bar for the same reason, beside the same null computed on SmolLM2's heads",
                   null="null_smollm2_output_word_accuracy", options=SMOLLM2_ONLY),
              Test("content_change", ">", 0.05, "on the attention reading: swapping the words (positions kept) moves "
                   "at least 5% of a positional head's attention, on average over those heads",
                   "'部分' (some): 5% of the attention, between a head attending by position alone (exactly 0) and "
                   "the heads that attend by content (shown beside)", role="condition",
                   unless="on the output reading only: the output names the words, but where the heads look does not "
                          "move with them (the swap moves {value} of their attention)",
                   no_null=POSITIONAL_NULL, options=MINILM_ONLY),
              Test("smollm2_content_change", ">", 0.05, "on the attention reading, in SmolLM2-135M: the swap moves at "
                   "least 5% of a positional head's attention", "the same bar for the same reason",
                   role="condition", unless="on the output reading only: the output names the words, but where the "
                   "heads look does not move with them (the swap moves {value} of their attention)",
                   no_null=POSITIONAL_NULL, options=SMOLLM2_ONLY)),
          requires=(Test("positional_heads_found", ">", 0.5, "MiniLM has positional heads (Voita et al.'s rule)",
                         "the claim is about such heads", otherwise="not testable",
                         no_null="a count of heads found by Voita et al.'s rule, itself calibrated against chance",
                         options=MINILM_ONLY),
                    Test("input_word_accuracy", ">", OUTPUT_BAR, "the probe sees words where they are: it reads "
                         "each word from the hidden states the positional heads read, above the bar",
                         "power (the hedge rule, 可能): what the heads could pass on, so that a refutation shows the "
                         "heads drop the word, not that the probe cannot read it", role="power",
                         no_null="the positive control itself", options=MINILM_ONLY),
                    Test("smollm2_positional_heads_found", ">", 0.5, "SmolLM2 has positional heads (Voita et al.'s "
                         "rule over offsets -8..0)", "the claim is about such heads", otherwise="not testable",
                         no_null="a count of heads found by Voita et al.'s rule; positional-heads reads it beside "
                                 "its null", options=SMOLLM2_ONLY),
                    Test("smollm2_input_word_accuracy", ">", OUTPUT_BAR, "the probe reads each word from the hidden "
                         "states SmolLM2's positional heads read, above the bar", "power (the hedge rule, 可能): a "
                         "positive control in the same model, on the same windows", role="power",
                         no_null="the positive control itself", options=SMOLLM2_ONLY)),
          quote="一个头可能主要关注位置,但同时也编码了部分语义或句法信息。", revision=8, choice=HEAD_MODEL,
          null="the same heads' position-only output (their mean over windows at each position) through the same "
               "probe; for the attention reading, a purely positional head (0 by construction)",
          title_zh="位置头的输出也携带词的信息"),
    Claim("later-modules-extract", "tutorial 001 §6, tutorial 003 §14.3.2", "tutorial", "Later modules still extract word and "
          "position", "In the later modules, attention and FFN alike can correctly extract both the word and its "
          "position from the summed vector (MiniLM on Shakespeare: what every module's output still carries; a "
          "position counts as read within +-2 tokens).",
          "minilm_layer_probes", (
              Test("min_token_accuracy", ">", 0.2, "after every attention and FFN block a linear probe reads the "
                   "token far above chance", "chance: the most frequent token's share (shown beside)",
                   unless="after some module the token is not read beyond chance",
                   no_null="chance is the majority token's share, computed on the same windows and shown beside"),
              Test("min_position_accuracy", ">", 0.2, "and the position within +-2 tokens far above chance",
                   "chance: 5/128 = 0.04", unless="after some module the position is not read beyond chance",
                   no_null="chance is 5/128, exact for a reading within +-2 of 128 positions"),
              Test("min_token_accuracy", ">", 0.9, "correctly: the token for nine tokens in ten after every module",
                   "'正确的提取' (extracted correctly)", role="condition",
                   unless="after some module the token is read beyond chance but not correctly",
                   no_null="chance is the majority token's share, shown beside"),
              Test("min_position_accuracy", ">", 0.9, "and the position within +-2 tokens for nine tokens in ten",
                   "'正确的提取' (extracted correctly)", role="condition",
                   unless="after some module the position is read beyond chance but not correctly",
                   no_null="chance is 5/128")),
          requires=(Test("probe_on_sum", ">", 0.9, "the probe reads both the token and the position (within +-2 "
                         "tokens) from the sum itself (the embeddings' output) for nine tokens in ten",
                         "a probe that cannot read what the modules receive cannot say what they extract. Fixed "
                         "before this revision's run: the probe is pre-registered as reading a position within +-2 "
                         "tokens (the revision-1 requirement, read exactly, was added after a first run and no probe "
                         "of the exact position met it: 0.548)",
                         no_null="the probe's own reach on the input, not a statistic read against chance"),),
          quote="后续的模块中,不论是Attention还是FFN都能正确的提取到给定向量中的语义和位置信息。", revision=4,
          null="chance: the most frequent token's share and 5/128 for a position within +-2 (computed on the same "
               "windows)",
          title_zh="后续模块仍能提取语义和位置信息"),
    Claim("king-queen-apple", "tutorial 003 §14.2.1", "tutorial", "King is near queen, far from apple",
          "In the embedding table the vectors of 国王 (king) and 王后 (queen) are close, those of 国王 and 苹果 (apple) "
          "far apart (MiniLM's input table with the English words: " + STANDS_IN + ").",
          "minilm_word_pairs", (
              Test("queen_percentile", ">", 0.99, "king and queen are more similar than 99% of random word pairs",
                   "'接近' (close): the top 1% of random pairs", unless="king and queen are not close",
                   no_null=PERCENTILE_NO_NULL),
              Test("apple_percentile", "<", 0.9, "king and apple are no more similar than 90% of random pairs",
                   "'很远(没有关系)' (far: unrelated): within the bulk of random pairs",
                   unless="king and apple are closer than unrelated words typically are",
                   no_null=PERCENTILE_NO_NULL)),
          quote="\"国王\"和\"王后\"的向量接近(都是皇室)", revision=4,
          null="20,000 random pairs of trained tokens: each statistic is a percentile among them",
          title_zh="“国王”接近“王后”，远离“苹果”"),
)
