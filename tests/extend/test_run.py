"""``run_extend`` end to end on a tiny random Llama saved as a model folder (real tokenizer, real Shakespeare text,
real SQLite store), its numbers checked against the model library, and the errors users meet."""

from __future__ import annotations

import json
import math

import pytest
import torch
from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

from posenc import PosencError
from posenc.extend import run_extend, to_markdown
from posenc.extend.perplexity import token_nll
from posenc.extend.run import PASSKEY_KIND, WINDOW_KIND
from posenc.store import ResultStore

NATIVE = 128


def _config(vocab: int) -> LlamaConfig:
    return LlamaConfig(hidden_size=32, num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=2,
                       intermediate_size=64, vocab_size=vocab, max_position_embeddings=NATIVE,
                       rope_parameters={"rope_type": "default", "rope_theta": 10000.0}, initializer_range=0.2,
                       tie_word_embeddings=True)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    from posenc.pretrained import minilm_dir

    folder = tmp_path_factory.mktemp("tiny-llama")
    tokenizer = AutoTokenizer.from_pretrained(minilm_dir())  # a real tokenizer, shipped offline
    torch.manual_seed(0)
    LlamaForCausalLM(_config(tokenizer.vocab_size)).save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture
def quiet(model_dir) -> dict:
    """run_extend's arguments for a run kept in memory, without output."""
    return {"model": str(model_dir), "store_path": None, "progress": False, "echo": None}


@pytest.fixture(scope="module")
def run(model_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("extend-out")
    kwargs = dict(model=str(model_dir), lengths=[NATIVE, 2 * NATIVE], scalings=["none", "linear", "dynamic", "yarn"],
                  depths=[0.0, 1.0], store_path=out / "results.sqlite", out_dir=out, progress=False, echo=None)
    first = run_extend(**kwargs)
    second = run_extend(**kwargs)
    return first, second, out


def test_every_job_is_stored_and_a_rerun_computes_nothing(run):
    first, second, out = run
    # 128 tokens (s = 1): the four scalings share one frequency set -> 1 window; 256 tokens (s = 2): 4 sets -> 4
    assert first["jobs"] == {"windows": 5, "passkeys": 10, "computed": 15, "cached": 0}
    assert second["jobs"]["computed"] == 0 and second["jobs"]["cached"] == 15
    assert second["ppl"] == first["ppl"] and second["passkey"] == first["passkey"]
    store = ResultStore(out / "results.sqlite")
    assert len(list(store.runs(WINDOW_KIND))) == 5 and len(list(store.runs(PASSKEY_KIND))) == 10


def test_rows_of_an_older_code_version_are_computed_again(run, model_dir, tmp_path):
    """Rows stored by version 1 of the measuring code (whose passkeys ignored the KV cache under transformers 5.24)
    are not read back as valid: the run computes them again and replaces them."""
    import shutil
    import sqlite3

    from posenc.extend.run import CODE_VERSION

    first, _, out = run
    path = tmp_path / "results.sqlite"
    shutil.copy(out / "results.sqlite", path)
    assert CODE_VERSION == 2
    con = sqlite3.connect(path)
    for row_id, versions in con.execute("SELECT id, versions FROM runs").fetchall():
        assert json.loads(versions)["code"] == CODE_VERSION
        con.execute("UPDATE runs SET versions=? WHERE id=?", (json.dumps({**json.loads(versions), "code": 1}), row_id))
    con.commit()
    con.close()
    again = run_extend(model=str(model_dir), lengths=[NATIVE, 2 * NATIVE], scalings=["none", "linear", "dynamic", "yarn"],
                       depths=[0.0, 1.0], store_path=path, progress=False, echo=None)
    assert again["jobs"] == {"windows": 5, "passkeys": 10, "computed": 15, "cached": 0}
    assert again["passkey"] == first["passkey"]
    assert {r.versions["code"] for r in ResultStore(path).runs()} == {2}


def test_numbers_match_the_model_library_at_native_length(run, model_dir):
    # "none" at s = 1 is the unmodified model: Hugging Face's own forward on the first 128 Shakespeare tokens
    from posenc.corpora import load_text

    first, _, _ = run
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    ids = torch.tensor(tokenizer(load_text(None, max_chars=20000), add_special_tokens=False)["input_ids"][:NATIVE])
    library = LlamaForCausalLM.from_pretrained(model_dir, use_safetensors=True).eval()
    nll = token_nll(library, ids).double()
    table = first["ppl"]
    assert table["nonoverlap"]["none"][str(NATIVE)]["ppl"] == pytest.approx(math.exp(nll.mean()), rel=1e-4)
    # sliding window, stride L/2: only the last 64 predictions count
    assert table["sliding"]["none"][str(NATIVE)]["ppl"] == pytest.approx(math.exp(nll[-64:].mean()), rel=1e-4)
    assert table["sliding"]["none"][str(NATIVE)]["tokens"] == 64


def test_scalings_coincide_at_native_length_and_differ_beyond(run):
    first, _, _ = run
    at_native = {s: first["ppl"]["nonoverlap"][s][str(NATIVE)]["ppl"] for s in first["config"]["scalings"]}
    assert len(set(at_native.values())) == 1
    beyond = {s: first["ppl"]["nonoverlap"][s][str(2 * NATIVE)]["ppl"] for s in first["config"]["scalings"]}
    assert len(set(beyond.values())) == 4
    assert first["factors"] == {str(NATIVE): 1.0, str(2 * NATIVE): 2.0}


def test_outputs_hold_every_number(run):
    first, _, out = run
    saved = json.loads((out / "extend.json").read_text())
    assert saved["ppl"] == json.loads(json.dumps(first["ppl"]))
    assert (out / "extend.png").stat().st_size > 1000
    table = (out / "extend.md").read_text()
    assert table == to_markdown(first)
    assert "| yarn |" in table and "Passkey accuracy" in table and "256*" in table
    for length in (str(NATIVE), str(2 * NATIVE)):
        timing = first["timing"][length]
        assert timing["window_s_mean"] > 0 and timing["peak_gb"] > 0 and timing["estimate_gb"] > 0
        pk = first["passkey"]["yarn"][length]
        assert len(pk["trials"]) == 2 and set(pk["by_depth"]) == {"0.0", "1.0"}
        correct = [t["correct"] for t in pk["trials"]]  # one trial at depth 0, then one at depth 1
        assert [t["depth"] for t in pk["trials"]] == [0.0, 1.0]
        assert pk["accuracy"] == sum(correct) / 2
        assert pk["by_depth"] == {"0.0": float(correct[0]), "1.0": float(correct[1])}
    assert (out / "extend-passkey.png").stat().st_size > 1000 and first["files"]["passkey_plot"]
    assert first["estimate_s"] > 0


def test_intervals_beside_every_number(run, quiet):
    from posenc.stats import bootstrap, wilson

    first, _, _ = run
    cell = first["ppl"]["nonoverlap"]["yarn"][str(2 * NATIVE)]
    assert cell["ppl_interval"] is None and len(cell["window_nll"]) == 1  # one window: no interval
    # the unscaled model's first 128 tokens of the 256-token window are, by causality, the 128-token window
    within = first["ppl"]["nonoverlap"]["none"][str(2 * NATIVE)]["window_nll_within_native"]
    assert within == pytest.approx(first["ppl"]["nonoverlap"]["none"][str(NATIVE)]["window_nll"], rel=1e-5)
    assert "window_nll_within_native" not in first["ppl"]["nonoverlap"]["none"][str(NATIVE)]
    pk = first["passkey"]["none"][str(NATIVE)]
    k = sum(t["correct"] for t in pk["trials"])
    assert (pk["correct"], pk["n"]) == (k, 2) and pk["interval"] == [wilson(k, 2).low, wilson(k, 2).high]
    assert pk["by_depth_counts"]["0.0"]["n"] == 1
    # three windows at 64 tokens (the fewest an interval rests on): the bootstrap interval of exp(mean window loss)
    windows = run_extend(**{**quiet, "lengths": [64], "windows": 3, "passkey": False})
    cell = windows["ppl"]["nonoverlap"]["none"]["64"]
    est = bootstrap(cell["window_nll"], lambda x: math.exp(sum(x) / len(x)))
    assert cell["ppl_interval"] == pytest.approx([est.low, est.high], rel=1e-12) and est.low <= cell["ppl"] <= est.high
    assert f"{cell['ppl']:.2f} [{est.low:.2f}, {est.high:.2f}]" in to_markdown(windows)


def test_passkey_alone_and_reused_prefixes_answer_like_full_prompts(quiet, model_dir):
    """A passkey-only run at 256 tokens (s = 2, yarn) answers as single trials without a shared prefix do."""
    from posenc.extend import patch_model, scaled_rope
    from posenc.extend.passkey import build_passkey_prompt, passkey_key, passkey_trial

    result = run_extend(**{**quiet, "lengths": [2 * NATIVE], "scalings": ["yarn"], "protocols": (),
                           "depths": [0.5], "trials": 3})
    assert result["ppl"] == {} and result["jobs"]["windows"] == 0
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = patch_model(LlamaForCausalLM.from_pretrained(model_dir, use_safetensors=True).eval(),
                        scaled_rope(_config(tokenizer.vocab_size), "yarn", 2.0, NATIVE))
    for trial in result["passkey"]["yarn"][str(2 * NATIVE)]["trials"]:
        prompt = build_passkey_prompt(tokenizer, 2 * NATIVE, 0.5, passkey_key(2 * NATIVE, 0.5, trial["trial"]), 8)
        assert passkey_trial(model, tokenizer, prompt, 8)["answer"] == trial["answer"]


def test_model_without_rope_is_refused():
    with pytest.raises(PosencError, match="not RoPE"):
        run_extend("minilm", store_path=None, echo=None, progress=False)


def test_length_beyond_memory_is_refused_before_loading(tmp_path):
    # a folder with a config and no weights: loading would fail, so a memory error proves nothing was loaded
    _config(1000).save_pretrained(tmp_path)
    with pytest.raises(PosencError, match=r"length 32768 does not fit in memory: estimated [\d.]+ GB"):
        run_extend(str(tmp_path), lengths=[256, 32768], store_path=None, max_memory_gb=0.9, echo=None,
                   progress=False)


def test_unknown_scaling_and_bad_lengths(model_dir):
    with pytest.raises(PosencError, match="valid scalings are"):
        run_extend(str(model_dir), scalings=["none", "rerope"], store_path=None, echo=None)
    with pytest.raises(PosencError, match="lengths must be integers >= 64"):
        run_extend(str(model_dir), lengths=[16], store_path=None, echo=None)


def test_cli_reports_bad_input_with_exit_status_2(model_dir, capsys):
    from posenc.cli import main

    assert main(["extend", str(model_dir), "--scalings", "none,bogus", "--store", "x.sqlite"]) == 2
    assert "valid scalings are: none, linear, ntk, dynamic, yarn, llama3" in capsys.readouterr().err
    assert main(["extend", "minilm"]) == 2
    assert main(["extend", str(model_dir), "--lengths", "4k,lots"]) == 2
