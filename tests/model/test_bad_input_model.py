"""Bad input to the small Transformer: a one-line PosencError naming the value, never a raw torch error (a float or
out-of-range token id used to reach nn.Embedding) or a setting silently read as another (n_kv_heads=0 as None)."""

import pytest
import torch

from posenc.errors import PosencError
from posenc.model import Transformer, TransformerConfig
from posenc.names import UnknownName


def _model(**config):
    return Transformer(TransformerConfig(**{"vocab_size": 10, "d_model": 16, "n_heads": 2, "encoding": "rope",
                                            **config}))


CASES = [
    ("issue-token-id-past-vocab", lambda: _model()(torch.tensor([[1, 10]])),
     ["token ids must be in 0..9 (vocab_size 10), got ids from 1 to 10"]),
    ("issue-float-tokens", lambda: _model()(torch.rand(1, 3)), ["ids must hold integer token ids, got dtype "
                                                                "torch.float32"]),
    ("r3-negative-token-id", lambda: _model()(torch.tensor([[-1, 3]])), ["got ids from -1 to 3"]),
    ("r3-one-dimensional-ids", lambda: _model()(torch.tensor([1, 2])),
     ["ids must be a tensor of token ids of shape [batch, seq], got [2]", "ids[None]"]),
    ("r3-ids-list", lambda: _model()([[1, 2]]), ["got list"]),
    ("r3-positions-mismatch", lambda: _model()(torch.tensor([[1, 2]]), positions=torch.arange(3)),
     ["positions has 3 entries but the sequence has 2 tokens"]),
    ("r3-dropout-string", lambda: TransformerConfig(dropout="0.1"), ["dropout must be a number in [0, 1), got '0.1'"]),
    ("r3-dropout-one", lambda: TransformerConfig(dropout=1.0), ["got 1.0"]),
    ("r3-kv-heads-zero", lambda: TransformerConfig(n_kv_heads=0),
     ["n_kv_heads must be a positive integer or None", "got 0"]),
    ("r3-kv-heads-not-dividing", lambda: TransformerConfig(n_heads=4, n_kv_heads=3),
     ["n_heads (4) must be a multiple of n_kv_heads (3)"]),
    ("r3-width-not-divisible", lambda: TransformerConfig(d_model=10, n_heads=4),
     ["d_model (10) must be divisible by n_heads (4)", "n_heads=2"]),
    ("r3-causal-string", lambda: TransformerConfig(causal="no"), ["TransformerConfig.causal is a flag", "got 'no'"]),
    ("r3-scale-embedding-int", lambda: TransformerConfig(scale_embedding=1), ["scale_embedding is a flag", "got 1"]),
    ("r3-vocab-zero", lambda: TransformerConfig(vocab_size=0), ["vocab_size must be a positive integer, got 0"]),
    ("r3-unknown-encoding", lambda: _model(encoding="nosuch"), ["unknown encoding 'nosuch'"]),
]


@pytest.mark.parametrize("call, fragments", [pytest.param(call, fragments, id=name) for name, call, fragments in CASES])
def test_bad_input_raises_one_line_naming_the_value(call, fragments):
    with pytest.raises(PosencError) as caught:
        call()
    # PosencError itself, or UnknownName (a PosencError) for a name no table has
    assert type(caught.value) in (PosencError, UnknownName) and "\n" not in str(caught.value)
    for fragment in fragments:
        assert fragment in str(caught.value), str(caught.value)
