"""Lab runs traced to a bar (:mod:`posenc.lab.traced`): the crossing of the bar, the validation set, one short real
run of each kind (the loop), the null's random move, and the statistics over runs."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.linalg import hadamard

from posenc.lab.embeddings import division_change, embedding_cosines, quarter_shares
from posenc.lab.traced import (
    BAR,
    CAPABILITY_STEPS,
    counted_steps,
    learned_rows,
    paired_step_ratio,
    random_move,
    reached_share,
    steps_to_bar,
    train_traced,
    validation_set,
)
from posenc.stats import ratio_over_seeds


def test_steps_to_bar_interpolates():
    assert steps_to_bar([[0, 0.1], [20, 0.5], [40, 0.99]]) == pytest.approx(20 + (0.95 - 0.5) / 0.49 * 20)
    assert steps_to_bar([[0, 0.1], [20, 0.5]]) is None


def test_steps_to_bar_at_the_bar_and_on_either_side():
    """The learned-the-task bar is 0.95 (the lab claims' bar): a validation exactly at it has reached it, one a hair
    under it has not, the first crossing counts even if the curve falls back, and a curve that starts at the bar
    reached it at step 0."""
    assert BAR == 0.95
    assert steps_to_bar([[0, 0.1], [20, 0.95]]) == 20.0
    assert steps_to_bar([[0, 0.1], [20, 0.9499]]) is None
    assert steps_to_bar([[0, 0.1], [20, 0.5], [40, 1.0]]) == pytest.approx(20 + 0.45 / 0.5 * 20)  # 38
    assert steps_to_bar([[0, 0.5], [20, 0.96], [40, 0.4], [60, 1.0]]) == pytest.approx(0.45 / 0.46 * 20)
    assert steps_to_bar([[0, 0.95], [20, 1.0]]) == 0.0
    assert steps_to_bar([]) is None
    assert steps_to_bar([[0, 0.5], [10, 0.8]], bar=0.8) == 10.0  # another bar, met exactly


def test_validation_padding_does_not_change_a_causal_model():
    from posenc.lab.string_tasks import IGNORE
    from posenc.model import Transformer, TransformerConfig

    torch.manual_seed(0)
    model = Transformer(TransformerConfig(vocab_size=14, d_model=32, n_layers=2, n_heads=4, encoding="learned",
                                          max_len=12)).eval()
    ids, targets = validation_set("copy", 0)
    with torch.no_grad():
        padded = model(ids)
        short = model(ids[:32, :2])  # size 1: two real tokens
    assert torch.allclose(padded[:32, :2], short, atol=1e-6)
    assert (targets[:32, 2:] == IGNORE).all() and ids.shape == (192, 12)


def test_one_short_run():
    run = train_traced("local", "learned", 0, cap=40)
    assert [s for s, _ in run["curve"]] == [0, 20, 40] and run["steps"] == 40
    assert len(run["trace"]) == 3 and all(0 < r[1] < 1 for r in run["trace"])
    from posenc.model import Transformer, TransformerConfig

    torch.manual_seed(0)  # the trace at step 0 is the freshly initialised model's (24 rows: a capability run)
    model = Transformer(TransformerConfig(vocab_size=14, d_model=32, n_layers=2, n_heads=4, encoding="learned",
                                          max_len=24))
    raw, _ = embedding_cosines(model.input.token_embedding.weight.detach()[list(range(4, 14))],
                                  model.input.encoding.weight.detach()[:12])
    assert run["trace"][0][1] == pytest.approx(raw)


def test_one_short_capability_run():
    run = train_traced("back2", "learned", 0)
    assert run["steps"] == CAPABILITY_STEPS and set(run["accuracy"]) == {"12", "24"}
    assert all(0 <= a <= 1 for a in run["accuracy"].values()) and len(run["sparse_share"]) == 2
    # the trace ends at the bar (or the last validation), though the run goes on to its fixed length
    crossing = next((i for i, (_, a) in enumerate(run["curve"]) if a >= BAR), len(run["curve"]) - 1)
    assert len(run["trace"]) == crossing + 1


def test_learned_rows_are_the_trained_table_of_a_learned_encoding_and_none_otherwise():
    from posenc.lab.train import ModelConfig, RunConfig, build_model

    for encoding, has_table in (("learned", True), ("sinusoidal", False), ("rope", False), ("nope", False)):
        model = build_model(RunConfig(task="copy", model=ModelConfig(encoding=encoding, d_model=16, n_heads=2),
                                      train_len=4), 0)
        rows = learned_rows(model, 3)
        if has_table:
            assert rows.shape == (3, 16) and torch.equal(rows, model.input.encoding.weight.detach()[:3])
        else:
            assert rows is None, encoding


def test_the_random_move_has_the_trained_moves_size_and_no_preferred_dimension():
    g = torch.Generator().manual_seed(1)
    first = torch.randn(11, 32, generator=g, dtype=torch.float64)
    last = first + 0.2 * torch.randn(11, 32, generator=g, dtype=torch.float64)
    moved = random_move(first, last, seed=0)
    assert float((moved - first).norm()) == pytest.approx(float((last - first).norm()))
    assert torch.equal(moved, random_move(first, last, seed=0))
    assert not torch.equal(moved, random_move(first, last, seed=1))
    # rows whose dimensions all vary alike (a Hadamard matrix's columns): the null's change of the division averages
    # out near 0 over many draws, no quarter preferred; a trained move into the high quarter gives 0.1 (above)
    start = torch.tensor(hadamard(64), dtype=torch.float64)[:, 1:33]
    target = start.clone()
    target[:, 24:] += 2 / 3 * torch.tensor(hadamard(64), dtype=torch.float64)[:, 33:41]  # r = 1/3
    changes = [division_change(list(quarter_shares(start)), list(quarter_shares(
        random_move(start, target, seed)))) for seed in range(400)]
    assert abs(np.mean(changes)) < 4 * np.std(changes) / np.sqrt(len(changes)) and abs(np.mean(changes)) < 0.01


def test_a_short_real_run_carries_its_null_from_its_own_rows():
    """One real lab run (20 steps): the null's quarters are those of the start rows moved as far as training moved
    them (to where the division is read), in the seeded random direction."""
    run = train_traced("local", "sinusoidal", 0, cap=20)
    low, high = run["word_quarters_null"]
    assert 0 <= low <= 1 and 0 <= high <= 1 and run["word_change"] > 0
    assert [low, high] != run["word_quarters"][0]  # the rows moved, so their quarters did


def test_the_step_ratio_counts_a_run_that_missed_the_bar_at_its_last_step():
    runs = {("copy", "a", 0): {"steps_to_bar": 120.0, "steps": 140},
            ("copy", "b", 0): {"steps_to_bar": 60.0, "steps": 80},
            ("copy", "a", 1): {"steps_to_bar": None, "steps": 600},  # never reached the bar: counted at 600
            ("copy", "b", 1): {"steps_to_bar": 200.0, "steps": 220}}
    assert [counted_steps(runs[("copy", "a", s)]) for s in (0, 1)] == [120.0, 600.0]
    ratio, detail = paired_step_ratio(runs, ("copy",), "a", "b", 2)
    assert ratio == ratio_over_seeds([120.0, 600.0], [60.0, 200.0])
    assert detail == [{"task": "copy", "seed": 0, "a": 120.0, "b": 60.0},
                      {"task": "copy", "seed": 1, "a": 600.0, "b": 200.0}]
    assert reached_share(runs, ("copy",), "a", 2).value == 0.5 and reached_share(runs, ("copy",), "b", 2).value == 1.0
