"""Length-extrapolation experiments: train short, test long, for every encoding.

- :mod:`~posenc.lab.lab_task`: what the lab needs from a task (:class:`~posenc.lab.lab_task.LabTask`), the table of tasks;
- :mod:`~posenc.lab.string_tasks`: synthetic tasks (copy, reverse, sort, addition, parity, duplicate, selective_copy,
  count) and their formats;
- :mod:`~posenc.lab.charlm`: the character-level Shakespeare language model as a task;
- :mod:`~posenc.lab.corpus`: the character-level Shakespeare corpus;
- :mod:`~posenc.lab.train`: one run (:class:`RunConfig` + seed -> metrics by length);
- :mod:`~posenc.lab.evaluate`: exact match by length, char-LM perplexity with two protocols;
- :mod:`~posenc.lab.sweep`: grids of runs on a local process pool or Ray, resumable through the results store;
- :mod:`~posenc.lab.presets`: ``alibi-table``, ``nope-tasks``, ``quick``;
- :mod:`~posenc.lab.tables`: mean ± std over seeds, the ALiBi-style table.
- :mod:`~posenc.lab.compare`: encodings compared over a sweep's runs, per seed (accuracy tables, win shares, the
  ranking against Kazemnejad et al. 2023's, perplexities by length);
- :mod:`~posenc.lab.traced`: runs traced to a bar (validation curve, steps to the bar, embeddings at the start and at
  the bar); :mod:`~posenc.lab.embeddings`: statistics of their word and position rows.

Example::

    >>> from posenc.lab import run_sweep, summarize, to_markdown
    >>> results = run_sweep("quick", "runs/lab.sqlite", workers=2)       # doctest: +SKIP
    >>> print(to_markdown(summarize("runs/lab.sqlite", "quick")))        # doctest: +SKIP
"""

from posenc.lab.evaluate import CANNOT_RUN, evaluate_lm, evaluate_task
from posenc.lab.lab_task import LAB_TASKS, LabTask, lab_task
from posenc.lab.presets import PRESETS, get_preset
from posenc.lab.string_tasks import TASKS, get_task
from posenc.lab.sweep import Sweep, run_sweep
from posenc.lab.tables import alibi_table, summarize, to_markdown
from posenc.lab.train import KIND, ModelConfig, RunConfig, RunResult, build_model, train_run

__all__ = ["RunConfig", "ModelConfig", "RunResult", "train_run", "build_model", "run_sweep", "Sweep", "summarize",
           "alibi_table", "to_markdown", "PRESETS", "get_preset", "TASKS", "get_task", "LAB_TASKS", "LabTask",
           "lab_task", "KIND", "CANNOT_RUN", "evaluate_task", "evaluate_lm"]
