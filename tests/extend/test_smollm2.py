"""The real SmolLM2-135M (offline package): posenc's patched attention reproduces the library's forward pass, and the
passkey prompt is one the model can answer at a short length (so failures at long lengths mean something)."""

from __future__ import annotations

import copy
import math

import pytest
import torch

from posenc.extend import patch_model, scaled_rope, token_nll
from posenc.extend.passkey import build_passkey_prompt, passkey_key, passkey_trial

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smollm2():
    from posenc.pretrained import load_model

    return load_model("smollm2", attn_implementation="sdpa")


def test_patched_smollm2_matches_the_library(smollm2):
    from posenc.corpora import shakespeare_text

    ids = torch.tensor(smollm2.tokenizer(shakespeare_text(8000), add_special_tokens=False)["input_ids"][:512])
    ours = patch_model(copy.deepcopy(smollm2.model), scaled_rope(smollm2.config, "none", 1.0))
    expected = math.exp(float(token_nll(smollm2.model, ids).double().mean()))
    got = math.exp(float(token_nll(ours, ids).double().mean()))
    assert abs(got - expected) / expected < 1e-4


def test_passkey_is_answered_at_a_short_length(smollm2):
    model = patch_model(copy.deepcopy(smollm2.model), scaled_rope(smollm2.config, "none", 1.0))
    prompt = build_passkey_prompt(smollm2.tokenizer, 512, 0.5, passkey_key(512, 0.5, 0))
    assert passkey_trial(model, smollm2.tokenizer, prompt)["correct"]
