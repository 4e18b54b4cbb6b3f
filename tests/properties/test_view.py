"""The sizes properties are measured at: a width that is not an even whole number >= 2 is refused with its value."""

import pytest

from posenc.errors import PosencError
from posenc.properties.view import check_size


@pytest.mark.parametrize("d_model", [0, -2, 4.0, 3, True])
def test_a_width_that_cannot_pair_channels_is_refused(d_model):
    # 0 and -2 are even but not >= 2; 4.0 is even but a float; 3 is odd; True is a bool, not a width
    with pytest.raises(PosencError, match=rf"d_model must be an even integer >= 2 .*got {d_model!r}"):
        check_size(8, d_model)


@pytest.mark.parametrize("d_model", [2, 512])
def test_even_widths_from_two_are_accepted(d_model):
    assert check_size(8, d_model) is None
