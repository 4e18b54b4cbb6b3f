"""posenc.kernels.check_pairing: the one check of a pairing's name, and its message."""

import pytest

from posenc.errors import PosencError
from posenc.kernels import PAIRINGS, check_pairing


@pytest.mark.parametrize("pairing", PAIRINGS)
def test_the_two_pairings_pass(pairing):
    assert check_pairing(pairing) is None


@pytest.mark.parametrize("pairing", ["neox", "Half", "", None, 0])
def test_other_values_are_refused_with_what_was_given(pairing):
    with pytest.raises(PosencError, match=r"^pairing must be 'half' or 'interleaved', got ") as info:
        check_pairing(pairing)
    assert repr(pairing) in str(info.value)


def test_the_message_uses_the_callers_name_for_the_value():
    with pytest.raises(PosencError, match=r"^source pairing must be 'half' or 'interleaved', got 'gptj'$"):
        check_pairing("gptj", "source pairing")
