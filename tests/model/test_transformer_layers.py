"""Modules and parameters per layer: every registered encoding built into a model, counted layer by layer.

A learned part that belongs to its layer (FoX's forget gate: ``info.per_layer``) must be a module of its own in every
layer, with its own parameter objects; every other encoding is one module that all layers with the same options
share (a learned table, T5's buckets, KERPLE, FIRE, CoPE, DAPE, PoPE's phase bias: one set of parameters for the model, as in their
papers' models and in the single-encoding model). The counts below are written out, so sharing a per-layer part, or
building a shared one per layer, changes a number here.
"""

import pytest
import torch

from posenc.encodings.catalog import get_class
from posenc.encodings.schedule import Layer, LayerSchedule
from posenc.model import Transformer, TransformerConfig
from posenc.registry import available

#: the encodings that are built once per layer (written out: a flag flipped either way fails here)
PER_LAYER = {"fox"}
#: the learned parameter count of each encoding with parameters, for the model below (d_model 32, 4 heads, head
#: width 8, max_len 64), by hand from each paper's parts
PARAMETERS = {
    "cope": 64 * 8,           # one learned vector per integer position up to npos_max (64), head width 8
    "dape": 2 * 4 * 32 + 32 + 32 * 4 + 4 + 2 * 4,  # MLP 2H = 8 -> 32 -> H = 4 (weights, biases), and the KERPLE
                                                   # it adapts: r1 and r2 per head
    "fire": 1 * 32 + 32 + 32 * 4 + 4 + 2,   # MLP 1 -> 32 -> H, and the two scalars c and L
    "fox": 4 * 32 + 4,        # the forget gate: one logit per head from the layer input, weight and bias
    "kerple": 2 * 4,          # r1 and r2 per head
    "learned": 64 * 32,       # a table of max_len rows of width d_model
    "pope": 4 * 8,            # the phase bias, one per head and channel
    "t5": 32 * 4,             # one bias per bucket (32) and head
}
SIZES = {"vocab_size": 20, "d_model": 32, "n_heads": 4, "max_len": 64}
N_LAYERS = 3


def _model(encoding, n_layers=N_LAYERS, **options):
    torch.manual_seed(0)
    return Transformer(TransformerConfig(**SIZES, n_layers=n_layers, encoding=encoding, encoding_options=options))


def _encoding_parameters(model):
    """The parameters the model holds in its encodings (each object once)."""
    seen = {}
    for e in [model.input.encoding, *model.encodings]:
        for p in e.parameters():
            seen[id(p)] = p
    return list(seen.values())


def test_only_fox_declares_a_module_per_layer():
    assert {name for name in available() if get_class(name).info.per_layer} == PER_LAYER


@pytest.mark.parametrize("name", sorted(available()))
def test_modules_and_parameters_per_layer(name):
    model = _model(name)
    ids = {id(e) for e in model.encodings}
    if name in PER_LAYER:
        assert len(ids) == N_LAYERS  # one module per layer
        per_layer = [[id(p) for p in e.parameters()] for e in model.encodings]
        assert all(per_layer) and len({i for ps in per_layer for i in ps}) == sum(map(len, per_layer))
    else:
        assert len(ids) == 1  # one module, shared by every layer
    count = sum(p.numel() for p in _encoding_parameters(model))
    # an encoding outside the hand table (a newer one: its own test file counts its parameters by hand) is counted
    # from one of its modules, so its sharing and the model's total are still checked here
    own = PARAMETERS[name] if name in PARAMETERS else sum(p.numel() for p in model.encodings[0].parameters())
    assert count == own * (N_LAYERS if name in PER_LAYER else 1)
    # the model's own count holds each of them once, beside the layers' weights (which do not depend on the
    # encoding: a plain NoPE model of the same sizes has them all)
    nope = sum(p.numel() for p in _model("nope").parameters())
    assert sum(p.numel() for p in model.parameters()) == nope + count


def test_a_per_layer_gate_learns_per_layer():
    # one step of SGD on a 3-layer FoX model moves the three gates differently: three tensors, not one seen thrice
    model = _model("fox")
    torch.manual_seed(1)
    ids = torch.randint(0, 20, (2, 7))
    model(ids).logsumexp(-1).sum().backward()
    grads = [e.gate.weight.grad for e in model.encodings]
    assert all(g is not None for g in grads)
    assert not torch.equal(grads[0], grads[1]) and not torch.equal(grads[1], grads[2])
    names = [k for k in model.state_dict() if k.startswith("layer_encodings.")]
    assert sorted(names) == [f"layer_encodings.{n}.gate.{w}" for n in range(N_LAYERS) for w in ("bias", "weight")]


def test_a_schedule_builds_per_layer_parts_per_layer_and_shares_the_rest():
    fox, rope, t5 = Layer("fox"), Layer("rope"), Layer("t5")
    wide = Layer("rope", window=4)
    built = LayerSchedule((fox, rope, t5, fox, rope, t5, wide)).build(d_model=32, n_heads=4, max_len=64)
    assert built[0] is not built[3] and built[0].gate.weight is not built[3].gate.weight
    assert built[1] is built[4] is built[6]  # same encoding and options; the span does not make a module
    assert built[2] is built[5]
    # options change the module: two bases are two modules, each with its own frequencies
    two = LayerSchedule((Layer("rope", {"base": 100.0}), Layer("rope", {"base": 10000.0}))).build(d_model=32,
                                                                                                 n_heads=4)
    assert two[0] is not two[1]
    assert two[0].inv_freq[1].item() == pytest.approx(100.0 ** (-2 / 8))
    assert two[1].inv_freq[1].item() == pytest.approx(10000.0 ** (-2 / 8))


def test_a_model_with_a_schedule_holds_each_distinct_module_once():
    schedule = LayerSchedule((Layer("fox"), Layer("t5"), Layer("fox"), Layer("t5", window=3)))
    torch.manual_seed(0)
    model = Transformer(TransformerConfig(**SIZES, n_layers=4, schedule=schedule))
    kinds = [e.name for e in model.layer_encodings]
    assert sorted(kinds) == ["fox", "fox", "t5"]  # two gates, one shared bucket table
    assert model.encodings[1] is model.encodings[3]
    nope = sum(p.numel() for p in _model("nope", n_layers=4).parameters())
    assert sum(p.numel() for p in model.parameters()) == nope + 2 * PARAMETERS["fox"] + PARAMETERS["t5"]
