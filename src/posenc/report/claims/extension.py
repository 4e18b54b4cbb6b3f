"""The claims that :mod:`posenc.report.experiments.extension` measures, as records: what each
sentence says, the test that decides it, its null and the reason for its bar (:class:`posenc.report.claim.Claim`)."""

from __future__ import annotations

from posenc.report.claim import Claim, Test
from posenc.report.experiments.extension import LONG, RESCUE_LENGTH

__all__ = ["CLAIMS"]


# ---------------------------------------------------------------------------------------------------------------
# the claim
# ---------------------------------------------------------------------------------------------------------------
#: a scaling "beats" no scaling when it lowers perplexity by more than 5% (ledger bar since posenc 0.1.0)
BEATS = 0.95


#: past the context, perplexity within 1.5x of the native model on the same text (ledger bar since posenc 0.1.0)
NEAR_NATIVE = 1.5


#: the key is retrieved in most trials
RETRIEVES = 0.5


def _pi_yarn_tests() -> tuple[Test, ...]:
    """The claim's tests, the same at every length."""
    return (
        Test("linear_over_none_ppl", "<", BEATS, "past the native context, position interpolation lowers perplexity "
             "against no scaling (ratio paired by window)", "a 5% margin, the ledger's bar since posenc 0.1.0",
             unless="for YaRN only: position interpolation without fine-tuning (Chen et al. 2023 fine-tune 1000 "
                    "steps) does not beat no scaling"),
        Test("yarn_over_none_ppl", "<", BEATS, "past the native context, YaRN lowers perplexity against no scaling "
             "(ratio paired by window)", "a 5% margin, the ledger's bar since posenc 0.1.0",
             unless="for position interpolation only: YaRN without fine-tuning does not beat no scaling"),
        Test("yarn_over_native_ppl", "<", NEAR_NATIVE, "with YaRN, perplexity past the context stays within 1.5x "
             "that of the native model on the same text", "the ledger's bar since posenc 0.1.0; a context collapse "
             "is many-fold (Chen et al. 2023: LLaMA-7B from 7.2 to > 1000 at 2x)", role="condition",
             unless="YaRN helps, but past the context perplexity stays above 1.5x the native value"),
        Test("yarn_passkey_past_native", ">", RETRIEVES, "with YaRN and a prompt longer than the native context, the "
             "model still retrieves a key hidden near the end (depth 0.95)", "most trials; guessing a 5-digit key "
             "succeeds once in 90000", role="condition",
             unless="YaRN keeps perplexity, but the model stops retrieving the key past its context"))


def _pi_yarn_requires(length: int) -> tuple[Test, ...]:
    """The claim's preconditions at ``length``: the prompt works within the context, and the unscaled model fails
    at ``length``."""
    return (
        Test("passkey_within_native", ">", RETRIEVES, "within its context (2048 tokens, the same depth) the model "
             "retrieves the key: the prompt works", "else a failure past the context says nothing about the context "
             "(depth 1 failed this way at every length)", otherwise="not testable"),
        Test("none_over_native_ppl", ">", NEAR_NATIVE, f"without scaling the model fails past its context at the "
             f"length run ({length} tokens): perplexity above 1.5x the native model's on the same windows. A rescue "
             f"needs a failure to rescue: where the unscaled model holds up, nothing is rescued and the claim is not "
             f"tested at this length; the length that tests it is one where the unscaled model fails, e.g. "
             f"{RESCUE_LENGTH} tokens (twice the native context; `posenc extend smollm2 --lengths 16k --scalings "
             f"none,linear,yarn --windows 4`)", "the claim's own bar for 'as good as within the context' "
             "(NEAR_NATIVE), so above it the unscaled model has degraded; a collapse is many-fold (Chen et al. "
             "2023: LLaMA-7B above 1000 at 2x)", otherwise="not testable"))


#: why each statistic of the extension claims has no separate null
_NO_NULL = {
    "linear_over_none_ppl": "a ratio to the unscaled model on the same windows: no scaling is itself the null (1)",
    "yarn_over_none_ppl": "a ratio to the unscaled model on the same windows: no scaling is itself the null (1)",
    "yarn_over_native_ppl": "a ratio to the native model on the same text, the reference it must come near",
    "yarn_passkey_past_native": "retrieval against guessing a 5-digit key (chance 1 in 90000, computed, not sampled)",
    "passkey_within_native": "a precondition (the prompt works), not compared with chance",
    "none_over_native_ppl": "a precondition (the unscaled model fails), not compared with chance"}


def _with_reasons(claim: Claim) -> Claim:
    """``claim`` with each test's reason for having no null (:data:`_NO_NULL`)."""
    from dataclasses import replace

    return replace(claim, tests=tuple(replace(t, no_null=_NO_NULL[t.statistic]) for t in claim.tests),
                   requires=tuple(replace(t, no_null=_NO_NULL[t.statistic]) for t in claim.requires),
                   null="no scaling on the same windows (the ratios' 1); chance for the passkey")


CLAIMS: tuple[Claim, ...] = tuple(_with_reasons(c) for c in (
    Claim("pi-yarn", "Chen et al. 2023 (PI); Peng et al. 2023 (YaRN)", "literature", "PI / YaRN extend the context",
          "Position interpolation and YaRN let a RoPE model run past its trained context.",
          "extend_pi_yarn", _pi_yarn_tests(), requires=_pi_yarn_requires(LONG), revision=10,
          title_zh="PI / YaRN 扩展上下文长度"),
    # the same claim at twice the context, where the full plan's requirement says a rescue can be tested
    Claim("pi-yarn-rescue", "Chen et al. 2023 (PI); Peng et al. 2023 (YaRN)", "literature",
          f"PI / YaRN extend the context, at {RESCUE_LENGTH} tokens",
          "Position interpolation and YaRN let a RoPE model run past its trained context.",
          "extend_pi_yarn_rescue", _pi_yarn_tests(), requires=_pi_yarn_requires(RESCUE_LENGTH),
          revision=5, title_zh=f"PI / YaRN 扩展上下文长度（{RESCUE_LENGTH} 个词元）"),
))
