"""Bad input to the property checks and ``posenc show``'s summary: one rule for threads (0 or None: torch's own
choice, as ``--threads 0`` says), whole numbers for sizes (a string length used to reach a comparison)."""

import pytest
import torch

from posenc.errors import PosencError
from posenc.properties import check_encoding
from posenc.properties.check import torch_threads
from posenc.summary import summarize


def test_threads_zero_keeps_torchs_choice_and_negative_is_refused():
    before = torch.get_num_threads()
    with torch_threads(0):
        assert torch.get_num_threads() == before
    assert check_encoding("rope", d_model=8, length=16, properties=["bounded"], threads=0)["bounded"].verdict == "holds"
    with pytest.raises(PosencError, match=r"threads must be an integer >= 0 or None .* got -1"):
        with torch_threads(-1):
            pass


@pytest.mark.parametrize("call, fragment", [
    pytest.param(lambda: check_encoding("rope", d_model=8, length="16"), "length must be an integer >= 8", id="r3-length"),
    pytest.param(lambda: check_encoding("rope", d_model=8, length=16, properties=["x"]), "unknown property 'x'",
                 id="r3-property"),
    pytest.param(lambda: summarize("rope", length="5"), "length and d_model must be positive integers, got "
                                                        "length='5'", id="r3-summary-length"),
    pytest.param(lambda: summarize("rope", d_model=0), "d_model=0", id="r3-summary-width"),
])
def test_bad_sizes_raise_naming_the_value(call, fragment):
    with pytest.raises(PosencError) as caught:
        call()
    assert fragment in str(caught.value)
