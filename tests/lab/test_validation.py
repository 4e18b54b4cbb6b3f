"""Meaningless input is refused (or explained) before any work: settings of the wrong type, metrics a sweep does not
have, negative limits, zero windows, options that clash with sizes, and encodings that are NoPE under another name."""

import importlib

import pytest
import torch

from posenc.cli import main
from posenc.errors import PosencError
from posenc.lab import RunConfig, get_preset, run_sweep
from posenc.lab.evaluate import evaluate_lm
from posenc.lab.tables import check_metric, summarize_records, to_markdown
from posenc.lab.train import CONSTANT_ACROSS_CHANNELS, build_model, check_run
from posenc.model import ModelConfig, Transformer, TransformerConfig


def _forbid(monkeypatch, *targets):
    for module, attribute in targets:
        def fail(*args, _where=f"{module}.{attribute}", **kwargs):
            raise AssertionError(f"{_where} ran although the input should have been refused first")

        monkeypatch.setattr(importlib.import_module(module), attribute, fail)


@pytest.mark.parametrize("settings,match", [
    ({"lr": "abc"}, r"lr must be a number > 0, got 'abc'"),
    ({"lr": 0}, "lr must be"),
    ({"lr": float("nan")}, "lr must be"),
    ({"dropout": 1.5}, r"dropout must be a number in \[0, 1\)"),
    ({"weight_decay": -1}, "weight_decay"),
    ({"grad_clip": "x"}, "grad_clip"),
    ({"warmup": -1}, "warmup must be an integer >= 0"),
    ({"warmup": 2.5}, "warmup"),
    ({"d_ff": 0}, "d_ff"),
    ({"eval_lengths": ["a", 4]}, "eval_lengths must be a list of positive integers"),
    ({"eval_lengths": [4.5]}, "eval_lengths"),
    ({"label": ""}, "label"),
])
def test_settings_of_the_wrong_type_are_refused(settings, match):
    with pytest.raises(PosencError, match=match):
        RunConfig.from_dict(settings)


@pytest.mark.parametrize("argv", [["train", "--set", "lr=abc"], ["sweep", "--preset", "quick", "--set", "lr=abc"],
                                  ["sweep", "--preset", "quick", "--set", "warmup=-3"]])
def test_bad_settings_fail_before_training(argv, monkeypatch, capsys):
    _forbid(monkeypatch, ("posenc.lab", "train_run"), ("posenc.lab", "run_sweep"))
    assert main(argv) == 2
    assert "error: RunConfig." in capsys.readouterr().err


def test_unknown_metric_fails_before_the_sweep(monkeypatch, capsys):
    _forbid(monkeypatch, ("posenc.lab", "run_sweep"))
    assert main(["sweep", "--preset", "quick", "--metric", "bogus"]) == 2
    assert "valid metrics are: exact_match, token_accuracy" in capsys.readouterr().err
    assert main(["sweep", "--preset", "quick", "--metric", "ppl"]) == 2  # a char-LM metric on synthetic tasks
    assert main(["sweep", "--preset", "alibi-table", "--metric", "exact_match"]) == 2
    assert "ppl, bpc, nll" in capsys.readouterr().err
    check_metric("bpc", {"charlm"})
    check_metric(None, {"charlm", "copy"})
    with pytest.raises(PosencError, match="no metric applies to every task"):
        check_metric("ppl", {"charlm", "copy"})
    with pytest.raises(PosencError, match="unknown metric"):
        summarize_records([({"task": "copy", "train_len": 4, "label": "rope"}, 0, {"by_length": {}})], "bogus")


def test_negative_limit_is_refused(tmp_path, monkeypatch, capsys):
    _forbid(monkeypatch, ("posenc.lab", "run_sweep"))
    assert main(["sweep", "--preset", "quick", "--limit", "-1", "--store", str(tmp_path / "s.sqlite")]) == 2
    assert "--limit must be an integer >= 0, got -1" in capsys.readouterr().err
    with pytest.raises(PosencError, match="limit must be an integer >= 0"):
        run_sweep("quick", tmp_path / "s.sqlite", limit=-1)


@pytest.mark.parametrize("argv,match", [(["--window", "0"], "window must be an integer >= 32"),
                                        (["--windows", "0"], "windows must be a positive integer"),
                                        (["--only", "heds"], "unknown probe"),
                                        (["--text", "/no/such/file.txt"], "does not exist")])
def test_probe_refuses_zero_windows_before_loading(argv, match, monkeypatch, capsys):
    _forbid(monkeypatch, ("posenc.probe.run", "run_probe"), ("posenc.pretrained", "model_config"))
    assert main(["probe", "minilm", *argv]) == 2
    assert match in capsys.readouterr().err


@pytest.mark.parametrize("argv,match", [
    (["check", "rope", "-o", "head_dim=32"], "--d-model instead of -o head_dim"),
    (["check", "alibi", "-o", "n_heads=4"], "--n-heads instead"),
    (["plot", "learned", "-o", "max_len=9"], "--length instead"),
    (["show", "rope", "-o", "d_model=8"], "--d-model instead"),
    (["check", "rope", "--d-model", "16", "--length", "64", "-o",
      'scaling={"type": "yarn", "factor": 4, "original_max_len": -5}'], "original_max_len must be a positive integer"),
    (["train", "-e", "rope", "-o", 'scaling={"type": "yarn", "factor": 4, "original_max_len": -5}'],
     "original_max_len must be a positive integer"),
])
def test_options_that_clash_or_break_the_encoding(argv, match, monkeypatch, capsys):
    _forbid(monkeypatch, ("posenc.properties", "check_encoding"), ("posenc.plots.figures", "make_figure"),
            ("posenc.summary", "summarize"), ("posenc.lab", "train_run"))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert match in err and "Traceback" not in err


def test_charlm_evaluation_longer_than_the_text_is_an_error():
    with pytest.raises(PosencError, match="validation text has 100"):
        evaluate_lm(torch.nn.Identity(), torch.zeros(100, dtype=torch.long), [64, 100])


# -- integer and [0, 1] positions in a pre-norm model ------------------------------------------------------------------

def test_pre_norm_model_cancels_a_value_added_to_every_channel():
    # integer PE adds p + 1 to every channel; LayerNorm(x + c) = LayerNorm(x), and the residual stream carries c to
    # the final LayerNorm, which removes it too: with the same weights the logits equal NoPE's
    torch.manual_seed(0)
    sizes = {"vocab_size": 20, "d_model": 32, "n_layers": 2, "n_heads": 4}
    nope = Transformer(TransformerConfig(**sizes, encoding="nope"))
    ids = torch.randint(0, 20, (3, 24))
    for name in CONSTANT_ACROSS_CHANNELS:
        model = Transformer(TransformerConfig(**sizes, encoding=name))
        model.load_state_dict(nope.state_dict())  # no parameters in either encoding: the same weights
        torch.testing.assert_close(model(ids), nope(ids), rtol=1e-4, atol=1e-4)
    concat = Transformer(TransformerConfig(**sizes, encoding="integer", encoding_options={"combine": "concat",
                                                                                          "dim": 8}))
    shifted = concat(ids, positions=torch.arange(24) + 5)
    assert (concat(ids) - shifted).abs().max() > 1e-2  # in channels of its own the value survives normalisation


@pytest.mark.parametrize("name", CONSTANT_ACROSS_CHANNELS)
def test_lab_refuses_constant_encodings_added_to_the_embedding(name):
    with pytest.raises(PosencError, match="LayerNorm .* computes exactly what 'nope' computes"):
        RunConfig(model=ModelConfig(encoding=name))
    with pytest.raises(PosencError, match="NoPE in the lab's model"):
        RunConfig(model=ModelConfig(encoding="randomized", encoding_options={"encoding": name}))
    config = RunConfig(model=ModelConfig(encoding=name, encoding_options={"combine": "concat", "dim": 16}, d_model=32,
                                         n_heads=2))
    assert config.label == f"{name}-concat"
    check_run(config)
    build_model(config)


def test_quick_preset_runs_each_model_under_one_name():
    labels = {config.label for config, _ in get_preset("quick").runs()}
    assert not labels & set(CONSTANT_ACROSS_CHANNELS)
    assert {f"{name}-concat" for name in CONSTANT_ACROSS_CHANNELS} <= labels and "nope" in labels


def test_one_seed_is_not_shown_as_mean_and_std():
    records = [({"task": "copy", "train_len": 4, "label": "rope"}, s, {"by_length": {"4": {"exact_match": v}}})
               for s, v in ((0, 0.5), (1, 0.7))]
    one = to_markdown(summarize_records(records[:1], name="x"))
    assert "one seed" in one and "±" not in one
    two = to_markdown(summarize_records(records, name="x"))
    assert "mean ± std over 2 seeds" in two and "0.60 ± 0.14" in two


@pytest.mark.parametrize("max_len", [-3, 2.5])
def test_check_run_builds_the_encoding_with_the_max_len_option(max_len):
    # the model would build the learned table with max_len rows; check_run refuses the same value before training
    config = RunConfig(task="copy",
                       model=ModelConfig(encoding="learned", encoding_options={"max_len": max_len}, d_model=16,
                                         n_layers=1, n_heads=2), train_len=3, eval_lengths=[3])
    with pytest.raises(PosencError, match=f"max_len must be a positive integer, got {max_len}"):
        check_run(config)


# ---- each refusal of RunConfig at its boundary: the last value taken and the first refused ------------------------
def test_max_len_equal_to_the_training_sequence_fits_and_one_less_is_refused():
    # copy of size 5: 5 + 5 = 10 tokens in the decoder format, 5 + 1 + 5 = 11 in the encoder one
    assert build_model(RunConfig(task="copy", model=ModelConfig(encoding="learned", d_model=16, n_heads=2),
                                 train_len=5, max_len=10)).encoding.max_len == 10
    with pytest.raises(PosencError, match="max_len=9 does not fit.*gives 10 tokens; raise max_len to at least 10"):
        RunConfig(task="copy", train_len=5, max_len=9)
    assert RunConfig(task="copy", fmt="encoder", train_len=5, max_len=11).max_len == 11
    with pytest.raises(PosencError, match="gives 11 tokens"):
        RunConfig(task="copy", fmt="encoder", train_len=5, max_len=10)


def test_the_model_is_built_for_the_training_sequence_when_max_len_is_not_given():
    model = build_model(RunConfig(task="copy", model=ModelConfig(encoding="learned", d_model=16, n_heads=2),
                                  train_len=5))
    assert RunConfig().max_len is None and model.encoding.max_len == 10  # 5 in + 5 out


def test_randomized_positions_cover_the_longest_sequence_exactly_or_are_refused():
    # copy of size 4 trained, tested at 6: the longest sequence is 6 + 6 = 12 tokens, positions drawn from [0, N)
    ok = RunConfig(task="copy", model=ModelConfig(encoding="randomized", encoding_options={"max_len": 12}),
                   train_len=4, eval_lengths=[6])
    assert ok.model.encoding_options["max_len"] == 12
    with pytest.raises(PosencError, match=r"drawn from \[0, 11\) but the longest sequence has 12 tokens"):
        RunConfig(task="copy", model=ModelConfig(encoding="randomized", encoding_options={"max_len": 11}), train_len=4,
                  eval_lengths=[6])


def test_randomized_positions_are_drawn_from_2048_by_default():
    # Ruoss et al. 2023 draw from [0, 2048): copy of size 1024 is 2048 tokens, size 1025 one pair more
    assert RunConfig(task="copy", model=ModelConfig(encoding="randomized"), train_len=1024,
                     eval_lengths=[1024]).train_len == 1024
    with pytest.raises(PosencError, match=r"drawn from \[0, 2048\) but the longest sequence has 2050 tokens"):
        RunConfig(task="copy", model=ModelConfig(encoding="randomized"), train_len=1024, eval_lengths=[1025])


def test_min_train_len_may_equal_train_len_and_not_exceed_it():
    assert RunConfig(min_train_len=7, train_len=7).min_train_len == 7
    with pytest.raises(PosencError, match=r"min_train_len \(8\) must be <= train_len \(7\)"):
        RunConfig(min_train_len=8, train_len=7)
    assert RunConfig().min_train_len == 1  # every size from 1 by default


def test_warmup_may_equal_the_steps_and_not_exceed_them():
    assert RunConfig(steps=10, warmup=10).warmup == 10 and RunConfig(steps=10, warmup=0).warmup == 0
    with pytest.raises(PosencError, match=r"warmup \(11\) exceeds steps \(10\)"):
        RunConfig(steps=10, warmup=11)
    # no warm-up named: 50, or the steps when fewer (the boundary: 50 steps keep 50, 49 get 49)
    assert (RunConfig(steps=51).warmup, RunConfig(steps=50).warmup, RunConfig(steps=49).warmup) == (50, 50, 49)


@pytest.mark.parametrize("value,taken", [(0.0, True), (0.999, True), (1.0, False), (-1e-9, False)])
def test_dropout_is_taken_in_zero_to_one_excluding_one(value, taken):
    if taken:
        assert RunConfig(model=ModelConfig(dropout=value)).model.dropout == value
    else:
        with pytest.raises(PosencError, match=r"dropout must be a number in \[0, 1\)"):
            RunConfig(model=ModelConfig(dropout=value))


@pytest.mark.parametrize("name", ["weight_decay", "grad_clip"])
def test_zero_is_the_smallest_weight_decay_and_gradient_clip(name):
    assert getattr(RunConfig.from_dict({name: 0.0}), name) == 0.0
    with pytest.raises(PosencError, match=rf"{name} must be a number >= 0"):
        RunConfig.from_dict({name: -1e-9})


def test_any_positive_learning_rate_is_taken_and_zero_is_not():
    assert RunConfig(lr=1e-12).lr == 1e-12
    with pytest.raises(PosencError, match="lr must be a number > 0, got 0"):
        RunConfig(lr=0)


def test_the_char_lm_takes_lengths_below_its_texts_and_refuses_them_at_their_size():
    from posenc.lab.charlm import CharLM
    from posenc.lab.corpus import text_sizes

    train_chars, valid_chars = text_sizes()
    CharLM().check_data(RunConfig(task="charlm", train_len=train_chars - 1, eval_lengths=[valid_chars - 1]))
    with pytest.raises(PosencError, match=f"eval length {valid_chars} is longer than the char-LM's validation text"):
        CharLM().check_data(RunConfig(task="charlm", train_len=64, eval_lengths=[valid_chars]))
    with pytest.raises(PosencError, match=f"train_len {train_chars} is longer than the char-LM's training text"):
        CharLM().check_data(RunConfig(task="charlm", train_len=train_chars, eval_lengths=[64]))


#: a bad value of each validated setting, and the option posenc train sets it with (written out, not derived)
OPTION_OF_SETTING = [({"dtype": 5}, "--dtype"), ({"encoding_options": "dim=16"}, "-o KEY=VALUE"),
                     ({"fmt": "seq2seq"}, "--fmt"), ({"d_model": 0}, "--d-model"), ({"n_layers": 0}, "--n-layers"),
                     ({"train_len": 0}, "--train-len"), ({"eval_samples": 0}, "--eval-samples"),
                     ({"val_every": -1}, "--val-every"), ({"val_every": 600, "steps": 500}, "--val-every"),
                     ({"min_train_len": 30, "train_len": 20}, "--min-train-len"), ({"warmup": -1}, "--warmup"),
                     ({"d_ff": 0}, "--d-ff"), ({"max_len": 0}, "--max-len"), ({"warmup": 900, "steps": 500}, "--warmup"),
                     ({"lr": 0}, "--lr"), ({"weight_decay": -1}, "--weight-decay"), ({"grad_clip": -1}, "--grad-clip"),
                     ({"dropout": 1.0}, "--dropout"), ({"lr_decay": "linear"}, "--lr-decay"), ({"label": " "}, "--label"),
                     ({"eval_lengths": [0]}, "--eval-lengths"), ({"stride": 0}, "--stride"),
                     ({"max_len": 3, "train_len": 20}, "--max-len")]


@pytest.mark.parametrize("settings, option", OPTION_OF_SETTING, ids=[str(s) for s, _ in OPTION_OF_SETTING])
def test_a_bad_setting_names_its_command_line_option(settings, option):
    with pytest.raises(PosencError) as refused:
        RunConfig.from_dict(settings)
    assert str(refused.value).endswith(f" [option {option}]")


def test_a_bad_setting_on_the_command_line_names_the_option_it_was_given_as(capsys):
    assert main(["train", "--fmt", "seq2seq"]) == 2
    assert capsys.readouterr().err.strip() == ("error: fmt must be one of ('decoder', 'encoder'), got 'seq2seq' "
                                               "[option --fmt]")
