"""The Transformer checks given positions against its input before any layer reads them, and says what is wrong in
the input's terms: the number of positions against the number of tokens, and the batch. (A later check inside an
encoding refuses some of these too, in its own words; the model's own message is what is pinned here.)"""

import pytest
import torch

from posenc.errors import PosencError
from posenc.model import Transformer, TransformerConfig

SIZES = {"vocab_size": 20, "d_model": 32, "n_heads": 4, "n_layers": 2, "max_len": 64}
ENCODINGS = ["rope", "learned", "alibi", "nope"]


def _model(encoding):
    torch.manual_seed(0)
    return Transformer(TransformerConfig(**SIZES, encoding=encoding)).eval()


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("count", [5, 7])
def test_positions_of_another_length_are_named_against_the_tokens(encoding, count):
    ids = torch.zeros(2, 6, dtype=torch.long)
    with pytest.raises(PosencError, match=rf"^positions has {count} entries but the sequence has 6 tokens; "
                                          "pass one position per token$"):
        _model(encoding)(ids, positions=torch.arange(count))


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_positions_of_another_batch_are_named_against_the_input(encoding):
    ids = torch.zeros(2, 6, dtype=torch.long)
    with pytest.raises(PosencError, match=r"^positions has batch 3 but the input has batch 2; "):
        _model(encoding)(ids, positions=torch.arange(6).expand(3, 6))


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_positions_of_the_right_shape_are_taken(encoding):
    ids = torch.randint(0, 20, (2, 6), generator=torch.Generator().manual_seed(1))
    model = _model(encoding)
    with torch.no_grad():
        for positions in (torch.arange(6), torch.arange(6).expand(1, 6), torch.arange(6).expand(2, 6)):
            # equal up to float32 round-off: ALiBi builds its bias from given positions on another path (3e-7 here)
            torch.testing.assert_close(model(ids, positions=positions), model(ids), rtol=1e-5, atol=1e-6)
