"""``RunConfig.model``: a lab run nests its model's config (``ModelConfig``, the part of ``TransformerConfig`` a run
chooses), which checks the model's settings once; ``RunConfig.transformer`` adds what the run decides, and
``build_model`` builds from it. Settings given flat (the command line, sweeps) reach the nested config."""

import dataclasses

import pytest

from posenc.errors import PosencError
from posenc.lab.train import RunConfig, build_model
from posenc.model import ModelConfig, TransformerConfig

TINY = {"task": "copy", "train_len": 4, "d_model": 16, "n_heads": 2, "n_layers": 1, "steps": 2, "warmup": 1}


def test_the_run_holds_its_model_config_and_builds_from_it():
    config = RunConfig.from_dict({**TINY, "fmt": "encoder", "dropout": 0.1, "d_ff": 24, "encoding": "alibi"})
    assert config.model == ModelConfig(encoding="alibi", d_model=16, n_heads=2, n_layers=1, d_ff=24, dropout=0.1)
    whole = config.transformer
    assert isinstance(whole, TransformerConfig)
    # copy at size 4 in encoder format reads 2 x 4 + 1 = 9 tokens (the input, a separator, the blank slots)
    assert (whole.d_model, whole.n_heads, whole.n_layers, whole.d_ff, whole.dropout, whole.causal, whole.encoding,
            whole.max_len, whole.vocab_size) == (16, 2, 1, 24, 0.1, False, "alibi", 9, config.lab_task.vocab_bound)
    built = build_model(config).config
    want = dataclasses.replace(whole, vocab_size=config.lab_task.vocab_size(), encoding_options=built.encoding_options)
    assert built == want  # the built model's config is the run's, with the task's vocabulary


def test_a_model_setting_the_lab_did_not_have_reaches_the_built_model():
    config = RunConfig.from_dict({**TINY, "n_heads": 4, "n_kv_heads": 2, "scale_embedding": True})
    model = build_model(config)
    attention = model.blocks[0].attn
    assert (attention.n_heads, attention.n_kv_heads) == (4, 2)
    assert attention.kv_proj.weight.shape == (2 * 2 * 4, 16)  # k and v for 2 heads of width 16 / 4
    assert model.input.scale == pytest.approx(16 ** 0.5)


@pytest.mark.parametrize(("settings", "words"), [
    ({"d_model": 16, "n_heads": 3}, ["RunConfig.model: d_model (16) must be divisible by n_heads (3)",
                                     "pick e.g. n_heads=2 [option --n-heads]"]),
    ({"n_heads": 4, "n_kv_heads": 3}, ["n_heads (4) must be a multiple of n_kv_heads (3); pick e.g. n_kv_heads=2 "
                                       "[option --n-kv-heads]"]),
    ({"n_heads": 0}, ["RunConfig.model: ModelConfig.n_heads must be a positive integer, got 0", "[option --n-heads]"]),
    ({"n_layers": 1.5}, ["ModelConfig.n_layers must be a positive integer, got 1.5", "[option --n-layers]"]),
    ({"dropout": 1.0}, ["dropout must be a number in [0, 1), got 1.0", "[option --dropout]"]),
    ({"n_kv_heads": 0}, ["ModelConfig.n_kv_heads must be a positive integer or None", "[option --n-kv-heads]"]),
    ({"d_ff": 0}, ["ModelConfig.d_ff must be a positive integer or None (None: 4 * d_model), got 0",
                   "[option --d-ff]"]),
    ({"encoding_options": "dim=3"}, ["ModelConfig.encoding_options must be a dict, got 'dim=3'",
                                     "[option -o KEY=VALUE]"]),
], ids=["indivisible", "kv-not-dividing", "no-heads", "fractional-layers", "dropout-1", "no-kv-heads", "no-ff",
        "options-text"])
def test_a_model_setting_is_checked_by_the_model_config_and_named_by_its_option(settings, words):
    with pytest.raises(PosencError) as caught:
        RunConfig.from_dict({**TINY, **settings})
    assert all(w in str(caught.value) for w in words), str(caught.value)


def test_the_model_settings_are_declared_once():
    run, model = {f.name for f in dataclasses.fields(RunConfig)}, {f.name for f in dataclasses.fields(ModelConfig)}
    whole = {f.name for f in dataclasses.fields(TransformerConfig)}
    assert model < whole and "model" in run and not run & model
    # what the run spells its own way: the position range (default from train_len) and the layers by name
    assert run & whole == {"max_len", "schedule"}


def test_flat_and_nested_settings_give_the_same_run():
    flat = RunConfig.from_dict({**TINY, "encoding": "alibi"})
    nested = RunConfig.from_dict({"task": "copy", "train_len": 4, "steps": 2, "warmup": 1,
                                  "model": {"encoding": "alibi", "d_model": 16, "n_heads": 2, "n_layers": 1}})
    built = RunConfig(task="copy", train_len=4, steps=2, warmup=1,
                      model=ModelConfig(encoding="alibi", d_model=16, n_heads=2, n_layers=1))
    assert flat == nested == built
    assert RunConfig.from_dict(flat.settings()) == flat == RunConfig.from_dict(flat.as_dict())
    assert RunConfig(model={"encoding": "alibi", "d_model": 16, "n_heads": 2, "n_layers": 1}, task="copy",
                     train_len=4, steps=2, warmup=1) == flat  # a dict for the model is read as its settings


def test_the_lab_keeps_its_default_model():
    assert RunConfig().model == ModelConfig() == ModelConfig(encoding="rope", d_model=64, n_layers=2, n_heads=4)
    assert RunConfig.from_dict({"encoding": "alibi"}).model.d_model == 64  # one flat setting keeps the others


@pytest.mark.parametrize(("data", "words"), [
    ({"d_model": 32, "model": {"d_model": 32}}, ["['d_model'] given twice, flat and in 'model'"]),
    ({"model": {"width": 3}}, ["unknown model setting(s) ['width']", "d_model"]),
    ({"model": "rope"}, ["the run setting 'model' must be a dict of the model's settings", "got 'rope'"]),
    ({"widht": 3}, ["unknown run setting(s) ['widht']", "d_model", "train_len"]),
], ids=["twice", "unknown-nested", "model-not-a-dict", "unknown-flat"])
def test_settings_that_do_not_fit_are_refused_by_name(data, words):
    with pytest.raises(PosencError) as caught:
        RunConfig.from_dict(data)
    assert all(w in str(caught.value) for w in words), str(caught.value)


def test_a_model_of_another_type_is_refused():
    with pytest.raises(PosencError, match=r"RunConfig.model must be a ModelConfig \(posenc.model.ModelConfig\), got "
                                          r"str 'rope'; e.g. RunConfig\(model=ModelConfig\(encoding='alibi'"):
        RunConfig(model="rope")
