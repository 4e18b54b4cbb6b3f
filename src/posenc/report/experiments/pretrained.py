"""Experiments on the pretrained all-MiniLM-L6-v2 (BERT architecture, 512 learned positions, d=384), through
:mod:`posenc.probe`: word/position geometry against chance (seed 001 §4.1), magnitudes (seeds 000 §3.3, 003
§14.8.2), the four-term split of the first layer's logits (seed 001 §5.2, TUPE) and positional heads (seed 001
§5.2, Voita et al. 2019, Clark et al. 2019).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import torch
from matplotlib.figure import Figure

from posenc.errors import PosencError
from posenc.report.experiments.base import Context, Measurement, Row, experiment

MODEL = "minilm"


@functools.lru_cache(maxsize=1)
def minilm() -> Any:
    """The probe's loaded MiniLM, once per process (several claims read it)."""
    from posenc.probe.load import load_model

    return load_model(MODEL)


@functools.lru_cache(maxsize=1)
def _tables() -> tuple[torch.Tensor, torch.Tensor]:
    from posenc.probe.geometry import embedding_tables

    return embedding_tables(minilm().model)


@experiment("minilm_geometry")
def minilm_geometry(ctx: Context) -> Measurement:
    """Seed 001 §4.1 on all-MiniLM-L6-v2: cosines of word rows 100..1099 with all 512 position rows, beside the
    chance level of random vectors, the centred statistics and the principal angles of the top PCA subspaces."""
    from posenc.probe.geometry import cosine_matrix, geometry

    words, positions = _tables()
    geo = geometry(words, positions)
    raw, gauss, cen = geo["raw"], geo["baseline"]["gaussian"], geo["centred"]
    d = geo["dim"]
    subspaces = {s["k"]: s for s in geo["subspace"]["k"]}
    numbers = {"dim": d, "mean_angle_deg": raw["angle_mean"], "mean_cos": raw["cos_mean"], "std_cos": raw["cos_std"],
               "chance_std": 1.0 / math.sqrt(d), "gaussian": gauss, "centred": cen,
               "shuffled_positions": geo["baseline"]["shuffled_positions"],
               "other_words": geo["baseline"]["other_words"],
               "subspace_overlap": {str(k): {"overlap": s["overlap"], "random": s["random_overlap_mean"]}
                                    for k, s in subspaces.items()},
               "norms": geo["norms"]}
    rows = [Row("mean angle, word vs position (deg)", raw["angle_mean"], 90.57, "seed 001, BERT-base (d=768)"),
            Row("mean angle (deg), Gaussian vectors of the same size", gauss["angle_mean"], 90.0, "chance"),
            Row("mean cosine", raw["cos_mean"], 0.0, f"chance, std {1 / math.sqrt(d):.4f} = 1/sqrt({d})"),
            Row("std of cosines", raw["cos_std"], gauss["cos_std"], "Gaussian vectors"),
            Row("mean cosine after centring both sets", cen["cos_mean"], 0.0, "chance"),
            Row("mean cosine, word vs other words", geo["baseline"]["other_words"]["cos_mean"], raw["cos_mean"],
                "word vs position")]
    for k in (5, 20):
        if k in subspaces:
            rows.append(Row(f"overlap of top-{k} PCA subspaces (mean cos^2 of principal angles)",
                            subspaces[k]["overlap"], subspaces[k]["random_overlap_mean"], "random subspaces"))
    lo, hi = geo["word_rows"]
    cos = cosine_matrix(words[lo:hi + 1].double().numpy(), positions.double().numpy())
    rng = np.random.default_rng(0)
    chance = cosine_matrix(rng.standard_normal(cos.shape[0:1] + (d,)), rng.standard_normal((cos.shape[1], d)))
    fig = Figure(figsize=(8, 3.2), layout="constrained")
    a, b = fig.subplots(1, 2)
    angles = np.degrees(np.arccos(np.clip(cos, -1, 1))).ravel()
    a.hist(np.degrees(np.arccos(np.clip(chance, -1, 1))).ravel(), bins=80, alpha=0.6, density=True,
           label="random vectors (chance)", color="0.5")
    a.hist(angles, bins=80, alpha=0.7, density=True, label="MiniLM word vs position", color="C0")
    a.set(xlabel="angle (degrees)", ylabel="density", title="word-position angles vs chance")
    a.legend(fontsize=7)
    image = b.imshow(cos[:200, :200], cmap="RdBu_r", vmin=-0.4, vmax=0.4, aspect="auto")
    b.set(xlabel="position", ylabel="word (rows 100..299)", title="cosine, first 200 x 200")
    fig.colorbar(image, ax=b, shrink=0.8)
    return Measurement(numbers, rows, fig, f"all-MiniLM-L6-v2 (d={d}): word rows {lo}..{hi} x "
                                           f"{geo['n_positions']} position rows; chance: Gaussian vectors")


@experiment("magnitude")
def magnitude(ctx: Context) -> Measurement:
    """Seeds 000 §3.3 and 003 §14.8.2: is the position vector small next to the word vector?

    Trained: mean norms of MiniLM's word rows and position rows. Fixed: the sinusoid's RMS per channel (1/sqrt(2))
    against a GPT-2-style initial embedding (std 0.02, Radford et al. 2019) multiplied by sqrt(d) (Vaswani et al.
    2017 §3.4), at d=512.
    """
    import posenc

    words, positions = _tables()
    word_norm = float(words.double().norm(dim=1).mean())
    position_norm = float(positions.double().norm(dim=1).mean())
    d = 512
    sin = posenc.build("sinusoidal", dim=d).table(1024, d).double()
    sin_rms = float(sin.pow(2).mean().sqrt())
    init_rms = 0.02 * math.sqrt(d)
    numbers = {"minilm_word_norm": word_norm, "minilm_position_norm": position_norm,
               "minilm_position_to_word_norm": position_norm / word_norm, "sinusoid_rms": sin_rms,
               "scaled_init_rms": init_rms, "sinusoid_to_scaled_init_rms": sin_rms / init_rms, "dim": d}
    rows = [Row("MiniLM: mean norm of position rows", position_norm, word_norm, "mean norm of word rows"),
            Row("MiniLM: position / word norm", numbers["minilm_position_to_word_norm"], 1.0, "equal size"),
            Row("sinusoid RMS per channel (d=512)", sin_rms, init_rms, "N(0, 0.02) embedding x sqrt(512)"),
            Row("sinusoid / scaled initial embedding", numbers["sinusoid_to_scaled_init_rms"], 1.0, "equal size")]
    fig = Figure(figsize=(7, 3), layout="constrained")
    a, b = fig.subplots(1, 2)
    a.hist(words.double().norm(dim=1).numpy(), bins=60, alpha=0.7, density=True, label="word rows")
    a.hist(positions.double().norm(dim=1).numpy(), bins=60, alpha=0.7, density=True, label="position rows")
    a.set(xlabel="L2 norm", ylabel="density", title="all-MiniLM-L6-v2")
    a.legend(fontsize=7)
    b.bar(["sinusoid", "embedding\n(std 0.02 x sqrt d)"], [sin_rms, init_rms], color=["C1", "C0"])
    b.set(ylabel="RMS per channel", title="fixed sinusoid vs initial embedding, d=512")
    return Measurement(numbers, rows, fig, "all-MiniLM-L6-v2 word and position tables; sinusoid at d=512 against a "
                                           "GPT-2-style initial embedding scaled by sqrt(d)")


def _probe_sequences(quick: bool) -> list[torch.Tensor]:
    """Token-id sequences ``[T]`` of Shakespeare for MiniLM (quick: 2 x 128 tokens; full: 8 x 256)."""
    from posenc.probe.corpus import shakespeare_text

    count, length = (2, 128) if quick else (8, 256)
    tokenizer = minilm().tokenizer
    ids = tokenizer(shakespeare_text(max_chars=count * length * 8), add_special_tokens=False, verbose=False)["input_ids"]
    if len(ids) < count * (length - 2):
        raise PosencError(f"the Shakespeare text gave {len(ids)} tokens, {count * (length - 2)} are needed")
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    step = length - 2
    return [torch.tensor([cls] + ids[i * step:(i + 1) * step] + [sep]) for i in range(count)]


@experiment("minilm_four_terms")
def minilm_four_terms(ctx: Context) -> Measurement:
    """Seed 001 §5.2 and TUPE (Ke et al. 2021): the first layer's logits of MiniLM split into word-word,
    word-position, position-word and position-position terms (plus a remainder for biases and token types), on
    Shakespeare text.

    Spread of a term: RMS over (query, key) after removing each query's mean over keys (softmax ignores a constant
    per query), averaged over heads and sequences. Variance share: the probe's ``variance_shares`` (within rows).
    """
    from posenc.probe.decompose import four_term_split

    model = minilm().model
    spreads: dict[str, list[float]] = {t: [] for t in ("ww", "wp", "pw", "pp", "rest")}
    shares: dict[str, list[float]] = {t: [] for t in ("ww", "wp", "pw", "pp", "rest")}
    errors = []
    per_head: dict[str, np.ndarray] = {}
    first = None
    for ids in _probe_sequences(ctx.quick):
        split = four_term_split(model, ids)
        errors.append(split.relative_error)
        for name, term in split.terms.items():
            centred = term - term.mean(-1, keepdim=True)  # [H, T, T]
            rms = centred.pow(2).mean(dim=(-1, -2)).sqrt()  # [H]
            spreads[name].append(float(rms.mean()))
            per_head.setdefault(name, np.zeros(rms.shape[0]))
            per_head[name] = per_head[name] + rms.numpy()
        for head in split.variance_shares(within_rows=True):
            for name in shares:
                shares[name].append(head[name])
        first = first or split
    mean = {k: float(np.mean(v)) for k, v in spreads.items()}
    share = {k: float(np.mean(v)) for k, v in shares.items()}
    numbers = {"ww_std": mean["ww"], "wp_std": mean["wp"], "pw_std": mean["pw"], "pp_std": mean["pp"],
               "rest_std": mean["rest"], "reconstruction_error": float(max(errors)),
               "ww_variance_share": share["ww"], "pp_variance_share": share["pp"],
               "wp_variance_share": share["wp"], "pw_variance_share": share["pw"],
               "cross_variance_share": share["wp"] + share["pw"], "rest_variance_share": share["rest"],
               "sequences": len(errors), "tokens_per_sequence": int(first.reference.shape[-1])}
    rows = [Row("spread of word-word term", mean["ww"], None, ""),
            Row("spread of position-position term", mean["pp"], None, ""),
            Row("spread of word-position term", mean["wp"], (mean["ww"] + mean["pp"]) / 2, "mean of the main terms"),
            Row("spread of position-word term", mean["pw"], (mean["ww"] + mean["pp"]) / 2, "mean of the main terms"),
            Row("share of logit variance: word-position + position-word", numbers["cross_variance_share"],
                share["ww"] + share["pp"], "word-word + position-position"),
            Row("relative error of the split (terms vs the model's logits)", numbers["reconstruction_error"], 0.0,
                "exact")]
    fig = Figure(figsize=(9, 3.4), layout="constrained")
    axes = fig.subplots(1, 5, gridspec_kw={"width_ratios": [1.6, 1, 1, 1, 1]})
    heads = np.arange(len(per_head["ww"]))
    for name in ("ww", "pp", "wp", "pw"):
        axes[0].plot(heads, per_head[name] / len(errors), marker="o", ms=3, label=name)
    axes[0].set(xlabel="head (layer 0)", ylabel="spread", title="term spread per head")
    axes[0].legend(fontsize=7)
    limit = float(max(first.terms[n][0].abs().max() for n in ("ww", "wp", "pw", "pp")))
    for ax, name in zip(axes[1:], ("ww", "wp", "pw", "pp"), strict=True):
        ax.imshow(first.terms[name][0, :48, :48].numpy(), cmap="RdBu_r", vmin=-limit, vmax=limit)
        ax.set(title=f"{name}, head 0", xticks=[], yticks=[])
    return Measurement(numbers, rows, fig, f"all-MiniLM-L6-v2 layer 0, {len(errors)} Shakespeare sequences of "
                                           f"{numbers['tokens_per_sequence']} tokens, 12 heads; split by "
                                           f"posenc.probe.decompose.four_term_split")


@experiment("minilm_heads")
def minilm_heads(ctx: Context) -> Measurement:
    """Seed 001 §5.2, Voita et al. 2019, Clark et al. 2019: positional heads of MiniLM on Shakespeare text.

    Attention of every layer is captured with :func:`posenc.probe.capture.capture` and folded into the probe's
    :class:`~posenc.probe.heads.HeadAccumulator` (Voita's 90% rule over offsets -8..8, Clark's previous / next share).
    """
    from posenc.probe.capture import capture
    from posenc.probe.heads import HeadAccumulator

    model = minilm().model
    sequences = _probe_sequences(ctx.quick)
    n_layers, n_heads = model.config.num_hidden_layers, model.config.num_attention_heads
    heads = HeadAccumulator(n_layers, n_heads, max_len=max(len(x) for x in sequences))
    with torch.no_grad(), capture(model, heads.add):
        for ids in sequences:
            model(input_ids=ids[None], attention_mask=torch.ones(1, len(ids), dtype=torch.long))
    summary = heads.summary()
    positional = summary["positional_heads"]  # [layer, head, offset, fraction]
    offsets = [int(o) for _, _, o, _ in positional]
    total = n_layers * n_heads
    fractions = np.array(summary["voita_fraction"])  # [L, H]
    voita_offsets = np.array(summary["voita_offset"])  # [L, H]
    best_layer, best_head = (int(i) for i in np.unravel_index(fractions.argmax(), fractions.shape))
    numbers = {"positional_heads": len(positional), "total_heads": total, "positional_offsets": offsets,
               "best_head": {"layer": best_layer, "head": best_head,
                             "offset": int(voita_offsets[best_layer, best_head]),
                             "fraction": float(fractions[best_layer, best_head])},
               "positional": [{"layer": l, "head": h, "offset": o, "fraction": f} for l, h, o, f in positional],
               "voita_threshold": summary["voita_threshold"],
               "prev_heads_50": len(summary["previous_heads_over_half"]),
               "next_heads_50": len(summary["next_heads_over_half"]),
               "sequences": len(sequences), "tokens_per_sequence": int(len(sequences[0]))}
    rows = [Row(f"positional heads (Voita: max on one offset >= {summary['voita_threshold']:.0%})",
                len(positional), None, f"of {total} heads"),
            Row("their offsets", ", ".join(f"{o:+d}" for o in offsets) or "none", "-1 / +1", "Voita et al. 2019"),
            Row(f"most positional head (layer {best_layer}, head {best_head}, offset "
                f"{numbers['best_head']['offset']:+d}): share of queries", numbers["best_head"]["fraction"],
                summary["voita_threshold"], "Voita's threshold"),
            Row("heads with > 50% attention on the previous token", numbers["prev_heads_50"], "4 of 144",
                "Clark et al. 2019, BERT-base"),
            Row("heads with > 50% attention on the next token", numbers["next_heads_50"], "5 of 144",
                "Clark et al. 2019, BERT-base")]
    fig = Figure(figsize=(8.5, 3.4), layout="constrained")
    a, b = fig.subplots(1, 2)
    image = a.imshow(fractions, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    for layer in range(n_layers):
        for head in range(n_heads):
            a.text(head, layer, f"{voita_offsets[layer, head]:+d}", ha="center", va="center", fontsize=6,
                   color="w" if fractions[layer, head] < 0.6 else "k")
    a.set(xlabel="head", ylabel="layer", title="Voita: share of max at one offset")
    fig.colorbar(image, ax=a, shrink=0.8)
    prev, nxt = np.array(summary["previous"]).ravel(), np.array(summary["next"]).ravel()
    b.scatter(prev, nxt, s=12)
    b.axvline(0.5, color="k", lw=0.6, ls="--")
    b.axhline(0.5, color="k", lw=0.6, ls="--")
    b.set(xlabel="mean attention on previous token", ylabel="on next token", title="every head (Clark et al.)",
          xlim=(0, 1), ylim=(0, 1))
    return Measurement(numbers, rows, fig, f"all-MiniLM-L6-v2, {len(sequences)} Shakespeare sequences of "
                                           f"{numbers['tokens_per_sequence']} tokens, {n_layers} layers x {n_heads} "
                                           f"heads; statistics from posenc.probe.heads")
