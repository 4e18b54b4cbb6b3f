"""Evaluation by length: window coverage, perplexity of a uniform model, "cannot run" for a learned table."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.errors import PosencError
from posenc.lab.evaluate import CANNOT_RUN, evaluate_lm, evaluate_task, lm_windows
from posenc.lab.string_tasks import PAD, VOCAB_SIZE, get_task
from posenc.model import Transformer, TransformerConfig


@settings(max_examples=60, deadline=None)
@given(length=st.integers(1, 64), stride=st.integers(1, 64), chunks=st.integers(1, 6),
       protocol=st.sampled_from(["nonoverlap", "sliding"]))
def test_windows_score_every_target_once(length, stride, chunks, protocol):
    stride = min(stride, length)
    n_tokens = length * chunks
    scored = []
    for start, n in lm_windows(n_tokens, length, protocol, stride):
        assert start >= 0 and 1 <= n <= length
        # the window reads x[start:start+length] and scores targets start+length-n+1 .. start+length
        scored.extend(range(start + length - n + 1, start + length + 1))
        if protocol == "sliding" and start > 0:
            assert length - n >= length - stride  # every later scored token sees >= length - stride context
    assert sorted(scored) == list(range(1, n_tokens + 1))


def test_nonoverlapping_windows_tile_the_text_and_sliding_ones_step_by_the_stride():
    # 12 targets, windows of 4: three disjoint windows, each scoring all 4 of its predictions
    assert lm_windows(12, 4, "nonoverlap", 1) == [(0, 4), (4, 4), (8, 4)]
    assert lm_windows(12, 4, "nonoverlapping", 1) == [(0, 4), (4, 4), (8, 4)]  # the alias
    # sliding with stride 2: the first window scores 4, each later one moves by 2 and scores its last 2
    assert lm_windows(12, 4, "sliding", 2) == [(0, 4), (2, 2), (4, 2), (6, 2), (8, 2)]


def _uniform_model(encoding="nope", max_len=16, vocab=12):
    model = Transformer(TransformerConfig(vocab_size=vocab, d_model=16, n_heads=2, n_layers=1, encoding=encoding,
                                          max_len=max_len))
    torch.nn.init.zeros_(model.head.weight)  # logits all zero -> uniform prediction
    return model


def test_uniform_model_has_perplexity_vocab_size():
    # uniform over V: nll = ln V per character, ppl = V, bpc = log2 V (12 -> 3.585)
    model = _uniform_model()
    text = torch.randint(0, 12, (400,))
    out = evaluate_lm(model, text, [8, 16, 32], max_tokens=128)
    for protocol in ("nonoverlap", "sliding"):
        for length in ("8", "16", "32"):
            cell = out[protocol][length]
            assert cell["ppl"] == pytest.approx(12, rel=1e-5)
            assert cell["bpc"] == pytest.approx(math.log2(12), rel=1e-5)
            assert cell["tokens"] == 128


def test_learned_table_cannot_run_past_its_rows():
    model = _uniform_model("learned", max_len=16)
    out = evaluate_lm(model, torch.randint(0, 12, (300,)), [8, 16, 32, 64], max_tokens=128)
    for protocol in ("nonoverlap", "sliding"):
        assert isinstance(out[protocol]["16"], dict)
        assert out[protocol]["32"] == CANNOT_RUN and out[protocol]["64"] == CANNOT_RUN


def test_sliding_window_matches_a_direct_computation():
    # reference: with window 8 and stride 2 over 32 targets, target t (1-based) is scored by the window ending at
    # e = 8 for t <= 8, else e = 8 + 2 * ceil((t - 8) / 2); that window reads x[e-8:e] and predicts t at index t-1-(e-8).
    torch.manual_seed(0)
    model = Transformer(TransformerConfig(vocab_size=12, d_model=16, n_heads=2, n_layers=1, encoding="rope")).eval()
    text = torch.randint(0, 12, (40,))
    total = 0.0
    with torch.no_grad():
        for t in range(1, 33):
            e = 8 if t <= 8 else 8 + 2 * math.ceil((t - 8) / 2)
            logp = torch.log_softmax(model(text[None, e - 8:e])[0], -1)  # [8, V]
            total -= float(logp[t - 1 - (e - 8), text[t]])
    out = evaluate_lm(model, text, [8], protocols=("sliding",), max_tokens=32, stride=2)
    assert out["sliding"]["8"]["nll"] == pytest.approx(total / 32, rel=1e-5)


class _CopyOracle(torch.nn.Module):
    """Answers the copy task by reading the input: in the decoder format the logit at position ``m + j`` (SEP, then
    the fed outputs) predicts ``x_{j+1} = ids[j]``; in the encoder format the blank at ``m + 1 + j`` does. Every other
    position predicts PAD, which is never a target. ``wrong_last``: predict PAD at the last output as well."""

    def __init__(self, fmt: str, wrong_last: bool = False):
        super().__init__()
        self.fmt, self.wrong_last = fmt, wrong_last
        self.seen: list[torch.Tensor] = []

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        self.seen.append(ids.clone())
        B, T = ids.shape
        m = T // 2 if self.fmt == "decoder" else (T - 1) // 2  # copy: k = m
        first = m if self.fmt == "decoder" else m + 1
        answer = torch.full((B, T), PAD)
        answer[:, first:first + m] = ids[:, :m]
        if self.wrong_last:
            answer[:, -1] = PAD
        return torch.nn.functional.one_hot(answer, VOCAB_SIZE).float()  # [B, T, V]


@pytest.mark.parametrize("fmt", ["decoder", "encoder"])
def test_a_model_that_is_always_right_scores_one(fmt):
    # 10 samples in batches of 4, 4 and 2: every sequence exact, every output token right; the input, SEP and (in the
    # encoder format) the blanks' neighbours are not targets, so the PAD predicted there costs nothing
    out = evaluate_task(_CopyOracle(fmt), get_task("copy"), [3, 5], fmt, samples=10, seed=0, batch_size=4)
    assert out == {"3": {"exact_match": 1.0, "token_accuracy": 1.0, "samples": 10},
                   "5": {"exact_match": 1.0, "token_accuracy": 1.0, "samples": 10}}


@pytest.mark.parametrize("fmt", ["decoder", "encoder"])
def test_a_model_wrong_at_the_last_output_is_never_exact_and_right_on_the_rest(fmt):
    # size n: n output tokens a sample, n - 1 of them right -> token accuracy (n - 1) / n: 2/3 at 3, 4/5 at 5;
    # no sample is exact (PAD is never a copy symbol)
    out = evaluate_task(_CopyOracle(fmt, wrong_last=True), get_task("copy"), [3, 5], fmt, samples=7, seed=1,
                        batch_size=3)
    assert out["3"] == {"exact_match": 0.0, "token_accuracy": pytest.approx(2 / 3), "samples": 7}
    assert out["5"] == {"exact_match": 0.0, "token_accuracy": pytest.approx(4 / 5), "samples": 7}


def test_every_model_sees_the_same_strings_for_a_seed_and_other_strings_for_another():
    runs = {}
    for seed in (0, 0, 1):
        model = _CopyOracle("decoder")
        evaluate_task(model, get_task("copy"), [4], "decoder", samples=6, seed=seed, batch_size=6)
        runs.setdefault(seed, []).append(model.seen[0])
    assert torch.equal(runs[0][0], runs[0][1])
    assert not torch.equal(runs[0][0], runs[1][0])


def test_the_longest_length_needs_one_character_more_than_it_reads():
    # 33 characters give 32 targets: a window of 32 fits exactly; 32 characters do not
    out = evaluate_lm(_uniform_model(max_len=64), torch.randint(0, 12, (33,)), [32], protocols=("nonoverlap",))
    assert out["nonoverlap"]["32"]["tokens"] == 32
    with pytest.raises(PosencError, match="at least 33 characters"):
        evaluate_lm(_uniform_model(max_len=64), torch.randint(0, 12, (32,)), [32])


def test_scored_tokens_are_the_largest_multiple_of_the_longest_length_within_max_tokens():
    # 100 characters, lengths 8 and 12, max_tokens 50: min(50, 99) // 12 * 12 = 48 targets for both lengths
    out = evaluate_lm(_uniform_model(), torch.randint(0, 12, (100,)), [8, 12], max_tokens=50)
    assert {out[p][n]["tokens"] for p in ("nonoverlap", "sliding") for n in ("8", "12")} == {48}
    # max_tokens below the longest length still scores one window of it (lengths 6 and 12: both divide 12)
    out = evaluate_lm(_uniform_model(), torch.randint(0, 12, (100,)), [6, 12], max_tokens=5)
    assert {out[p][n]["tokens"] for p in ("nonoverlap", "sliding") for n in ("6", "12")} == {12}


def test_the_sliding_stride_defaults_to_an_eighth_of_the_length_and_at_least_one():
    torch.manual_seed(0)
    model = Transformer(TransformerConfig(vocab_size=12, d_model=16, n_heads=2, n_layers=1, encoding="rope")).eval()
    text = torch.randint(0, 12, (200,))
    default = evaluate_lm(model, text, [16, 4], protocols=("sliding",), max_tokens=64)["sliding"]
    assert default["16"] == evaluate_lm(model, text, [16], protocols=("sliding",), max_tokens=64,
                                        stride=2)["sliding"]["16"]  # 16 // 8
    assert default["4"] == evaluate_lm(model, text, [4], protocols=("sliding",), max_tokens=64,
                                       stride=1)["sliding"]["4"]  # 4 // 8 = 0 -> 1
    assert default["16"] != evaluate_lm(model, text, [16], protocols=("sliding",), max_tokens=64,
                                        stride=4)["sliding"]["16"]  # the stride matters here


def test_evaluate_task_batches_128_by_default():
    model = _CopyOracle("decoder")
    evaluate_task(model, get_task("copy"), [2], "decoder", samples=300, seed=0)
    assert [ids.shape[0] for ids in model.seen] == [128, 128, 44]
