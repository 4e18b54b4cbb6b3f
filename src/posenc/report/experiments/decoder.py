"""SmolLM2-135M as a second model for the head claims (issue 43, the scope rule): ``positional-heads``,
``voita-heads`` and ``positional-head-content`` were judged on all-MiniLM-L6-v2 alone, an encoder, while their
sentences speak of Transformers' heads. Each claim now has a choice of model (:data:`posenc.report.experiments.
pretrained.HEAD_MODEL`): MiniLM's option is :func:`posenc.report.experiments.pretrained.minilm_heads` and
:func:`posenc.report.experiments.tutorial_semantics.minilm_head_content` unchanged, and SmolLM2's option measures the
same statistics through the same functions on a causal decoder:

- the heads: every layer's attention through :class:`posenc.probe.heads.HeadAccumulator`, judged by
  :func:`posenc.probe.heads.positional_heads` (Voita et al.'s rule over offsets -8..8 with its two-way bootstrap
  over windows and query positions). In a causal model a query sees itself and the tokens before it, so the rule
  reads offsets -8..0 (a later key has weight 0 and never holds a query's maximum): a positional head there attends
  to one fixed offset back, the previous token at -1 or the token itself at 0, for at least 90% of its queries;
- the content: each window's words replaced by the next window's at the same positions
  (:func:`posenc.probe.content.swap_words`) and each head's total-variation change of attention
  (:func:`posenc.probe.content.content_change`, whose forward passes on the original windows also feed the head
  probe), summarised by :func:`posenc.probe.content.content_estimates` as for MiniLM;
- the null of the head counts: the same windows through SmolLM2 with re-initialised weights of matched norms
  (:func:`posenc.probe.random_weights.null_model`, the null ``low-dims-position`` reads for SmolLM2), judged
  by the same rule. A random model's heads can hold a fixed offset without training (RoPE makes a logit depend on
  the offset, and a deep random network's tokens grow alike), so the count is read against it.

SmolLM2 reads windows of 128 tokens, the 16 windows of both kinds of text that ``low-dims-position`` reads
(:func:`posenc.corpora.text_windows`), through :func:`posenc.probe.heads.two_passes` and
:func:`posenc.probe.head_output.decoder_outputs`; the transformer runs without its language-model head (its attention is the
same and it is a fifth of the work). It costs minutes of CPU, so quick mode does not run it: its option is not
decided in quick mode there, the MiniLM option is judged as before. The pages: :mod:`posenc.report.present.decoder`.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Sequence
from typing import Any

from posenc.report.experiments.base import Context, Measured, experiment
from posenc.stats import Estimate

__all__ = ["model_heads", "model_head_content", "SMOLLM2_WINDOWS", "SMOLLM2_NULL_SEED"]

#: SmolLM2's windows (count, tokens) in full mode: those low-dims-position's SmolLM2 option reads
SMOLLM2_WINDOWS = (16, 128)
#: the seed of the matched-norm twin (the one low-dims-position draws)
SMOLLM2_NULL_SEED = 0
#: what the page calls the model
SMOLLM2_NAME = "SmolLM2-135M-Instruct"
#: the statistics of the SmolLM2 option, by claim
HEAD_KEYS = ("smollm2_positional_heads", "null_smollm2_positional_heads", "smollm2_adjacent_positional_heads",
             "null_smollm2_adjacent_positional_heads", "smollm2_other_positional_heads")
CONTENT_KEYS = ("smollm2_positional_heads_found", "smollm2_content_change", "smollm2_other_heads_content_change",
                "smollm2_output_word_accuracy", "null_smollm2_output_word_accuracy", "smollm2_input_word_accuracy")


@functools.lru_cache(maxsize=1)
def _smollm2_model() -> tuple[Any, float]:
    """SmolLM2 loaded once per process (the head pass and the output reading both read it), with the load's CPU
    time."""
    from posenc.pretrained import load_model

    started = time.process_time()
    loaded = load_model("smollm2")
    return loaded, time.process_time() - started


@functools.lru_cache(maxsize=1)
def _smollm2(count: int, length: int) -> dict[str, Any]:
    """:func:`posenc.probe.heads.two_passes` on SmolLM2, once per process (the three claims read it), with its load's
    CPU time."""
    from posenc.probe.heads import two_passes

    loaded, load = _smollm2_model()
    out = two_passes(loaded.model, loaded.tokenizer, count, length, null_seed=SMOLLM2_NULL_SEED)
    return {**out, "cpu_s": {"load": round(load, 2), **out["cpu_s"]}}


@functools.lru_cache(maxsize=1)
def _smollm2_outputs(count: int, length: int, positional: tuple[tuple[int, int, int], ...]
                     ) -> tuple[dict[str, Estimate], dict[str, Any]]:
    """:func:`posenc.probe.head_output.decoder_outputs` on SmolLM2, once per process."""
    from posenc.probe.head_output import decoder_outputs

    loaded, _ = _smollm2_model()
    return decoder_outputs(loaded.model, loaded.tokenizer, count, length, positional)


def _not_measured(keys: Sequence[str]) -> tuple[dict[str, Estimate], dict[str, Any], dict[str, Any]]:
    """What quick mode gives the SmolLM2 option: its statistics ``keys`` with nothing measured and no interval (its
    verdict: not decided in quick mode), as ``(estimates, numbers, shown)``."""
    return ({k: Estimate(math.nan, -math.inf, math.inf, 0, "not measured in quick mode") for k in keys},
            {"ran": False}, {})


def _heads_part(ctx: Context) -> tuple[dict[str, Estimate], dict[str, Any], dict[str, Any]]:
    """SmolLM2's option of positional-heads and voita-heads: ``(estimates, numbers, shown)`` (``shown``: the
    judgements of the measured and the null pass, for the page)."""
    from posenc.probe.heads import decoder_heads

    count, length = SMOLLM2_WINDOWS
    if ctx.quick:  # minutes of CPU: SmolLM2's option is not decided in quick mode
        return _not_measured(HEAD_KEYS)
    run = _smollm2(count, length)
    judged, null = decoder_heads(run["trained"]), decoder_heads(run["null"])
    estimates = {"smollm2_positional_heads": judged.estimates["positional_heads"],
                 "null_smollm2_positional_heads": null.estimates["positional_heads"],
                 "smollm2_adjacent_positional_heads": judged.estimates["adjacent_positional_heads"],
                 "null_smollm2_adjacent_positional_heads": null.estimates["adjacent_positional_heads"],
                 "smollm2_other_positional_heads": judged.estimates["other_positional_heads"]}

    def plain(e: Estimate) -> list[float]:
        return [e.value, e.low, e.high]

    numbers = {"ran": True, "windows": count, "length": length, "layers": run["layers"], "heads": run["heads"],
               "kinds": run["kinds"], "cpu_s": run["cpu_s"],
               **{name: {"positional": [list(x) for x in j.positional], "undecided": [list(x) for x in j.undecided],
                         "best_head": {"layer": j.best[0], "head": j.best[1], "offset": int(j.offsets[j.best]),
                                       "fraction": plain(j.estimates["best_voita_fraction"])},
                         "previous_over_half": [list(x) for x in j.previous_over_half],
                         "estimates": {k: plain(e) for k, e in j.estimates.items()}}
                  for name, j in (("measured", judged), ("null", null))}}
    return estimates, numbers, {"judged": judged, "null": null}


def _content_part(ctx: Context) -> tuple[dict[str, Estimate], dict[str, Any], dict[str, Any]]:
    """SmolLM2's option of positional-head-content: ``(estimates, numbers, shown)`` (``shown``: the output
    reading's estimates and the positional heads, for the page)."""
    from posenc.probe.content import content_statistics
    from posenc.probe.heads import decoder_heads

    count, length = SMOLLM2_WINDOWS
    if ctx.quick:  # minutes of CPU: SmolLM2's option is not decided in quick mode
        return _not_measured(CONTENT_KEYS)
    run = _smollm2(count, length)
    judged = decoder_heads(run["trained"])
    found, numbers = content_statistics(run["trained"], judged)
    read, numbers["output"] = _smollm2_outputs(count, length, tuple(tuple(p) for p in judged.positional))
    estimates = {f"smollm2_{k}": e for k, e in found.items()}
    estimates.update({"smollm2_output_word_accuracy": read["output_word_accuracy"],
                      "null_smollm2_output_word_accuracy": read["null_output_word_accuracy"],
                      "smollm2_input_word_accuracy": read["input_word_accuracy"]})
    return (estimates, {"ran": True, "windows": count, "length": length, "cpu_s": run["cpu_s"], **numbers},
            {"read": read, "positional": judged.positional})


def _join(minilm: Measured, option: str, smollm2: tuple[dict[str, Estimate], dict[str, Any], dict[str, Any]]
          ) -> Measured:
    """MiniLM's measurement with SmolLM2's option beside it: the MiniLM option's estimates are MiniLM's own (the page
    shows MiniLM's page, then SmolLM2's rows: ``shown`` keeps both parts)."""
    from posenc.report.experiments.pretrained import MODEL_OPTIONS

    estimates, numbers, shown = smollm2
    variants = {MODEL_OPTIONS[0]: dict(minilm.estimates), option: estimates}
    return Measured({**minilm.numbers, "smollm2": numbers}, dict(minilm.estimates), variants,
                    shown={"minilm": minilm, "smollm2": shown})


@experiment("model_heads")
def model_heads(ctx: Context) -> Measured:
    """positional-heads and voita-heads on two models: MiniLM (:func:`posenc.report.experiments.pretrained.
    minilm_heads`, unchanged) and SmolLM2 (the module docstring)."""
    from posenc.report.experiments.pretrained import MODEL_OPTIONS, minilm_heads

    return _join(minilm_heads(ctx), MODEL_OPTIONS[1], _heads_part(ctx))


@experiment("model_head_content")
def model_head_content(ctx: Context) -> Measured:
    """positional-head-content on two models: MiniLM (:func:`posenc.report.experiments.tutorial_semantics.
    minilm_head_content`, unchanged) and SmolLM2 (the module docstring)."""
    from posenc.report.experiments.pretrained import MODEL_OPTIONS
    from posenc.report.experiments.tutorial_semantics import minilm_head_content

    return _join(minilm_head_content(ctx), MODEL_OPTIONS[1], _content_part(ctx))

