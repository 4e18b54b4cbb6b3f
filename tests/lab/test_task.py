"""The lab's tasks answer what the lab asks of a task (:class:`posenc.lab.task.LabTask`), and the store keys of runs
stay what they were before the tasks answered it."""

import pytest
import torch

from posenc.errors import PosencError
from posenc.lab.charlm import CharLM
from posenc.lab.synthetic import Synthetic
from posenc.lab.task import LAB_TASKS, LabTask, lab_task, task_of_series
from posenc.lab.tasks import TASKS, get_task
from posenc.lab.train import RunConfig
from posenc.store import config_hash

#: every setting of a default run, written out from RunConfig's documented defaults (what the store hashed before
#: tasks were objects): a change to any default or to as_dict would change every stored run's key
DEFAULTS = {"task": "copy", "encoding": "rope", "encoding_options": {}, "label": "rope", "fmt": "decoder",
            "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": None, "dropout": 0.0, "train_len": 20,
            "min_train_len": 1, "eval_lengths": [10, 20, 40, 80], "steps": 500, "batch_size": 32, "lr": 1e-3,
            "warmup": 50, "weight_decay": 0.0, "grad_clip": 1.0, "val_every": 0, "patience": 4, "val_samples": 64,
            "eval_samples": 256, "eval_tokens": 16384, "protocols": ["nonoverlap", "sliding"], "stride": None,
            "max_len": None}


@pytest.mark.parametrize("settings,changed", [
    ({}, {}),
    # the char-LM's default lengths are L, 2L, 4L, 8L (a task's answer now, the same numbers)
    ({"task": "charlm", "train_len": 64, "encoding": "alibi"},
     {"task": "charlm", "train_len": 64, "encoding": "alibi", "label": "alibi", "eval_lengths": [64, 128, 256, 512]}),
    # a synthetic task's default lengths are L/2 (at least 1), L, 2L, 4L, without repeats
    ({"task": "parity", "train_len": 2, "fmt": "encoder"},
     {"task": "parity", "train_len": 2, "fmt": "encoder", "eval_lengths": [1, 2, 4, 8]}),
    ({"task": "reverse", "train_len": 1}, {"task": "reverse", "train_len": 1, "eval_lengths": [1, 2, 4]}),
])
def test_store_keys_are_the_settings_written_out_by_hand(settings, changed):
    config = RunConfig(**settings).as_dict()
    assert config == {**DEFAULTS, **changed}
    assert config_hash(config) == config_hash({**DEFAULTS, **changed})


def test_every_task_answers_the_protocol_and_the_table_has_each_synthetic_task_the_char_lm_and_the_local_ones():
    assert set(LAB_TASKS) == set(TASKS) | {"charlm", "local", "back2"}
    for name, task in LAB_TASKS.items():
        assert isinstance(task, LabTask) and task.name == name and task.metrics
    assert lab_task("copy").task is get_task("copy")


def test_an_unknown_task_names_the_valid_ones_and_the_closest():
    with pytest.raises(PosencError, match="valid tasks are: copy, .*charlm.*Did you mean 'charlm'"):
        lab_task("charml")
    with pytest.raises(PosencError, match="unknown task 3"):
        lab_task(3)


def test_series_keys_lead_back_to_their_task():
    by_length = {"nonoverlap": {"8": {}}, "sliding": {"8": {}}}
    assert list(CharLM().series(by_length)) == ["charlm/nonoverlap", "charlm/sliding"]
    assert Synthetic(get_task("sort")).series({"4": {}}) == {"sort": {"4": {}}}
    assert task_of_series("charlm/sliding").name == "charlm" and task_of_series("sort").name == "sort"


@pytest.mark.parametrize("name,n,fmt,tokens", [
    ("copy", 3, "decoder", 6),  # 3 in, 3 out
    ("copy", 3, "encoder", 7),  # 3 in, SEP, 3 blanks
    ("addition", 2, "decoder", 8),  # a PLUS b = 5 in, 3 out
    ("duplicate", 3, "encoder", 10),  # 3 in, SEP, 6 out
    ("parity", 5, "decoder", 6),
    ("charlm", 37, "decoder", 37),  # a context length: the model reads n characters
])
def test_sequence_length_by_hand(name, n, fmt, tokens):
    assert lab_task(name).sequence_length(n, fmt) == tokens


def test_a_synthetic_batch_has_one_size_in_the_runs_format():
    config = RunConfig(task="copy", min_train_len=3, train_len=3, batch_size=5, fmt="encoder")
    ids, targets = config.lab_task.sampler(config)(torch.Generator().manual_seed(0))
    assert ids.shape == targets.shape == (5, 7)  # 3 symbols, SEP, 3 blanks
    assert torch.equal(targets[:, 4:], ids[:, :3])  # the copy's answer, in the blanks' places


def test_a_char_lm_batch_predicts_each_next_character_of_its_window():
    config = RunConfig(task="charlm", train_len=12, batch_size=3)
    ids, targets = config.lab_task.sampler(config)(torch.Generator().manual_seed(0))
    assert ids.shape == targets.shape == (3, 12)
    assert torch.equal(ids[:, 1:], targets[:, :-1])  # one window, shifted by one


@pytest.mark.parametrize("settings,match", [
    ({"task": "charlm", "fmt": "encoder"}, "causal decoder"),
    ({"task": "charlm", "val_every": 5}, "fixed number of steps"),
])
def test_a_task_refuses_the_settings_it_cannot_take(settings, match):
    with pytest.raises(PosencError, match=match):
        RunConfig(**settings)


def test_char_lm_evaluation_windows_counted_by_hand():
    # L = 8, 64 tokens: nonoverlap 64 / 8 = 8 windows; sliding stride 8 // 8 = 1: 1 + 64 windows
    config = RunConfig(task="charlm", train_len=8, eval_lengths=[8], eval_tokens=64)
    assert CharLM().eval_sequences(config) == [(8 + 65, 8)]
    copy = RunConfig(task="copy", train_len=2, eval_lengths=[2, 4], eval_samples=10)
    assert copy.lab_task.eval_sequences(copy) == [(10, 4), (10, 8)]
