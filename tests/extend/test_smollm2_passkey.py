"""The real SmolLM2-135M (offline package) retrieves passkeys well inside its 8192-token context, through the patched
model and the KV cache: the check that would have failed when a transformers release renamed the cache argument."""

from __future__ import annotations

import pytest

from posenc.extend import patch_model, scaled_rope
from posenc.extend.passkey import SharedPrefix, build_passkey_prompt, passkey_key, passkey_trial

LENGTH = 1024  # an eighth of the native context


@pytest.fixture(scope="module")
def smollm2():
    from posenc.pretrained import load_model

    loaded = load_model("smollm2", attn_implementation="sdpa")
    patch_model(loaded.model, scaled_rope(loaded.config, "none", 1.0))
    return loaded


@pytest.mark.slow  # loads SmolLM2 (about 11 s)
def test_smollm2_retrieves_every_key_inside_its_context(smollm2):
    shared = SharedPrefix(smollm2.model)
    results = []
    for depth in (0.25, 0.75):
        for trial in range(2):
            key = passkey_key(LENGTH, depth, trial)
            prompt = build_passkey_prompt(smollm2.tokenizer, LENGTH, depth, key)
            results.append(passkey_trial(smollm2.model, smollm2.tokenizer, prompt, shared=shared))
    assert [r["found"] for r in results] == [r["key"] for r in results]  # 4 of 4 (0 of 4 with the cache ignored)
    assert shared.cache.get_seq_length() == len(shared.ids) > 0
