"""Real models' configurations shipped with the explorer: each a Hugging Face ``config.json`` as a dict.

Each preset names where its values come from (``source``: the model's ``config.json`` on the Hugging Face hub, or the
model card where the card tells users to add a ``rope_scaling``). Only the fields posenc reads for the encoding and
the layer schedule are kept. SmolLM2's values are those of posenc's offline package too (``posenc inspect smollm2``
reads them from its GGUF header, which takes half a minute, so the page ships the written dict; a test compares them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Preset", "PRESETS"]


@dataclass(frozen=True)
class Preset:
    """A named model configuration: ``config`` is the ``config.json`` dict, ``source`` where its values are from
    (``source_zh`` the same in Chinese, where it says more than an address)."""

    name: str
    source: str
    config: dict[str, Any] = field(default_factory=dict)
    source_zh: str | None = None


PRESETS: tuple[Preset, ...] = (
    Preset("SmolLM2-135M", "https://huggingface.co/HuggingFaceTB/SmolLM2-135M/blob/main/config.json", {
        "model_type": "llama", "hidden_size": 576, "num_attention_heads": 9, "num_key_value_heads": 3,
        "num_hidden_layers": 30, "intermediate_size": 1536, "max_position_embeddings": 8192,
        "rope_theta": 100000.0, "rope_scaling": None, "vocab_size": 49152}),
    Preset("Llama-3.1-8B", "https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json", {
        "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
        "num_hidden_layers": 32, "intermediate_size": 14336, "max_position_embeddings": 131072,
        "rope_theta": 500000.0, "vocab_size": 128256,
        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                         "original_max_position_embeddings": 8192}}),
    Preset("Qwen3-8B", "https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json", {
        "model_type": "qwen3", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
        "head_dim": 128, "num_hidden_layers": 36, "intermediate_size": 12288, "max_position_embeddings": 40960,
        "rope_theta": 1000000.0, "rope_scaling": None, "use_sliding_window": False, "vocab_size": 151936}),
    Preset("Qwen3-8B + YaRN 4x", "https://huggingface.co/Qwen/Qwen3-8B (model card, 'Processing Long Texts': "
           "rope_scaling yarn, factor 4, original_max_position_embeddings 32768)", {
               "model_type": "qwen3", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
               "head_dim": 128, "num_hidden_layers": 36, "intermediate_size": 12288,
               "max_position_embeddings": 131072, "rope_theta": 1000000.0, "use_sliding_window": False,
               "vocab_size": 151936,
               "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}},
           source_zh="https://huggingface.co/Qwen/Qwen3-8B（模型卡 'Processing Long Texts' 一节：rope_scaling 取 yarn，"
                     "factor 4，original_max_position_embeddings 32768）"),
    Preset("Gemma-3-4B (text)", "https://huggingface.co/google/gemma-3-4b-it/blob/main/config.json (text_config)", {
        "model_type": "gemma3_text", "hidden_size": 2560, "num_attention_heads": 8, "num_key_value_heads": 4,
        "head_dim": 256, "num_hidden_layers": 34, "intermediate_size": 10240, "max_position_embeddings": 131072,
        "sliding_window": 1024, "sliding_window_pattern": 6, "rope_theta": 1000000.0,
        "rope_local_base_freq": 10000.0, "rope_scaling": {"rope_type": "linear", "factor": 8.0},
        "vocab_size": 262208}),
    Preset("DeepSeek-V3", "https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json", {
        "model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "num_key_value_heads": 128,
        "num_hidden_layers": 61, "intermediate_size": 18432, "moe_intermediate_size": 2048,
        "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128, "kv_lora_rank": 512,
        "q_lora_rank": 1536, "max_position_embeddings": 163840, "rope_theta": 10000.0, "vocab_size": 129280,
        "rope_scaling": {"type": "yarn", "factor": 40.0, "beta_fast": 32, "beta_slow": 1, "mscale": 1.0,
                         "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096}}),
    Preset("SmolLM3-3B", "https://huggingface.co/HuggingFaceTB/SmolLM3-3B/blob/main/config.json", {
        "model_type": "smollm3", "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 4,
        "num_hidden_layers": 36, "intermediate_size": 11008, "max_position_embeddings": 65536,
        "rope_theta": 5000000.0, "no_rope_layer_interval": 4, "vocab_size": 128256}),
)
