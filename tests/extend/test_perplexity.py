"""Perplexity protocols: which tokens each counts, and the per-token losses against the model library's logits."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from extend_models import tiny_llama

from posenc import PosencError
from posenc.extend.perplexity import (
    WindowNLL,
    decode_nll,
    encode_nll,
    protocol_ppl,
    scored_slice,
    token_nll,
    window_offsets,
)


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
