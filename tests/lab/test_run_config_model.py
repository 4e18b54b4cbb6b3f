"""``RunConfig.model``: a lab run's model is the model's own config (``TransformerConfig``), which checks the model's
settings once; ``build_model`` builds from it."""

import dataclasses

import pytest

from posenc.errors import PosencError
from posenc.lab.train import MODEL_SETTINGS, RunConfig, build_model
from posenc.model import TransformerConfig

TINY = {"task": "copy", "train_len": 4, "d_model": 16, "n_heads": 2, "n_layers": 1, "steps": 2, "warmup": 1}


def test_the_run_holds_its_model_config_and_builds_from_it():
    config = RunConfig(**TINY, fmt="encoder", dropout=0.1, d_ff=24, encoding="alibi")
    model = config.model
    assert isinstance(model, TransformerConfig)
    # copy at size 4 in encoder format reads 2 x 4 + 1 = 9 tokens (the input, a separator, the blank slots)
    assert (model.d_model, model.n_heads, model.n_layers, model.d_ff, model.dropout, model.causal, model.encoding,
            model.max_len) == (16, 2, 1, 24, 0.1, False, "alibi", config.sequence_length(4))
    built = build_model(config).config
    want = dataclasses.replace(model, vocab_size=config.lab_task.vocab_size(), encoding_options=built.encoding_options)
    assert built == want  # the built model's config is the run's, with the task's vocabulary


@pytest.mark.parametrize(("settings", "words"), [
    ({"d_model": 16, "n_heads": 3}, ["RunConfig.d_model: d_model (16) must be divisible by n_heads (3)",
                                     "[option --d-model]"]),
    ({"n_heads": 0}, ["RunConfig.n_heads: TransformerConfig.n_heads must be a positive integer, got 0",
                      "[option --n-heads]"]),
    ({"n_layers": 1.5}, ["TransformerConfig.n_layers must be a positive integer, got 1.5", "[option --n-layers]"]),
    ({"dropout": 1.0}, ["RunConfig.dropout: dropout must be a number in [0, 1), got 1.0", "[option --dropout]"]),
], ids=["indivisible", "no-heads", "fractional-layers", "dropout-1"])
def test_a_model_setting_is_checked_by_the_model_config_and_named_as_the_runs(settings, words):
    with pytest.raises(PosencError) as caught:
        RunConfig(**{**TINY, **settings})
    assert all(w in str(caught.value) for w in words), str(caught.value)


def test_every_model_setting_is_a_field_of_both():
    run, model = {f.name for f in dataclasses.fields(RunConfig)}, {f.name for f in dataclasses.fields(TransformerConfig)}
    assert set(MODEL_SETTINGS) <= run & model
