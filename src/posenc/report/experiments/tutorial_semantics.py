"""The documents' remaining claims about meaning, words and positions, tested on the pretrained all-MiniLM-L6-v2
(BERT architecture, d = 384, 512 learned positions) through :mod:`posenc.probe`:

- tutorial 000 §3.2: adding vectors composes meaning ("king" ~ "man" + "royalty", "Paris" - "France" + "Italy" ~
  "Rome"), and the same word at different positions points in slightly different directions;
- tutorial 000 §3.3: a later linear layer can separate the sum into its word and position parts, and in a high
  dimension the sum does not make the two overlap badly;
- tutorial 001 §4: meaning is not spread evenly over the dimensions; position information has a space of its own;
- tutorial 001 §5.2: a positional head still carries some content; §6: the later modules (attention and FFN) still
  extract the word and its position;
- tutorial 003 §14.2.1: "king" and "queen" are close, "king" and "apple" far.

MiniLM stands in for the documents' models (tutorial 001 samples BERT-base, tutorial 003 an unnamed embedding table, tutorial
000 the word2vec-style space its examples come from); its vocabulary is BERT's uncased English one, so the words are
the English ones (king, queen, apple), and its width is 384, below the 512 the documents name. Word rows are every
trained row (BERT's ``[unused]`` placeholders and special tokens left out); text is one window of 128 tokens (the
length MiniLM was fine-tuned at) from the start of each Shakespeare play, the plays in a seeded random order, the
quick report reading the first 8 of the full report's 38: windows are the units every interval on text rests on.
Their pages: :mod:`posenc.report.present.tutorial_semantics`.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from posenc.errors import PosencError
from posenc.report.experiments.base import Context, Measured, Mode, exacts, experiment, one_thread
from posenc.stats import POSITIVE, SHARE, Estimate, bootstrap, bootstrap_weights, exact, over_seeds, wilson

WINDOW_LENGTH = 128  #: what MiniLM was fine-tuned at (the pretrained claims' headline window)
#: later-modules-extract reads a position as correct within this many tokens either way (fixed before its run)
POSITION_TOLERANCE = 2
QUICK_WINDOWS = 8
#: the text windows in each mode (None: one per play, the full report's 38)
TEXT_WINDOWS = Mode(quick=QUICK_WINDOWS, full=None)


def _loaded() -> Any:
    from posenc.report.experiments.pretrained import minilm  # one load per process, shared with those claims

    return minilm()


@functools.lru_cache(maxsize=1)
def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(words [V, d], positions [512, d], candidates)``: MiniLM's tables (float64) and the word rows compared
    (trained rows, special tokens left out)."""
    from posenc.probe.geometry import embedding_tables, trained_rows

    loaded = _loaded()
    words, positions = embedding_tables(loaded.model)
    rows = trained_rows(loaded.tokenizer, words.shape[0])
    candidates = np.setdiff1d(rows, np.asarray(loaded.tokenizer.all_special_ids, dtype=np.int64))
    return words.double().numpy(), positions.double().numpy(), candidates


def _token(word: str) -> int:
    ids = _loaded().tokenizer(word, add_special_tokens=False)["input_ids"]
    if len(ids) != 1:
        raise PosencError(f"{word!r} is not one token of MiniLM's vocabulary: {ids}")
    return int(ids[0])


def _windows(ctx: Context) -> list[list[int]]:
    from posenc.corpora import play_windows

    return play_windows(_loaded().tokenizer, WINDOW_LENGTH, TEXT_WINDOWS.of(ctx))


# ---------------------------------------------------------------------------------------------------------------
# tutorial 000 §3.2 and tutorial 003 §14.2.1: adding vectors, near and far words
# ---------------------------------------------------------------------------------------------------------------
#: the documents' examples: name -> (added words, subtracted words, target)
ANALOGIES = {"king ~ man + royalty": (("man", "royalty"), (), "king"),
             "paris - france + italy ~ rome": (("paris", "italy"), ("france",), "rome")}
NEARNESS = {"nearest word (rank 1)": 1, "among the 10 nearest": 10, "top 1% of the vocabulary": None}
#: each reading's suffix in the estimates' names
READING_KEYS = {"nearest word (rank 1)": "rank1", "among the 10 nearest": "top10", "top 1% of the vocabulary": "top1pct"}
#: minilm_analogies' random analogies for chance, per shape of analogy, in each mode
CHANCE_ANALOGIES = Mode(quick=100, full=500)


@experiment("minilm_analogies")
@one_thread
def minilm_analogies(ctx: Context) -> Measured:
    """Tutorial 000 §3.2: "king" ~ "man" + "royalty" and "Paris" - "France" + "Italy" ~ "Rome", in MiniLM's input word
    table (the word vectors the document then adds positions to), rows scaled to unit length. Each target's rank
    among the ~29,000 trained tokens by cosine with the composed vector, the query words left out (3CosAdd,
    Mikolov et al. 2013, :func:`posenc.probe.composition.analogy_rank`); the rank from each added word alone (the
    composition must beat it, Linzen 2016); chance: random analogies of both shapes with a random target (200 quick,
    1000 full).
    Choice: how near counts as "~"."""
    from posenc.probe.composition import (
        analogy_rank,
        nearest_words,
        random_analogy_ranks,
        single_word_ranks,
        unit_rows,
    )

    words, _, candidates = _tables()
    unit = unit_rows(words)
    found = {}
    for name, (plus, minus, target) in ANALOGIES.items():
        p, m, t = [_token(w) for w in plus], [_token(w) for w in minus], _token(target)
        nearest = nearest_words(unit, p, m, candidates)
        found[name] = {"rank": analogy_rank(unit, p, m, t, candidates),
                       "single_word_ranks": dict(zip(plus, single_word_ranks(unit, p, m, t, candidates), strict=True)),
                       "nearest": _loaded().tokenizer.convert_ids_to_tokens(nearest)}
    count = CHANCE_ANALOGIES.of(ctx)  # per shape of analogy
    fast = unit.astype(np.float32)  # chance needs no float64
    chance = {"2+": random_analogy_ranks(fast, candidates, 2, 0, count, seed=0),
              "2+1-": random_analogy_ranks(fast, candidates, 2, 1, count, seed=1)}
    pooled = np.concatenate(list(chance.values()))
    gains = [min(f["single_word_ranks"].values()) - f["rank"] for f in found.values()]
    variants = {}
    for option, k in NEARNESS.items():
        k = k or int(np.ceil(0.01 * len(candidates)))
        king, rome = (found[n]["rank"] <= k for n in ANALOGIES)
        variants[option] = {"king_hit": exact(float(king)), "rome_hit": exact(float(rome)),
                            "composition_gain": exact(float(min(gains))),
                            "chance_hit_rate": wilson(int((pooled <= k).sum()), len(pooled))}
    # every reading side by side (the claim's tests read each: readings that disagree qualify the verdict)
    readings = {f"{key}_{READING_KEYS[option]}": variants[option][key] for option in NEARNESS
                for key in ("king_hit", "rome_hit", "chance_hit_rate")}
    readings["composition_gain"] = variants[next(iter(NEARNESS))]["composition_gain"]
    numbers = {"analogies": found, "candidates": len(candidates), "chance_median_rank": float(np.median(pooled)),
               "chance_triples": len(pooled), "composition_gains": gains,
               "top_percent_rank": int(np.ceil(0.01 * len(candidates)))}
    return Measured(numbers, readings, shown={"pooled": pooled})


#: tutorial 003 §14.2.1's words
PAIR_WORDS = ("king", "queen", "apple")


@experiment("minilm_word_pairs")
@one_thread
def minilm_word_pairs(ctx: Context) -> Measured:
    """Tutorial 003 §14.2.1: "国王" (king) and "王后" (queen) are close, "国王" and "苹果" (apple) far, in the embedding
    lookup table. MiniLM's input word table stands in (English words: its vocabulary is English); each pair's cosine
    placed among the cosines of 20,000 random pairs of trained tokens (a share with a Wilson interval)."""
    from posenc.probe.composition import pair_cosine, random_pair_cosines, unit_rows

    words, _, candidates = _tables()
    unit = unit_rows(words)
    king, queen, apple = (_token(w) for w in PAIR_WORDS)
    random_cos = random_pair_cosines(unit, candidates, 20_000, seed=0)
    cos_queen, cos_apple = pair_cosine(unit, king, queen), pair_cosine(unit, king, apple)
    below_queen, below_apple = int((random_cos < cos_queen).sum()), int((random_cos < cos_apple).sum())
    numbers = {"cos_king_queen": cos_queen, "cos_king_apple": cos_apple, "random_pairs": len(random_cos),
               "random_quantiles": {str(q): float(np.quantile(random_cos, q)) for q in (0.5, 0.9, 0.99, 0.999)}}
    estimates = {"queen_percentile": wilson(below_queen, len(random_cos)),
                 "apple_percentile": wilson(below_apple, len(random_cos))}
    return Measured(numbers, estimates, shown={"candidates": len(candidates)})


# ---------------------------------------------------------------------------------------------------------------
# tutorial 001 §4: how variance spreads over dimensions (words) and how much room positions take
# ---------------------------------------------------------------------------------------------------------------
CONCENTRATION_OPTIONS = ("coordinate dimensions", "principal directions")
TOP_FRACTION = 0.1
#: minilm_spectra's isotropic tables of each shape, in each mode
ISOTROPIC_TABLES = Mode(quick=5, full=20)


@experiment("minilm_spectra")
@one_thread
def minilm_spectra(ctx: Context) -> Measured:
    """Tutorial 001 §4: meaning is not spread evenly over the dimensions; and position information has a space of its
    own. MiniLM's trained word rows and its 512 position rows, centred: the share of the words' variance in the
    tenth of dimensions that hold most (:func:`posenc.probe.concentration.top_share`), against isotropic tables of
    the same shape (5 quick, 20 full); the fewest principal directions holding 90% of the positions' variance
    (:func:`posenc.probe.concentration.dims_for_share`), against isotropic tables of 512 rows. Choice (words):
    coordinate dimensions, as the document speaks of the values on each dimension, or principal directions."""
    from posenc.probe.concentration import dims_for_share, isotropic_spectra, spectra, top_share

    words, positions, candidates = _tables()
    seeds = ISOTROPIC_TABLES.of(ctx)
    word_diag, word_eig = spectra(words[candidates])
    n, d = len(candidates), words.shape[1]
    iso_words = isotropic_spectra(n, d, seeds)
    variants, detail = {}, {}
    for option, index in zip(CONCENTRATION_OPTIONS, (0, 1), strict=True):
        measured = top_share((word_diag, word_eig)[index], TOP_FRACTION)
        baseline = [top_share(s[index], TOP_FRACTION) for s in iso_words]
        mean = float(np.mean(baseline))
        detail[option] = {"top_share": measured, "isotropic_top_share": mean, "ratio": measured / mean,
                          "isotropic_ratio_max": max(baseline) / mean}
        variants[option] = {"concentration_ratio": exact(measured / mean),
                            "isotropic_ratio_max": exact(max(baseline) / mean),
                            # the null: each isotropic table's top share through the same ratio, t over tables
                            "null_concentration_ratio": over_seeds([b / mean for b in baseline], bounds=POSITIVE)}
    _, pos_eig = spectra(positions)
    iso_pos = isotropic_spectra(positions.shape[0], d, seeds, start=1000)
    pos_dims = dims_for_share(pos_eig, 0.9)
    iso_dims = [dims_for_share(s[1], 0.9) for s in iso_pos]
    # the positions' null: isotropic 512-row tables through the same count, t over tables
    null_dims = over_seeds([x / d for x in iso_dims], bounds=SHARE)
    numbers = {"words": detail, "word_rows": n, "dim": d, "position_dims_90": pos_dims,
               "isotropic_position_dims_90": iso_dims, "position_dims_share": pos_dims / d,
               "isotropic_position_dims_share": min(iso_dims) / d, "seeds": seeds,
               "word_dims_90": dims_for_share(word_eig, 0.9)}
    position_estimates = exacts(numbers, "position_dims_share", "isotropic_position_dims_share")
    for option in variants:
        variants[option].update(position_estimates)
        variants[option]["null_position_dims_share"] = null_dims
    return Measured(numbers, dict(variants[CONCENTRATION_OPTIONS[0]]), variants,
                    shown={"word_diag": word_diag, "iso_words": iso_words, "pos_eig": pos_eig, "iso_pos": iso_pos})


# ---------------------------------------------------------------------------------------------------------------
# tutorial 000 §3.2-3.3: the sum of a word and a position
# ---------------------------------------------------------------------------------------------------------------
SHIFT_OPTIONS = ("E + P (the document's formula)", "after the embedding LayerNorm")
#: minilm_shifted_words' random (word, position) draws in each mode
SHIFT_DRAWS = Mode(quick=500, full=2000)
#: minilm_sum_readout's held-out sums in each mode (the maps are fitted on 4000 in both)
READOUT_TESTS = Mode(quick=500, full=2000)


@experiment("minilm_shifted_words")
@one_thread
def minilm_shifted_words(ctx: Context) -> Measured:
    """Tutorial 000 §3.2: adding the position does not destroy the word's meaning, it leaves the same word "in slightly
    different directions at different positions". MiniLM, random (word, position) draws (500 quick, 2000 full):
    is the word still the nearest word in direction (a Wilson share), and the mean angle between the same word at
    two positions over the mean angle between two words at one position (bootstrap over draws). Choice: the
    document's E + P, or what MiniLM's first layer reads (LayerNorm of E + P + the token-type row), compared with
    the words through the same LayerNorm without a position."""
    from posenc.probe.separation import angles_deg, draw_pairs, nearest_by_cosine

    words, positions, candidates = _tables()
    embeddings = _loaded().model.embeddings
    count = SHIFT_DRAWS.of(ctx)
    w, v, p, q = draw_pairs(count, candidates, positions.shape[0], seed=0)
    token_type = embeddings.token_type_embeddings.weight[0].detach().double().numpy()
    norm = embeddings.LayerNorm
    gamma, beta = norm.weight.detach().double().numpy(), norm.bias.detach().double().numpy()

    def layer_norm(x: np.ndarray) -> np.ndarray:
        """BERT's embedding LayerNorm of ``x`` plus the token-type row (float64)."""
        y = x + token_type
        y = (y - y.mean(axis=-1, keepdims=True)) / np.sqrt(y.var(axis=-1, keepdims=True) + norm.eps)
        return y * gamma + beta

    paths = {SHIFT_OPTIONS[0]: lambda x: x, SHIFT_OPTIONS[1]: layer_norm}
    variants, detail = {}, {}
    for option, path in paths.items():
        x = path(words[w] + positions[p])  # [n, d]
        same = angles_deg(x, path(words[w] + positions[q]))
        other = angles_deg(x, path(words[v] + positions[p]))
        kept = candidates[nearest_by_cosine(x, path(words[candidates]))] == w
        shift = angles_deg(x, path(words[w]))
        ratio = bootstrap(np.column_stack([same, other]), lambda a: float(a[:, 0].mean() / a[:, 1].mean()))
        variants[option] = {"word_kept": wilson(int(kept.sum()), count), "angle_ratio": ratio}
        detail[option] = {"word_kept": float(kept.mean()), "angle_ratio": ratio.value,
                          "same_word_angle_mean": float(same.mean()), "other_word_angle_mean": float(other.mean()),
                          "shift_angle_mean": float(shift.mean()), "same_word_angle_min": float(same.min())}
    return Measured({"by_option": detail, "draws": count}, dict(variants[SHIFT_OPTIONS[0]]), variants)


@experiment("minilm_sum_readout")
@one_thread
def minilm_sum_readout(ctx: Context) -> Measured:
    """Tutorial 000 §3.3: a later linear layer can separate E + P into its word and position (if the two are drawn
    independently, as here), and the sum does not make them overlap badly in a high dimension. MiniLM's tables,
    random (word, position) draws: a least-squares affine map from the sums to each part, fitted on 4000 draws and
    tested on others (500 quick, 2000 full), each part read as the nearest row of its table
    (:func:`posenc.probe.separation.fit_linear`); and a decoder that searches both tables by turns
    (:func:`posenc.probe.separation.alternating_decode`). Baseline that can fail: both parts drawn from one table of
    512 words (E + E'), where the sum cannot say which word is which."""
    from posenc.probe.separation import alternating_decode, apply_linear, fit_linear, nearest_by_distance

    words, positions, candidates = _tables()
    n_test = READOUT_TESTS.of(ctx)
    table = words[candidates]  # [C, d]: index into candidates
    few = table[:positions.shape[0]]  # 512 words: both parts of the baseline come from them
    cases = {"positions": (table, positions), "words (E + E')": (few, few)}
    detail, estimates = {}, {}
    for name, (first, second) in cases.items():
        rng = np.random.default_rng(0)
        w = rng.integers(0, len(first), size=4000 + n_test)
        p = rng.integers(0, second.shape[0], size=4000 + n_test)
        x = first[w] + second[p]
        train, test = slice(0, 4000), slice(4000, None)
        to_word, to_second = fit_linear(x[train], first[w[train]]), fit_linear(x[train], second[p[train]])
        word_ok = nearest_by_distance(apply_linear(x[test], to_word), first) == w[test]
        second_ok = nearest_by_distance(apply_linear(x[test], to_second), second) == p[test]
        w_hat, p_hat = alternating_decode(x[test], first, second)
        decoded = (w_hat == w[test]) & (p_hat == p[test])
        detail[name] = {"linear_word": float(word_ok.mean()), "linear_second": float(second_ok.mean()),
                        "linear_both": float((word_ok & second_ok).mean()), "decoded_both": float(decoded.mean())}
        if name == "positions":
            estimates["linear_both"] = wilson(int((word_ok & second_ok).sum()), n_test)
            estimates["decoded_both"] = wilson(int(decoded.sum()), n_test)
        else:
            estimates["collision_linear_both"] = exact(detail[name]["linear_both"])
            estimates["collision_decoded_both"] = exact(detail[name]["decoded_both"])
    return Measured({"by_second_part": detail, "train": 4000, "test": n_test, "candidates": len(candidates)},
                    estimates)


# ---------------------------------------------------------------------------------------------------------------
# tutorial 001 §5.2, §6: what later modules and positional heads carry, on text
# ---------------------------------------------------------------------------------------------------------------
@experiment("minilm_layer_probes")
@one_thread
def minilm_layer_probes(ctx: Context) -> Measured:
    """Tutorial 001 §6: the later modules, attention and FFN alike, still extract the word and its position from the
    sum. MiniLM on Shakespeare windows of 128 tokens (8 quick, 38 full): the output of every attention block and
    every FFN block (:func:`posenc.probe.layers.sublayer_outputs`), and linear probes fitted on held-out folds of
    windows that read each token's position (one of 128) and its token (the candidate whose embedding row is nearest
    to the probe's prediction of it, among every token of the windows). The statistic is the worst of the 12 module
    outputs, with a bootstrap interval over windows. This shows what the modules' outputs still carry, which is
    what a module downstream can extract."""
    import torch

    from posenc.probe.layers import (
        held_out_predictions,
        position_targets,
        read_positions,
        read_tokens,
        sublayer_outputs,
        window_folds,
    )

    loaded = _loaded()
    words, _, _ = _tables()
    windows = np.asarray(_windows(ctx))  # [W, T]
    outputs = sublayer_outputs(loaded.model, torch.from_numpy(windows))
    folds = window_folds(len(windows))
    candidates = np.unique(windows)
    points = list(outputs)
    targets = np.concatenate([position_targets(*windows.shape), words[windows]], axis=-1)  # [W, T, T + d]
    position_correct, token_correct, exact_position = {}, {}, {}
    for name, h in outputs.items():
        predicted = held_out_predictions(h.double().numpy(), targets, folds)  # both probes in one fit
        position_correct[name] = read_positions(predicted[..., :WINDOW_LENGTH], POSITION_TOLERANCE)
        exact_position[name] = float(read_positions(predicted[..., :WINDOW_LENGTH]).mean())
        token_correct[name] = read_tokens(predicted[..., WINDOW_LENGTH:], windows, words, candidates)
    later = [n for n in points if n != "embeddings"]
    totals = np.full(len(windows), float(WINDOW_LENGTH))
    counts = {kind: np.stack([c[n].sum(axis=1) for n in later], axis=1).astype(np.float64)  # [W, 12]
              for kind, c in (("position", position_correct), ("token", token_correct))}

    def worst(kind: str) -> Any:
        def statistic(w: np.ndarray) -> np.ndarray:  # [r, W] -> [r]
            return ((w @ counts[kind]) / (w @ totals)[:, None]).min(axis=1)
        return bootstrap_weights((len(windows),), statistic)[0]

    estimates = {"min_position_accuracy": worst("position"), "min_token_accuracy": worst("token"),
                 "probe_on_sum": exact(min(float(position_correct["embeddings"].mean()),
                                           float(token_correct["embeddings"].mean())))}
    ids, freq = np.unique(windows, return_counts=True)
    numbers = {"windows": len(windows), "length": WINDOW_LENGTH, "candidates": len(candidates),
               "position_accuracy": {n: float(position_correct[n].mean()) for n in points},
               "token_accuracy": {n: float(token_correct[n].mean()) for n in points},
               "majority_token_share": float(freq.max() / windows.size),
               "position_chance": (2 * POSITION_TOLERANCE + 1) / WINDOW_LENGTH,
               "position_tolerance": POSITION_TOLERANCE, "exact_position_accuracy": exact_position}
    return Measured(numbers, estimates, shown={"points": points, "later": later, "folds": len(folds),
                                               "majority_token": loaded.tokenizer.convert_ids_to_tokens(
                                                   int(ids[freq.argmax()]))})


def _minilm_outputs(loaded: Any, windows: list[list[int]], positional: list[tuple[int, int, int]]
                    ) -> tuple[dict[str, Estimate], dict[str, Any]]:
    """:func:`posenc.probe.head_output.output_estimates` for MiniLM's positional heads on ``windows``."""
    from posenc.corpora import special_tokens
    from posenc.probe.head_output import head_outputs, output_estimates

    prefix, suffix = special_tokens(loaded.tokenizer)
    if not positional:
        return output_estimates({}, {}, np.asarray(windows), [], len(prefix), len(suffix), np.zeros((0, 0)))
    outputs, inputs = head_outputs(loaded.model, windows, [layer for layer, _, _ in positional])
    table = loaded.model.get_input_embeddings().weight.detach().numpy()
    return output_estimates(outputs, inputs, np.asarray(windows), positional, len(prefix), len(suffix), table)


@one_thread
def minilm_head_content(ctx: Context) -> Measured:
    """Tutorial 001 §5.2: a head that mainly attends by position still carries some semantic or syntactic information.
    MiniLM's positional heads at 128 tokens (Voita et al.'s rule with its interval,
    :func:`posenc.probe.heads.positional_heads`, as the positional-heads claims find them), and how much of their
    attention moves when each window's words are swapped for another window's at the same positions
    (:func:`posenc.probe.content.content_change`, total-variation distance averaged over queries); a head that
    attends by position alone moves none. Mean over the positional heads, bootstrap over windows (8 quick, 38
    full): :func:`posenc.probe.content.content_estimates`. The claim's experiment is :func:`posenc.report.experiments.decoder.
    model_head_content`, which adds SmolLM2 beside it."""
    import torch

    from posenc.corpora import special_tokens
    from posenc.probe.capture import capture
    from posenc.probe.content import content_change, content_estimates, swap_words
    from posenc.probe.heads import HeadAccumulator, positional_heads

    loaded = _loaded()
    model, config = loaded.model, loaded.model.config
    windows = _windows(ctx)
    heads = HeadAccumulator(config.num_hidden_layers, config.num_attention_heads, max_len=WINDOW_LENGTH)
    with torch.no_grad(), capture(model, lambda layer, weights: heads.add(layer, weights)):
        for ids in windows:
            batch = torch.tensor([ids])
            model(input_ids=batch, attention_mask=torch.ones_like(batch))
    judgement = positional_heads(heads.per_window(), query_offsets=heads.query_offsets())
    prefix, suffix = special_tokens(loaded.tokenizer)
    change = content_change(model, windows, swap_words(windows, len(prefix), len(suffix)))  # [W, L, H]
    estimates, numbers = content_estimates(change, judgement.positional)
    read, numbers["output"] = _minilm_outputs(loaded, windows, judgement.positional)
    estimates.update(read)
    return Measured(numbers, estimates, shown={"positional": judgement.positional, "windows": len(windows)})


#: positional-head-content's output reading: its bar and the bar's reason, fixed before the run
OUTPUT_BAR = 0.2


