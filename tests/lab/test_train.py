"""One run: every encoding trains and evaluates; chance before training; learning on copy; honest "cannot run"."""

import math

import pytest
import torch

import posenc
from posenc.errors import PosencError
from posenc.lab import CANNOT_RUN, RunConfig, build_model, train_run
from posenc.lab.evaluate import evaluate_task
from posenc.lab.tasks import N_SYMBOLS, get_task

TINY = {"d_model": 16, "n_layers": 1, "n_heads": 2, "batch_size": 8, "eval_samples": 16}
CONSTANT = ("integer", "normalized")  # NoPE when added in a pre-norm model: the lab runs them concatenated
VARIANTS = [(name, {}) for name in posenc.available() if name not in CONSTANT] + [
    (name, {"combine": "concat", "dim": 8}) for name in ("sinusoidal", "learned", *CONSTANT)]


@pytest.mark.parametrize("name,options", VARIANTS, ids=[n + ("-concat" if o else "") for n, o in VARIANTS])
def test_every_encoding_runs(name, options):
    config = RunConfig(task="reverse", encoding=name, encoding_options=options, train_len=4, eval_lengths=[2, 4, 8],
                       steps=3, **TINY)
    result = train_run(config, seed=0, progress=False)
    by_length = result.metrics["by_length"]
    assert set(by_length) == {"2", "4", "8"}
    for n in ("2", "4"):  # inside the training range every encoding runs
        assert 0.0 <= by_length[n]["exact_match"] <= by_length[n]["token_accuracy"] <= 1.0
    if name == "learned":  # the table has rows for the longest training sequence only (size 4 -> 8 tokens)
        assert by_length["8"] == CANNOT_RUN
    else:
        assert isinstance(by_length["8"], dict)
    assert result.config["label"] == name + ("-concat" if options else "")


def test_learned_table_is_sized_to_the_training_length_and_never_clamped():
    config = RunConfig(task="copy", encoding="learned", train_len=5, eval_lengths=[5, 6], steps=1, **TINY)
    model = build_model(config)
    assert model.encoding.max_len == 10  # copy of size 5: 5 input + 5 output tokens in the decoder format
    out = evaluate_task(model, get_task("copy"), [5, 6], "decoder", samples=8, seed=0)
    assert isinstance(out["5"], dict) and out["6"] == CANNOT_RUN


def test_encoder_format_trains():
    config = RunConfig(task="sort", encoding="t5", fmt="encoder", train_len=4, eval_lengths=[4], steps=2, **TINY)
    model = build_model(config)
    assert not model.config.causal and model.encoding.bidirectional
    assert "4" in train_run(config, progress=False).metrics["by_length"]


def test_untrained_model_is_at_chance_on_copy():
    # an untrained model ignores the input string: its token accuracy on uniform symbols is about 1/10 (it may be
    # lower, predicting non-symbol ids); 3 binomial standard deviations over 4 * 400 tokens is about 0.022.
    # Exact match of 4 tokens by chance is 1e-4.
    config = RunConfig(task="copy", encoding="rope", train_len=4, steps=1, d_model=32, n_heads=2)
    model = build_model(config, seed=0)
    out = evaluate_task(model, get_task("copy"), [4], "decoder", samples=400, seed=0)["4"]
    p = 1 / N_SYMBOLS
    assert out["token_accuracy"] <= p + 3 * math.sqrt(p * (1 - p) / 1600)
    assert out["exact_match"] <= 0.01


def test_loss_decreases_on_copy():
    config = RunConfig(task="copy", encoding="rope", train_len=4, steps=50, lr=3e-3, warmup=5, d_model=32,
                       n_heads=2, eval_lengths=[4], eval_samples=16)
    curve = train_run(config, seed=0, progress=False).metrics["loss_curve"]
    first, last = curve[0][1], curve[-1][1]
    assert first > math.log(N_SYMBOLS) * 0.8  # starts near the uniform loss over 10 symbols (2.30)
    assert last < first - 0.3


def test_seed_reproducible():
    config = RunConfig(task="parity", encoding="alibi", train_len=4, steps=5, **TINY)
    a = train_run(config, seed=3, progress=False).metrics
    b = train_run(config, seed=3, progress=False).metrics
    assert a["loss_curve"] == b["loss_curve"] and a["by_length"] == b["by_length"]


def test_charlm_run():
    config = RunConfig(task="charlm", encoding="learned", train_len=16, eval_lengths=[16, 32], steps=3,
                       eval_tokens=64, **{k: v for k, v in TINY.items() if k != "eval_samples"})
    by_length = train_run(config, progress=False).metrics["by_length"]
    assert set(by_length) == {"nonoverlap", "sliding"}
    for protocol in by_length.values():
        assert protocol["32"] == CANNOT_RUN
        assert protocol["16"]["ppl"] == pytest.approx(math.exp(protocol["16"]["nll"]))


@pytest.mark.parametrize("settings,match", [
    ({"task": "copyy"}, "valid tasks are"),
    ({"encoding": "ropee"}, "valid names are"),
    ({"train_len": 0}, "positive integer"),
    ({"eval_lengths": [4, -1]}, "eval_lengths"),
    ({"max_len": 10, "train_len": 20}, "does not fit"),
    ({"encoding": "randomized", "encoding_options": {"max_len": 30}, "train_len": 10, "eval_lengths": [40]},
     "randomized positions"),
    ({"task": "charlm", "fmt": "encoder"}, "causal decoder"),
    ({"fmt": "seq2seq"}, "fmt must be"),
    ({"protocols": ["strided"]}, "protocols"),
    ({"learning_rate": 1}, "unknown run setting"),
])
def test_bad_settings(settings, match):
    with pytest.raises(PosencError, match=match):
        RunConfig.from_dict(settings)


def test_model_that_does_not_fit_is_an_error():
    config = RunConfig(encoding="learned", encoding_options={"combine": "concat", "dim": 7}, d_model=16, n_heads=2)
    with pytest.raises(PosencError, match="divisible"):
        build_model(config)
    with pytest.raises(PosencError, match="model sizes"):
        build_model(RunConfig(encoding="alibi", encoding_options={"n_heads": 8}))


def test_positions_seen_by_random_model_are_seeded():
    torch.manual_seed(123)  # the run seeds itself; global state does not leak in
    config = RunConfig(task="copy", encoding="nope", train_len=3, steps=2, **TINY)
    a = train_run(config, seed=1, progress=False).metrics["loss_curve"]
    torch.manual_seed(999)
    assert train_run(config, seed=1, progress=False).metrics["loss_curve"] == a
