"""The numbers of models.py's experiments against independent computations (issue #19, item 3).

- ``word_order``: the equivariance statistic redone with numpy on the outputs of the same random models;
- ``ffn_position_blind``: an FFN made position-dependent on purpose (a known bias per position), so the statistic
  has a value worked out by hand, and the permuted block's difference redone with numpy;
- ``learned_max_len``: the outcomes counted by hand, with a tiny BERT-style learned table (and one with no hard
  end) in place of MiniLM;
- ``add_vs_concat``: the linear read-out redone with ``np.linalg.lstsq`` on tables from the formula.
"""

from __future__ import annotations

import types

import numpy as np
import pytest
import torch
from scipy.special import erf

import posenc
from posenc.report.experiments import models, pretrained
from posenc.report.experiments.base import Context

QUICK = Context(quick=True)


pytestmark = pytest.mark.usefixtures("one_thread")


def formula_sinusoid(length: int, dim: int) -> np.ndarray:
    angle = np.arange(length, dtype=np.float64)[:, None] * 10000.0 ** (-np.arange(0, dim, 2) / dim)
    table = np.empty((length, dim))
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    return table


# ---------------------------------------------------------------------------------------------------------------
# word_order
# ---------------------------------------------------------------------------------------------------------------
def test_word_order_equivariance_by_hand():
    from posenc.model import Transformer, TransformerConfig

    m = models.word_order(QUICK)
    a, b = torch.tensor([[0, 1, 2]]), torch.tensor([[2, 1, 0]])  # "I love you", "you love I" (ids by first use)
    eq = {}
    for key, (encoding, causal) in {"nope_encoder": ("nope", False), "sinusoidal_encoder": ("sinusoidal", False),
                                    "rope_encoder": ("rope", False), "nope_decoder": ("nope", True)}.items():
        eq[key] = []
        for seed in (0, 1, 2):
            torch.manual_seed(seed)
            model = Transformer(TransformerConfig(vocab_size=64, d_model=32, n_layers=2, n_heads=4, causal=causal,
                                                  encoding=encoding, max_len=64)).eval()
            with torch.no_grad():
                ha = model(a, return_hidden=True)[0].double().numpy()  # [3, D]
                hb = model(b, return_hidden=True)[0].double().numpy()
            eq[key].append(np.abs(hb - ha[::-1]).max() / np.abs(ha).mean())  # reversed order, relative
        got = m.numbers["cases"][key]
        assert got["equivariance_min"] == pytest.approx(min(eq[key]), rel=1e-4, abs=1e-9), key
        assert got["equivariance_max"] == pytest.approx(max(eq[key]), rel=1e-4, abs=1e-9), key
    e = m.estimates
    assert e["blind_encoder_difference"].value == pytest.approx(max(eq["nope_encoder"]), rel=1e-4, abs=1e-9)
    assert e["positions_see_order"].value == pytest.approx(min(eq["sinusoidal_encoder"] + eq["rope_encoder"]),
                                                           rel=1e-4)
    assert e["causal_no_positions_difference"].value == pytest.approx(min(eq["nope_decoder"]), rel=1e-4)
    assert max(eq["nope_encoder"]) < 1e-5 < 1e-3 < min(eq["rope_encoder"] + eq["nope_decoder"])


# ---------------------------------------------------------------------------------------------------------------
# ffn_position_blind
# ---------------------------------------------------------------------------------------------------------------
class _BiasedMLP(torch.nn.Module):
    """The block's own FFN plus ``bias[t]`` at position ``t``: no longer position-blind, by a known amount. Keeps
    the first input it sees."""

    def __init__(self, mlp: torch.nn.Sequential, bias: torch.Tensor):
        super().__init__()
        self.inner, self.bias, self.inputs = mlp, bias, []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.inputs.append(x.detach().clone())
        return self.inner(x) + self.bias[: x.shape[1]]


def _numpy_ffn(mlp: torch.nn.Sequential, x: np.ndarray) -> np.ndarray:
    """Linear -> exact GELU -> Linear, by hand."""
    w1, b1 = mlp[0].weight.detach().double().numpy(), mlp[0].bias.detach().double().numpy()
    w2, b2 = mlp[2].weight.detach().double().numpy(), mlp[2].bias.detach().double().numpy()
    h = x @ w1.T + b1
    return (0.5 * h * (1 + erf(h / np.sqrt(2)))) @ w2.T + b2


def test_ffn_statistic_on_an_ffn_made_position_dependent(monkeypatch):
    import posenc.model

    length, width = 32, 64
    bias = 0.5 * torch.arange(length, dtype=torch.float32)[:, None].expand(length, width)  # bias[t] = t / 2
    blocks = []
    real_block = posenc.model.Block

    def biased_block(*args, **kwargs):
        block = real_block(*args, **kwargs)
        block.mlp = _BiasedMLP(block.mlp, bias)
        blocks.append(block)
        return block

    monkeypatch.setattr(posenc.model, "Block", biased_block)
    swap = torch.cat([torch.tensor([1, 0]), torch.arange(2, length)])  # the "random" permutation: swap 0 and 1
    monkeypatch.setattr(torch, "randperm", lambda n, **kwargs: swap.clone())
    m = models.ffn_position_blind(QUICK)
    (block,) = blocks
    x = block.mlp.inputs[0].double().numpy()  # [2, T, D]: the experiment's input
    ffn = _numpy_ffn(block.mlp.inner, x) + bias.double().numpy()  # the biased FFN at every position
    # permuting the inputs moves the FFN part along and leaves the bias behind: swapping positions 0 and 1 leaves
    # |bias[1] - bias[0]| = 0.5; the same vector at positions 0 and 31 gives |bias[31] - bias[0]| = 15.5
    scale = np.abs(ffn).mean()
    n = m.numbers
    assert n["ffn_permutation_error"] == pytest.approx(0.5, abs=1e-4)
    assert n["ffn_same_vector_error"] == pytest.approx(15.5, abs=1e-4)
    assert n["output_scale"] == pytest.approx(scale, rel=1e-5)
    assert m.estimates["ffn_relative_error"].value == pytest.approx(15.5 / max(scale, 1.0), rel=1e-4)
    # the whole block, permuted, against the block's own outputs rearranged by hand
    rope = posenc.build_for_model("rope", d_model=width, n_heads=4, head_dim=width // 4)
    xt = torch.from_numpy(x).float()
    with torch.no_grad():
        z = block(xt, torch.arange(length), rope, None, False).double().numpy()
        zs = block(xt[:, swap], torch.arange(length), rope, None, False).double().numpy()
    assert n["rope_block_permutation_error"] == pytest.approx(np.abs(zs - z[:, swap.numpy()]).max(), rel=1e-5)


# ---------------------------------------------------------------------------------------------------------------
# learned_max_len
# ---------------------------------------------------------------------------------------------------------------
class _TinyLearned(torch.nn.Module):
    """A BERT-style input with a learned table of 16 positions (an embedding lookup: position 16 raises), or, with
    ``hard_end=False``, one that reports 16 rows but runs any length."""

    def __init__(self, hard_end: bool):
        super().__init__()
        self.hard_end = hard_end
        self.words = torch.nn.Embedding(1024, 4)
        self.embeddings = types.SimpleNamespace(position_embeddings=torch.nn.Embedding(16, 4))

    def forward(self, input_ids):
        positions = torch.arange(input_ids.shape[1])
        if not self.hard_end:
            positions = positions % 16
        return self.words(input_ids) + self.embeddings.position_embeddings(positions)


def _runs(fn) -> bool:
    try:
        with torch.no_grad():
            fn()
        return True
    except Exception:  # noqa: BLE001  (any failure is "does not run")
        return False


@pytest.mark.parametrize("hard_end", [True, False])
def test_learned_max_len_counts_by_hand(monkeypatch, hard_end):
    from posenc.model import Transformer, TransformerConfig

    model = _TinyLearned(hard_end)
    monkeypatch.setattr(pretrained, "minilm", lambda: types.SimpleNamespace(model=model))
    m = models.learned_max_len(QUICK)
    table = posenc.build("learned", dim=32, max_len=512)
    learned = Transformer(TransformerConfig(vocab_size=16, d_model=32, n_heads=4, encoding="learned", max_len=64))
    at = [_runs(lambda: table.table(512)), _runs(lambda: learned(torch.zeros(1, 64, dtype=torch.long))),
          _runs(lambda: model(input_ids=torch.full((1, 16), 1000)))]
    past = [_runs(lambda: table.table(513)), _runs(lambda: table.table(1024)),
            _runs(lambda: learned(torch.zeros(1, 65, dtype=torch.long))),
            _runs(lambda: model(input_ids=torch.full((1, 32), 1000)))]
    assert at == [True, True, True]
    assert past == [False, False, False, not hard_end]
    assert m.numbers["minilm_positions"] == 16
    assert m.estimates["models_running_at_max_len"].value == float(all(at))
    assert m.estimates["models_running_past_max_len"].value == sum(past)


# ---------------------------------------------------------------------------------------------------------------
# add_vs_concat
# ---------------------------------------------------------------------------------------------------------------
def _readout(x: np.ndarray, labels: np.ndarray, classes: int) -> float:
    """Least squares from [x, 1] to one-hot labels (numpy), then the share of rows whose largest output is right."""
    design = np.column_stack([x, np.ones(len(x))])
    weights = np.linalg.lstsq(design, np.eye(classes)[labels], rcond=None)[0]
    return float(((design @ weights).argmax(1) == labels).mean())


def test_add_vs_concat_readout_against_numpy():
    m = models.add_vs_concat(QUICK)
    vocab, length = 64, 64
    tokens = np.repeat(np.arange(vocab), length)  # every (token, position) pair
    positions = np.tile(np.arange(length), vocab)
    gen = torch.Generator().manual_seed(0)
    gaps = {}
    for d in (8, 32, 128):  # quick widths; the embeddings drawn one after another from one generator
        embedding = torch.randn(vocab, d, generator=gen, dtype=torch.float64).numpy()
        pe = formula_sinusoid(length, d)
        added = embedding[tokens] + pe[positions]
        concat = np.concatenate([embedding[tokens], pe[positions]], axis=1)
        expected = {"add_token": _readout(added, tokens, vocab), "add_position": _readout(added, positions, length),
                    "concat_token": _readout(concat, tokens, vocab),
                    "concat_position": _readout(concat, positions, length)}
        for key, value in expected.items():
            assert m.numbers["readout"][str(d)][key] == pytest.approx(value, abs=2 / 4096), (d, key)
        gaps[d] = max(expected["concat_token"] - expected["add_token"],
                      expected["concat_position"] - expected["add_position"])
    assert m.estimates["loss_at_widest"].value == pytest.approx(gaps[128], abs=4 / 4096)
    assert m.estimates["loss_at_narrowest"].value == pytest.approx(gaps[8], abs=4 / 4096)
    assert m.estimates["width_change_by_adding"].value == 0
