"""Pretrained models: configs read without weights, model loading from the offline defaults, folders, GGUF (with its
float cache) and hub ids, and every bad input."""

import json
import math

import numpy as np
import pytest
import torch
from transformers import BertConfig, BertModel, LlamaConfig, LlamaForCausalLM

from posenc.corpora import shakespeare_text
from posenc.errors import PosencError
from posenc.pretrained import _write_cache, load_model, minilm_dir, model_config, package_lengths


def _tokenizer():
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(minilm_dir())


def test_minilm_is_bert_with_learned_positions(minilm):
    assert type(minilm.model).__name__ == "BertModel"
    assert not minilm.model.training
    assert tuple(minilm.model.embeddings.position_embeddings.weight.shape) == (512, 384)
    assert minilm.name == "minilm" and minilm.source.startswith("package:")
    assert minilm.config is minilm.model.config
    assert not any(p.requires_grad for p in minilm.model.parameters())


def test_package_lengths_are_the_packages_own():
    """Read independently from the package: tokenizer.json truncates at 128, sentence-transformers at 256."""
    folder = minilm_dir()
    truncation = json.loads((folder / "tokenizer.json").read_text())["truncation"]["max_length"]
    assert package_lengths() == {
        "fine_tuned": truncation, "positions": json.loads((folder / "config.json").read_text())[
            "max_position_embeddings"],
        "max_seq_length": json.loads((folder / "sentence_bert_config.json").read_text())["max_seq_length"]}
    assert truncation == 128


def test_folder_round_trip_gives_same_outputs(tmp_path, minilm):
    """A folder saved with safetensors loads back to the same hidden states (a tiny random BERT)."""
    model = BertModel(BertConfig(vocab_size=minilm.tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                                 num_attention_heads=4, intermediate_size=64, max_position_embeddings=64)).eval()
    model.save_pretrained(tmp_path, safe_serialization=True)
    minilm.tokenizer.save_pretrained(tmp_path)
    loaded = load_model(tmp_path)
    ids = torch.randint(0, 1000, (1, 10))
    with torch.no_grad():
        torch.testing.assert_close(loaded.model(ids).last_hidden_state, model(ids).last_hidden_state)
    assert loaded.source == f"folder:{tmp_path.resolve()}"


def test_loading_hides_transformers_bar_and_restores_it(tmp_path, minilm, capfd):
    from transformers.utils import logging as hf_logging

    BertModel(BertConfig(vocab_size=minilm.tokenizer.vocab_size, hidden_size=16, num_hidden_layers=1,
                         num_attention_heads=2, intermediate_size=32)).save_pretrained(tmp_path)
    minilm.tokenizer.save_pretrained(tmp_path)
    hf_logging.enable_progress_bar()
    capfd.readouterr()
    load_model(tmp_path)
    assert "Loading weights" not in capfd.readouterr().err
    assert hf_logging.is_progress_bar_enabled()  # the caller's setting is back
    hf_logging.disable_progress_bar()
    load_model(tmp_path)
    assert not hf_logging.is_progress_bar_enabled()
    hf_logging.enable_progress_bar()


def test_gguf_cache_keeps_the_tie_and_the_logits(tmp_path):
    """The cache writer stores a tied output layer once and the reloaded model is tied and gives equal logits."""
    config = LlamaConfig(vocab_size=300, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=True)
    model = LlamaForCausalLM(config).eval()
    assert model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
    folder = tmp_path / "cache"
    _write_cache(model, _tokenizer(), folder, {"format": 1, "gguf": "x"})
    from safetensors import safe_open

    with safe_open(str(folder / "model.safetensors"), "pt") as f:
        assert "lm_head.weight" not in f.keys() and "model.embed_tokens.weight" in f.keys()
    assert json.loads((folder / "source.json").read_text())["tied"] == ["lm_head.weight"]
    loaded = load_model(folder)
    assert type(loaded.model).__name__ == "LlamaForCausalLM"
    assert loaded.model.lm_head.weight.data_ptr() == loaded.model.model.embed_tokens.weight.data_ptr()
    ids = torch.randint(0, 300, (1, 12))
    with torch.no_grad():
        torch.testing.assert_close(loaded.model(ids).logits, model(ids).logits)


def test_smollm2_predicts_shakespeare():
    """SmolLM2 (GGUF, dequantized; cached after the first load) is a working language model on Hamlet.

    Uniform guessing over its 49152-token vocabulary costs ln(49152) = 10.8 nats; a model loaded with its q/k rows
    mis-permuted or its output layer untied scores above 6. A working 135M model on verse is near 3-4.
    """
    lm = load_model("smollm2")
    assert type(lm.model).__name__ == "LlamaForCausalLM"
    text = shakespeare_text()
    start = text.index("To be, or not to be")
    ids = lm.tokenizer(text[start:start + 600], return_tensors="pt").input_ids[:, :128]
    with torch.no_grad():
        loss = float(lm.model(ids, labels=ids).loss)
    assert loss < 5.0, f"loss {loss:.2f} (ppl {math.exp(loss):.0f})"
    assert lm.model.lm_head.weight.data_ptr() == lm.model.model.embed_tokens.weight.data_ptr()


@pytest.mark.slow
def test_smollm2_cache_equals_gguf(tmp_path, monkeypatch):
    """The cached float copy gives exactly the logits of the freshly dequantized GGUF model."""
    monkeypatch.setenv("POSENC_CACHE", str(tmp_path))
    fresh = load_model("smollm2")  # dequantizes and writes the cache
    assert fresh.source.startswith("gguf:")
    cached = load_model("smollm2")
    assert cached.source.startswith("cache:")
    ids = torch.randint(0, 49152, (1, 32))
    with torch.no_grad():
        np.testing.assert_array_equal(cached.model(ids).logits.numpy(), fresh.model(ids).logits.numpy())


# -- bad input ---------------------------------------------------------------------------------------------------------
def test_unknown_hub_id_offline(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    with pytest.raises(PosencError, match="not in the local Hugging Face cache"):
        load_model("nobody-here/no-such-model")


def test_missing_folder(tmp_path):
    with pytest.raises(PosencError, match="does not exist"):
        load_model(tmp_path / "missing" / "model")
    with pytest.raises(PosencError, match="does not exist"):
        load_model(str(tmp_path / "nothing.gguf"))


def test_folder_without_safetensors_is_refused(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(BertConfig(hidden_size=32).to_dict()))
    (tmp_path / "pytorch_model.bin").write_bytes(b"not unpickled")
    with pytest.raises(PosencError, match="never unpickles"):
        load_model(tmp_path)


def test_gguf_of_unsupported_architecture(tmp_path):
    import gguf

    path = tmp_path / "tiny-rwkv.gguf"
    writer = gguf.GGUFWriter(str(path), "rwkv6")
    writer.add_tensor("token_embd.weight", np.zeros((4, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(PosencError, match="architecture 'rwkv6'.*cannot load"):
        load_model(path)


def test_not_a_gguf_file(tmp_path):
    path = tmp_path / "fake.gguf"
    path.write_bytes(b"hello, this is not GGUF")
    with pytest.raises(PosencError, match="not a readable GGUF"):
        load_model(path)


def test_empty_spec():
    with pytest.raises(PosencError, match="non-empty"):
        load_model("  ")


def test_cache_is_invalidated_when_the_gguf_changes(tmp_path):
    from posenc.pretrained import _cache_valid, _gguf_fingerprint

    gguf_file = tmp_path / "m.gguf"
    gguf_file.write_bytes(b"x" * 10)
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"")
    (folder / "source.json").write_text(json.dumps(_gguf_fingerprint(gguf_file)))
    assert _cache_valid(folder, _gguf_fingerprint(gguf_file))
    gguf_file.write_bytes(b"y" * 11)  # a different file at the same path
    assert not _cache_valid(folder, _gguf_fingerprint(gguf_file))


def test_the_cache_folder_depends_on_the_contents_and_the_dequantizing_libraries(tmp_path, monkeypatch):
    from importlib import metadata

    import posenc.pretrained as pretrained

    monkeypatch.setenv("POSENC_CACHE", str(tmp_path / "cache"))
    first, second = tmp_path / "a" / "m.gguf", tmp_path / "b" / "m.gguf"
    for path in (first, second):
        path.parent.mkdir()
        path.write_bytes(b"the same bytes")
    folder, fingerprint = pretrained._gguf_cache(first, "m")
    assert pretrained._gguf_cache(second, "m")[0] == folder  # two checkouts of one file share a copy
    assert fingerprint["gguf"] == metadata.version("gguf") and fingerprint["transformers"] == \
        metadata.version("transformers")
    real = metadata.version
    monkeypatch.setattr(metadata, "version", lambda name: "0.0.1" if name == "gguf" else real(name))
    older, older_fingerprint = pretrained._gguf_cache(first, "m")
    assert older != folder and older_fingerprint["gguf"] == "0.0.1"  # another gguf: another copy, never this one
    assert folder.parent == tmp_path / "cache" / "models" and folder.name.startswith("m-")


def test_attention_implementation_is_honoured():
    assert load_model("minilm", attn_implementation="sdpa").config._attn_implementation == "sdpa"
    assert load_model("minilm").config._attn_implementation == "eager"


@pytest.mark.parametrize("attn_implementation", ["eager", "sdpa"])
def test_a_hub_id_in_the_local_cache_loads_with_the_attention_asked_for(tmp_path, monkeypatch, attn_implementation):
    # a cached hub id goes through the same folder loader; a tiny random BERT stands in for the download, laid out as
    # the Hugging Face cache keeps it (models--owner--name/refs/main -> snapshots/<commit>/). Each implementation is
    # asked for on its own, so neither can pass as transformers' default for BERT
    from huggingface_hub import constants

    commit = "0" * 40
    repo = tmp_path / "models--posenc-test--tiny-bert"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    snapshot = repo / "snapshots" / commit
    BertModel(BertConfig(vocab_size=_tokenizer().vocab_size, hidden_size=16, num_hidden_layers=1,
                         num_attention_heads=2, intermediate_size=32)).save_pretrained(snapshot)
    _tokenizer().save_pretrained(snapshot)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    loaded = load_model("posenc-test/tiny-bert", attn_implementation=attn_implementation)
    assert loaded.source == "hub:posenc-test/tiny-bert" and loaded.name == "posenc-test/tiny-bert"
    assert loaded.config._attn_implementation == attn_implementation


def test_model_config_reads_the_config_without_weights(tmp_path):
    bert = model_config("minilm")
    assert type(bert).__name__ == "BertConfig" and bert.max_position_embeddings == 512 and bert.hidden_size == 384
    assert model_config("smollm2").max_position_embeddings == 8192  # from the GGUF header or the float cache
    LlamaConfig(vocab_size=32, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                max_position_embeddings=96).save_pretrained(tmp_path)
    assert model_config(str(tmp_path)).max_position_embeddings == 96  # a folder holding only a config is enough


def test_model_config_names_what_was_wrong(tmp_path):
    with pytest.raises(PosencError, match=r"model folder .*nowhere does not exist; pass an existing folder"):
        model_config(str(tmp_path / "nowhere"))
    with pytest.raises(PosencError, match=r"model 'nobody/no-such-model' not found: .* not in the local Hugging Face "
                                          r"cache .*fetch it once with 'posenc probe .* --download'"):
        model_config("nobody/no-such-model")


@pytest.mark.parametrize("name", ["nosuch_model", "nobody/no-such-model"])
def test_a_name_in_no_cache_is_refused_without_the_network(name, monkeypatch):
    # a name that is neither a default nor a folder, and not in the local cache: "not found" from the disk alone
    # (it used to spend about 26 s trying the hub); any connection attempt fails this test
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("posenc tried the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    with pytest.raises(PosencError, match=f"model '{name}' not found"):
        model_config(name)
    with pytest.raises(PosencError, match=f"model '{name}' not found"):
        load_model(name)


def test_download_takes_hub_ids_only():
    from posenc.pretrained import download

    with pytest.raises(PosencError, match="'minilm' is an offline default, not a hub id: it needs no download"):
        download("minilm")


@pytest.mark.parametrize("options, fragment", [
    ({"dtype": "float8"}, "unknown dtype 'float8'"),
    ({"dtype": 5}, "unknown dtype 5"),
    ({"attn_implementation": "flash"}, "attn_implementation must be 'eager'"),
])
def test_load_model_refuses_bad_options_before_reading_anything(options, fragment):
    with pytest.raises(PosencError, match=fragment):
        load_model("nobody/no-such-model", **options)  # refused before the name is even looked up


def test_model_config_of_smollm2_reads_the_float_cache_that_load_model_writes(tmp_path, monkeypatch):
    # load_model("smollm2") keeps its float copy in $POSENC_CACHE/models/smollm2-<key>/ (module docstring); a config
    # found there is the one read, so a stub config with 96 positions (the GGUF header says 8192) must come back
    from posenc import pretrained

    monkeypatch.setenv("POSENC_CACHE", str(tmp_path))
    folder = pretrained._gguf_cache(pretrained.smollm2_gguf_path(), "smollm2")[0]
    assert folder.parent == tmp_path / "models" and folder.name.startswith("smollm2-")
    LlamaConfig(vocab_size=32, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                max_position_embeddings=96).save_pretrained(folder)
    assert model_config("smollm2").max_position_embeddings == 96


def test_model_config_leaves_later_processes_offline(tmp_path, monkeypatch):
    # with no setting of its own, a process that read a config stays offline for the programs it starts: a child
    # process's huggingface_hub reads the inherited HF_HUB_OFFLINE as offline
    import subprocess
    import sys

    for key in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.setenv(key, "")  # recorded, so the environment is restored after the test
        monkeypatch.delenv(key)
    LlamaConfig(vocab_size=32, hidden_size=16, num_hidden_layers=1, num_attention_heads=2).save_pretrained(tmp_path)
    model_config(str(tmp_path))
    child = subprocess.run([sys.executable, "-c", "import huggingface_hub.constants as c; print(c.HF_HUB_OFFLINE)"],
                           capture_output=True, text=True, check=True)
    assert child.stdout.strip() == "True"


def _tiny_gguf(path, architecture="llama"):
    import gguf

    writer = gguf.GGUFWriter(str(path), architecture)
    writer.add_tensor("token_embd.weight", np.arange(32, dtype=np.float32).reshape(4, 8))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


#: damaged GGUF files, each from a whole one: (name, what is done to its bytes, a fragment of the refusal)
DAMAGED_GGUF = [
    ("empty", lambda data: b"", "ValueError: cannot mmap an empty file"),
    ("magic-only", lambda data: data[:4], "struct.error: unpack_from requires a buffer"),
    ("cut-in-the-header", lambda data: data[:9], "struct.error"),
    ("cut-in-the-metadata", lambda data: data[:40], "struct.error"),
    ("cut-in-the-tensor-data", lambda data: data[:-16], "it is cut short, its tensors end at byte"),
    ("another-magic", lambda data: b"GGUX" + data[4:], "does not start with the GGUF magic bytes"),
    ("metadata-count-huge", lambda data: data[:16] + (2 ** 40).to_bytes(8, "little") + data[24:], "UnicodeDecodeError"),
    ("tensor-count-huge", lambda data: data[:8] + (2 ** 40).to_bytes(8, "little") + data[16:], "struct.error"),
]


@pytest.mark.parametrize("damage, fragment", [pytest.param(d, f, id=n) for n, d, f in DAMAGED_GGUF])
def test_a_damaged_gguf_file_is_refused_by_every_reader(tmp_path, damage, fragment):
    from posenc.pretrained import gguf_architecture, read_gguf_header

    whole = _tiny_gguf(tmp_path / "whole.gguf")
    assert gguf_architecture(whole) == "llama" and read_gguf_header(whole).tensors[0].nbytes == 4 * 8 * 4
    path = tmp_path / "damaged.gguf"
    path.write_bytes(damage(whole.read_bytes()))
    for read in (load_model, model_config, gguf_architecture):
        with pytest.raises(PosencError) as caught:
            read(path)
        message = str(caught.value)
        assert message.startswith(f"model file {path} is not a readable GGUF file: "), message
        assert fragment in message and "pass a complete .gguf model file" in message


@pytest.mark.parametrize("damage, fragment", [
    (lambda data: data[: len(data) // 2], "file not fully covered"),
    (lambda data: data[:5], "SafetensorError"),
    (lambda data: b"", "SafetensorError"),
], ids=["cut-in-the-data", "cut-in-the-header", "empty"])
def test_a_damaged_safetensors_file_is_refused_naming_it(tmp_path, damage, fragment):
    BertModel(BertConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
                         vocab_size=50)).save_pretrained(tmp_path)
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(damage(weights.read_bytes()))
    with pytest.raises(PosencError) as caught:
        load_model(tmp_path)
    message = str(caught.value)
    assert message.startswith(f"model file {weights} is not a readable safetensors file: "), message
    assert fragment in message
