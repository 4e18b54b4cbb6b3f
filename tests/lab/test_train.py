"""One run: every encoding trains and evaluates; chance before training; learning on copy; honest "cannot run"."""

import inspect
import math

import pytest
import torch
import torch.nn.functional as F

import posenc
from posenc.errors import PosencError
from posenc.lab import CANNOT_RUN, RunConfig, build_model, train_run
from posenc.lab.corpus import load_corpus
from posenc.lab.evaluate import evaluate_task
from posenc.lab.string_tasks import IGNORE, N_SYMBOLS, VOCAB_SIZE, format_batch, get_task
from posenc.lab.train import call_seconds, check_run, estimate_run
from posenc.model import ModelConfig
from posenc.resources import seconds

TINY = {"d_model": 16, "n_layers": 1, "n_heads": 2, "batch_size": 8, "eval_samples": 16}
CONSTANT = ("integer", "normalized")  # NoPE when added in a pre-norm model: the lab runs them concatenated
VARIANTS = [(name, {}) for name in posenc.available() if name not in CONSTANT] + [
    (name, {"combine": "concat", "dim": 8}) for name in ("sinusoidal", "learned", *CONSTANT)]


@pytest.mark.parametrize("name,options", VARIANTS, ids=[n + ("-concat" if o else "") for n, o in VARIANTS])
def test_every_encoding_runs(name, options):
    config = RunConfig.from_dict({"task": "reverse", "encoding": name, "encoding_options": options, "train_len": 4,
                                  "eval_lengths": [2, 4, 8], "steps": 3, **TINY})
    result = train_run(config, seed=0, progress=False)
    by_length = result.metrics["by_length"]
    assert set(by_length) == {"2", "4", "8"}
    for n in ("2", "4"):  # inside the training range every encoding runs, on eval_samples strings
        # the scores' exact values are checked on models whose answers are known (tests/lab/test_evaluate.py)
        assert 0.0 <= by_length[n]["exact_match"] <= by_length[n]["token_accuracy"] <= 1.0
        assert by_length[n]["samples"] == 16
    if name == "learned":  # the table has rows for the longest training sequence only (size 4 -> 8 tokens)
        assert by_length["8"] == CANNOT_RUN
    else:
        assert isinstance(by_length["8"], dict)
    assert result.config["label"] == name + ("-concat" if options else "")


def test_learned_table_is_sized_to_the_training_length_and_never_clamped():
    config = RunConfig.from_dict({"task": "copy", "encoding": "learned", "train_len": 5, "eval_lengths": [5, 6],
                                  "steps": 1, **TINY})
    model = build_model(config)
    assert model.encoding.max_len == 10  # copy of size 5: 5 input + 5 output tokens in the decoder format
    out = evaluate_task(model, get_task("copy"), [5, 6], "decoder", samples=8, seed=0)
    assert isinstance(out["5"], dict) and out["6"] == CANNOT_RUN


def test_encoder_format_trains():
    config = RunConfig.from_dict({"task": "sort", "encoding": "t5", "fmt": "encoder", "train_len": 4,
                                  "eval_lengths": [4], "steps": 2, **TINY})
    model = build_model(config)
    assert not model.config.causal and model.encoding.bidirectional
    assert "4" in train_run(config, progress=False).metrics["by_length"]


def test_untrained_model_is_at_chance_on_copy():
    # an untrained model ignores the input string: its token accuracy on uniform symbols is about 1/10 (it may be
    # lower, predicting non-symbol ids); 3 binomial standard deviations over 4 * 400 tokens is about 0.022.
    # Exact match of 4 tokens by chance is 1e-4.
    config = RunConfig(task="copy", model=ModelConfig(encoding="rope", d_model=32, n_heads=2), train_len=4, steps=1)
    model = build_model(config, seed=0)
    out = evaluate_task(model, get_task("copy"), [4], "decoder", samples=400, seed=0)["4"]
    p = 1 / N_SYMBOLS
    assert out["token_accuracy"] <= p + 3 * math.sqrt(p * (1 - p) / 1600)
    assert out["exact_match"] <= 0.01


def test_loss_decreases_on_copy():
    config = RunConfig(task="copy", model=ModelConfig(encoding="rope", d_model=32, n_heads=2), train_len=4, steps=50,
                       lr=3e-3, warmup=5, eval_lengths=[4], eval_samples=16)
    curve = train_run(config, seed=0, progress=False).metrics["loss_curve"]
    first, last = curve[0][1], curve[-1][1]
    assert first > math.log(N_SYMBOLS) * 0.8  # starts near the uniform loss over 10 symbols (2.30)
    assert last < first - 0.3


def test_one_step_logs_the_loss_of_the_seeded_model_on_the_first_batch():
    # every step is a logging point below 40 steps: the one point is the untrained model's loss on the first batch,
    # whose size and strings the run's seed draws
    config = RunConfig.from_dict({"task": "copy", "encoding": "nope", "train_len": 3, "steps": 1, **TINY})
    curve = train_run(config, seed=2, progress=False, device="cpu").metrics["loss_curve"]
    model = build_model(config, seed=2)
    generator = torch.Generator().manual_seed(2)
    n = int(torch.randint(1, 4, (1,), generator=generator))
    ids, targets = format_batch(*get_task("copy").sample(8, n, generator), "decoder")
    loss = F.cross_entropy(model(ids).flatten(0, 1), targets.flatten(), ignore_index=IGNORE).item()
    assert curve == [[1, pytest.approx(loss, rel=1e-5)]]


def test_charlm_steps_train_on_windows_of_train_len_plus_one_characters():
    # the first batch: windows of L + 1 characters at seeded starts, the model reading L and predicting the next L
    config = RunConfig(task="charlm", model=ModelConfig(encoding="nope", d_model=16, n_layers=1, n_heads=2),
                       train_len=8, eval_lengths=[8], steps=1, eval_tokens=16, batch_size=4)
    curve = train_run(config, seed=1, progress=False, device="cpu").metrics["loss_curve"]
    corpus = load_corpus()
    model = build_model(config, seed=1, vocab_size=corpus.vocab_size)
    generator = torch.Generator().manual_seed(1)
    starts = torch.randint(0, len(corpus.train) - 9, (4,), generator=generator)
    window = torch.stack([corpus.train[s:s + 9] for s in starts.tolist()])  # [4, 9]
    loss = F.cross_entropy(model(window[:, :-1]).flatten(0, 1), window[:, 1:].flatten()).item()
    assert curve == [[1, pytest.approx(loss, rel=1e-5)]]

def test_seed_reproducible():
    config = RunConfig.from_dict({"task": "parity", "encoding": "alibi", "train_len": 4, "steps": 5, **TINY})
    a = train_run(config, seed=3, progress=False).metrics
    b = train_run(config, seed=3, progress=False).metrics
    assert a["loss_curve"] == b["loss_curve"] and a["by_length"] == b["by_length"]


def test_charlm_run():
    config = RunConfig.from_dict({"task": "charlm", "encoding": "learned", "train_len": 16, "eval_lengths": [16, 32],
                                  "steps": 3, "eval_tokens": 64,
                                  **{k: v for k, v in TINY.items() if k != "eval_samples"}})
    by_length = train_run(config, progress=False).metrics["by_length"]
    assert set(by_length) == {"nonoverlap", "sliding"}
    for protocol in by_length.values():
        assert protocol["32"] == CANNOT_RUN
        assert protocol["16"]["ppl"] == pytest.approx(math.exp(protocol["16"]["nll"]))


@pytest.mark.parametrize("settings,match", [
    ({"task": "copyy"}, "valid tasks are"),
    ({"encoding": "ropee"}, "valid encodings are"),
    ({"train_len": 0}, "positive integer"),
    ({"eval_lengths": [4, -1]}, "eval_lengths"),
    ({"max_len": 10, "train_len": 20}, "does not fit"),
    ({"encoding": "randomized", "encoding_options": {"max_len": 30}, "train_len": 10, "eval_lengths": [40]},
     "randomized positions"),
    ({"task": "charlm", "fmt": "encoder"}, "causal decoder"),
    ({"fmt": "seq2seq"}, "fmt must be"),
    ({"protocols": ["strided"]}, "protocols"),
    ({"learning_rate": 1}, "unknown run setting"),
    ({"weight_decay": -1}, r"weight_decay must be a number >= 0, got -1"),  # 0 allowed: not "> 0" as lr
    ({"grad_clip": -0.5}, r"grad_clip must be a number >= 0, got -0.5"),
])
def test_bad_settings(settings, match):
    with pytest.raises(PosencError, match=match):
        RunConfig.from_dict(settings)


def test_model_that_does_not_fit_is_an_error():
    config = RunConfig(model=ModelConfig(encoding="learned", encoding_options={"combine": "concat", "dim": 7},
                                         d_model=16, n_heads=2))
    with pytest.raises(PosencError, match="divisible"):
        build_model(config)
    with pytest.raises(PosencError, match="model sizes"):
        build_model(RunConfig(model=ModelConfig(encoding="alibi", encoding_options={"n_heads": 8})))


def test_positions_seen_by_random_model_are_seeded():
    torch.manual_seed(123)  # the run seeds itself; global state does not leak in
    config = RunConfig.from_dict({"task": "copy", "encoding": "nope", "train_len": 3, "steps": 2, **TINY})
    a = train_run(config, seed=1, progress=False).metrics["loss_curve"]
    torch.manual_seed(999)
    assert train_run(config, seed=1, progress=False).metrics["loss_curve"] == a


def test_task_models_have_the_task_vocabulary():
    model = build_model(RunConfig.from_dict({"task": "copy", "encoding": "nope", "train_len": 3, **TINY}))
    assert model.config.vocab_size == VOCAB_SIZE == N_SYMBOLS + 4  # not the char-LM's


def test_encoder_sequences_have_one_token_more_than_decoder_ones():
    # copy of size 5: 5 input + 5 output tokens; the encoder adds a separator, the decoder shifts it into the output
    assert RunConfig(task="copy", fmt="decoder").sequence_length(5) == 10
    assert RunConfig(task="copy", fmt="encoder").sequence_length(5) == 11
    assert RunConfig(task="charlm").sequence_length(5) == 5


def test_estimate_of_a_bias_run_by_hand():
    # alibi on copy of size 2 (T = T_e = 4 tokens): W = 8, F = 32, V = 14, L = 1, H = 2, B = 3, B_e = 5
    config = RunConfig(task="copy", model=ModelConfig(encoding="alibi", d_model=8, n_layers=1, n_heads=2), train_len=2,
                       eval_lengths=[2], batch_size=3, eval_samples=5, val_samples=5, steps=2)
    estimate = estimate_run(config)
    dense = 1 * (4 * 64 + 2 * 8 * 32 + 32 + 6 * 8) + 2 * 8 + 8 * 14  # 976
    assert estimate.params == 14 * 8 + dense == 1088
    assert estimate.state_bytes == 4 * 4 * 1088  # weights, gradients and two AdamW moments of 4 bytes each
    # B T (L (16 W + 3 F) + 4 W + 3 V) = 12 * 298, plus 3 L B H T^2 = 288, 2 H T^2 = 64 and 8 T^2 = 128
    assert estimate.train_bytes == 4 * (12 * 298 + 288 + 64 + 128) == 16224
    # B_e T_e (6 W + 2 F + 3 V) = 20 * 154, plus 2 B_e H T_e^2 = 320, 2 H T_e^2 = 64 and 8 T_e^2 = 128
    assert estimate.eval_bytes == 4 * (20 * 154 + 320 + 64 + 128) == 14368
    # 2 steps of 6 P_dense B T + 12 L B T^2 W, then 5 strings of 4 tokens at 2 P_dense + 4 L T W each
    flops = 2 * (6 * dense * 12 + 12 * 3 * 16 * 8) + 5 * 4 * (2 * dense + 4 * 4 * 8)
    assert estimate.flops == flops
    # tensor operations: 2 steps of 80 + 145 L, one evaluation batch (5 strings of one length) of 25 + 45 L; L = 1
    assert estimate.operations == 2 * 225 + 70 == 520
    assert estimate.seconds == pytest.approx(seconds(flops, calls=520, per_call=call_seconds()), rel=1e-12)


def test_estimate_of_a_concat_run_widens_the_model_by_the_position_channels():
    # learned positions concatenated in 4 channels of their own on copy of size 2 (T = 4 tokens): d_model = 8 but
    # the blocks are W = 12 wide, F = 48, V = 14, L = 1, B = 3; the table has T rows of 4 channels
    config = RunConfig(task="copy",
                       model=ModelConfig(encoding="learned", encoding_options={"combine": "concat", "dim": 4},
                                         d_model=8, n_layers=1, n_heads=2), train_len=2, eval_lengths=[2],
                       batch_size=3, eval_samples=5, val_samples=5, steps=2)
    estimate = estimate_run(config)
    dense = 1 * (4 * 144 + 2 * 12 * 48 + 48 + 6 * 12) + 2 * 12 + 12 * 14  # 2040
    assert estimate.params == 14 * 8 + 4 * 4 + dense == 2168
    # B T (L (16 W + 3 F) + 4 W + 3 V) = 12 * 426
    assert estimate.train_bytes == 4 * 12 * 426 == 20448

def test_charlm_estimate_counts_every_evaluation_window_by_hand():
    # W = 8, F = 32, V = 128 (the char-LM bound), L = 1, B = 2, T = 4; evaluation at n = 4 over 8 characters:
    # nonoverlap 8 / 4 = 2 windows, sliding (stride max(1, 4 // 8) = 1) 1 + 8 / 1 = 9 windows
    config = RunConfig(task="charlm", model=ModelConfig(encoding="nope", d_model=8, n_layers=1, n_heads=2),
                       train_len=4, eval_lengths=[4], batch_size=2, eval_tokens=8, steps=1)
    estimate = estimate_run(config)
    dense = 1 * (4 * 64 + 2 * 8 * 32 + 32 + 6 * 8) + 2 * 8 + 8 * 128  # 1888
    assert estimate.params == 128 * 8 + dense
    train = 1 * (6 * dense * 2 * 4 + 12 * 1 * 2 * 16 * 8)  # 93,696
    evaluation = (2 + 9) * 4 * (2 * dense + 4 * 1 * 4 * 8)  # windows * n tokens * (2 P_dense + 4 L n W) = 171,776
    assert estimate.flops == pytest.approx(train + evaluation, rel=1e-12)
    # 1 step (80 + 145 L), and the 2 + 9 = 11 windows of 4 characters in one evaluation batch (16 to a batch) of
    # 25 + 45 L; L = 1
    assert estimate.operations == 225 + 70


def test_the_loss_scaler_is_made_for_the_device_the_run_trains_on(monkeypatch):
    # float16 runs scale their loss; a scaler made for another device than the run's (torch's default is CUDA)
    # switches itself off, so a float16 run on MPS would train unscaled. On the CPU it is made, disabled, for "cpu".
    made = []
    real = torch.amp.GradScaler

    class Recording(real):
        def __init__(self, *args, **kwargs):
            bound = inspect.signature(real.__init__).bind(self, *args, **kwargs)
            bound.apply_defaults()
            made.append((bound.arguments["device"], bound.arguments["enabled"]))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(torch.amp, "GradScaler", Recording)
    config = RunConfig.from_dict({"task": "copy", "encoding": "nope", "train_len": 2, "eval_lengths": [2], "steps": 1,
                                  **TINY})
    train_run(config, progress=False, device="cpu")
    assert made == [("cpu", False)]


def test_a_concat_run_without_dim_is_estimated_at_the_width_it_builds():
    """Concatenated without a ``dim``, a learned table takes the encoding's default width (512 channels), and the
    estimate must count them: it once counted none (3,808 parameters for a model of 3.36 million)."""
    config = RunConfig(task="copy",
                       model=ModelConfig(encoding="learned", encoding_options={"combine": "concat"}, d_model=16,
                                         n_layers=1, n_heads=2), train_len=4, eval_lengths=[4], steps=1)
    built = sum(p.numel() for p in build_model(config, 0).parameters())
    assert built > 3_000_000
    assert abs(estimate_run(config).params - built) / built < 0.01


def test_a_run_without_progress_writes_nothing_and_one_with_it_shows_its_steps(capsys):
    config = RunConfig(task="copy", model=ModelConfig(encoding="nope", d_model=16, n_layers=1, n_heads=2), train_len=2,
                       eval_lengths=[2], batch_size=4, eval_samples=4, steps=2)
    train_run(config, 0, progress=False)
    assert capsys.readouterr() == ("", "")
    train_run(config, 0, progress=True)
    assert "copy/nope s0" in capsys.readouterr().err  # the bar's name: task, label and seed


def test_a_run_its_caller_stops_before_any_validation_reports_no_validated_step():
    """Training to the ceiling, stopped by the caller's own validation at step 0: no ceiling check ran, so the
    summary says step 0 and scores of -1 (nothing validated), never a step that was not trained."""
    config = RunConfig(task="copy", model=ModelConfig(encoding="nope", d_model=16, n_layers=1, n_heads=2), train_len=2,
                       eval_lengths=[2], batch_size=4, eval_samples=4, steps=4, val_every=2)
    metrics = train_run(config, 0, progress=False, on_validate=lambda model, step: True).metrics
    assert (metrics["best_step"], metrics["steps_trained"], metrics["val_curve"]) == (0, 0, [])
    assert (metrics["val_exact_match"], metrics["val_token_accuracy"]) == (-1.0, -1.0)


def test_options_an_encoding_refuses_at_the_runs_width_are_refused_before_any_work():
    # the sinusoid pairs sin and cos channels: at d_model 15 (3 heads of 5) it cannot be built, and the check says
    # so at the run's own width, not at a default one
    config = RunConfig(task="copy", model=ModelConfig(encoding="sinusoidal", d_model=15, n_heads=3), train_len=3,
                       steps=2)
    with pytest.raises(PosencError, match="width must be an even integer >= 2, got 15"):
        check_run(config)


def test_a_run_too_large_for_memory_suggests_fewer_workers_only_when_several_run_side_by_side():
    config = RunConfig(task="copy", model=ModelConfig(encoding="rope", d_model=16, n_heads=2), train_len=3, steps=2)
    with pytest.raises(PosencError) as one:
        check_run(config, concurrent=1, limit_bytes=1)
    with pytest.raises(PosencError) as two:
        check_run(config, concurrent=2, limit_bytes=1)
    # the fix ends the message: the run's sizes, and fewer workers only with several runs side by side
    assert str(one.value).endswith("; lower train_len, eval_lengths, batch_size or d_model")
    assert str(two.value).endswith("; lower train_len, eval_lengths, batch_size or d_model, or use fewer workers")
    assert "2 runs side by side" in str(two.value)
