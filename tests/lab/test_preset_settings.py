"""Each lab preset's settings written out: the numbers its table in docs/lab.md was measured with (the training
length, the evaluation lengths, the model's size, steps, batch, learning rate, warm-up, evaluation size), so a changed
default changes this test and, deliberately, the docs' table. (The run counts, seeds and learning rates against the
docs: ``test_presets.py``.)"""

import posenc
from posenc.lab.presets import get_preset

ALIBI_TABLE = {"task": "charlm", "train_len": 64, "eval_lengths": [64, 128, 256, 512],
               "protocols": ["nonoverlap", "sliding"], "d_model": 64, "n_layers": 4, "n_heads": 4, "steps": 2000,
               "batch_size": 32, "lr": 0.001, "warmup": 100, "eval_tokens": 16384}
NOPE_TASKS = {"train_len": 20, "min_train_len": 1, "eval_lengths": [5, 10, 15, 20, 25, 30, 40, 60, 80],
              "d_model": 64, "n_layers": 4, "n_heads": 4, "steps": 3000, "batch_size": 32, "lr": 0.001, "warmup": 100,
              "eval_samples": 256}
QUICK = {"train_len": 8, "eval_lengths": [4, 8, 12, 16, 32], "d_model": 32, "n_layers": 2, "n_heads": 2,
         "steps": 1500, "batch_size": 32, "lr": 0.003, "warmup": 100, "eval_samples": 128}
SIX = ["sinusoidal", "learned", "rope", "alibi", "t5", "nope"]


def test_alibi_table():
    sweep = get_preset("alibi-table")
    assert sweep.base == ALIBI_TABLE and sweep.seeds == [0, 1, 2]
    assert sweep.grid == {"encoding": SIX}  # the order of docs/lab.md's table


def test_nope_tasks():
    sweep = get_preset("nope-tasks")
    assert sweep.base == NOPE_TASKS and sweep.seeds == [0, 1, 2]
    assert sweep.grid == {"task": ["copy", "reverse"], "encoding": ["nope", "t5", "alibi", "rope", "sinusoidal",
                                                                     "learned"]}


def test_quick():
    sweep = get_preset("quick")
    assert sweep.base == QUICK and sweep.seeds == [0]
    assert sweep.grid["task"] == ["copy", "reverse"]
    concat = {"combine": "concat", "dim": 16}
    assert sweep.grid["variant"] == ([{"encoding": name} for name in sorted(posenc.available())
                                      if name not in ("integer", "normalized")]
                                     + [{"encoding": name, "encoding_options": concat}
                                        for name in ("sinusoidal", "learned", "integer", "normalized")])
