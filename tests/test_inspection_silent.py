"""``posenc inspect`` stays silent where no warning is due: for every guard of every finding, a config that comes
right up to it and must give no finding at all.

``tests/test_inspection.py`` writes each config that must warn; a guard that also fires on a correct config (a
condition dropped, ``!=`` turned into ``==``, a bound moved) passes those tests and floods real models with false
warnings. Each config here is a real model's ``config.json`` (sizes shrunk) or a config object with every field
right, and the whole inspection must come back empty.
"""

import pytest
from transformers import Gemma3TextConfig, LlamaConfig, Qwen2Config

from posenc.inspection import inspect_config

SMALL = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2,
         "intermediate_size": 128, "vocab_size": 100}

SILENT = {
    # Llama 3.1: the base written at the top, the llama3 scaling without a base of its own (the top one holds)
    "llama 3.1 config.json": {"model_type": "llama", **SMALL, "max_position_embeddings": 131072,
                              "rope_theta": 500000.0,
                              "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                               "original_max_position_embeddings": 8192, "rope_type": "llama3"}},
    # transformers 5's layout: the same base at the top and in rope_parameters
    "equal bases at the top and inside": {"model_type": "llama", **SMALL, "max_position_embeddings": 4096,
                                          "rope_theta": 500000.0,
                                          "rope_parameters": {"rope_type": "default", "rope_theta": 500000.0}},
    # the base only inside, at the fallback of 10000: code that falls back is right
    "base 10000 only inside": {"model_type": "llama", **SMALL, "max_position_embeddings": 4096,
                               "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0}},
    # YaRN with factor x original = max_position_embeddings (Qwen2.5's long-context recipe)
    "yarn factor times original is the length": {
        "model_type": "qwen2", **SMALL, "max_position_embeddings": 131072, "rope_theta": 1000000.0,
        "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}},
    # YaRN whose max_position_embeddings was left at the original length (Qwen2.5's shipped config.json)
    "yarn with the length not raised": {
        "model_type": "qwen2", **SMALL, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}},
    # YaRN's original length at the top level (DeepSeek-style) counts as given
    "yarn original at the top": {
        "model_type": "llama", **SMALL, "max_position_embeddings": 8192, "rope_theta": 10000.0,
        "original_max_position_embeddings": 2048, "rope_scaling": {"rope_type": "yarn", "factor": 4.0}},
    # a partial factor of 1 rotates every channel
    "partial factor 1": {"model_type": "llama", **SMALL, "max_position_embeddings": 4096, "rope_theta": 10000.0,
                         "partial_rotary_factor": 1.0},
    # a linear scaling is not dynamic: no cache warning
    "linear scaling": {"model_type": "llama", **SMALL, "max_position_embeddings": 8192, "rope_theta": 10000.0,
                       "rope_scaling": {"rope_type": "linear", "factor": 2.0}},
}


@pytest.mark.parametrize("case", sorted(SILENT))
def test_a_correct_config_json_gives_no_finding(case):
    found = inspect_config(SILENT[case])
    assert found.findings == [], [f.message for f in found.findings]
    assert found.schedule is not None


def test_gptjs_own_rotary_dim_gives_only_the_pairing_finding():
    # GPT-J reads rotary_dim (here every channel of the head): no partial-rotary finding; its code interleaves,
    # which is due
    config = {"model_type": "gptj", "n_embd": 64, "n_head": 4, "n_layer": 2, "n_positions": 2048, "rotary_dim": 16,
              "vocab_size": 100, "rope_theta": 10000.0}
    assert inspect_config(config).codes() == ["pairing"]


@pytest.mark.parametrize("config", [LlamaConfig(**SMALL), Qwen2Config(**SMALL),
                                    LlamaConfig(**SMALL, rope_parameters={"rope_type": "linear", "factor": 2.0,
                                                                          "rope_theta": 10000.0})],
                         ids=["llama", "qwen2 (window field, switch off)", "llama linear"])
def test_a_correct_config_object_gives_no_finding(config):
    assert inspect_config(config).findings == []


def test_gemma3s_per_layer_bases_written_where_transformers_5_reads_them_give_no_finding():
    # both bases in rope_parameters, none in the old fields, and the raw config says the same
    config = Gemma3TextConfig(num_hidden_layers=6, sliding_window=64, head_dim=16, hidden_size=64,
                              num_attention_heads=4, num_key_value_heads=2, intermediate_size=128, vocab_size=100)
    raw = {"model_type": "gemma3_text", "rope_parameters": {
        "full_attention": {"rope_type": "default", "rope_theta": 10000.0},
        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}}
    config.rope_parameters = raw["rope_parameters"]
    assert inspect_config(config, raw).findings == []
