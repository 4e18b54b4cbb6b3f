"""A lab run with an encoding per layer (``RunConfig.schedule``): the model it builds, its label and store key, and
what a schedule cannot hold."""

import pytest

from posenc.errors import PosencError
from posenc.lab.train import RunConfig, build_model, train_run

TINY = {"d_model": 16, "n_heads": 2, "batch_size": 8, "eval_samples": 16, "train_len": 4, "eval_lengths": [4, 8],
        "steps": 3}


def test_a_schedule_repeats_over_the_layers_and_names_the_run():
    config = RunConfig.from_dict({"task": "copy", "encoding": "rope", "n_layers": 6,
                                  "schedule": ["rope", "rope", "nope"], **TINY})
    assert config.label == "rope+rope+nope"
    model = build_model(config)
    assert [e.name for e in model.encodings] == ["rope", "rope", "nope"] * 2
    assert model.encodings[0] is model.encodings[3]  # equal layers share one module
    result = train_run(config, seed=0, progress=False)
    assert set(result.metrics["by_length"]) == {"4", "8"} and result.config["schedule"] == ["rope", "rope", "nope"]


def test_without_a_schedule_the_store_key_is_what_it_was():
    assert "schedule" not in RunConfig(task="copy").earlier_keys()[-1]  # schema 1 left an empty schedule out
    assert RunConfig(task="copy").as_dict()["schedule"] == []
    assert RunConfig(task="copy", schedule="rope, nope").as_dict()["schedule"] == ["rope", "nope"]  # a CLI list


def test_options_go_to_the_layers_of_the_runs_encoding_and_directions_to_all():
    config = RunConfig.from_dict({"task": "sort", "fmt": "encoder", "encoding": "rope",
                                  "encoding_options": {"base": 100.0}, "n_layers": 2, "schedule": ["rope", "fox"],
                                  **TINY})
    rope, fox = build_model(config).encodings
    assert rope.base == 100.0 and fox.bidirectional  # an encoder: FoX gets gates for keys after the query
    decoder = RunConfig.from_dict({"task": "sort", "encoding": "rope", "n_layers": 2, "schedule": ["rope", "fox"],
                                   **TINY})
    assert not build_model(decoder).encodings[1].bidirectional


@pytest.mark.parametrize("bad, message", [(["rope", "sinusoidal"], "acts on the input once"),
                                          (["randomized"], "draws positions per sequence"),
                                          (["rope", "ropee"], "unknown encoding 'ropee'"),
                                          ([1, 2], "schedule must be a list of encoding names")])
def test_what_a_schedule_cannot_hold(bad, message):
    with pytest.raises(PosencError, match=message):
        RunConfig(task="copy", schedule=bad)
