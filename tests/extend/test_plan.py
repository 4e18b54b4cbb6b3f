"""The plan of an extend run: a passkey-only run, and the time model with shared passkey prefixes."""

from __future__ import annotations

import pytest
from extend_models import NATIVE, tiny_config

from posenc import PosencError
from posenc.extend import scaled_rope
from posenc.extend.plan import ExtendConfig, decode_seconds, forward_seconds, make_plan


def _plan(**kwargs):
    config = tiny_config()
    return make_plan(ExtendConfig(**kwargs), NATIVE, lambda s, f: scaled_rope(config, s, f, NATIVE))


def test_passkey_alone_runs_no_window():
    plan = _plan(lengths=(64, 128), scalings=("none", "yarn"), protocols=(), passkey=True, depths=(0.0, 1.0),
                 trials=3)
    assert plan.windows == [] and plan.config.protocols == ()
    # 64 tokens: both scalings are the unscaled model (s = 1): 2 depths x 3 trials; 128 tokens: twice that
    assert len(plan.passkeys) == 6 + 12
    assert "passkey only" in plan.describe()
    with pytest.raises(PosencError, match="nothing to run"):
        ExtendConfig(protocols=(), passkey=False)


def test_time_model_counts_the_shared_prefix_once():
    # f(L) = 3.10e-3 L + 3.27e-7 L^2: f(2048) = 6.349 + 1.372 = 7.721 s, f(4096) = 12.698 + 5.486 = 18.184 s;
    # 8 decoding steps after 4096 tokens: 8 * 4.7e-5 * 4096 = 1.540 s.
    # Depth 0.5 at 4096, 3 trials: the text before the needle once (f(2048)), then per trial the rest
    # (f(4096) - f(2048) = 10.463 s) and the decoding: 7.721 + 3 * (10.463 + 1.540) = 43.73 s.
    assert forward_seconds(2048) == pytest.approx(7.721, abs=1e-3)
    assert decode_seconds(4096) == pytest.approx(1.540, abs=1e-3)
    plan = _plan(lengths=(4096,), scalings=("none",), protocols=(), passkey=True, depths=(0.5,), trials=3)
    assert plan.estimate_seconds() == pytest.approx(43.73, abs=0.01)
    # a window costs one forward pass; depth 0 shares nothing, so each trial costs a whole prompt:
    # 18.184 + 2 * (18.184 + 1.540) = 57.63 s
    deep = _plan(lengths=(4096,), scalings=("none",), protocols=("nonoverlap",), passkey=True, depths=(0.0,),
                 trials=2, windows=1)
    assert deep.estimate_seconds() == pytest.approx(57.63, abs=0.01)
