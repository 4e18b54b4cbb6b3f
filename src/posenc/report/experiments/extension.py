"""Context extension of a pretrained RoPE model (:mod:`posenc.extend`): SmolLM2-135M (native context 8192) past its
context, without scaling and with position interpolation (Chen et al. 2023) and YaRN (Peng et al. 2023), no
fine-tuning. Perplexity on Shakespeare (non-overlapping windows) and passkey retrieval.

Sequences past 8192 tokens cost minutes of CPU each, more than the whole quick report may take, so quick mode does
not run this experiment and says so: the claim is then "not testable" in quick mode.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from posenc.errors import PosencError
from posenc.report.experiments.base import Context, Measurement, Row, experiment

LENGTHS = (4096, 8192, 16384)
SCALINGS = ("none", "linear", "yarn")
PROTOCOL = "nonoverlap"


@experiment("extend_pi_yarn")
def extend_pi_yarn(ctx: Context) -> Measurement:
    """PI and YaRN on SmolLM2-135M: perplexity and passkey at 2x the native context (full mode only)."""
    if ctx.quick:
        reason = ("needs SmolLM2 forward passes past its 8192-token context (minutes each on CPU), more than the whole "
                  "quick report's budget; run `posenc report` without --quick")
        return Measurement({"ran": False, "reason": reason}, [], None, "not run in quick mode")
    return pi_yarn_measurement("smollm2", LENGTHS, ctx)


def pi_yarn_measurement(model: str, lengths: tuple[int, ...], ctx: Context) -> Measurement:
    """Run :func:`posenc.extend.run.run_extend` for ``model`` at ``lengths`` (one at or below the native context,
    one past it) with the scalings :data:`SCALINGS`, and read the numbers the claim needs."""
    from posenc.extend.run import run_extend

    result = run_extend(model, lengths=lengths, scalings=SCALINGS, protocols=(PROTOCOL,), passkey=True,
                        store_path=ctx.store_path, progress=ctx.progress, echo=None)
    native = int(result["native_len"])
    table = result["ppl"][PROTOCOL]
    measured = sorted(int(n) for n in table["none"])
    longest = max(measured)
    at_native = max((n for n in measured if n <= native), default=None)
    if at_native is None or longest <= native:
        raise PosencError(f"the extend run needs one length <= {native} and one past it, got {measured}")
    ppl = {s: {str(n): float(table[s][str(n)]["ppl"]) for n in measured} for s in SCALINGS}
    passkey = {s: float(result["passkey"][s][str(longest)]["accuracy"]) for s in SCALINGS if result["passkey"]}
    numbers = {"ran": True, "native_len": native, "ppl_native": ppl["none"][str(at_native)],
               "ppl_long": {s: ppl[s][str(longest)] for s in SCALINGS}, "long_factor": longest / native,
               "passkey_long": passkey, "ppl": ppl}
    rows = [Row(f"perplexity at {at_native} tokens (native context {native})", numbers["ppl_native"], None, "")]
    rows += [Row(f"{s}: perplexity at {longest} tokens", v, numbers["ppl_native"], f"native, {at_native} tokens")
             for s, v in numbers["ppl_long"].items()]
    rows += [Row(f"{s}: passkey accuracy at {longest} tokens", v, 1.0, "YaRN paper: > 99% (after fine-tuning)")
             for s, v in passkey.items()]
    fig = Figure(figsize=(6, 3.2), layout="constrained")
    ax = fig.subplots()
    for s in SCALINGS:
        ax.plot(measured, [ppl[s][str(n)] for n in measured], marker="o", label=s)
    ax.axvline(native, color="k", lw=0.8, ls="--")
    ax.set(xscale="log", yscale="log", xlabel="context (tokens)", ylabel="perplexity",
           title=f"{model} past its context")
    ax.legend(fontsize=7)
    return Measurement(numbers, rows, fig, f"{model}, Shakespeare, lengths {list(lengths)}, scalings "
                                           f"{list(SCALINGS)}, no fine-tuning")
