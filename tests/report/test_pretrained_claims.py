"""The MiniLM claims: their records, their verdicts at the edges of every threshold, the experiments' computations
against independent ones, and one judgement shared by ``posenc probe`` and ``posenc report``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from posenc.pretrained import load_model
from posenc.report.claim import Claim, Test
from posenc.report.claims import claims_of, value
from posenc.report.experiments import pretrained
from posenc.report.experiments.base import Context
from posenc.report.measurement import Measurement
from posenc.report.run import judge_claim
from posenc.report.verdict import judge
from posenc.stats import Estimate

SEEDS = Path("/work/shared/seeds")
CLAIMS = {c.id: c for c in claims_of("pretrained")}


@pytest.fixture(scope="session")
def minilm():
    return load_model("minilm")


def _e(value: float, low: float, high: float) -> Estimate:
    return Estimate(value, low, high, 38, "bootstrap")


def _edge(test, where: str) -> Estimate:
    """An estimate just on the passing side of ``test``'s threshold, exactly on its edge (fails: the rule needs the
    whole interval strictly on the claim's side), or straddling it."""
    t = test.threshold
    d = 1e-3 * max(1.0, abs(t))
    sign = 1 if test.op == ">" else -1
    if where == "pass":
        a, b = sorted((t + sign * d, t + sign * 2 * d))
    elif where == "edge":
        a, b = sorted((t, t - sign * d))
    else:
        a, b = t - d, t + d
    return _e((a + b) / 2, a, b)


def _nulls(claim: Claim, where: str = "fail") -> dict[str, Estimate]:
    """Each named null far on the failing side of its test's bar (what a null that separates from the effect
    gives), or far on the passing side (``where="pass"``: the null alone clears the bar)."""
    out = {}
    for t in (*claim.requires, *claim.tests):
        if t.null:
            step = 0.5 * max(1.0, abs(t.threshold)) * (1 if t.op == ">" else -1) * (1 if where == "pass" else -1)
            out[t.null] = _e(t.threshold + step, t.threshold + step * 0.9, t.threshold + step * 1.1) \
                if step > 0 else _e(t.threshold + step, t.threshold + step * 1.1, t.threshold + step * 0.9)
    return out


def _expected(claim: Claim, flipped, where: str) -> str:
    if where == "straddle":
        return "inconclusive"
    core = [t for t in claim.tests if t.role == "core"]
    if flipped.role == "core" and len(core) == 1:
        return "refuted"
    return "qualified"


def test_the_ported_claims_and_the_new_ones():
    assert set(CLAIMS) == {"near-orthogonal", "small-magnitude", "comparable-magnitude", "four-terms-weak", "head-experts", "qk-dimension-experts", "positional-heads",
                           "voita-heads", "tupe-uniform"}
    for claim in CLAIMS.values():
        assert all(t.basis for t in (*claim.tests, *claim.requires)), claim.id
        if claim.origin == "tutorial":
            assert claim.quote and claim.source.startswith("tutorial"), claim.id
        else:
            assert not claim.quote and "et al." in claim.source, claim.id
    for claim_id in ("four-terms-weak", "head-experts", "qk-dimension-experts", "tupe-uniform"):
        assert CLAIMS[claim_id].choice is pretrained.WINDOW
    # voita-heads, like positional-heads, makes MiniLM's window length a condition of its verdict (issue 43); the
    # choice is the model (SmolLM2 beside MiniLM, posenc.report.experiments.decoder)
    for claim_id in ("positional-heads", "voita-heads"):
        assert CLAIMS[claim_id].choice is value("HEAD_MODEL")
        minilm_tests = CLAIMS[claim_id].under(pretrained.MODEL_OPTIONS[0]).tests
        assert {t.statistic.rsplit("_", 1)[1] for t in minilm_tests} == {"128", "256", "512"}
    assert CLAIMS["near-orthogonal"].choice is pretrained.SAMPLE


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the tutorials are not on this machine")
def test_quotes_are_the_seeds_own_sentences():
    texts = {p.name[:3]: p.read_text(encoding="utf-8") for p in SEEDS.glob("*.txt")}
    for claim in CLAIMS.values():
        if claim.quote:
            numbers = [part.split()[1][:3] for part in claim.source.split(",") if part.strip().startswith("tutorial")]
            assert any(claim.quote in texts[n] for n in numbers), claim.id


@pytest.mark.parametrize("claim_id", sorted(CLAIMS))
def test_verdicts_at_the_edges_of_every_threshold(claim_id):
    """All tests clear their bars: supported. One test exactly on its bar (or just over it): refuted when it is the
    only core test, else qualified. One interval across its bar: inconclusive. Under each option of the claim's
    choice, with the tests that option reads (the head claims read SmolLM2's tests under its option only)."""
    whole = CLAIMS[claim_id]
    for option in (whole.choice.options if whole.choice else (None,)):
        claim = whole.under(option)
        nulls = _nulls(claim)
        passing = {**nulls, **{t.statistic: _edge(t, "pass") for t in claim.tests}}
        assert judge(whole, passing, option=option).status == "supported", option
        for test in claim.tests:
            if test.statistic in nulls:  # a test whose statistic is another's null (near-orthogonal's condition)
                continue
            for where in ("edge", "straddle"):
                estimates = {**passing, test.statistic: _edge(test, where)}
                verdict = judge(whole, estimates, option=option)
                assert verdict.status == _expected(claim, test, where), (option, test.statistic, where,
                                                                         verdict.reason)
                if verdict.status == "qualified" and test.unless:
                    assert test.unless in verdict.condition
        failing = {**nulls, **{t.statistic: _edge(t, "edge") for t in claim.tests if t.statistic not in nulls}}
        if not any(t.statistic in nulls for t in claim.tests):
            # a hedged claim (可能) with sampled numbers and no power requirement is never refuted (the hedge rule)
            hedged = claim.hedged and not claim.power
            assert judge(whole, failing, option=option).status == ("inconclusive" if hedged else "refuted")
        if nulls:  # a null that already passes its bar: the test cannot tell the cases apart (issue 43)
            verdict = judge(whole, {**passing, **_nulls(claim, "pass")}, option=option)
            assert verdict.status == "not testable" and "already" in verdict.reason


def test_real_shaped_verdicts():
    """Hand-made estimates shaped like MiniLM's: the verdict each claim's rule gives them."""
    near = CLAIMS["near-orthogonal"]
    trained = {"position_enrichment": _e(0.063, 0.04, 0.096), "init_position_enrichment": _e(1.0, 0.994, 1.01)}
    assert judge(near, trained).status == "supported"
    already = {**trained, "init_position_enrichment": _e(0.2, 0.1, 0.3)}
    verdict = judge(near, already)  # random tables already orthogonal: the null passes the bar
    assert verdict.status == "not testable" and "init_position_enrichment" in verdict.reason
    assert judge(near, {**trained, "position_enrichment": _e(0.9, 0.8, 1.0)}).status == "refuted"
    assert judge(near, {**trained, "position_enrichment": _e(0.3, 0.12, 0.58)}).status == "inconclusive"
    heads = CLAIMS["positional-heads"]
    every = {f"positional_heads_{n}": _e(1, 1, 1) for n in pretrained.LENGTHS}
    assert judge(heads, every).status == "supported"
    assert judge(heads, {k: _e(0, 0, 0) for k in every}).status == "refuted"
    assert judge(heads, {**every, "positional_heads_128": _e(1, 0, 2)}).status == "inconclusive"
    voita = CLAIMS["voita-heads"]
    beyond = {"adjacent_positional_heads_128": _e(1, 1, 1), "other_positional_heads_128": _e(1, 1, 1),
              "adjacent_positional_heads_256": _e(1, 1, 1), "adjacent_positional_heads_512": _e(1, 1, 1)}
    assert judge(voita, beyond).condition.startswith("positional heads exist at +-1")
    experts = CLAIMS["head-experts"]
    separated = {"null_max_head_word_share": _e(0.3, 0.28, 0.32), "null_max_head_position_share": _e(0.02, 0.02, 0.03)}
    only_position = {"max_head_word_share": _e(0.4, 0.35, 0.45), "max_head_position_share": _e(0.98, 0.97, 0.99)}
    assert judge(experts, {**only_position, **separated}).condition == "no head is a word expert"
    # MiniLM's quick numbers at 128 tokens (2026-11-28): random heads of matched norms are already "word experts"
    # (word rows twice as long as position rows: ww about 16/25 of the four terms), so the word half cannot tell
    measured = {"max_head_word_share": _e(0.926, 0.916, 0.936), "max_head_position_share": _e(0.983, 0.982, 0.985),
                "null_max_head_word_share": _e(0.754, 0.728, 0.78),
                "null_max_head_position_share": _e(0.0212, 0.0205, 0.0219)}
    verdict = judge(experts, measured)
    assert verdict.status == "not testable" and "null_max_head_word_share = 0.754" in verdict.reason


def test_voita_heads_carry_the_window_length_as_conditions():
    """Issue 43: supported at 128, inconclusive at 256, refuted at 512 on the same data were three verdicts of one
    choice; the lengths are now conditions of one verdict, as positional-heads has them."""
    claim = CLAIMS["voita-heads"]
    at = {"adjacent_positional_heads_128": _e(1, 1, 1), "other_positional_heads_128": _e(0, 0, 0),
          "adjacent_positional_heads_256": _e(1, 1, 1), "adjacent_positional_heads_512": _e(0, 0, 0)}
    verdict = judge(claim, at)
    assert verdict.status == "qualified" and verdict.condition == "not at 512 tokens"
    assert judge(claim, {**at, "adjacent_positional_heads_256": _e(0, 0, 0)}).condition == (
        "supported at 128 tokens (the fine-tuning length); not at 256 tokens; not at 512 tokens")
    every = {**at, "adjacent_positional_heads_512": _e(1, 1, 1)}
    assert judge(claim, every).status == "supported"
    assert judge(claim, {**every, "adjacent_positional_heads_256": _e(1, 0, 2)}).status == "inconclusive"
    assert judge(claim, {**at, "adjacent_positional_heads_128": _e(0, 0, 0)}).status in ("refuted", "qualified")


def test_positional_heads_carry_the_window_length_in_the_summary():
    """Issue 29: 'supported' held at 128-token windows only; the verdict itself (the summary row) says so."""
    claim = CLAIMS["positional-heads"]
    verdict = judge(claim, {"positional_heads_128": _e(1, 1, 1), "positional_heads_256": _e(0, 0, 0),
                            "positional_heads_512": _e(0, 0, 0)})
    assert verdict.status == "qualified"
    assert verdict.label == ("qualified: supported at 128 tokens (the fine-tuning length); refuted at 256 tokens; "
                             "refuted at 512 tokens")
    only_512 = judge(claim, {"positional_heads_128": _e(1, 1, 1), "positional_heads_256": _e(1, 1, 1),
                             "positional_heads_512": _e(0, 0, 0)})
    assert only_512.label == "qualified: refuted at 512 tokens"


def test_the_headline_length_is_the_packages_fine_tuning_length():
    """Read independently from the package: tokenizer.json truncates at 128 (what posenc.pretrained.package_lengths
    reads: tests/test_pretrained.py)."""
    from posenc.pretrained import minilm_dir

    folder = minilm_dir()
    truncation = json.loads((folder / "tokenizer.json").read_text())["truncation"]["max_length"]
    assert pretrained.WINDOW.headline == pretrained.window_option(truncation) == "128 tokens"
    assert "limited to 128 tokens" in (folder / "README.md").read_text()


def test_experiments_give_every_statistic_the_claims_read():
    """The head and four-term statistics come from the probe's functions: on tiny inputs they name every
    statistic the claims test."""
    from posenc.probe.decompose import dimension_statistics, flatness_statistics, term_statistics
    from posenc.probe.heads import HeadAccumulator, positional_heads

    acc = HeadAccumulator(1, 2, max_len=8)
    for _ in range(2):
        acc.add(0, torch.softmax(torch.randn(2, 8, 8), -1))
    heads = set(positional_heads(acc.summary(), query_offsets=acc.query_offsets()).estimates) | {
        f"{key}_{n}" for n in pretrained.LENGTHS
        for key in ("positional_heads", "adjacent_positional_heads", "other_positional_heads")}
    rng = np.random.default_rng(0)
    terms = (set(term_statistics(rng.uniform(1, 2, (3, 2, 6)), np.full(3, 64.0))[0])
             | set(flatness_statistics(rng.uniform(1, 2, (3, 2, 4)))) | set(dimension_statistics(
                 rng.uniform(1, 2, (3, 2, 4, 4)))[0]))
    for claim in CLAIMS.values():
        wanted = {t.statistic for t in claim.tests}
        if claim.experiment == "model_heads":  # MiniLM's option (SmolLM2's: tests/report/test_decoder.py)
            assert {t.statistic for t in claim.under(pretrained.MODEL_OPTIONS[0]).tests} <= heads, claim.id
        elif claim.experiment == "minilm_four_terms":
            assert wanted <= terms, claim.id
            # each null is the same statistic through the same functions on the random-weight draws
            assert {t.null for t in claim.tests} <= {f"null_{k}" for k in terms}, claim.id
            assert all(t.null == f"null_{t.statistic}" for t in claim.tests), claim.id


# ---------------------------------------------------------------------------------------------------------------
# the experiments' own computations against independent ones
# ---------------------------------------------------------------------------------------------------------------
def test_window_pass_against_the_models_own_outputs(minilm, monkeypatch):
    """On three short windows: each query's argmax offset equals the one from output_attentions=True, and the
    four-term sums are those of four_term_split on each window."""
    from posenc import corpora as corpus
    from posenc.probe.decompose import four_term_split

    windows = corpus.play_windows(minilm.tokenizer, 24, 3)
    monkeypatch.setattr(corpus, "text_windows", lambda tokenizer, length, count=None, seed=0, longest=None:
                        (windows, ["plays"] * len(windows)))
    monkeypatch.setattr(pretrained, "minilm", lambda: minilm)
    result = pretrained._window_pass.__wrapped__(24, 3)
    model = minilm.model
    model.set_attn_implementation("eager")
    with torch.no_grad():
        for k, ids in enumerate(windows):
            attentions = model(input_ids=torch.tensor([ids]), output_attentions=True).attentions
            for layer, weights in enumerate(attentions):
                expected = weights[0].argmax(-1) - torch.arange(24)  # [H, T]
                np.testing.assert_array_equal(result["argmax"][k, layer], expected.numpy())
            split = four_term_split(model, torch.tensor(ids))
            np.testing.assert_allclose(result["sums"][k], split.sums(), rtol=1e-12)
            np.testing.assert_allclose(result["flat_sums"][k], split.flatness_sums(), rtol=1e-12)
            np.testing.assert_allclose(result["dim_sums"][k], split.dimension_sums(), rtol=1e-12)
    assert result["windows"] == 3 and result["split_error"] < 1e-4


def test_magnitude_against_numpy(minilm, monkeypatch):
    monkeypatch.setattr(pretrained, "minilm", lambda: minilm)
    measured = pretrained.magnitude(Context(quick=True))
    words = minilm.model.embeddings.word_embeddings.weight.detach().double().numpy()
    positions = minilm.model.embeddings.position_embeddings.weight.detach().double().numpy()
    vocab = minilm.tokenizer.get_vocab()
    keep = sorted(i for token, i in vocab.items() if not (token.startswith("[unused") and token.endswith("]")))
    ratio = np.linalg.norm(positions, axis=1).mean() / np.linalg.norm(words[keep], axis=1).mean()
    estimate = measured.estimates["position_to_word_norm"]
    assert estimate.value == pytest.approx(ratio, rel=1e-10)
    assert estimate.low < ratio < estimate.high and estimate.high - estimate.low < 0.05
    # the sinusoid's RMS per channel is 1/sqrt(2) (sin^2 + cos^2 = 1 per pair); each reference's RMS is its std
    # times sqrt(512)
    for name, std in (("N(0, 1/d) x sqrt(d)", 512 ** -0.5), ("N(0, 0.02^2) x sqrt(d)", 0.02),
                      ("N(0, 1) x sqrt(d)", 1.0)):
        ratio_ref = (0.5 ** 0.5) / (std * 512 ** 0.5)
        variant = measured.variants[name]
        assert variant["sinusoid_to_reference_rms"].value == pytest.approx(ratio_ref, rel=1e-4)
        assert variant["sinusoid_reference_log10_gap"].value == pytest.approx(abs(np.log10(ratio_ref)), abs=1e-4)
        assert variant["position_to_word_norm"] == estimate
    assert measured.estimates == measured.variants[pretrained.REFERENCE.headline]
    gap = abs(np.log10((0.5 ** 0.5) / np.sqrt((words[keep] ** 2).mean())))
    word_gap = measured.estimates["sinusoid_minilm_word_log10_gap"]
    assert word_gap.value == pytest.approx(gap, rel=1e-6) and word_gap.low <= gap <= word_gap.high


def test_the_two_magnitude_claims_name_their_reference_and_quote_their_own_tutorial():
    """Tutorial 000 says 'small', tutorial 003 'comparable': two claims, each with its own document, judged under each
    reference embedding (issue 29: the verdict flips with the reference, so the page shows every one)."""
    small, comparable = CLAIMS["small-magnitude"], CLAIMS["comparable-magnitude"]
    assert small.source.startswith("tutorial 000") and comparable.source.startswith("tutorial 003")
    assert "较小" in small.quote and "量级相当" in comparable.quote
    for claim in (small, comparable):
        assert claim.experiment == "magnitude" and claim.choice is pretrained.REFERENCE
        text = " ".join(t.says + t.basis for t in claim.tests)
        assert "sqrt(d)" in text and "MiniLM" in text, claim.id
    # 5, 3: the measurement names its scope; 6, 4: measured and presented apart (report/present); 7, 5: the
    # probes they call followed by the fingerprint
    assert (small.revision, comparable.revision) == (7, 5)
    # the references' ratios, sinusoid RMS 0.707 over 1, 0.453 and 22.6: small under two, comparable under two
    trained = {"position_to_word_norm": _e(0.436, 0.431, 0.445),
               "sinusoid_minilm_word_log10_gap": _e(1.098, 1.097, 1.099)}
    variants = {name: {**trained, "sinusoid_to_reference_rms": Estimate(r, r, r),
                       "sinusoid_reference_log10_gap": Estimate(abs(np.log10(r)), abs(np.log10(r)),
                                                                abs(np.log10(r)))}
                for name, r in (("N(0, 1/d) x sqrt(d)", 0.5 ** 0.5), ("N(0, 0.02^2) x sqrt(d)", 1.5625),
                                ("N(0, 1) x sqrt(d)", 0.5 ** 0.5 / 512 ** 0.5))}
    measured = Measurement({}, estimates=variants[pretrained.REFERENCE.headline], variants=variants)
    _, small_by = judge_claim(small, measured)
    _, comparable_by = judge_claim(comparable, measured)
    assert {k: v.status for k, v in small_by.items()} == {
        "N(0, 1/d) x sqrt(d)": "supported", "N(0, 0.02^2) x sqrt(d)": "qualified", "N(0, 1) x sqrt(d)": "supported"}
    assert {k: v.status for k, v in comparable_by.items()} == {
        "N(0, 1/d) x sqrt(d)": "qualified", "N(0, 0.02^2) x sqrt(d)": "qualified", "N(0, 1) x sqrt(d)": "refuted"}


def test_voita_claim_says_what_is_tested_and_what_is_not():
    voita = CLAIMS["voita-heads"]
    assert "definition" in voita.claim and "pruning" in voita.claim and "not tested" in voita.claim
    assert voita.revision == 13  # 4: the Voita fraction resamples query positions beside windows; 5: windows of two
    # kinds of text; 6: the window lengths are conditions of one verdict; 7: the four-term sums of its window pass
    # come from the projected parts (posenc.probe.term_sums); 8: SmolLM2 as a second model; 9: the head pass from
    # posenc.probe.heads, SmolLM2 loaded once; 10: measured and presented apart (report/present); 11: its probes in
    # posenc.probe, followed by the fingerprint; 12: quick mode's exit a plain branch again; 13: the page decides
    # in one place what quick mode shows of SmolLM2


def test_dimension_split_against_numpy(minilm, monkeypatch):
    """The tutorial 002 experiment: its statistics against a direct computation on the same sample, and its claim's
    verdict follows the intervals."""
    from sklearn.linear_model import LinearRegression

    from posenc.probe.decodability import block_position_decoding

    monkeypatch.setattr(pretrained, "minilm", lambda: minilm)
    monkeypatch.setattr(pretrained, "_tables", lambda: (minilm.model.embeddings.word_embeddings.weight.detach(),
                                                        minilm.model.embeddings.position_embeddings.weight.detach()))
    measured = pretrained.minilm_dimensions(Context(quick=True))
    numbers = measured.numbers
    assert numbers["blocks"] == [(0, 96), (96, 192), (192, 288), (288, 384)]
    words = minilm.model.embeddings.word_embeddings.weight.detach().double().numpy()
    positions = minilm.model.embeddings.position_embeddings.weight.detach().double().numpy()
    # the variance share per dimension, from the whole trained vocabulary: close to the sample's
    vocab = minilm.tokenizer.get_vocab()
    keep = sorted(i for token, i in vocab.items() if not (token.startswith("[unused") and token.endswith("]")))
    share = positions.var(0) / (positions.var(0) + words[keep].var(0))
    gap = share[:96].mean() - share[288:].mean()
    estimate = measured.estimates["low_minus_high_position_share"]
    assert abs(estimate.value - gap) < 0.01 and estimate.low <= estimate.value <= estimate.high
    # the table-alone R^2 of the lowest quarter, by an independent fit on every other position
    t = np.arange(len(positions), dtype=float)
    even, odd = t % 2 == 0, t % 2 == 1
    fit = LinearRegression().fit(positions[even, :96], t[even])
    r2_odd = 1 - ((fit.predict(positions[odd, :96]) - t[odd]) ** 2).sum() / ((t[odd] - t[odd].mean()) ** 2).sum()
    assert numbers["r2_table"]["dims 0-95"] == pytest.approx(r2_odd, abs=0.05)
    r2 = measured.estimates["low_minus_high_position_r2"]
    quarters = numbers["r2_sum"]
    assert r2.value == pytest.approx(quarters["dims 0-95"][0] - quarters["dims 288-383"][0])
    again = block_position_decoding(words[:50], positions, [(0, 96)], n_samples=300)  # the probe's function
    assert again["squared_error"].shape == (300, 1)
    # the MiniLM variant of tutorial 002's claim (now in tutorial_training.py) reads the variance-share gap

    claim = next(c for c in claims_of("tutorial_training") if c.id == "low-dims-position")
    share = measured.estimates["low_minus_high_position_share"]
    bar = claim.tests[0]
    assert (bar.statistic, bar.op, bar.threshold) == ("division", ">", 0.1)  # "by more than a tenth"
    # the rule by hand: the whole interval above a tenth, wholly at or below it, or across it
    expected = "supported" if share.low > 0.1 else "refuted" if share.high <= 0.1 else "inconclusive"
    minilm_option = claim.choice.options[2]
    if expected == "refuted" and claim.hedged and not claim.under(minilm_option).power:  # the hedge rule (可能): no
        expected = "inconclusive"  # power under this option, no refutation
    null = Estimate(0.0, -0.01, 0.01, 1000, "permutation")  # the option's null, short of the bar
    assert judge(claim, {"division": share, "division_null": null}, option=minilm_option).status == expected


# ---------------------------------------------------------------------------------------------------------------
# one judgement: posenc probe and posenc report call the same functions and agree
# ---------------------------------------------------------------------------------------------------------------
def test_probe_and_report_judge_positional_heads_alike(minilm, monkeypatch):
    """The same four 64-token windows through `posenc probe` and through the report's experiment code: the same
    positional heads, the same count, and the claim's verdict follows it."""
    from posenc import corpora as corpus
    from posenc.corpora import shakespeare_text
    from posenc.probe.heads import positional_heads
    from posenc.probe.run import ProbeConfig, run_probe, token_windows

    text = shakespeare_text(20_000)
    probed = run_probe(minilm, text=text, config=ProbeConfig(window=64, windows=4), probes=["heads"],
                       progress=False)["heads"]
    windows = [w.tolist() for w in token_windows(minilm.tokenizer, text, 64, 4)]
    assert windows[0][0] == minilm.tokenizer.cls_token_id and windows[0][-1] == minilm.tokenizer.sep_token_id
    monkeypatch.setattr(corpus, "text_windows", lambda tokenizer, length, count=None, seed=0, longest=None:
                        (windows, ["plays"] * len(windows)))
    monkeypatch.setattr(pretrained, "minilm", lambda: minilm)
    window_pass = pretrained._window_pass.__wrapped__(64, 4)
    judged = positional_heads(window_pass["summary"], query_offsets=window_pass["argmax"])
    assert [list(p[:3]) for p in probed["positional_heads"]] == [list(p) for p in judged.positional]
    assert [list(p[:3]) for p in probed["undecided_heads"]] == [list(p) for p in judged.undecided]
    count = judged.estimates["positional_heads"]
    assert Estimate.from_dict(probed["estimates"]["positional_heads"]) == count
    verdict = judge(CLAIMS["positional-heads"], {f"positional_heads_{n}": count for n in pretrained.LENGTHS})
    expected = "supported" if probed["positional_heads"] else (
        "inconclusive" if probed["undecided_heads"] else "refuted")
    assert verdict.status == expected


def test_probe_and_report_judge_orthogonality_alike(minilm, monkeypatch):
    """`posenc probe` (geometry) and the report's near-orthogonal experiment judge the same rows by the same
    function: the same estimate, and the claim's core test agrees with the probe's answer. (The trained rows are
    cut to every 8th one in both paths, to keep the test fast.)"""
    from posenc.probe import geometry as geometry_module
    from posenc.probe import run as run_module
    from posenc.probe.run import run_probe
    from posenc.report.verdict import outcome

    full = geometry_module.trained_rows

    def fewer(tokenizer, n_rows):
        return full(tokenizer, n_rows)[::8]

    monkeypatch.setattr(geometry_module, "trained_rows", fewer)
    monkeypatch.setattr(run_module, "trained_rows", fewer)
    monkeypatch.setattr(pretrained, "minilm", lambda: minilm)
    monkeypatch.setattr(pretrained, "_tables", lambda: (minilm.model.embeddings.word_embeddings.weight.detach(),
                                                        minilm.model.embeddings.position_embeddings.weight.detach()))
    probed = run_probe(minilm, probes=["geometry"], quick=True, progress=False)["geometry"]["orthogonality"]
    measured = pretrained.minilm_geometry(Context(quick=True))
    offset = measured.variants["trained rows"]["angle_offset_deg"]
    assert Estimate.from_dict(probed["angle_offset"]) == offset
    assert probed["n_words"] == len(full(minilm.tokenizer, 30522)[::8])
    angle_test = Test("angle_offset_deg", "<", pretrained.NEAR_ORTHOGONAL_DEG, "shown", "margin")
    assert probed["margin_deg"] == pytest.approx(angle_test.threshold)
    assert {True: "yes", False: "no", None: "undecided"}[outcome(angle_test, offset)] == probed["nearly_orthogonal"]
    for option in pretrained.SAMPLE_OPTIONS:
        assert {t.statistic for t in CLAIMS["near-orthogonal"].tests} <= set(measured.variants[option])
    assert measured.numbers["tutorial_sample"]["placeholders"] == 895


# ---------------------------------------------------------------------------------------------------------------
# quick is a faithful subsample of full (the real experiments: minutes)
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_quick_verdicts_are_the_full_ones_or_inconclusive():
    from posenc.report.experiments import get_experiment

    results = {}
    for quick in (True, False):
        ctx = Context(quick=quick)
        measured = {name: get_experiment(name)(ctx) for name in
                    ("minilm_geometry", "magnitude", "minilm_dimensions", "minilm_four_terms", "model_heads")}
        results[quick] = {c.id: judge_claim(c, measured[c.experiment]) for c in claims_of("pretrained")}
    for claim_id, (quick_verdict, quick_options) in results[True].items():
        full_verdict, full_options = results[False][claim_id]
        assert quick_verdict.status in (full_verdict.status, "inconclusive"), claim_id
        for option, verdict in quick_options.items():  # SmolLM2's option does not run in quick mode
            assert verdict.status in (full_options[option].status, "inconclusive", "not decided in quick mode"), (
                claim_id, option)


def test_tupe_uniform_means_flat_along_positions_and_dimensions_are_judged_apart_from_heads():
    """Issue 29: 'uniform' is the share of the cross terms' variation along positions, not their share of the
    logits' variance; tutorial 003's dimensions of W_q / W_k are a claim of their own, tutorial 001's heads another."""
    tupe = CLAIMS["tupe-uniform"]
    assert {t.statistic for t in tupe.tests} == {"cross_along_positions", "max_head_cross_along_positions"}
    # the null: random weights of matched norms make the cross terms vary along positions almost wholly
    random = {"null_cross_along_positions": _e(0.992, 0.991, 0.994),
              "null_max_head_cross_along_positions": _e(0.995, 0.993, 0.997)}
    assert judge(tupe, {"cross_along_positions": _e(0.05, 0.04, 0.06), **random,
                        "max_head_cross_along_positions": _e(0.08, 0.07, 0.09)}).status == "supported"
    # MiniLM's quick numbers at 128 tokens: half as positional as chance, yet far from flat
    verdict = judge(tupe, {"cross_along_positions": _e(0.452, 0.444, 0.461), **random,
                           "max_head_cross_along_positions": _e(0.771, 0.747, 0.789)})
    assert verdict.status == "refuted" and "null 0.992" in verdict.reason
    dims, heads = CLAIMS["qk-dimension-experts"], CLAIMS["head-experts"]
    assert dims.source == "tutorial 003 §14.5.3" and heads.source == "tutorial 001 §5.2"
    assert {t.statistic for t in dims.tests} == {"max_dim_word_share", "max_dim_position_share"}
    separated = {"null_max_dim_word_share": _e(0.3, 0.28, 0.32), "null_max_dim_position_share": _e(0.04, 0.02, 0.07)}
    assert judge(dims, {"max_dim_word_share": _e(0.9, 0.88, 0.92), **separated,
                        "max_dim_position_share": _e(0.3, 0.28, 0.32)}).condition == "no dimension is a position expert"
