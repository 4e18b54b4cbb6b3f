"""The Shakespeare corpus: plain dialogue, no markdown, stage directions dropped; the Python language reference as a
second kind of text; user files read as UTF-8."""

import pytest

from posenc.corpora import (
    clean_play,
    load_text,
    play_files,
    play_texts,
    play_windows,
    reference_texts,
    shakespeare_text,
    special_tokens,
    text_windows,
)
from posenc.errors import PosencError


def test_all_plays_are_read():
    assert len(play_files()) == 38  # the package holds 38 plays (37 of the usual canon and Edward III)
    text = shakespeare_text()
    assert len(text) > 4_000_000
    for mark in ("**", "_", "\\"):
        assert mark not in text
    assert "To be, or not to be" in text


def test_clean_play_by_hand():
    markdown = ("# Hamlet\n\n## ACT I\n\n_FRANCISCO at his post. Enter to him\nBERNARDO_\n\n"
                "**BERNARDO**  \nWho's there?\n\n**FRANCISCO**  \nNay, answer me:  \nstand, and \\[unfold\\] yourself.\n\n"
                "_Exit_\n")
    assert clean_play(markdown) == ("Hamlet\n\nACT I\n\nBERNARDO.\nWho's there?\n\n"
                                    "FRANCISCO.\nNay, answer me:\nstand, and [unfold] yourself.\n")


def test_max_chars_and_user_file(tmp_path):
    assert shakespeare_text(100) == shakespeare_text()[:100]
    path = tmp_path / "t.txt"
    path.write_text("hello world", encoding="utf-8")
    assert load_text(path) == "hello world"
    assert load_text(None, max_chars=50) == shakespeare_text(50)


@pytest.mark.parametrize("content", [b"", b"   \n", b"\xff\xfe\xfa"])
def test_bad_text_files(tmp_path, content):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(PosencError):
        load_text(path)
    with pytest.raises(PosencError, match="does not exist"):
        load_text(tmp_path / "missing.txt")
    with pytest.raises(PosencError):
        shakespeare_text(0)


def test_play_windows(minilm):
    """One window per play, [CLS] ... [SEP] around exactly the play's first tokens; any count is a prefix of all,
    and a shorter window starts on the same text as a longer one."""
    tokenizer = minilm.tokenizer
    assert special_tokens(tokenizer) == ([tokenizer.cls_token_id], [tokenizer.sep_token_id])
    full = play_windows(tokenizer, 64)
    assert len(full) == len(play_files()) == 38 and {len(w) for w in full} == {64}
    assert play_windows(tokenizer, 64, 5) == full[:5]
    short = play_windows(tokenizer, 32, 5)
    assert all(s[:-1] == f[:31] for s, f in zip(short, full, strict=False))
    texts = play_texts()
    first = [tokenizer(t[:2000], add_special_tokens=False)["input_ids"][:62] for t in texts]
    assert sorted(w[1:-1] for w in full) == sorted(first)  # every play once, in some order
    assert play_windows(tokenizer, 64, seed=1) != full and sorted(play_windows(tokenizer, 64, seed=1)) == sorted(full)
    with pytest.raises(PosencError, match="count"):
        play_windows(tokenizer, 64, 39)


def test_text_windows_alternate_two_kinds(minilm):
    """Plays and language-reference topics alternate; a topic is kept when it has tokens for the longest window, so
    every length reads the same texts; any count is a prefix of all."""
    import pydoc_data.topics

    tokenizer = minilm.tokenizer
    windows, kinds = text_windows(tokenizer, 64, longest=512)
    plays = play_windows(tokenizer, 64)
    long_enough = [name for name, text in sorted(pydoc_data.topics.topics.items())
                   if len(tokenizer(text[:6144], add_special_tokens=False)["input_ids"]) >= 510]
    assert kinds.count("Shakespeare's plays") == 38 and kinds.count("the Python language reference") == len(
        long_enough)
    assert kinds[:8] == ["Shakespeare's plays", "the Python language reference"] * 4
    assert [w for w, k in zip(windows, kinds, strict=True) if k == "Shakespeare's plays"] == plays
    topics = reference_texts()
    firsts = sorted(tokenizer(topics[n][:2000], add_special_tokens=False)["input_ids"][:62] for n in long_enough)
    assert sorted(w[1:-1] for w, k in zip(windows, kinds, strict=True) if k != "Shakespeare's plays") == firsts
    assert {len(w) for w in windows} == {64}
    assert text_windows(tokenizer, 64, 8, longest=512) == (windows[:8], kinds[:8])
    short, _ = text_windows(tokenizer, 32, 8, longest=512)
    assert all(s[:-1] == f[:31] for s, f in zip(short, windows, strict=False))
    with pytest.raises(PosencError, match="longest"):
        text_windows(tokenizer, 64, longest=32)
    with pytest.raises(PosencError, match="count"):
        text_windows(tokenizer, 64, len(windows) + 1, longest=512)


def test_clean_play_keeps_a_paragraph_without_a_speaker_and_a_speaker_without_lines():
    # a speech continued after a blank line is a block with no **NAME**: its lines are dialogue, kept as they are;
    # a speaker whose block holds only the name (the lines follow a stage direction) keeps the name line
    markdown = ("**HAMLET**  \nTo be, or not to be,  \n\nthat is the question.\n\n"
                "**OPHELIA**\n\n_Aside_\n\nGood my lord.\n")
    assert clean_play(markdown) == ("HAMLET.\nTo be, or not to be,\n\nthat is the question.\n\n"
                                    "OPHELIA.\n\nGood my lord.\n")
