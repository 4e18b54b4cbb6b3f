"""The pages of :mod:`posenc.report.experiments.pretrained` (all-MiniLM-L6-v2: geometry, magnitudes, dimensions, the
four-term split and positional heads)."""

from __future__ import annotations

import numpy as np

from posenc.report.experiments.base import Context, Measured
from posenc.report.experiments.pretrained import (
    COMPARABLE_LOG10,
    DIM_BLOCKS,
    DIM_PAIRS,
    DIVISION,
    DOCUMENT_BERT,
    EXPERT,
    FREQUENT_CHARS,
    FREQUENT_COUNT,
    HEADLINE_LENGTH,
    LENGTHS,
    LITTLE,
    NULL_DRAWS,
    NULL_WORDS,
    REFERENCES,
    SAMPLE_OPTIONS,
    SUBSPACE_LEVEL,
    UNIFORM,
    WEAK_RATIO,
)
from posenc.report.measurement import Row, Shown
from posenc.report.present import presents

#: what the page says wherever the documents report or assume bert-base-uncased (tutorial 001 §4.1 runs it): the model
#: that stands in for it here, and what would differ
STAND_IN = ("all-MiniLM-L6-v2 stands in for bert-base-uncased, which the documents use and which is not available "
            "offline: the same BERT architecture, uncased WordPiece vocabulary (30522 rows, the same 994 [unused] "
            "placeholders) and 512 learned position rows, but 6 layers x 12 heads at width 384 instead of 12 x 12 at "
            "768, distilled (MiniLM) and then fine-tuned as a sentence embedder at 128 tokens. What would differ on "
            "bert-base: chance cosines are tighter at d=768 (std 0.036 instead of 0.051, the orthogonality margin "
            "2.07 deg instead of 2.93), there are 144 heads instead of 72 (Clark et al.'s 4 and 5 counts are of 144), "
            "and BERT's masked-LM pretraining at 512 tokens trains positions 128..511 that the fine-tuning here "
            "never revisits; none of the numbers on this page are bert-base's.")


def _setup_windows(kinds: list[str], quick: bool) -> str:
    """The setup's words for the windows read: how many of each kind, and the quick report's subsample."""
    from posenc.corpora import TEXT_KINDS

    counts = {k: kinds.count(k) for k in TEXT_KINDS}
    subsample = " (the quick report reads the first of the full report's windows, both kinds alike)" if quick else ""
    return (f"{len(kinds)} windows per length from two kinds of text: {counts[TEXT_KINDS[0]]} from the start of "
            f"Shakespeare's plays (verse dialogue) and {counts[TEXT_KINDS[1]]} from the start of topics of the Python "
            f"language reference that CPython ships (pydoc_data.topics: technical prose with code), each kind in a "
            f"seeded random order, alternating{subsample}")




@presents("minilm_geometry")
def minilm_geometry(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.probe import orthogonality_figure

    n = m.numbers
    d, n_positions, std, margin = n["dim"], n["positions"], n["initializer_std"], n["margin_deg"]
    tutorial_size, sample = n["initial_table"]["rows"], n["tutorial_sample"]
    spaces, init_spaces, judged, initial = m.shown["spaces"], m.shown["init_spaces"], m.shown["judged"], \
        m.shown["initial"]
    parts, bert, geo = m.shown["parts"], m.shown["bert"], m.shown["geo"]
    rows = []
    for name in SAMPLE_OPTIONS:
        sp, ini = spaces[name], init_spaces[name]
        rows += [Row(f"{name}: share of the position table's variance inside the words' top-{sp['k']} principal "
                     f"subspace ({SUBSPACE_LEVEL:.0%} of the word variance; centred)", sp["share"], sp["chance"],
                     f"k/d = {sp['k']}/{d}: what random tables give"),
                 Row(f"{name}: the same over random tables' share (enrichment)", sp["enrichment"],
                     ini["enrichment"], f"tables drawn as BERT initialises them, N(0, {std:g}^2), the same shapes "
                                        f"(top-{ini['k']} subspace)"),
                 Row(f"{name}: smallest principal angle between the words' top-{sp['k']} subspace and the positions' "
                     f"top-{sp['k_positions']} (90% of their variance), degrees", sp["angle_min"], ini["angle_min"],
                     "the same at initialisation")]
    rows += [Row(f"mean angle, {name} ({n['samples'][name]['rows']}) x {n_positions} positions (deg)",
                 judged[name]["angle_mean"], initial["angle_mean"],
                 f"{tutorial_size} rows drawn as BERT initialises them, N(0, {std:g}^2), before any training")
             for name in SAMPLE_OPTIONS]
    rows += [Row(f"|mean angle - 90|, {name} (deg)", judged[name]["angle_offset"], margin,
                 "margin asin(1/sqrt(384)): one random pair's typical miss (shown, not judged: random tables "
                 "give 90 degrees too)") for name in SAMPLE_OPTIONS]
    rows += [Row("tutorial's rows 100..1099 that are [unused] placeholders",
                 f"{sample['placeholders']} of {sample['rows']}",
                 f"{sample['special_tokens']} special, {sample['word_pieces']} word pieces", "the rest"),
             Row("mean angle, the tutorial's placeholders alone (deg)", parts["placeholders"]["angle_mean"],
                 parts["word pieces"]["angle_mean"], "its word pieces alone")]
    for key, label in (("cos_mean", "cosine mean"), ("cos_std", "cosine std"), ("cos_abs_mean", "mean |cosine|"),
                       ("angle_mean", "mean angle"), ("angle_std", "angle std")):
        rows.append(Row(f"BERT-base-sized tables at initialisation: {label}", bert["stats"][key], DOCUMENT_BERT[key],
                        "tutorial 001 §4.1, bert-base-uncased"))
    rows.append(Row("mean cosine after centring both sets (tutorial's rows)", geo["centred"]["cos_mean"], 0.0,
                    "chance"))
    for s in geo["subspace"]["k"]:
        if s["k"] in (5, 20):
            rows.append(Row(f"overlap of top-{s['k']} PCA subspaces, whole vocabulary (mean cos^2)", s["overlap"],
                            s["random_overlap_mean"], "random subspaces"))
    means = {"trained rows": judged["trained rows"]["angle_mean"],
             "1000 most frequent tokens": judged[SAMPLE_OPTIONS[2]]["angle_mean"],
             "tutorial rows 100..1099": judged[SAMPLE_OPTIONS[1]]["angle_mean"],
             f"  of which placeholders ({sample['placeholders']})": parts["placeholders"]["angle_mean"],
             f"  of which word pieces ({sample['word_pieces']})": parts["word pieces"]["angle_mean"],
             "MiniLM-sized, at initialisation": initial["angle_mean"],
             "BERT-base-sized, at initialisation": bert["angle_mean"],
             "tutorial 001: bert-base-uncased (printed)": DOCUMENT_BERT["angle_mean"]}
    trained = n["samples"]["trained rows"]["rows"]
    angles = m.shown["angles"]
    fig = orthogonality_figure(means, margin, {f"trained rows (every 10th of {trained})": angles["trained"],
                                               f"tutorial's placeholders ({sample['placeholders']})":
                                                   angles["placeholders"],
                                               "N(0, 0.02^2) rows, before training": angles["initial"]})
    return Shown(rows, f"all-MiniLM-L6-v2 (d={d}): word rows x all {n_positions} position rows, judged as subspaces "
                       f"(positions' variance inside the words' top principal directions holding {SUBSPACE_LEVEL:.0%} "
                       f"of the word variance, both centred, interval from a bootstrap over position rows; against "
                       f"tables drawn as BERT initialises them); samples: {trained} trained rows (headline), the "
                       f"tutorial's rows 100..1099, the {FREQUENT_COUNT} most frequent tokens of Shakespeare (first "
                       f"{FREQUENT_CHARS} characters of each play); 95% intervals from a two-way bootstrap over words "
                       f"and positions (2000 resamples). {STAND_IN}",
                 f"all-MiniLM-L6-v2's embedding tables (d={d}): {trained} trained word rows x {n_positions} position "
                 f"rows", fig)


@presents("magnitude")
def magnitude(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.probe import embedding_scale_figure

    n = m.numbers
    d, d_minilm, word_rows = n["dim"], n["minilm_dim"], n["word_rows"]
    sin_rms, sin_minilm_rms, word_rms = n["sinusoid_rms"], n["sinusoid_rms_minilm_dim"], n["minilm_word_rms"]
    word_norms, position_norms = m.shown["word_norms"], m.shown["position_norms"]
    table_rows = [Row("MiniLM: mean norm of position rows", n["minilm_position_norm"],
                      n["minilm_word_norm"], f"mean norm of the {word_rows} trained word rows"),
                  Row("MiniLM: position / word norm", m.estimates["position_to_word_norm"], 1.0, "equal size")]
    for name, v in n["by_reference"].items():
        table_rows += [Row(f"sinusoid RMS per channel (d={d}) / reference {name} (RMS {v['reference_rms']:.3g})",
                           v["sinusoid_to_reference_rms"], 1.0, "equal size: 'small' below"),
                       Row(f"|log10(sinusoid / {name})|", v["sinusoid_reference_log10_gap"], COMPARABLE_LOG10,
                           "same order of magnitude below this")]
    table_rows += [Row(f"sinusoid RMS per channel (d={d_minilm}) / MiniLM trained word rows' RMS per channel",
                       f"{sin_minilm_rms:.3f} / {word_rms:.4f} = {sin_minilm_rms / word_rms:.2f}", 1.0, "equal size"),
                   Row("|log10(sinusoid / MiniLM word rows)|", m.estimates["sinusoid_minilm_word_log10_gap"],
                       COMPARABLE_LOG10, "same order of magnitude below this")]
    references = {"sinusoid": sin_rms, **{name.replace(" x ", "\n x "): rms for name, rms in REFERENCES.items()},
                  "MiniLM\nword rows": word_rms}
    fig = embedding_scale_figure(word_norms, position_norms, "all-MiniLM-L6-v2", references,
                                 ["C1", "C0", "C4", "C5", "C2"])
    return Shown(table_rows, "all-MiniLM-L6-v2: trained word rows (placeholders left out) and position rows, two-way "
                             "bootstrap over both; the sinusoid at d=512 against three reference embeddings (N(0, "
                             "1/d), N(0, 0.02^2) and N(0, 1), each multiplied by sqrt(d): one variant each), and at "
                             "d=384 against MiniLM's trained word rows (bootstrap over rows). " + STAND_IN,
                 f"all-MiniLM-L6-v2's tables ({word_rows} trained word rows, {len(position_norms)} position rows); "
                 f"the sinusoid at d={d} and d={d_minilm}", fig)


@presents("minilm_dimensions")
def minilm_dimensions(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.probe import dimension_split_figure

    n = m.numbers
    labels, block_r2, block_share, table_r2 = m.shown["labels"], m.shown["block_r2"], m.shown["block_share"], \
        m.shown["table_r2"]
    r2_gap, share_gap = m.estimates["low_minus_high_position_r2"], m.estimates["low_minus_high_position_share"]
    rows = [Row(f"{lab}: R^2 of position from word + position (held out)", e, float(table_r2[i]),
                "the same quarter of the position table alone") for i, (lab, e) in enumerate(zip(labels, block_r2,
                                                                                                strict=True))]
    rows += [Row(f"{lab}: share of the input's variance from position", e, None, "")
             for lab, e in zip(labels, block_share, strict=True)]
    rows += [Row("R^2 lowest quarter - highest quarter", r2_gap, DIVISION, "a division of labour above this"),
             Row("position share lowest quarter - highest quarter", share_gap, DIVISION,
                 "a division of labour above this")]
    fig = dimension_split_figure(m.shown["per_dim"], n["blocks"], block_r2, table_r2.tolist(), block_share)
    return Shown(rows, f"all-MiniLM-L6-v2 (d={n['dim']}): {n['word_rows']} trained word rows (seeded sample of "
                       f"{n['trained_rows']}) and all {n['positions']} position rows, in {DIM_BLOCKS} quarters of "
                       f"dimensions; position decoded from {DIM_PAIRS} word + position sums by 5-fold linear "
                       f"regression (interval: bootstrap over pairs); variance shares with a two-way bootstrap over "
                       f"words and positions. {STAND_IN}", figure=fig)


@presents("minilm_four_terms")
def minilm_four_terms(m: Measured, ctx: Context) -> Shown:
    from posenc.plots.probe import term_shares_figure

    n = m.numbers
    stats, flatness, by_dim, nulls = m.shown["stats"], m.shown["flatness"], m.shown["by_dim"], m.shown["nulls"]
    head, per_head = stats[HEADLINE_LENGTH]
    _, dim_heads, head_dim, _ = m.shown["dim_shape"]
    windows, error = n["windows"], n["reconstruction_error"]
    rows = [Row(f"spread of the {label} term ({HEADLINE_LENGTH}-token windows)", head[f"{t}_spread"], None, "")
            for t, label in (("ww", "word-word"), ("pp", "position-position"), ("wp", "word-position"),
                             ("pw", "position-word"), ("rest", "remainder"))]
    rows += [Row("cross terms' spread / main terms' spread", head["cross_to_main_spread"], WEAK_RATIO,
                 "weak below this"),
             Row("... the largest ratio in one head", head["max_head_cross_to_main_spread"], WEAK_RATIO, "weak below"),
             Row("share of logit variance: word-position + position-word", head["cross_share"], LITTLE,
                 "carries little below this"),
             Row("... in the head where it is largest", head["max_head_cross_share"], LITTLE, "carries little below"),
             Row("share of logit variance: remainder (biases, LayerNorm)", head["rest_share"], LITTLE,
                 "left out by the four-term split"),
             Row("the five variance shares (word-word, word-position, position-word, position-position, remainder) "
                 "added up", n["sum_of_variance_shares"][str(HEADLINE_LENGTH)], 1.0, "not additive: the parts are "
                 "correlated, so their shares of the logits' variance sum to more (or less) than 1"),
             Row("cross terms: share of their variation along positions (mean over heads)",
                 flatness[HEADLINE_LENGTH]["cross_along_positions"], UNIFORM, "uniform (flat) below this"),
             Row("... word-position alone, along key positions / position-word alone, along query positions",
                 f"{flatness[HEADLINE_LENGTH]['wp_along_positions'].text()} / "
                 f"{flatness[HEADLINE_LENGTH]['pw_along_positions'].text()}", UNIFORM, "uniform below this"),
             Row("... in the head where it is largest", flatness[HEADLINE_LENGTH]["max_head_cross_along_positions"],
                 UNIFORM, "uniform below this"),
             Row(f"largest word-word share of the four terms in one query/key dimension (of {dim_heads} heads x "
                 f"{head_dim})",
                 by_dim[HEADLINE_LENGTH][0]["max_dim_word_share"], EXPERT, "majority"),
             Row("largest position-position share of the four terms in one query/key dimension",
                 by_dim[HEADLINE_LENGTH][0]["max_dim_position_share"], EXPERT, "majority"),
             Row("share of dimensions that are word experts / position experts (point shares above 0.5)",
                 f"{by_dim[HEADLINE_LENGTH][0]['word_dims'].text()} / "
                 f"{by_dim[HEADLINE_LENGTH][0]['position_dims'].text()}", None, ""),
             Row("largest word-word share of the four terms in one head", head["max_head_word_share"], EXPERT,
                 "majority"),
             Row("largest position-position share of the four terms in one head", head["max_head_position_share"],
                 EXPERT, "majority"),
             Row("relative error of the split (parts vs the model's logits)", error, 0.0, "exact")]
    null_head = nulls[HEADLINE_LENGTH]
    rows += [Row(f"{label}: measured beside the null (random weights of matched norms, {NULL_DRAWS} draws)",
                 head.get(key, by_dim[HEADLINE_LENGTH][0].get(key, flatness[HEADLINE_LENGTH].get(key))),
                 null_head[f"null_{key}"], "null")
             for key, label in (("cross_to_main_spread", "cross terms' spread / main terms' spread"),
                                ("max_head_cross_to_main_spread", "... the largest ratio in one head"),
                                ("rest_share", "share of logit variance: remainder"),
                                ("cross_along_positions", "cross terms: share of their variation along positions"),
                                ("max_head_cross_along_positions", "... in the head where it is largest"),
                                ("max_head_word_share", "largest word-word share of the four terms in one head"),
                                ("max_head_position_share", "largest position-position share in one head"),
                                ("max_dim_word_share", "largest word-word share in one query/key dimension"),
                                ("max_dim_position_share", "largest position-position share in one dimension"))]
    for length in LENGTHS:
        if length != HEADLINE_LENGTH:
            rows.append(Row(f"{length}-token windows: cross share / remainder share / largest position share",
                            f"{stats[length][0]['cross_share'].text()} / {stats[length][0]['rest_share'].text()} / "
                            f"{stats[length][0]['max_head_position_share'].text()}", None, ""))
    fig = term_shares_figure(per_head, {length: stats[length][0] for length in LENGTHS}, HEADLINE_LENGTH, EXPERT)
    return Shown(rows, f"all-MiniLM-L6-v2 layer 0 (12 heads), {_setup_windows(m.shown['kinds'], ctx.quick)}, lengths "
                       f"{', '.join(map(str, LENGTHS))}; split by posenc.probe.decompose.four_term_split, 95% "
                       f"intervals from a bootstrap over windows; the null: {NULL_WORDS}, its interval a t-interval "
                       f"over draws. {STAND_IN}",
                 f"all-MiniLM-L6-v2 layer 0, {windows} windows of {', '.join(map(str, LENGTHS))} tokens (headline "
                 f"{HEADLINE_LENGTH})", fig)


def minilm_heads(m: Measured, ctx: Context) -> Shown:
    """The page of :func:`posenc.report.experiments.pretrained.minilm_heads`, MiniLM's part of the model_heads page
    (:mod:`posenc.report.present.decoder`)."""
    from posenc.plots.probe import window_length_figure
    from posenc.probe.heads import VOITA_THRESHOLD

    n = m.numbers
    judged, by_kind, tracked, bins = m.shown["judged"], m.shown["by_kind"], m.shown["tracked"], m.shown["bins"]
    lengths, windows = n["package_lengths"], n["windows"]
    layer, head, offset = n["by_query_position"]["head"]
    width = n["by_query_position"]["bin_width"]
    headline = judged[HEADLINE_LENGTH]
    rows = []
    for length in LENGTHS:
        j = judged[length]
        b = j.best
        rows.append(Row(f"{length}-token windows: positional heads (Voita: interval above {VOITA_THRESHOLD:.0%})",
                        j.estimates["positional_heads"],
                        ", ".join(f"L{l}H{h} {o:+d}" for l, h, o in j.positional) or "none",
                        f"of {len(j.fractions) * len(j.fractions[0])} heads"))
        rows.append(Row(f"{length}-token windows: best head L{b[0]}H{b[1]}, offset {int(j.offsets[b]):+d}: share of "
                        f"queries", j.estimates["best_voita_fraction"], VOITA_THRESHOLD, "Voita's threshold"))
    for length in LENGTHS:
        for kind, j in by_kind[length].items():
            rows.append(Row(f"{length}-token windows, {kind} alone ({j.windows} windows): positional heads",
                            j.estimates["positional_heads"],
                            ", ".join(f"L{l}H{h} {o:+d}" for l, h, o in j.positional) or "none", "which"))
    rows += [Row(f"L{layer}H{head} in 512-token windows, queries {a}..{a + width - 1}: share on offset {offset:+d}",
                 e, bins[HEADLINE_LENGTH][0], f"queries 0..{width - 1} of {HEADLINE_LENGTH}-token windows")
             for a, e in zip(range(0, 512, width), bins[512], strict=True)]
    rows += [Row("heads with > 50% attention on the previous token (headline)", headline.estimates["previous_heads"],
                 "4 of 144", "Clark et al. 2019, BERT-base"),
             Row("heads with > 50% attention on the next token (headline)", headline.estimates["next_heads"],
                 "5 of 144", "Clark et al. 2019, BERT-base"),
             Row("fine-tuning length (tokenizer.json) / max_seq_length / position rows", "{fine_tuned} / "
                 "{max_seq_length} / {positions}".format(**lengths), HEADLINE_LENGTH, "headline window length")]
    fractions = np.array([[e.value for e in row_] for row_ in headline.fractions])
    fig = window_length_figure(list(LENGTHS), tracked, bins, width, fractions, headline.offsets, VOITA_THRESHOLD,
                               HEADLINE_LENGTH)
    return Shown(rows, f"all-MiniLM-L6-v2, 6 layers x 12 heads, {_setup_windows(m.shown['kinds'], ctx.quick)}, "
                       f"lengths {', '.join(map(str, LENGTHS))}; judged by posenc.probe.heads.positional_heads, 95% "
                       f"intervals from the two-way bootstrap over windows and query positions (shares of queries) "
                       f"and from a bootstrap over windows (attention on the previous / next token). {STAND_IN}",
                 f"all-MiniLM-L6-v2 (6 layers x 12 heads), {windows} windows of {', '.join(map(str, LENGTHS))} "
                 f"tokens", fig)
