"""Task generators and formats, checked against hand-worked examples."""

import pytest
import torch

from posenc.errors import PosencError
from posenc.lab.tasks import (
    BLANK,
    IGNORE,
    PLUS,
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
}


def test_seed_draws_are_the_ones_the_hand_examples_use():
    g = torch.Generator().manual_seed(2)
    assert torch.randint(0, 10, (2, 3), generator=g).tolist() == [[8, 7, 1], [4, 8, 9]]
    g = torch.Generator().manual_seed(2)
    assert torch.randint(0, 2, (2, 3), generator=g).tolist() == [[0, 1, 1], [0, 0, 1]]
    g = torch.Generator().manual_seed(2)
    assert torch.randint(0, 10, (2, 2), generator=g).tolist() == [[8, 7], [1, 4]]
    assert torch.randint(0, 10, (2, 2), generator=g).tolist() == [[8, 9], [2, 5]]


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
    with pytest.raises(PosencError, match="valid tasks are"):
        get_task("cpy")
    with pytest.raises(PosencError, match="positive integer"):
        get_task("copy").sample(2, 0, torch.Generator())
    with pytest.raises(PosencError, match="format"):
        format_batch(torch.zeros(1, 2, dtype=torch.long), torch.zeros(1, 2, dtype=torch.long), "seq2seq")
