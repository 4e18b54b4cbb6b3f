"""``summarize``: an encoding built at the asked sizes, described in one flat dict."""

from posenc.summary import summarize


def test_an_encoding_without_hooks_says_none_like_the_encodings_table():
    # NoPE adds nothing anywhere: no hook, and the same "(none)" that `posenc encodings` prints for it
    summary = summarize("nope", d_model=8, length=16)
    assert summary["family"] == "none" and summary["hooks"] == "(none)"


def test_the_module_line_shows_the_encoding_built_at_the_asked_sizes():
    # a learned table for 16 positions of width 8: its module names both sizes, on one line
    summary = summarize("learned", d_model=8, length=16)
    module = summary["module"]
    assert module.startswith("LearnedPE(") and "max_len=16" in module and "dim=8" in module and "\n" not in module
    assert summary["trainable parameters"] == 16 * 8  # one trainable entry per position and channel
