"""Context extension of a pretrained RoPE model: perplexity and passkey retrieval by length and RoPE scaling.

posenc's own scalings are put into the model (:mod:`posenc.extend.patch`: through transformers' registry of RoPE
types), evaluated on real text by two perplexity protocols (:mod:`posenc.extend.perplexity`) and by passkey
retrieval (:mod:`posenc.extend.passkey`), with the factor chosen per length (:mod:`posenc.extend.factors`), memory
checked before loading (:mod:`posenc.extend.memory`), and results cached in the results store
(:mod:`posenc.extend.run`); :mod:`posenc.extend.compare_scalings` compares the scalings on those results.

Example::

    >>> from posenc.extend import run_extend
    >>> result = run_extend("smollm2", quick=True, store_path="runs/extend.sqlite")   # doctest: +SKIP
    >>> result["ppl"]["sliding"]["yarn"]["12288"]["ppl"]                               # doctest: +SKIP
"""

from posenc.extend.factors import DEFAULT_SCALINGS, SCALING_NAMES, check_scalings, factor_for, scaling_spec
from posenc.extend.memory import MemoryEstimate, check_fits, estimate_memory
from posenc.extend.passkey import build_passkey_prompt, greedy_decode, passkey_trial
from posenc.extend.patch import FixedLengthRope, check_rope_model, native_length, patch_model, scaled_rope, set_encoding
from posenc.extend.perplexity import PROTOCOLS, protocol_ppl, token_nll, window_offsets
from posenc.extend.plan import ExtendConfig, extend_config, make_plan
from posenc.extend.run import run_extend, to_markdown

__all__ = [
    "run_extend", "to_markdown", "ExtendConfig", "extend_config", "make_plan",
    "patch_model", "set_encoding", "scaled_rope", "native_length", "check_rope_model", "FixedLengthRope",
    "token_nll", "window_offsets", "protocol_ppl", "PROTOCOLS",
    "build_passkey_prompt", "greedy_decode", "passkey_trial",
    "estimate_memory", "check_fits", "MemoryEstimate",
    "SCALING_NAMES", "DEFAULT_SCALINGS", "check_scalings", "factor_for", "scaling_spec",
]
