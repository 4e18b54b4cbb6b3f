"""The context-extension experiment end to end on a tiny random Llama (no download): run_extend's output is read
into the numbers the PI/YaRN claim needs, and the claim's criterion accepts them."""

from __future__ import annotations

import shutil

import torch

from posenc.report.experiments.base import Context
from posenc.report.experiments.extension import SCALINGS, extend_pi_yarn, pi_yarn_measurement
from posenc.report.ledger import get_claim
from posenc.report.verdict import STATUSES

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json")


def test_quick_mode_says_why_it_does_not_run():
    m = extend_pi_yarn(Context(quick=True))
    verdict = get_claim("pi-yarn").judge(m.numbers)
    assert verdict.status == "not testable" and "8192" in verdict.reason


def test_pi_yarn_numbers_from_a_tiny_llama(tmp_path):
    """A 1-layer random Llama with a 128-token context and MiniLM's tokenizer (offline package), at 128 and 256."""
    from transformers import LlamaConfig, LlamaForCausalLM

    from posenc.probe.load import minilm_dir

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=30522, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=128,
                         rope_theta=10000.0, tie_word_embeddings=True)
    LlamaForCausalLM(config).save_pretrained(tmp_path / "tiny", safe_serialization=True)
    for name in TOKENIZER_FILES:
        shutil.copy(minilm_dir() / name, tmp_path / "tiny" / name)
    m = pi_yarn_measurement(str(tmp_path / "tiny"), (128, 256), Context(quick=False))
    n = m.numbers
    assert n["ran"] and n["native_len"] == 128 and n["long_factor"] == 2.0
    # at the native length every scaling is the identity (factor max(1, L / L0) = 1): the same perplexity
    assert {n["ppl"][s]["128"] for s in SCALINGS} == {n["ppl_native"]}
    # a random model is near-uniform over 30522 tokens: perplexity of the order of the vocabulary
    assert 5e3 < n["ppl_native"] < 1e5
    assert set(n["passkey_long"]) == set(SCALINGS) and all(0 <= v <= 1 for v in n["passkey_long"].values())
    verdict = get_claim("pi-yarn").judge(n)
    assert verdict.status in STATUSES
    assert verdict.status == "refuted"  # random weights: no scaling helps by 5%
    assert m.figure is not None and len(m.rows) == 1 + 2 * len(SCALINGS)
