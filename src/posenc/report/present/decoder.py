"""The pages of :mod:`posenc.report.experiments.decoder`: MiniLM's page (:mod:`posenc.report.present.pretrained`,
:mod:`posenc.report.present.tutorial_semantics`) with SmolLM2's rows, setup and scope after it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from posenc.report.experiments.base import Context, Measured
from posenc.report.experiments.decoder import SMOLLM2_NAME, SMOLLM2_NULL_SEED
from posenc.report.experiments.pretrained import MODEL_OPTIONS
from posenc.report.measurement import Row, Shown
from posenc.report.present import presents
from posenc.stats import Estimate


def _not_measured() -> tuple[list[Row], str, str]:
    """What quick mode shows of the SmolLM2 option: ``(rows, setup, scope)``."""
    return ([], f"{SMOLLM2_NAME}: not run in quick mode (minutes of CPU); its option is decided by the full report.",
            f"{SMOLLM2_NAME}: not run in quick mode")


def _heads_part(estimates: dict[str, Estimate], numbers: dict[str, Any], shown: dict[str, Any]
                ) -> tuple[list[Row], str, str]:
    """SmolLM2's part of the positional-heads and voita-heads page, from what the experiment's part measured
    (:func:`posenc.report.experiments.decoder._heads_part`): ``(rows, setup, scope)``."""
    judged, null = shown["judged"], shown["null"]
    count, length, layers, heads = numbers["windows"], numbers["length"], numbers["layers"], numbers["heads"]

    def heads_text(j: Any) -> str:
        return ", ".join(f"L{l}H{h} {o:+d}" for l, h, o in j.positional) or "none"

    total = layers * heads
    rows = [Row(f"{SMOLLM2_NAME}, {length}-token windows: positional heads (Voita: interval above 90%, offsets "
                f"-8..0 in a causal model)", judged.estimates["positional_heads"], null.estimates["positional_heads"],
                f"null: re-initialised weights of matched norms, the same windows ({heads_text(null)})"),
            Row(f"{SMOLLM2_NAME}: which (layer, head, offset)", heads_text(judged), None, f"of {total} heads"),
            Row(f"{SMOLLM2_NAME}: positional heads at offset -1 (the previous token)",
                judged.estimates["adjacent_positional_heads"], null.estimates["adjacent_positional_heads"], "null"),
            Row(f"{SMOLLM2_NAME}: positional heads at another offset", judged.estimates["other_positional_heads"],
                null.estimates["other_positional_heads"], "null"),
            Row(f"{SMOLLM2_NAME}: best head L{judged.best[0]}H{judged.best[1]}, offset "
                f"{int(judged.offsets[judged.best]):+d}: share of queries", judged.estimates["best_voita_fraction"],
                null.estimates["best_voita_fraction"], f"null's best head (L{null.best[0]}H{null.best[1]}, offset "
                                                       f"{int(null.offsets[null.best]):+d})"),
            Row(f"{SMOLLM2_NAME}: heads with > 50% attention on the previous token", judged.estimates["previous_heads"],
                null.estimates["previous_heads"], "null")]
    setup = (f"{SMOLLM2_NAME} (Llama, RoPE, {layers} layers x {heads} heads, causal, without its LM "
             f"head): {count} windows of {length} tokens from plays and the Python language reference, judged by "
             f"posenc.probe.heads.positional_heads (offsets -8..0: a causal query sees no later key); null: the same "
             f"windows through {SMOLLM2_NAME} with re-initialised weights of matched norms "
             f"(posenc.probe.random_weights.matched_norm_copy, seed {SMOLLM2_NULL_SEED}), judged alike.")
    return rows, setup, f"{SMOLLM2_NAME} ({layers} layers x {heads} heads, causal), {count} windows of {length} tokens"


def _content_part(estimates: dict[str, Estimate], numbers: dict[str, Any], shown: dict[str, Any]
                  ) -> tuple[list[Row], str, str]:
    """SmolLM2's part of the positional-head-content page, from what the experiment's part measured
    (:func:`posenc.report.experiments.decoder._content_part`): ``(rows, setup, scope)``."""
    from posenc.report.present.tutorial_semantics import output_rows

    count, length = numbers["windows"], numbers["length"]
    rows = output_rows(shown["read"], numbers["output"], SMOLLM2_NAME)
    rows += [Row(f"{SMOLLM2_NAME} positional head L{l}H{h} (offset {o:+d}): attention moved by the word swap",
                numbers["per_head"][f"L{l}H{h}"], 0.0, "position alone") for l, h, o in shown["positional"]]
    rows += [Row(f"{SMOLLM2_NAME}: mean over the positional heads", estimates["smollm2_content_change"], 0.05,
                 "some content"),
             Row(f"{SMOLLM2_NAME}: mean over every other head", estimates["smollm2_other_heads_content_change"], 0.05,
                 "the positive control: above this")]
    setup = (f"{SMOLLM2_NAME} (causal, without its LM head): {count} windows of {length} tokens from plays and the "
             f"Python language reference; what each positional head outputs, read by the same probes; each window's "
             f"words replaced by the next window's at the same positions; "
             f"positional heads by posenc.probe.heads.positional_heads (offsets -8..0).")
    return rows, setup, f"{SMOLLM2_NAME}'s positional heads, {count} windows of {length} tokens"


def _join(minilm: Shown, smollm2: tuple[list[Row], str, str]) -> Shown:
    """MiniLM's page with SmolLM2's rows after its rows, its setup and scope after MiniLM's."""
    rows, setup, scope = smollm2
    return Shown(minilm.rows + rows, f"{minilm.setup} {setup}", f"{minilm.scope}; {scope}", minilm.figure)


@presents("model_heads")
def model_heads(m: Measured, ctx: Context) -> Shown:
    from posenc.report.present.pretrained import minilm_heads

    return _join(minilm_heads(m.shown["minilm"], ctx), _smollm2(m, _heads_part))


@presents("model_head_content")
def model_head_content(m: Measured, ctx: Context) -> Shown:
    from posenc.report.present.tutorial_semantics import minilm_head_content

    return _join(minilm_head_content(m.shown["minilm"], ctx), _smollm2(m, _content_part))


def _smollm2(m: Measured, part: Callable[..., tuple[list[Row], str, str]]) -> tuple[list[Row], str, str]:
    """SmolLM2's ``(rows, setup, scope)``: ``part(estimates, numbers, shown)`` of what the experiment's SmolLM2 part
    measured, or what quick mode shows where it did not run."""
    numbers = m.numbers["smollm2"]
    if not numbers["ran"]:
        return _not_measured()
    return part(m.variants[MODEL_OPTIONS[1]], numbers, m.shown["smollm2"])
