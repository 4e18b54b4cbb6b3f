"""The explorer's real models: each preset read by posenc as `posenc inspect` reads it, and a user's config.json."""

from __future__ import annotations

import json

import pytest
import torch

from posenc.encodings.rope_scaling import llama3, yarn
from posenc.errors import PosencError
from posenc.explore.models import model_entries, read_user_config
from posenc.explore.presets import PRESETS
from posenc.inspection import FINDINGS


@pytest.fixture(scope="module")
def models():
    return {m["name"]: m for m in model_entries()}


def test_every_preset_is_read_with_its_source(models):
    assert list(models) == [p.name for p in PRESETS]
    for preset in PRESETS:
        entry = models[preset.name]
        assert preset.source.startswith("https://huggingface.co/")
        assert len(entry["layers"]) == preset.config["num_hidden_layers"]
        assert {f["code"] for f in entry["findings"]} <= set(FINDINGS)
        for group in entry["groups"]:
            rope = group["rope"]
            if rope is not None:
                assert len(rope["inv_freq"]) == rope["dim"] // 2 and rope["native"] > 0


def test_llama_3_1_frequencies_are_llama3_scaling(models):
    (group,) = models["Llama-3.1-8B"]["groups"]
    want, _ = llama3(128, 500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_max_len=8192)
    assert torch.tensor(group["rope"]["inv_freq"], dtype=torch.float64).equal(want)
    assert group["rope"]["native"] == 8192


def test_gemma_3_has_five_local_layers_to_one_global(models):
    gemma = models["Gemma-3-4B (text)"]
    local, global_ = gemma["groups"]
    assert local["window"] == 1024 and local["rope"]["base"] == 10000.0 and local["rope"]["type"] == "default"
    assert global_["rope"]["base"] == 1e6 and global_["rope"]["type"] == "linear"
    assert global_["rope"]["params"]["factor"] == 8.0
    assert gemma["layers"][:12] == [0, 0, 0, 0, 0, 1] * 2  # every sixth layer is global
    assert "rope-theta" in {f["code"] for f in gemma["findings"]}  # rope_local_base_freq is a legacy field


def test_smollm3_leaves_every_fourth_layer_without_rotation(models):
    smol = models["SmolLM3-3B"]
    assert [smol["groups"][g]["rope"] is None for g in smol["layers"][:8]] == [False, False, False, True] * 2


def test_deepseek_v3_rotates_64_channels_with_yarn(models):
    (group,) = models["DeepSeek-V3"]["groups"]
    rope = group["rope"]
    assert rope["dim"] == 64 and rope["type"] == "yarn" and rope["params"]["factor"] == 40.0
    want, factor = yarn(64, 10000.0, factor=40.0, original_max_len=4096, beta_fast=32, beta_slow=1, mscale=1.0,
                        mscale_all_dim=1.0)
    assert rope["inv_freq"] == want.tolist() and rope["attention_factor"] == factor == 1.0
    assert "interleaved" in group["text"] and "pairing" in {f["code"] for f in models["DeepSeek-V3"]["findings"]}


def test_a_users_config(tmp_path):
    folder = tmp_path / "my-model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({
        "model_type": "llama", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 3,
        "max_position_embeddings": 2048, "rope_theta": 10000.0,
        "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}))
    entry = read_user_config(folder)  # a folder: its config.json
    assert entry["name"] == "my-model" and len(entry["layers"]) == 3
    assert entry["groups"][0]["rope"]["type"] == "dynamic"
    assert "dynamic-cache" in {f["code"] for f in entry["findings"]}
    assert model_entries([folder / "config.json"])[-1]["name"] == "my-model"


def test_a_bad_config_is_a_clear_error(tmp_path):
    with pytest.raises(PosencError, match="nope.json does not exist; pass a model's config.json"):
        read_user_config(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    with pytest.raises(PosencError, match="cannot read .*bad.json as a JSON config"):
        model_entries([bad])
    bad.write_text('{"hidden_size": 8}')
    with pytest.raises(PosencError, match="has no model_type"):
        read_user_config(bad)


@pytest.mark.slow
def test_the_smollm2_preset_is_the_offline_packages_config():
    """The written SmolLM2 preset against the config posenc reads from the offline package's GGUF (half a minute)."""
    from posenc.pretrained import model_config

    try:
        config = model_config("smollm2")
    except PosencError as exc:
        pytest.skip(f"the offline SmolLM2 package is not installed: {exc}")
    preset = PRESETS[0].config
    for name in ("hidden_size", "num_attention_heads", "num_key_value_heads", "num_hidden_layers",
                 "max_position_embeddings"):
        assert getattr(config, name) == preset[name], name
    theta = (getattr(config, "rope_parameters", None) or {}).get("rope_theta") or getattr(config, "rope_theta", None)
    assert theta == preset["rope_theta"]
