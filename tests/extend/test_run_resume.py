"""``run_extend`` resumes from rows written through the store's public ``put``, as every earlier version wrote them:
the same keys are found, nothing is computed (the model folder has no weights to load), and the tables hold the
numbers of those rows."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from extend_models import tiny_config

from posenc.corpora import load_text
from posenc.extend import run_extend
from posenc.extend.patch import scaled_rope
from posenc.extend.perplexity import encode_nll
from posenc.extend.plan import MAX_NEW_TOKENS, extend_config, forward_seconds, make_plan
from posenc.extend.run import CODE_VERSION, PASSKEY_KIND, WINDOW_KIND
from posenc.store import ResultStore, config_hash

NATIVE = 64


@pytest.fixture
def config_only(tmp_path):
    """A model folder holding a Llama config and no weights: loading it would fail, reading its config works."""
    folder = tmp_path / "config-only"
    tiny_config(max_position_embeddings=NATIVE).save_pretrained(folder)
    return folder


def _fill(store_path, cfg, native):
    """Store every job of ``cfg``'s plan with ``put``, keyed as run_extend keys them (model, dtype, the text's name
    and hash, the job's fields); returns each window's losses and each passkey trial's correctness."""
    from posenc.pretrained import model_config

    hf = model_config(cfg.model)
    plan = make_plan(cfg, native, lambda scaling, s: scaled_rope(hf, scaling, s, native))
    corpus = f"shakespeare:{config_hash({'text': load_text(None)})[:16]}"
    store = ResultStore(store_path)
    rng = np.random.default_rng(0)
    losses, correct = {}, {}
    for job in plan.windows:
        nll = rng.uniform(1.0, 5.0, job.length - 1).astype(np.float32)
        losses[(job.length, job.offset)] = nll
        key = {"model": cfg.model, "dtype": "float32", "corpus": corpus, "length": job.length, "offset": job.offset,
               "rope": job.rope}
        store.put(WINDOW_KIND, key, 0, {"nll_b64": encode_nll(nll), "mean_nll": float(nll.mean()),
                                        "peak_bytes": 1000, "source": "a model folder"}, wall_s=0.5,
                  setup={"device": "cpu", "dtype": "float32"}, code=CODE_VERSION)
    from posenc.extend.passkey import passkey_key

    for job in plan.passkeys:
        key_value = passkey_key(job.length, job.depth, job.trial, cfg.seed)
        correct[(job.length, job.trial)] = job.trial % 2 == 0
        key = {"model": cfg.model, "dtype": "float32", "prompt": 1, "max_new_tokens": MAX_NEW_TOKENS,
               "length": job.length, "depth": job.depth, "trial": job.trial, "rope": job.rope, "key": key_value}
        store.put(PASSKEY_KIND, key, 0, {"key": key_value, "answer": str(key_value) if job.trial % 2 == 0 else "0",
                                         "correct": job.trial % 2 == 0, "peak_bytes": 2000, "source": "a folder"},
                  wall_s=0.25, setup={"device": "cpu", "dtype": "float32"}, code=CODE_VERSION)
    return plan, losses, correct


def test_rows_put_as_before_are_read_back_without_computing(config_only, tmp_path):
    settings = dict(model=str(config_only), lengths=[NATIVE], scalings=["none", "linear"], protocols=["nonoverlap"],
                    windows=3, passkey=True, depths=[0.5], trials=4, device="cpu")
    cfg = extend_config(**settings)
    plan, losses, correct = _fill(tmp_path / "old.sqlite", cfg, NATIVE)
    before = time.time()
    result = run_extend(**settings, store_path=tmp_path / "old.sqlite", progress=False, echo=None)
    assert 0 <= result["wall_s"] <= time.time() - before  # the run's own wall time, within the call's
    assert result["jobs"] == {"windows": len(plan.windows), "passkeys": len(plan.passkeys), "computed": 0,
                              "cached": len(plan.windows) + len(plan.passkeys)}
    assert result["model_source"] is None  # the model was never loaded
    assert result["setups"] == [{"device": "cpu", "dtype": "float32"}]
    # perplexity: exp of the mean loss over the scored tokens of the three windows, by hand
    scored = np.concatenate([losses[(NATIVE, o)] for o in plan.offsets[("nonoverlap", NATIVE)]]).astype(np.float64)
    for scaling in ("none", "linear"):  # at the native length both scalings are the plain RoPE: one set of rows
        assert math.isclose(result["ppl"]["nonoverlap"][scaling][str(NATIVE)]["ppl"], math.exp(scored.mean()),
                            rel_tol=1e-6)
        cell = result["passkey"][scaling][str(NATIVE)]
        assert (cell["correct"], cell["n"]) == (sum(correct.values()), 4) == (2, 4)
    assert result["timing"][str(NATIVE)]["window_s_mean"] == 0.5
    assert result["timing"][str(NATIVE)]["passkey_s_mean"] == 0.25


def test_a_missing_row_is_what_gets_computed(config_only, tmp_path):
    """With one window's row removed, the plan finds the other two and only that one missing."""
    import sqlite3

    settings = dict(model=str(config_only), lengths=[NATIVE], scalings=["none"], protocols=["nonoverlap"],
                    windows=3, passkey=False, device="cpu")
    _fill(tmp_path / "s.sqlite", extend_config(**settings), NATIVE)
    con = sqlite3.connect(tmp_path / "s.sqlite")
    con.execute("DELETE FROM runs WHERE id = (SELECT MAX(id) FROM runs)")
    con.commit()
    con.close()
    said = []
    plan = run_extend(**settings, store_path=tmp_path / "s.sqlite", plan_only=True, echo=said.append)
    assert plan["jobs"] == {"windows": 3, "passkeys": 0, "missing": 1}
    # the time model over the whole plan: 3 windows of 64 tokens, each one forward pass of the model's config
    assert plan["estimate_s"] == pytest.approx(3 * forward_seconds(NATIVE, tiny_config()), rel=1e-9)
    assert "store: 2 of 3 windows" in said[-1]
