"""The Shakespeare corpus: read from the play files, split by play, encoded losslessly."""

from posenc.lab.corpus import VALID_EVERY, load_corpus, play_files


def test_split_by_play_and_lossless():
    corpus = load_corpus()
    files = play_files()
    assert len(files) >= 30
    valid_files = [f for i, f in enumerate(files) if i % VALID_EVERY == VALID_EVERY - 1]
    assert len(corpus.valid_plays) == len(valid_files) >= 3
    assert not set(corpus.valid_plays) & set(corpus.train_plays)
    expected_valid = "".join(f.read_text(encoding="utf-8") for f in valid_files)
    assert corpus.decode(corpus.valid) == expected_valid  # every character survives encode -> decode
    assert len(corpus.train) + len(corpus.valid) == sum(len(f.read_text(encoding="utf-8")) for f in files)


def test_vocabulary_sorted_and_complete():
    corpus = load_corpus()
    assert list(corpus.chars) == sorted(set(corpus.chars))
    assert "a" in corpus.chars and "\n" in corpus.chars
    assert int(corpus.train.max()) < corpus.vocab_size and int(corpus.train.min()) >= 0


def test_every_tenth_play_is_held_out_counting_from_the_first():
    from posenc.lab.corpus import _held_out

    # VALID_EVERY = 10: the 10th and 20th plays (indices 9 and 19) of 25 are held out, no other
    assert [i for i, held in enumerate(_held_out(list(range(25)))) if held] == [9, 19]
