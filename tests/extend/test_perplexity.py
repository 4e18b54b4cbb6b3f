"""Perplexity protocols: which tokens each counts, and the per-token losses against the model library's logits."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from extend_models import tiny_llama

from posenc import PosencError
from posenc.extend.perplexity import (
    PROTOCOLS,
    WindowNLL,
    decode_nll,
    encode_nll,
    normalize_protocol,
    normalize_protocols,
    protocol_ppl,
    scored_slice,
    token_nll,
    window_offsets,
)
from posenc.extend.plan import ExtendConfig
from posenc.lab.train import RunConfig


# the protocols' names: one canonical spelling for the lab and for extend, an alias, clear errors
def test_canonical_names_pass_through_and_alias_maps():
    assert PROTOCOLS.names() == ("nonoverlap", "sliding")
    for name in PROTOCOLS:
        assert normalize_protocol(name) == name
    assert normalize_protocol("nonoverlapping") == "nonoverlap"


def test_unknown_or_empty_is_an_error_naming_the_choices():
    with pytest.raises(PosencError, match=r"unknown protocol 'strided'.*nonoverlap, sliding"):
        normalize_protocol("strided")
    with pytest.raises(PosencError, match="at least one protocol"):
        normalize_protocols([])


def test_lab_and_extend_store_the_same_canonical_name():
    # The config hash keys the store, so both spellings must give the same config.
    a = RunConfig(task="charlm", train_len=16, protocols=["nonoverlapping", "sliding"])
    b = RunConfig(task="charlm", train_len=16, protocols=["nonoverlap", "sliding"])
    assert a.protocols == b.protocols == ["nonoverlap", "sliding"]
    assert a.as_dict() == b.as_dict()
    assert ExtendConfig(protocols=("nonoverlapping",)).protocols == ("nonoverlap",)


def test_window_offsets_by_protocol():
    assert window_offsets("nonoverlap", 100, 3) == [0, 100, 200]
    assert window_offsets("sliding", 100, 4, stride=50) == [0, 50, 100, 150]
    with pytest.raises(PosencError, match="valid protocols are: nonoverlap, sliding"):
        window_offsets("strided", 100, 1)
    with pytest.raises(PosencError, match="stride"):
        window_offsets("sliding", 100, 2, stride=0)


def test_scored_slices():
    # a window of L = 10 tokens has 9 predictions (tokens 1..9); sliding with stride 4 counts the last 4 of them,
    # i.e. tokens 6..9, each with at least 6 = L - S tokens of context
    assert scored_slice("nonoverlap", 10) == slice(0, 9)
    assert scored_slice("sliding", 10, stride=4) == slice(5, 9)
    assert scored_slice("sliding", 10, stride=10) == slice(0, 9)  # clipped to the window


def test_protocol_ppl_is_token_weighted():
    # window A: nll 1,1,1 (3 predictions), window B: nll 2,2,2. Non-overlapping: mean (3*1 + 3*2)/6 = 1.5.
    # Sliding with stride 1 counts only the last prediction of each: (1 + 2) / 2 = 1.5 as well, over 2 tokens.
    windows = [WindowNLL(0, np.ones(3, np.float32)), WindowNLL(4, 2 * np.ones(3, np.float32))]
    full = protocol_ppl(windows, "nonoverlap", 4)
    assert full["tokens"] == 6 and full["nll"] == pytest.approx(1.5) and full["ppl"] == pytest.approx(math.exp(1.5))
    last = protocol_ppl([WindowNLL(0, np.array([5, 5, 1], np.float32))], "sliding", 4, stride=1)
    assert last["tokens"] == 1 and last["ppl"] == pytest.approx(math.e)


def test_token_nll_matches_log_softmax_of_library_logits(ids):
    model = tiny_llama()
    with torch.no_grad():
        logits = model(ids[None]).logits[0].double()  # [L, V]
    expected = -torch.log_softmax(logits, -1)[:-1].gather(1, ids[1:, None])[:, 0]  # predict token t from t-1
    got = token_nll(model, ids, chunk=37)  # chunks that do not divide the length
    torch.testing.assert_close(got.double(), expected, rtol=1e-4, atol=1e-4)


def test_nll_round_trips_through_text():
    array = np.array([0.5, 1.25, 7.0], np.float32)
    np.testing.assert_array_equal(decode_nll(encode_nll(array)), array)


def test_too_short_window_is_refused():
    with pytest.raises(PosencError, match="at least 2 tokens"):
        token_nll(tiny_llama(), torch.tensor([3]))


@pytest.mark.parametrize(("stride", "expected"), [
    (1, slice(8, 9)),  # the last prediction only: token 9, with 9 tokens of context
    (9, slice(0, 9)),  # L - 1: every prediction, the first with no context
    (10, slice(0, 9)),  # S = L, the largest stride allowed: the same nine predictions
])
def test_sliding_slice_at_the_ends_of_the_stride(stride, expected):
    assert scored_slice("sliding", 10, stride=stride) == expected


@pytest.mark.parametrize("stride", [0, 11, None])
def test_a_stride_outside_1_to_length_is_refused(stride):
    with pytest.raises(PosencError, match=r"stride must be in 1\.\.length \(10\)"):
        scored_slice("sliding", 10, stride=stride)
    with pytest.raises(PosencError, match="stride"):
        window_offsets("sliding", 10, 2, stride=stride)


def test_window_offsets_need_one_window():
    assert window_offsets("nonoverlap", 8, 1) == [0]
    assert window_offsets("sliding", 8, 1, stride=3) == [0]
    with pytest.raises(PosencError, match="at least one window"):
        window_offsets("nonoverlap", 8, 0)


def test_protocol_ppl_reports_each_windows_mean_in_offset_order():
    # L = 5: four predictions a window. Sliding with stride 2 counts the last two:
    # window at 0: (3 + 5) / 2 = 4; window at 2: (1 + 2) / 2 = 1.5; all four counted: (3 + 5 + 1 + 2) / 4 = 2.75
    windows = [WindowNLL(0, np.array([9, 9, 3, 5], np.float32)), WindowNLL(2, np.array([0, 7, 1, 2], np.float32))]
    got = protocol_ppl(windows, "sliding", 5, stride=2)
    assert got["window_nll"] == [4.0, 1.5] and got["offsets"] == [0, 2] and got["windows"] == 2
    assert got["tokens"] == 4 and got["nll"] == 2.75 and got["ppl"] == pytest.approx(math.exp(2.75))
    # non-overlapping counts all four of each: (26 / 4, 10 / 4)
    full = protocol_ppl(windows, "nonoverlap", 5)
    assert full["window_nll"] == [6.5, 2.5] and full["tokens"] == 8 and full["nll"] == 4.5


def test_protocol_ppl_with_no_windows_is_refused():
    with pytest.raises(PosencError, match="no scored tokens"):
        protocol_ppl([], "nonoverlap", 5)


@pytest.mark.parametrize("chunk", [1, 4 * 64 - 1, 4 * 64, 5000])
def test_token_nll_is_the_same_for_every_chunk_size(ids, chunk):
    """The chunks of the output layer only split the work: one position at a time, exactly the L - 1 predictions,
    and a chunk larger than the window give the same losses (float32, shape [L - 1])."""
    model = tiny_llama()
    with torch.no_grad():
        logits = model(ids[None]).logits[0].double()
    expected = -torch.log_softmax(logits, -1)[:-1].gather(1, ids[1:, None])[:, 0]
    got = token_nll(model, ids, chunk=chunk)
    assert got.dtype == torch.float32 and got.shape == (ids.numel() - 1,)
    torch.testing.assert_close(got.double(), expected, rtol=1e-4, atol=1e-4)


class _NoHead(torch.nn.Module):
    """A base model under ``.model`` but no output layer (``get_output_embeddings`` gives None, as a bare encoder)."""

    def __init__(self):
        super().__init__()
        self.model = tiny_llama().model

    def get_output_embeddings(self):
        return None


class _NoBase(torch.nn.Module):
    """An output layer but no ``.model``."""

    def __init__(self):
        super().__init__()
        self.head = torch.nn.Linear(4, 4)

    def get_output_embeddings(self):
        return self.head


@pytest.mark.parametrize("model", [_NoHead, _NoBase], ids=["no-head", "no-base"])
def test_a_model_without_base_or_output_layer_is_refused_by_name(model):
    with pytest.raises(PosencError, match=rf"{model.__name__} is not a causal LM with \.model and an output layer"):
        token_nll(model(), torch.arange(5))
