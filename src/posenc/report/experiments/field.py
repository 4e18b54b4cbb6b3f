"""Experiments on the claims of the encodings released since 2024 (PoPE, FoX, DAPE, Llama 4's iRoPE), trained in
:mod:`posenc.lab` on the char-LM exactly as the char-LM sweep of :mod:`.training` trains RoPE (same data, steps and
seeds; only the encoding, or for iRoPE the depth, differs).

- PoPE, FoX and DAPE on the char-LM sweep's model: per seed, each one's log-perplexity past the trained context L
  minus its baseline's (RoPE for PoPE and FoX, KERPLE for DAPE, whose paper adjusts KERPLE's bias); the baselines'
  runs have the same configuration as the char-LM and research sweeps' and are shared with them through the store.
- the layer pattern of iRoPE alone: the same char-LM with 4 layers (a hybrid needs a layer to spare), every fourth
  layer NoPE and the others RoPE, against all-RoPE and all-NoPE models of the same depth. Llama 4's chunked attention
  and its temperature are left out (the lab's schedule names encodings only), so the claim is named for the pattern
  it tests (``nope-layer-pattern``), not for iRoPE.

Every encoding runs with its defaults (PoPE: zero phase bias; FoX: gate bias 5; DAPE: KERPLE's log kernel, hidden
width 32); none was tuned on these tasks. VideoRoPE has no claim here: its paper's claims are about video-language
models on video benchmarks, and posenc has neither.

These train past the hour the full report keeps to on 2 cores, so they run only when asked (``posenc report
--extended``, or the claim named with ``--claim``). Their pages: :mod:`posenc.report.present.field`.
"""

from __future__ import annotations

from typing import Any

from posenc.report.experiments import training
from posenc.report.experiments.base import Context, Measured, experiment
from posenc.report.experiments.training import lm_sweep
from posenc.stats import over_seeds

#: encoding -> the baseline its paper measures it against
FIELD_LM = {"pope": "rope", "fox": "rope", "dape": "kerple"}
#: Llama 4's layer pattern: every fourth layer without positions
IROPE = ["rope", "rope", "rope", "nope"]
HYBRID = "+".join(IROPE)  #: the hybrid's label in the lab (RunConfig's default for a schedule)
IROPE_LAYERS = 4


def field_lm_sweep(quick: bool, seeds: int = 1) -> dict[str, Any]:
    """The char-LM sweep's configuration with PoPE, FoX, DAPE and their baselines (RoPE, KERPLE)."""
    sweep = lm_sweep(quick, seeds)
    encodings = list(dict.fromkeys([*FIELD_LM.values(), *FIELD_LM]))
    return {**sweep, "name": "report-field-lm" + ("-quick" if quick else ""), "grid": {"encoding": encodings}}


def irope_sweep(quick: bool, seeds: int = 1) -> dict[str, Any]:
    """The char-LM sweep's configuration at 4 layers: the iRoPE hybrid, all-RoPE and all-NoPE."""
    sweep = lm_sweep(quick, seeds)
    variants = [{"encoding": "rope"}, {"encoding": "nope"}, {"encoding": "rope", "schedule": list(IROPE)}]
    return {**sweep, "name": "report-irope" + ("-quick" if quick else ""),
            "base": {**sweep["base"], "n_layers": IROPE_LAYERS}, "grid": {"variant": variants}}


def _train_field_lm(ctx: Context) -> None:
    training.run_lab(field_lm_sweep(ctx.quick, ctx.seed_count), ctx)


def _train_irope(ctx: Context) -> None:
    training.run_lab(irope_sweep(ctx.quick, ctx.seed_count), ctx)


_FIELD_TIME = ("trains 9 char-LM models (PoPE, FoX and DAPE, 3 seeds each; about 20 min of one core) besides RoPE's "
               "and KERPLE's, shared with the char-LM and research sweeps")
_IROPE_TIME = ("trains 9 char-LM models of 4 layers (the iRoPE hybrid, all-RoPE and all-NoPE, 3 seeds each; about 30 "
               "min of one core)")


@experiment("lab_field_lm", device=True, driver=True, prepare=_train_field_lm, extended=_FIELD_TIME)
def lab_field_lm(ctx: Context) -> Measured:
    """Gopalakrishnan et al. 2025 (PoPE), Lin et al. 2025 (FoX), Zheng et al. 2024 (DAPE): perplexity past the
    training context against the encoding each paper improves on.

    Per seed, at each evaluation length ``n > L``: the log-perplexity of PoPE (FoX) minus RoPE's, of DAPE minus
    KERPLE's (< 0: lower); mean and t-interval over seeds. Choice: the evaluation length (2L, 4L, 8L); the headline
    is the longest, as the papers' claims are about lengths far past training.
    """
    from posenc.lab.compare import lm_perplexities, margins_past

    sweep = field_lm_sweep(ctx.quick, ctx.seed_count)
    ppl = lm_perplexities(training.run_lab(sweep, ctx))
    variants, numbers = margins_past(ppl, sweep["base"]["train_len"],
                                     {f"{e}_minus_{b}": (e, [b]) for e, b in FIELD_LM.items()})
    return Measured(numbers, variants[next(reversed(variants))], variants, shown={"sweep": sweep, "ppl": ppl})


@experiment("lab_irope", device=True, driver=True, prepare=_train_irope, extended=_IROPE_TIME)
def lab_irope(ctx: Context) -> Measured:
    """Llama 4's iRoPE (Meta 2025; Yang et al. 2025, "Rope to Nope and Back Again"): a hybrid of RoPE layers and
    NoPE layers against all-RoPE and all-NoPE, past the training context.

    Per seed, at each evaluation length ``n > L``: the hybrid's log-perplexity minus the lower of all-RoPE's and
    all-NoPE's (< 0: below both); mean and t-interval over seeds. Choice: the evaluation length, headline 8L. At L
    the same difference is shown (not judged): what the hybrid costs in distribution.
    """
    from posenc.lab.compare import lm_perplexities, log_ppl_margins, margins_past

    sweep = irope_sweep(ctx.quick, ctx.seed_count)
    ppl = lm_perplexities(training.run_lab(sweep, ctx))
    L = sweep["base"]["train_len"]
    variants, numbers = margins_past(ppl, L, {"hybrid_minus_best": (HYBRID, ["rope", "nope"])})
    # what the hybrid costs in distribution (shown, not judged)
    at_L = over_seeds(log_ppl_margins(ppl, L, HYBRID, ["rope", "nope"]))
    return Measured(numbers, variants[next(reversed(variants))], variants,
                    shown={"sweep": sweep, "ppl": ppl, "labels": ["rope", "nope", HYBRID], "hybrid_minus_best_at_L": at_L})


