"""run_extend on a chosen device and precision: the result and every stored job say where and in which dtype they
were computed; the dtype keys the jobs, the device does not; a bad device fails before the config is read."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

from posenc import PosencError
from posenc.extend import run_extend
from posenc.extend.run import WINDOW_KIND
from posenc.store import ResultStore

NATIVE = 128


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    from posenc.pretrained import minilm_dir

    folder = tmp_path_factory.mktemp("tiny-llama")
    tokenizer = AutoTokenizer.from_pretrained(minilm_dir())
    torch.manual_seed(0)
    config = LlamaConfig(hidden_size=32, num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=1,
                         intermediate_size=64, vocab_size=tokenizer.vocab_size, max_position_embeddings=NATIVE,
                         rope_parameters={"rope_type": "default", "rope_theta": 10000.0}, tie_word_embeddings=True)
    LlamaForCausalLM(config).save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return folder


def test_setup_is_recorded_and_the_dtype_keys_the_jobs(model_dir, tmp_path):
    kwargs = dict(model=str(model_dir), lengths=[NATIVE], scalings=["none"], protocols=["nonoverlap"], passkey=False,
                  store_path=tmp_path / "s.sqlite", progress=False, echo=None, device="cpu")
    low = run_extend(**kwargs, dtype="bfloat16")
    assert low["setup"] == {"device": "cpu", "dtype": "bfloat16"} and low["config"]["dtype"] == "bfloat16"
    assert low["setups"] == [{"device": "cpu", "dtype": "bfloat16"}] and low["jobs"]["computed"] == 1
    plain = run_extend(**kwargs)  # float32: other jobs, computed now
    assert plain["jobs"]["computed"] == 1 and plain["setups"] == [{"device": "cpu", "dtype": "float32"}]
    again = run_extend(**{**kwargs, "device": "auto"})  # the device is not part of the key: all read back
    assert again["jobs"]["computed"] == 0 and again["setups"] == [{"device": "cpu", "dtype": "float32"}]
    rows = list(ResultStore(tmp_path / "s.sqlite").runs(WINDOW_KIND))
    assert sorted(r.setup["dtype"] for r in rows) == ["bfloat16", "float32"]
    assert {r.setup["device"] for r in rows} == {"cpu"}


def test_bad_device_fails_before_the_config_is_read(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)

    def no_config(*args, **kwargs):
        raise AssertionError("the config was read before the device was checked")

    monkeypatch.setattr("posenc.pretrained.model_config", no_config)
    with pytest.raises(PosencError, match="device 'cuda:0': CUDA is not available here"):
        run_extend("smollm2", device="cuda:0", store_path=None, echo=None)
    with pytest.raises(PosencError, match="unknown device 'gpu'"):
        run_extend("smollm2", device="gpu", store_path=None, echo=None)
    with pytest.raises(PosencError, match="unknown dtype 'float64'"):
        run_extend("smollm2", dtype="float64", store_path=None, echo=None)
