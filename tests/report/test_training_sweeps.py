"""The task sweep the lab claims train on, as the lab expands it, and the setup line that describes it; the training
started ahead of the claims trains exactly what they read."""

from __future__ import annotations

from posenc.lab.grid import Sweep
from posenc.report.experiments import training as tr
from posenc.report.experiments.base import Context


def test_full_task_sweep_trains_addition_wider_and_shorter():
    """task_sweep's docstring: copy, reverse and sort at sizes up to 8 with width 64; addition at up to 4 digits with
    width 128; 2 layers; every task tested at L/2, L and 2L; 3 seeds per (task, encoding)."""
    runs = Sweep.from_dict(tr.task_sweep(False, 3)).runs()
    expected = {"copy": (64, 8), "reverse": (64, 8), "sort": (64, 8), "addition": (128, 4)}
    seen = {}
    for config, seed in runs:
        width, L = expected[config.task]
        assert (config.model.d_model, config.train_len, config.model.n_layers) == (width, L, 2), config
        assert list(config.eval_lengths) == [L // 2, L, 2 * L], config
        seen.setdefault(config.task, set()).add((config.model.encoding, seed))
    assert set(seen) == set(expected)
    for task, pairs in seen.items():  # the six encodings the task claims compare, each with seeds 0, 1, 2
        assert pairs == {(e, s) for e in ENCODINGS for s in range(3)}, task


#: the encodings the task claims rank (NoPE against five with positions), written here apart from the sweep's list
ENCODINGS = ("nope", "t5", "alibi", "rope", "sinusoidal", "learned")


def test_quick_task_sweep_trains_copy_only_small_and_short():
    """Quick mode: copy alone at width 64, trained 400 steps on sizes up to 4 and tested at 2, 4 and 8; 2 seeds give
    12 runs."""
    runs = Sweep.from_dict(tr.task_sweep(True, 2)).runs()
    assert len(runs) == 6 * 2
    assert {(c.task, c.model.d_model, c.train_len, c.model.n_layers, tuple(c.eval_lengths), c.steps) for c, _ in runs} == {
        ("copy", 64, 4, 2, (2, 4, 8), 400)}
    assert {(c.model.encoding, seed) for c, seed in runs} == {(e, s) for e in ENCODINGS for s in range(2)}
    assert tr.task_sweep(True)["seeds"] == [0]  # one seed unless told


def test_setup_line_names_each_tasks_own_width_and_sizes():
    """A variant's own width and trained size replace the base's in the page's setup line."""
    sweep = {"name": "t", "seeds": [0, 1],
             "base": {"n_layers": 2, "steps": 50, "d_model": 64, "train_len": 8, "eval_lengths": [4, 8, 16],
                      "eval_samples": 32},
             "grid": {"variant": [{"task": "copy"},
                                  {"task": "addition", "train_len": 4, "eval_lengths": [2, 4, 8], "d_model": 128}]}}
    from posenc.report.present.training import lab_setup

    text = lab_setup(sweep)
    assert text.startswith("posenc.lab, causal decoder, 2 layers, 50 steps, 2 seeds per configuration")
    assert text.endswith("; tasks: copy (d_model 64, trained on sizes 1..8, tested at [4, 8, 16]); addition "
                         "(d_model 128, trained on sizes 1..4, tested at [2, 4, 8]); 32 test strings per size")


def test_training_ahead_trains_what_the_task_claims_read(monkeypatch, tmp_path):
    """The claims' preparation (run in the background before they run) hands the lab the same sweep and the same
    context (its store) as the claims, so they find every run already in the store."""
    calls = []
    monkeypatch.setattr(tr, "run_lab", lambda sweep, ctx: calls.append((sweep, ctx)) or [])
    for ctx in (Context(quick=True, store_path=tmp_path / "q.sqlite"),
                Context(quick=False, seeds=4, store_path=tmp_path / "f.sqlite")):
        calls.clear()
        tr._train_tasks(ctx)
        tr.task_table(ctx)
        (ahead, ahead_ctx), (read, read_ctx) = calls
        assert ahead == read and ahead["seeds"] == list(range(3 if ctx.quick else 4))  # the default, the given
        assert ahead_ctx is ctx and read_ctx is ctx
