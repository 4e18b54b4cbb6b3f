"""Task generators and formats, checked against hand-worked examples."""

import pytest
import torch

from posenc.errors import PosencError
from posenc.lab.string_tasks import (
    BLANK,
    COUNT_MARK,
    IGNORE,
    PLUS,
    SELECTIVE_BLANK,
    SEP,
    SYMBOL0,
    TASKS,
    VOCAB_SIZE,
    exact_match,
    format_batch,
    get_task,
    sequence_length,
)


def _sample(name, n, batch=64, seed=0):
    return get_task(name).sample(batch, n, torch.Generator().manual_seed(seed))


def test_at_least_six_tasks():
    assert {"copy", "reverse", "sort", "addition", "parity", "duplicate"} <= set(TASKS)


@pytest.mark.parametrize("name", sorted(TASKS))
def test_shapes_and_vocabulary(name):
    task = get_task(name)
    for n in (1, 3, 17):
        x, y = _sample(name, n)
        assert x.shape == (64, task.input_length(n)) and y.shape == (64, task.output_length(n))
        assert int(x.min()) >= PLUS and int(x.max()) < VOCAB_SIZE
        assert int(y.min()) >= SYMBOL0 and int(y.max()) < VOCAB_SIZE


def test_copy_reverse_sort_duplicate_relations():
    x, y = _sample("copy", 9)
    assert torch.equal(x, y)
    x, y = _sample("reverse", 9)
    assert torch.equal(y, x.flip(1))
    x, y = _sample("sort", 9)
    assert torch.equal(y, x.sort(1).values) and bool((y[:, 1:] >= y[:, :-1]).all())
    x, y = _sample("duplicate", 9)
    assert torch.equal(y, torch.cat([x, x], 1))


def test_parity_counts_ones():
    x, y = _sample("parity", 11)
    bits = x - SYMBOL0
    assert set(bits.unique().tolist()) <= {0, 1}
    assert torch.equal(y[:, 0] - SYMBOL0, bits.sum(1) % 2)


def test_selective_copy_is_the_input_without_its_blanks():
    n = 7
    x, y = _sample("selective_copy", n, batch=200)
    blank = SYMBOL0 + SELECTIVE_BLANK
    assert bool(((x == blank).sum(1) == n).all())  # exactly n blanks among 2n tokens
    for row_x, row_y in zip(x, y, strict=True):
        assert row_x[row_x != blank].tolist() == row_y.tolist()
    assert len({tuple(r) for r in (x == blank).int().tolist()}) > 100  # the blanks' places vary


def test_count_is_the_number_of_marks_and_stays_one_digit():
    for n in (3, 40):
        x, y = _sample("count", n, batch=400)
        marks = (x == SYMBOL0 + COUNT_MARK).sum(1)
        assert torch.equal(y[:, 0] - SYMBOL0, marks)
        assert set(marks.tolist()) == set(range(min(9, n) + 1))  # every count up to the cap occurs


def test_addition_digits_least_significant_first():
    x, y = _sample("addition", 4, batch=200)
    n = 4
    assert bool((x[:, n] == PLUS).all())

    def value(digits):  # digits least significant first: sum d_i 10^i
        return sum(int(d) * 10**i for i, d in enumerate(digits))

    for row_x, row_y in zip(x, y, strict=True):
        a, b = value(row_x[:n] - SYMBOL0), value(row_x[n + 1:] - SYMBOL0)
        assert value(row_y - SYMBOL0) == a + b


#: seed 2 draws the symbols [[8, 7, 1], [4, 8, 9]] from randint(0, 10, (2, 3)), the bits [[0, 1, 1], [0, 0, 1]] from
#: randint(0, 2, (2, 3)), and the digits a = [[8, 7], [1, 4]] then b = [[8, 9], [2, 5]] from two randint(0, 10, (2, 2));
#: each row below is those draws worked through by hand, as token ids (symbol s is 4 + s, PLUS is 3)
SEED2 = {
    "copy": (3, [[12, 11, 5], [8, 12, 13]], [[12, 11, 5], [8, 12, 13]]),
    "reverse": (3, [[12, 11, 5], [8, 12, 13]], [[5, 11, 12], [13, 12, 8]]),
    "sort": (3, [[12, 11, 5], [8, 12, 13]], [[5, 11, 12], [8, 12, 13]]),
    "duplicate": (3, [[12, 11, 5], [8, 12, 13]], [[12, 11, 5, 12, 11, 5], [8, 12, 13, 8, 12, 13]]),
    "parity": (3, [[4, 5, 5], [4, 4, 5]], [[4], [5]]),  # two ones: even (0); one one: odd (1)
    # 78 + 98 = 176 -> digits 6, 7, 1;  41 + 52 = 93 -> digits 3, 9, 0 (least significant first)
    "addition": (2, [[12, 11, PLUS, 12, 13], [5, 8, PLUS, 6, 9]], [[10, 11, 5], [7, 13, 4]]),
    # content [[0, 6], [8, 0]] from randint(0, 9, (2, 2)); it goes to the places of the two smallest of the
    # uniforms: row 0 [.714, .619, .443, .096] -> places {2, 3}, row 1 [.614, .057, .566, .533] -> places {1, 3};
    # the other places hold the blank (symbol 9, id 13)
    "selective_copy": (2, [[13, 13, 4, 10], [13, 12, 13, 4]], [[4, 10], [12, 4]]),
    # counts [0, 3] from randint(0, 4, (2,)); ranks of the uniforms [[.637, .474, .714], [.619, .443, .096]] are
    # [[1, 0, 2], [2, 1, 0]]; symbols [[8, 6, 6], [1, 2, 1]] from randint(0, 9, (2, 3)); the places ranked below the
    # count become marks (symbol 9, id 13): row 0 keeps its symbols [8, 6, 6]; row 1 marks every place (rank < 3): [9, 9, 9] -> 3
    "count": (3, [[12, 10, 10], [13, 13, 13]], [[4], [7]]),
}


def test_seed_draws_are_the_ones_the_hand_examples_use():
    g = torch.Generator().manual_seed(2)
    assert torch.randint(0, 10, (2, 3), generator=g).tolist() == [[8, 7, 1], [4, 8, 9]]
    g = torch.Generator().manual_seed(2)
    assert torch.randint(0, 2, (2, 3), generator=g).tolist() == [[0, 1, 1], [0, 0, 1]]
    g = torch.Generator().manual_seed(2)
    assert torch.randint(0, 10, (2, 2), generator=g).tolist() == [[8, 7], [1, 4]]
    assert torch.randint(0, 10, (2, 2), generator=g).tolist() == [[8, 9], [2, 5]]
    g = torch.Generator().manual_seed(2)
    assert torch.randint(0, 9, (2, 2), generator=g).tolist() == [[0, 6], [8, 0]]
    assert torch.rand(2, 4, generator=g).argsort(1)[:, :2].sort(1).values.tolist() == [[2, 3], [1, 3]]
    g = torch.Generator().manual_seed(2)
    assert torch.randint(0, 4, (2,), generator=g).tolist() == [0, 3]
    assert torch.rand(2, 3, generator=g).argsort(1).argsort(1).tolist() == [[1, 0, 2], [2, 1, 0]]
    assert torch.randint(0, 9, (2, 3), generator=g).tolist() == [[8, 6, 6], [1, 2, 1]]


@pytest.mark.parametrize("name", sorted(TASKS))
def test_every_task_samples_the_hand_worked_batch(name):
    assert set(SEED2) == set(TASKS)  # a new task needs its hand-worked row here
    n, inputs, outputs = SEED2[name]
    x, y = _sample(name, n, batch=2, seed=2)
    assert x.tolist() == inputs and y.tolist() == outputs


def test_decoder_format_hand_example():
    inputs, outputs = torch.tensor([[4, 6, 5]]), torch.tensor([[4, 6, 5]])
    ids, targets = format_batch(inputs, outputs, "decoder")
    assert ids.tolist() == [[4, 6, 5, SEP, 4, 6]]
    assert targets.tolist() == [[IGNORE, IGNORE, IGNORE, 4, 6, 5]]
    assert ids.shape[1] == sequence_length(get_task("copy"), 3, "decoder") == 6


def test_encoder_format_hand_example():
    inputs, outputs = torch.tensor([[4, 6]]), torch.tensor([[6, 4]])
    ids, targets = format_batch(inputs, outputs, "encoder")
    assert ids.tolist() == [[4, 6, SEP, BLANK, BLANK]]
    assert targets.tolist() == [[IGNORE, IGNORE, IGNORE, 6, 4]]
    assert ids.shape[1] == sequence_length(get_task("reverse"), 2, "encoder") == 5


def test_exact_match_counts_only_targets():
    targets = torch.tensor([[IGNORE, 5, 6], [IGNORE, 5, 6]])
    logits = torch.zeros(2, 3, VOCAB_SIZE)
    logits[0, 0, 9] = logits[0, 1, 5] = logits[0, 2, 6] = 1  # row 0: both targets right (position 0 ignored)
    logits[1, 1, 5] = logits[1, 2, 7] = 1  # row 1: one of two right
    exact, right = exact_match(logits, targets)
    assert exact.tolist() == [True, False] and right.tolist() == [2, 1]


def test_bad_task_and_size():
    with pytest.raises(PosencError, match="unknown synthetic task 'cpy'; valid synthetic tasks are: copy, .*Did you mean 'copy'"):
        get_task("cpy")
    with pytest.raises(PosencError, match="positive integer"):
        get_task("copy").sample(2, 0, torch.Generator())
    with pytest.raises(PosencError, match="format"):
        format_batch(torch.zeros(1, 2, dtype=torch.long), torch.zeros(1, 2, dtype=torch.long), "seq2seq")
