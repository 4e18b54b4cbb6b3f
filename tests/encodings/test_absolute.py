"""integer, normalized, binary, sinusoidal, learned: hand-derived values and errors."""

import math

import pytest
import torch

import posenc
from posenc.encodings.learned import PositionOutOfRange
from posenc.errors import PosencError
from tolerance import bound


def test_sinusoidal_seed_002_position_2_with_d_4():
    # tutorial 002: PE(2) with d=4 = (sin(2/10000^0), cos(2/10000^0), sin(2/10000^(2/4)), cos(...)) = (sin 2, cos 2, sin .02, cos .02)
    pe = posenc.build("sinusoidal", dim=4).table(3)[2]
    expected = torch.tensor([math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)], dtype=torch.float64)
    # float32: the frequency (a power), the angle, the sine: 3 steps on values of magnitude <= 1
    torch.testing.assert_close(pe.double(), expected, rtol=0, atol=bound(torch.float32, 3))


def test_sinusoidal_norm_is_sqrt_half_d_and_values_bounded():
    pe = posenc.build("sinusoidal", dim=512).table(1024)
    assert pe.abs().max() <= 1.0
    # a float32 sum of 512 squares (each sine or cosine good to 1 step, squared: 2 more)
    torch.testing.assert_close(pe.norm(dim=-1), torch.full((1024,), math.sqrt(256)), rtol=bound(torch.float32, 515),
                               atol=0)


def test_sinusoidal_base_option_changes_wavelengths():
    # with base b and d=4, channel 2 is sin(p / b^(1/2)): p=3, b=100 -> sin(0.3)
    pe = posenc.build("sinusoidal", dim=4, base=100.0).table(4)
    assert abs(float(pe[3, 2]) - math.sin(0.3)) < 1e-7


def test_sinusoidal_odd_dim_is_a_clear_error():
    with pytest.raises(PosencError, match="even integer"):
        posenc.build("sinusoidal", dim=7)
    with pytest.raises(PosencError, match="even"):
        posenc.build("sinusoidal").embed(torch.zeros(1, 3, 5), torch.arange(3))


@pytest.mark.parametrize("dim", [0, -2, 4.0, None])
def test_sinusoidal_frequencies_refuse_a_width_that_is_not_an_even_integer_from_2(dim):
    from posenc.encodings.sinusoidal import sinusoidal_frequencies

    with pytest.raises(PosencError, match=f"even integer >= 2, got {dim!r}"):
        sinusoidal_frequencies(dim)
    # d = 2 is the smallest width: one frequency, base^0 = 1
    assert sinusoidal_frequencies(2).tolist() == [1.0]


def test_sinusoidal_is_exact_at_large_positions():
    # float64 angles: position 2^24 in channel 0 is sin(2^24) exactly (to float32 rounding)
    p = 2 ** 24
    pe = posenc.build("sinusoidal", dim=2).encode(torch.tensor([p]))
    assert abs(float(pe[0, 0]) - math.sin(p)) < 1e-7


def test_integer_grows_and_starts_at_one():
    pe = posenc.build("integer", dim=3).table(4)
    torch.testing.assert_close(pe, torch.tensor([[1.0] * 3, [2.0] * 3, [3.0] * 3, [4.0] * 3]))


@pytest.mark.parametrize("name", ["integer", "normalized", "binary"])
def test_formula_encodings_without_a_width_name_themselves(name):
    with pytest.raises(PosencError, match=f"^{name}: the encoding width is unknown; pass dim="):
        posenc.build(name).table(3)


def test_calling_the_encoding_adds_positions_0_to_T_minus_1():
    # integer PE[p] = p + 1 in every channel; T = 3 tokens of width 2 (the width differs from T)
    enc = posenc.build("integer")
    want = torch.tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    torch.testing.assert_close(enc(torch.zeros(1, 3, 2)), want[None])
    torch.testing.assert_close(enc(torch.zeros(3, 2)), want)
    torch.testing.assert_close(torch.nn.Sequential(enc)(torch.ones(2, 3, 2)), (want + 1).expand(2, 3, 2))


def test_normalized_three_tokens_give_zero_half_one():
    pe = posenc.build("normalized", dim=2).table(3)  # tutorial 000 §2.2
    torch.testing.assert_close(pe[:, 0], torch.tensor([0.0, 0.5, 1.0]))
    pe5 = posenc.build("normalized", dim=2).table(5)
    assert float(pe5[1, 0]) == 0.25  # the step depends on the length


def test_normalized_fixed_length_sets_the_step_and_must_be_positive():
    pe = posenc.build("normalized", dim=2, length=5).table(3)  # p / (5 - 1) whatever the call's length
    torch.testing.assert_close(pe[:, 0], torch.tensor([0.0, 0.25, 0.5]))
    for bad in (0, 2.5):
        with pytest.raises(PosencError, match="length must be a positive integer or None"):
            posenc.build("normalized", dim=2, length=bad)


def test_binary_bits_low_bit_first():
    pe = posenc.build("binary", dim=3).table(8)
    for p in range(8):
        assert [int(v) for v in pe[p]] == [(p >> j) & 1 for j in range(3)]


def test_learned_past_max_len_names_both_numbers():
    learned = posenc.build("learned", dim=8, max_len=512)
    x = torch.zeros(1, 1024, 8)
    with pytest.raises(PositionOutOfRange) as info:
        learned.embed(x, torch.arange(1024))
    assert "1023" in str(info.value) and "512" in str(info.value)
    assert learned.embed(torch.zeros(1, 512, 8), torch.arange(512)).shape == (1, 512, 8)


def test_learned_is_trainable_and_lookup_matches_rows():
    learned = posenc.build("learned", dim=4, max_len=10)
    x = torch.zeros(2, 3, 4)
    out = learned.embed(x, torch.tensor([[0, 1, 2], [5, 6, 7]]))
    torch.testing.assert_close(out[1], learned.weight[5:8])
    out.sum().backward()
    assert learned.weight.grad is not None


def test_concat_appends_the_position_part():
    enc = posenc.build("sinusoidal", dim=6, combine="concat")
    x = torch.randn(2, 5, 10)
    out = enc.embed(x, torch.arange(5))
    assert out.shape == (2, 5, 16)
    torch.testing.assert_close(out[..., :10], x)
    torch.testing.assert_close(out[0, :, 10:], enc.table(5))


@pytest.mark.parametrize("bad", [torch.tensor([0.0, 1.0]), torch.tensor([-1, 0])])
def test_float_or_negative_positions_are_errors(bad):
    with pytest.raises(PosencError) as info:
        posenc.build("sinusoidal", dim=4).embed(torch.zeros(1, 2, 4), bad)
    assert "positions" in str(info.value)


def test_add_with_mismatched_width_is_an_error():
    with pytest.raises(PosencError, match="width"):
        posenc.build("learned", dim=8, max_len=4).embed(torch.zeros(1, 2, 6), torch.arange(2))


@pytest.mark.parametrize("max_len", [1, 7, 512])
def test_learned_table_runs_exactly_max_len_positions_and_refuses_one_more(max_len):
    """The boundary itself: positions 0..max_len-1 (a sequence of max_len tokens) run and return the table's rows;
    max_len + 1 tokens (position max_len) raise PositionOutOfRange naming both numbers, never an IndexError."""
    learned = posenc.build("learned", dim=4, max_len=max_len)
    out = learned.embed(torch.zeros(1, max_len, 4), torch.arange(max_len))
    torch.testing.assert_close(out[0], learned.weight.detach(), rtol=0, atol=0)
    last = learned.encode(torch.tensor([max_len - 1]))  # the last row alone, and per-row positions ending there
    torch.testing.assert_close(last[0], learned.weight.detach()[max_len - 1], rtol=0, atol=0)
    per_row = learned.embed(torch.zeros(2, 1, 4), torch.tensor([[0], [max_len - 1]]))
    torch.testing.assert_close(per_row[1, 0], learned.weight.detach()[max_len - 1], rtol=0, atol=0)
    for positions in (torch.arange(max_len + 1), torch.tensor([[0], [max_len]])):
        x = torch.zeros(positions.shape[0] if positions.dim() == 2 else 1, positions.shape[-1], 4)
        with pytest.raises(PositionOutOfRange) as info:
            learned.embed(x, positions)
        message = str(info.value)
        assert f"max_len={max_len}" in message and f"position {max_len} " in message
        assert f"0..{max_len - 1}" in message


def test_learned_gradient_reaches_only_the_used_rows_with_the_hand_values():
    """d/dW of sum(out * G) is, for row p, the sum of G over every token at position p (rows used twice add up);
    rows no token uses get exactly zero. Position 0 is among the used rows (a padding_idx=0 slip would freeze it)."""
    learned = posenc.build("learned", dim=3, max_len=10)
    positions = torch.tensor([[0, 1, 2, 3], [2, 3, 4, 5], [7, 7, 0, 1]])  # per row; 2, 3, 7, 0, 1 repeat
    x = torch.randn(3, 4, 3)
    upstream = torch.randn(3, 4, 3, dtype=torch.float64).float()
    (learned.embed(x, positions) * upstream).sum().backward()
    expected = torch.zeros(10, 3)
    for b in range(3):
        for t in range(4):
            expected[int(positions[b, t])] += upstream[b, t]
    torch.testing.assert_close(learned.weight.grad, expected, rtol=0, atol=1e-6)
    unused = [6, 8, 9]
    assert learned.weight.grad[unused].abs().max() == 0.0
    assert learned.weight.grad[[0, 2, 3, 7]].abs().min() > 0  # the repeated rows really got two contributions
