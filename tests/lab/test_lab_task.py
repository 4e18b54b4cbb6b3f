"""The lab's tasks answer what the lab asks of a task (:class:`posenc.lab.lab_task.LabTask`), and the store keys of runs
stay what they were before the tasks answered it."""

import pytest

from posenc.errors import PosencError
from posenc.lab.charlm import CharLM
from posenc.lab.lab_task import LAB_TASKS, LabTask, lab_task, task_of_series
from posenc.lab.string_tasks import TASKS, get_task
from posenc.lab.synthetic import Synthetic
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
#: the settings of the model, nested in a key of schema 3
MODEL = ("encoding", "encoding_options", "d_model", "n_layers", "n_heads", "d_ff", "dropout")


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
    # schema 1 (what every store written before key schemas holds; found through earlier_keys), schema 2 (every
    # setting flat under an explicit schema) and schema 3 (the model's settings nested)
    config = RunConfig.from_dict(settings)
    first, second = config.earlier_keys()[::-1]
    assert first == {**DEFAULTS, **changed}
    assert config_hash(first) == config_hash({**DEFAULTS, **changed})
    flat = {**DEFAULTS, "dtype": "float32", "schedule": [], "lr_decay": "cosine", **changed}
    assert second == {"schema": 2, **flat, "encoding_revision": 1}
    model = {name: flat.pop(name) for name in MODEL}
    assert config.as_dict() == {"schema": 3, **flat, "model": {**model, "n_kv_heads": None, "scale_embedding": False},
                                "encoding_revision": 1}


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


#: every lab task's answers, written from the task's definition (not read from LAB_TASKS): sequence length at size 3
#: in the decoder and encoder formats (input m + output k, the encoder one SEP more), default test lengths at
#: train_len 1, 3 and 8, metrics (default first), vocabulary bound, table layout, length axis, whether it trains to
#: the in-distribution ceiling and in the encoder format
SYNTHETIC = (("exact_match", "token_accuracy"), 14, False, "task size n", True)  # 10 symbols + PLUS, SEP, BLANK, PAD
LOCAL_TASK = (("token_accuracy",), 14, False, "sequence length T", True)
EXPECTED_TASKS = {
    # name: ((decoder, encoder) tokens at n = 3, eval lengths at L = 1, 3, 8: {L/2 (>= 1), L, 2L, 4L} for the
    # synthetic tasks (3 // 2 = 1; at L = 1, L/2 rounds to 0 and is raised to 1 = L), rest)
    "copy": ((6, 7), ([1, 2, 4], [1, 3, 6, 12], [4, 8, 16, 32]), *SYNTHETIC),  # 3 in, 3 out
    "reverse": ((6, 7), ([1, 2, 4], [1, 3, 6, 12], [4, 8, 16, 32]), *SYNTHETIC),
    "sort": ((6, 7), ([1, 2, 4], [1, 3, 6, 12], [4, 8, 16, 32]), *SYNTHETIC),
    "addition": ((11, 12), ([1, 2, 4], [1, 3, 6, 12], [4, 8, 16, 32]), *SYNTHETIC),  # a PLUS b: 7 in, n + 1 = 4 out
    "parity": ((4, 5), ([1, 2, 4], [1, 3, 6, 12], [4, 8, 16, 32]), *SYNTHETIC),  # 3 bits in, 1 out
    "duplicate": ((9, 10), ([1, 2, 4], [1, 3, 6, 12], [4, 8, 16, 32]), *SYNTHETIC),  # 3 in, 6 out
    "selective_copy": ((9, 10), ([1, 2, 4], [1, 3, 6, 12], [4, 8, 16, 32]), *SYNTHETIC),  # 3 + 3 blanks in, 3 out
    "count": ((4, 5), ([1, 2, 4], [1, 3, 6, 12], [4, 8, 16, 32]), *SYNTHETIC),  # 3 in, the count out
    # a context length: the model reads n characters; L, 2L, 4L, 8L; a causal decoder with a fixed step count
    "charlm": ((3, 3), ([1, 2, 4, 8], [3, 6, 12, 24], [8, 16, 32, 64]), ("ppl", "bpc", "nll"), 128, True,
               "L_valid (characters)", False),
    "local": ((3, 3), ([1, 2, 4], [3, 6, 12], [8, 16, 32]), *LOCAL_TASK),  # T tokens; L, 2L, 4L
    "back2": ((3, 3), ([1, 2, 4], [3, 6, 12], [8, 16, 32]), *LOCAL_TASK),
}


def test_the_hand_table_has_every_lab_task():
    # a task of another kind needs its row above; a string task's answers are checked by its hand-worked batch in
    # test_string_tasks.py (test_every_task_samples_the_hand_worked_batch), so adding one touches lab/string_tasks.py and that test
    assert set(LAB_TASKS) - set(TASKS) <= set(EXPECTED_TASKS) <= set(LAB_TASKS)


@pytest.mark.parametrize("name", sorted(EXPECTED_TASKS))
def test_each_lab_task_answers_as_its_definition_says(name):
    (decoder, encoder), lengths, metrics, vocab, rows, axis, flexible = EXPECTED_TASKS[name]
    task = lab_task(name)
    assert (task.sequence_length(3, "decoder"), task.sequence_length(3, "encoder")) == (decoder, encoder)
    assert tuple(task.default_eval_lengths(L) for L in (1, 3, 8)) == lengths
    assert (task.metrics, task.vocab_bound, task.rows_are_lengths, task.length_axis) == (metrics, vocab, rows, axis)
    assert RunConfig(task=name, train_len=3).eval_lengths == lengths[1]  # a config that names none gets them
    if flexible:  # the encoder format and training to the ceiling are taken
        config = RunConfig(task=name, train_len=3, fmt="encoder", val_every=5)
        assert (config.fmt, config.val_every) == ("encoder", 5)
    else:
        with pytest.raises(PosencError, match="causal decoder"):
            RunConfig(task=name, fmt="encoder")
        with pytest.raises(PosencError, match="fixed number of steps"):
            RunConfig(task=name, val_every=5)
