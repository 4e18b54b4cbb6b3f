"""Tutorial claims on tables, formulas and configurations that the report did not test before, or tested as something
else (no training; every number here is computed, not sampled, so every estimate is exact):

- tutorial 000 §2.1: integer positions "cannot express relative position" (what that means for attention);
- tutorial 003 §14.3.2: concatenating "doubles every later layer's parameters";
- tutorial 002: the sinusoid's periodicity makes positions less distinct as sequences grow;
- tutorial 001 §3.2-3.3: the continuous code is more compact than binary; one linear rule serves every offset;
- tutorial 002: the worked example (position 2, d = 4) and the two figures (dimensions 2, 6, 12; positions 1 and 5);
- tutorial 003 §14.6 (and tutorial 001 §4.1): which encoding GPT-2, the GPT series, LLaMA, GPT-NeoX and BERT use.

Their pages: :mod:`posenc.report.present.tutorial_tables`.

Shapes: a table ``PE`` is ``[T, d]`` (positions x channels); ``w_i = 10000^(-2i/d)`` is pair ``i``'s frequency.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

import posenc
from posenc.errors import PosencError
from posenc.properties.distinctness import (
    binary_dims_needed,
    nearest_by_length,
    sinusoid_dims_needed,
    sinusoid_offset_distances,
)
from posenc.properties.relative import relative_map_residual
from posenc.properties.relative_readout import best_affine_share, shift_match_share
from posenc.properties.wavelength import fit_period
from posenc.report.experiments.base import Context, Measured, exacts, experiment, one_thread
from posenc.stats import SHARE, exact, over_seeds

BASE = 10000.0  #: the sinusoid's base (Vaswani et al. 2017 §3.5)


def _table(name: str, length: int, dim: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """``PE[0..length-1]`` of encoding ``name``, ``[length, dim]``."""
    return posenc.build(name, dim=dim).table(length, dim, dtype=dtype)


# ---------------------------------------------------------------------------------------------------------------
# tutorial 000 §2.1: integer positions and relative position
# ---------------------------------------------------------------------------------------------------------------
@experiment("naive_integer_relative")
@one_thread
def naive_integer_relative(ctx: Context) -> Measured:
    """Tutorial 000 §2.1, all three problems: the integer code grows and leaves the training range (tables.py's
    measurement), and it cannot express relative position in attention.

    Moving ``k`` places is an exact translation, ``PE[p + k] = PE[p] + k``, so a relative *map* exists. What the
    document means is that the model cannot use it: attention compares positions by dot products, and for the
    integer code every position-only logit (with biases) is, for a given query, affine in the key's number, so
    its highest key is the first or the last, never "the key k places back"
    (:func:`~posenc.properties.relative_readout.best_affine_share`: the bound over every such logit). The sinusoid,
    scored with ``PE[i] . PE[j] M_k`` (its fitted k-step map), finds that key for every query
    (:func:`~posenc.properties.relative_readout.shift_match_share`): the read-out can succeed.
    """
    from posenc.report.experiments.tables import naive_integer

    base = naive_integer(ctx)
    length, dim, offsets = 64, 16, (1, 2, 4, 8)
    integer = _table("integer", length, dim)  # [T, d]
    sin = _table("sinusoidal", length, dim)
    translation = max(float((integer[k:] - integer[:-k] - k).abs().max()) for k in offsets)
    integer_bound, integer_match, sin_match = {}, {}, {}
    for k in offsets:
        integer_bound[k] = best_affine_share(integer, k)
        integer_match[k] = shift_match_share(integer, integer[:-k] + k, k)
        _, m = relative_map_residual(sin, k, paired=True)  # PE[p + k] ~ PE[p] M_k
        sin_match[k] = shift_match_share(sin, sin[:-k] @ m, k)
    numbers = dict(base.numbers)
    numbers.update({"translation_error": translation, "integer_best_share": max(integer_bound.values()),
                    "integer_shift_share": max(integer_match.values()), "sinusoid_shift_share": min(sin_match.values()),
                    "by_offset": {str(k): {"integer_bound": integer_bound[k], "integer_shift": integer_match[k],
                                           "sinusoid_shift": sin_match[k]} for k in offsets},
                    "relative_length": length, "relative_dim": dim})
    k = offsets[0]
    _, m = relative_map_residual(sin, k, paired=True)
    estimates = {key: e for key, e in base.estimates.items() if key != "residual_over_sinusoid"}
    estimates.update(exacts(numbers, "integer_best_share", "sinusoid_shift_share"))
    return Measured(numbers, estimates,
                    shown={"base": base, "offsets": offsets, "codes": integer[:, 0].numpy(),
                           "integer_scores": (integer[k:] @ (integer[:-k] + k).T).numpy(),
                           "sinusoid_scores": (sin[k:] @ (sin[:-k] @ m).T).numpy()})


# ---------------------------------------------------------------------------------------------------------------
# tutorial 003 §14.3.2: concatenation and the later layers' parameters
# ---------------------------------------------------------------------------------------------------------------
DOCUMENT_WIDTH = 512  #: tutorial 003 §14.3.2: "原本 d_model = 512"
FF_OPTIONS = {"4 x width": None, "fixed 2048": 2048}


@experiment("concat_parameters")
@one_thread
def concat_parameters(ctx: Context) -> Measured:
    """Tutorial 003 §14.3.2: concatenating a 512-wide position vector makes the model 1024 wide. Parameters of every
    later layer, after adding and after concatenating, in posenc's Transformer at the original's sizes (6 layers,
    8 heads). Choice: the feed-forward width follows the model width (4 x width, as 2048 = 4 x 512 does) or stays
    2048."""
    from posenc.model.parameters import parameter_counts

    counts = {option: {"add": parameter_counts(DOCUMENT_WIDTH, False, d_ff),
                       "concat": parameter_counts(DOCUMENT_WIDTH, True, d_ff)} for option, d_ff in FF_OPTIONS.items()}
    parts = ("attention", "ffn", "layernorm", "blocks", "head")
    ratios = {o: {p: c["concat"][p] / c["add"][p] for p in parts} for o, c in counts.items()}
    variants = {o: {"later_layer_ratio": exact(r["blocks"])} for o, r in ratios.items()}
    head = "4 x width"
    numbers = {"counts": counts, "ratios": ratios, "later_layer_ratio": ratios[head]["blocks"],
               "with_head_ratio": {o: (c["concat"]["blocks"] + c["concat"]["head"]) / (c["add"]["blocks"]
                                                                                    + c["add"]["head"])
                                   for o, c in counts.items()}}
    return Measured(numbers, dict(variants[head]), variants=variants)


# ---------------------------------------------------------------------------------------------------------------
# tutorial 002: periodicity and distinctness on long sequences
# ---------------------------------------------------------------------------------------------------------------
LONGEST = 100_000  #: the longest sequence measured, in both modes (the verdict must not depend on the mode)
LENGTHS = (16, 64, 256, 1024, 4096, 16384, LONGEST)
DISTINCT_WIDTHS = ("d=512", "d=64", "d=16", "d=8", "d=4")


@experiment("sinusoid_distinctness")
@one_thread
def sinusoid_distinctness(ctx: Context) -> Measured:
    """Tutorial 002: as sequences grow, does the sinusoid's periodicity bring two positions closer than neighbours are
    in a short sequence? The nearest distance among the first ``n`` positions, exactly, for ``n`` up to 100,000
    (:func:`~posenc.properties.distinctness.sinusoid_offset_distances`), per width; checked against posenc's own
    table for ``n <= 1024``."""
    curves, variants, where = {}, {}, {}
    for option in DISTINCT_WIDTHS:
        dim = int(option[2:])
        g = sinusoid_offset_distances(dim, LONGEST - 1)
        curves[option] = nearest_by_length(g, LENGTHS)
        where[option] = int(g.argmin()) + 1
        variants[option] = {"nearest_ratio": exact(curves[option][LONGEST] / curves[option][16])}
    table = _table("sinusoidal", 1024, 512)  # [n, d]
    pairwise = torch.cdist(table, table) + torch.eye(1024, dtype=table.dtype) * 1e9
    check = abs(float(pairwise.min()) - curves["d=512"][1024])
    numbers = {"nearest": {o: {str(n): v for n, v in c.items()} for o, c in curves.items()},
               "closest_offset": where, "table_check": check,
               "ratios": {o: v["nearest_ratio"].value for o, v in variants.items()}}
    for option in variants:
        variants[option]["table_check"] = exact(check)
    return Measured(numbers, dict(variants["d=512"]), variants=variants)


# ---------------------------------------------------------------------------------------------------------------
# tutorial 001 §3.2-3.3: compactness and one rule for every offset
# ---------------------------------------------------------------------------------------------------------------
COMPACT_POSITIONS = 1024
RESOLUTIONS = {"distinct in float32": 0.0, "0.1 apart": 0.1, "0.5 apart": 0.5, "1 apart (one bit flip)": 1.0}


@experiment("continuous_compact")
@one_thread
def continuous_compact(ctx: Context) -> Measured:
    """Tutorial 001 §3.2: "more space-efficient than binary" as dimensions needed: the fewest channels that keep 1024
    positions apart, for the sinusoid and for the binary code, at a resolution (distinct float32 rows, the
    document's premise; or a minimum distance). Both codes have the same mean square per channel (1/2), so a
    distance means the same for both; binary neighbours are 1 apart (one bit flip)."""
    n = COMPACT_POSITIONS
    binary_dims, binary_nearest = binary_dims_needed(n)
    sin_dims = {label: sinusoid_dims_needed(n, delta) for label, delta in RESOLUTIONS.items()}
    sin_table = _table("sinusoidal", n, 16)
    bin_table = _table("binary", n, binary_dims)
    numbers = {"positions": n, "binary_dims": binary_dims, "binary_nearest": binary_nearest, "sinusoid_dims": sin_dims,
               "mean_square_sinusoid": float(sin_table.pow(2).mean()),
               "mean_square_binary": float(bin_table.pow(2).mean()),
               "dims_ratio_float32": sin_dims["distinct in float32"] / binary_dims,
               "dims_ratio_one_bit": sin_dims["1 apart (one bit flip)"] / binary_dims}
    return Measured(numbers, exacts(numbers, "dims_ratio_float32", "dims_ratio_one_bit"))


RULE_OFFSETS = (1, 2, 4, 8, 16, 32, 64)
#: random tables of the null (one-linear-rule): a t-interval over tables
NULL_TABLES = 5


@experiment("sinusoid_offset_rule")
@one_thread
def sinusoid_offset_rule(ctx: Context) -> Measured:
    """Tutorial 001 §3.3, what ``sin-relative-linear`` does not test: *one* rule serves every offset (the fitted k-step
    map is the 1-step map applied k times, ``M_k = M_1^k``), and it lets a model *recognise* "k apart": with the
    bilinear score ``PE[i] . PE[j] M_k`` every query's best key is the one k places back. Baselines: an N(0, 1)
    table (an untrained learned table) and the binary code, with their own best linear maps."""
    dim, length = 64, 256
    sin = _table("sinusoidal", length, dim)  # [T, d]
    gen = torch.Generator().manual_seed(0)
    random_table = torch.randn(length, dim, generator=gen, dtype=torch.float64)
    binary = _table("binary", length, dim)
    # the null: NULL_TABLES random tables of the same shape (seeds 0..), each with its own best maps, through the
    # same worst-offset share the sinusoid's test reads (the first is the random table shown beside)
    null_worst = []
    for seed in range(NULL_TABLES):
        table = torch.randn(length, dim, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
        null_worst.append(min(shift_match_share(table, table[:-k] @ relative_map_residual(table, k)[1], k)
                              for k in RULE_OFFSETS))
    _, m1 = relative_map_residual(sin, 1, paired=True)
    composition, shares = [], {"sinusoid": [], "random table": [], "binary": []}
    for k in RULE_OFFSETS:
        _, mk = relative_map_residual(sin, k, paired=True)
        composition.append(float((mk - torch.linalg.matrix_power(m1, k)).abs().max()))
        shares["sinusoid"].append(shift_match_share(sin, sin[:-k] @ mk, k))
        for name, table in (("random table", random_table), ("binary", binary)):
            _, m = relative_map_residual(table, k)  # the best full linear map, PE[p + k] ~ PE[p] M
            shares[name].append(shift_match_share(table, table[:-k] @ m, k))
    numbers = {"offsets": list(RULE_OFFSETS), "composition_error": composition, "shares": shares,
               "max_composition_error": max(composition), "min_recognition_share": min(shares["sinusoid"]),
               "max_random_share": max(shares["random table"]), "max_binary_share": max(shares["binary"]),
               "dim": dim, "length": length, "null_worst_shares": null_worst}
    null = over_seeds(null_worst, bounds=SHARE)
    return Measured(numbers, {**exacts(numbers, "max_composition_error", "min_recognition_share", "max_random_share"),
                              "null_recognition_share": null})


# ---------------------------------------------------------------------------------------------------------------
# tutorial 002: the worked example and the two figures
# ---------------------------------------------------------------------------------------------------------------
@experiment("worked_example")
@one_thread
def worked_example(ctx: Context) -> Measured:
    """Tutorial 002's worked example: the encoding of position 2 at d = 4 is (sin 2, cos 2, sin 0.02, cos 0.02)
    (2 / 10000^(2/4) = 0.02). posenc's float32 table against the printed vector, evaluated in float64."""
    printed = np.array([math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)])
    table = posenc.build("sinusoidal", dim=4).table(4, 4).double().numpy()  # float32 table, [4, 4]
    numbers = {"printed": printed.tolist(), "posenc_row_2": table[2].tolist(),
               "max_difference": float(np.abs(table[2] - printed).max()),
               "neighbour_difference": float(min(np.abs(table[p] - printed).max() for p in (1, 3))),
               "second_frequency_argument": 2 / BASE ** (2 * 1 / 4)}
    return Measured(numbers, exacts(numbers, "max_difference", "neighbour_difference"))


FIGURE_WIDTHS = ("d=64", "d=128", "d=512")
FIGURE_DIMS = (2, 6, 12)
FIGURE_POSITIONS = (1, 5)
WINDOW = 128  #: tutorial 002: "128 个位置向量"


def _period_estimates(dim: int) -> tuple[np.ndarray, list[float], list[float], dict]:
    table = _table("sinusoidal", WINDOW, dim).numpy()  # [128, d]
    measured = [fit_period(table[:, j]) for j in FIGURE_DIMS]
    formula = [2 * math.pi * BASE ** (2 * (j // 2) / dim) for j in FIGURE_DIMS]
    stats = {"min_periods_in_window": min(WINDOW / p for p in measured),
             "min_period_ratio": min(b / a for a, b in zip(measured, measured[1:], strict=False)),
             "max_period_error": max(abs(m - f) / f for m, f in zip(measured, formula, strict=True))}
    return table, measured, formula, stats


@experiment("dims_figure")
@one_thread
def dims_figure(ctx: Context) -> Measured:
    """Tutorial 002's figure 2: dimensions 2, 6 and 12 over 128 positions "change periodically", and "the higher the
    dimension, the longer the period". Periods read off the curves (:func:`~posenc.properties.wavelength.fit_period`),
    checked against the formula ``2 pi 10000^(2i/d)`` (i = j // 2). Choice: the width (tutorial 002 prints none)."""
    variants, detail, figure_data = {}, {}, None
    for option in FIGURE_WIDTHS:
        table, measured, formula, stats = _period_estimates(int(option[2:]))
        variants[option] = {k: exact(v) for k, v in stats.items()}
        detail[option] = {"measured": measured, "formula": formula, **stats}
        if option == FIGURE_WIDTHS[0]:
            figure_data = (table, FIGURE_DIMS, measured, formula)
    return Measured({"by_width": detail}, dict(variants[FIGURE_WIDTHS[0]]), variants=variants,
                    shown={"figure_data": figure_data})


@experiment("positions_figure")
@one_thread
def positions_figure(ctx: Context) -> Measured:
    """Tutorial 002's figure 3: positions 1 and 5 have different vectors, and "the higher the dimension, the smaller the
    fluctuation, the closer the vectors": per channel pair i, the distance between the two positions
    ``||PE[5, 2i:2i+2] - PE[1, 2i:2i+2]||`` (``= 2 |sin(2 w_i)|``), its rank correlation with i, and the highest
    quarter of pairs against the lowest."""
    from posenc.stats import spearman

    a, b = FIGURE_POSITIONS
    variants, detail, figure_data = {}, {}, None
    for option in FIGURE_WIDTHS:
        dim = int(option[2:])
        table = _table("sinusoidal", WINDOW, dim).numpy()
        diff = np.linalg.norm((table[b] - table[a]).reshape(-1, 2), axis=1)  # [d/2]
        quarter = len(diff) // 4
        stats = {"distance": float(np.linalg.norm(table[b] - table[a])),
                 "rank_correlation": spearman(np.arange(len(diff)), diff),
                 "high_low_ratio": float(np.linalg.norm(diff[-quarter:]) / np.linalg.norm(diff[:quarter]))}
        variants[option] = {k: exact(v) for k, v in stats.items()}
        detail[option] = stats
        if option == FIGURE_WIDTHS[0]:
            figure_data = (table, FIGURE_POSITIONS, diff)
    return Measured({"by_width": detail}, dict(variants[FIGURE_WIDTHS[0]]), variants=variants,
                    shown={"figure_data": figure_data})


# ---------------------------------------------------------------------------------------------------------------
# tutorial 003 §14.6 (tutorial 001 §4.1): which encoding each named model uses
# ---------------------------------------------------------------------------------------------------------------
#: name in the documents -> (transformers config class, what the documents say)
NAMED_MODELS = {"GPT-2": ("GPT2Config", "learned"), "GPT (the GPT series' first)": ("OpenAIGPTConfig", "learned"),
                "LLaMA": ("LlamaConfig", "rope"), "GPT-NeoX": ("GPTNeoXConfig", "rope"),
                "BERT (tutorial 001 §4.1)": ("BertConfig", "learned")}


#: models released since the documents, whose encoding differs by layer (shown beside them, not judged)
SCHEDULED_MODELS = {"Gemma 3": "Gemma3TextConfig", "Llama 4 (iRoPE)": "Llama4TextConfig", "SmolLM3": "SmolLM3Config",
                    "ModernBERT": "ModernBertConfig", "Qwen3-VL (text)": "Qwen3VLTextConfig"}


def _layer_schedules(transformers: Any) -> dict[str, list[tuple[str, str]]]:
    """Each of :data:`SCHEDULED_MODELS`'s layer schedule from its default configuration
    (:func:`posenc.hf.schedule.schedule_from_hf_config`): ``(layers, encoding)`` per kind of layer."""
    from posenc.hf.schedule import schedule_from_hf_config

    out = {}
    for name, cls_name in SCHEDULED_MODELS.items():
        config = getattr(transformers, cls_name, None)
        if config is not None:  # a transformers without the model shows the others
            out[f"{name} ({cls_name})"] = schedule_from_hf_config(config()).describe()
    return out


@experiment("model_encodings")
@one_thread
def model_encodings(ctx: Context) -> Measured:
    """Tutorial 003 §14.6: GPT-2 and the GPT series add a learned position table, LLaMA and GPT-NeoX rotate with RoPE;
    tutorial 001 §4.1 reads BERT's learned table. Each model's encoding read from the model its default configuration
    describes (:func:`~posenc.hf.model_reading.read_encoding`), beside posenc's reading of the configuration
    (:func:`posenc.from_hf_config`). The models released since, whose encoding differs by layer, are shown with their
    layer schedule (not judged: the claim names the older models)."""
    import transformers

    from posenc.hf.model_reading import read_encoding

    found, extras = {}, {}
    for name, (cls_name, said) in NAMED_MODELS.items():
        config = getattr(transformers, cls_name)()
        reading = read_encoding(config)
        try:
            ours = posenc.from_hf_config(config).name
        except PosencError as exc:
            ours = f"not read ({str(exc).split(':')[0]})"
        extra = ""
        if reading["kind"] == "rope":
            params = getattr(config, "rope_parameters", None) or {}
            share = (params.get("partial_rotary_factor") or getattr(config, "rotary_pct", None)
                     or getattr(config, "partial_rotary_factor", None) or 1.0)
            extra = f", rotary share of each head {share:g}"
        found[name] = {"config": cls_name, "document": said, **reading, "posenc_reading": ours}
        extras[name] = extra
    schedules = _layer_schedules(transformers)
    numbers = {"models": found, "transformers": transformers.__version__, "schedules": schedules,
               "mismatches": sum(v["kind"] != v["document"] for v in found.values()),
               "kinds_detected": len({v["kind"] for v in found.values()} - {"unclear"})}
    return Measured(numbers, exacts(numbers, "mismatches", "kinds_detected"), shown={"extras": extras})
