"""The lab's models (``posenc.lab.train.build_model``), layer by layer: an encoding built once per layer (FoX's forget
gate) gets a module and parameters of its own in every layer, alone or in a schedule; one that all layers share
(T5's bias table, RoPE) is one module."""

import pytest

from posenc.lab.train import RunConfig, build_model

TINY = {"d_model": 16, "n_heads": 2, "batch_size": 8, "eval_samples": 16, "train_len": 4, "eval_lengths": [4, 8],
        "steps": 3}
#: FoX's forget gate by hand: one logit per head (2) from the layer input (d_model 16), weights and biases
FOX_GATE = 2 * 16 + 2


def _distinct_parameters(modules) -> int:
    return sum(p.numel() for p in {id(p): p for m in modules for p in m.parameters()}.values())


@pytest.mark.parametrize("task", ["copy", "sort"])
def test_a_fox_run_has_a_gate_per_layer(task):
    model = build_model(RunConfig.from_dict({"task": task, "encoding": "fox", "n_layers": 3, **TINY}))
    assert [e.name for e in model.encodings] == ["fox"] * 3
    assert len({id(e) for e in model.encodings}) == 3  # one module per layer
    assert _distinct_parameters(model.encodings) == 3 * FOX_GATE
    gates = [[id(p) for p in e.parameters()] for e in model.encodings]
    assert len({i for g in gates for i in g}) == sum(len(g) for g in gates)  # no parameter object shared


def test_a_schedule_gives_fox_layers_their_own_gate_and_shares_the_rest():
    config = RunConfig.from_dict({"task": "copy", "encoding": "rope", "n_layers": 6, "schedule": ["fox", "t5", "rope"],
                                  **TINY})
    encodings = build_model(config).encodings
    assert [e.name for e in encodings] == ["fox", "t5", "rope"] * 2
    assert encodings[0] is not encodings[3]  # FoX: a gate per layer
    assert encodings[1] is encodings[4] and encodings[2] is encodings[5]  # T5 and RoPE: one module each
    # two FoX gates and one T5 table (32 buckets, 2 heads), by hand
    assert _distinct_parameters(encodings) == 2 * FOX_GATE + 32 * 2
