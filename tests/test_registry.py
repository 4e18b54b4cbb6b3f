import pytest
import torch

import posenc
from posenc.encodings.base import PositionalEncoding
from posenc.errors import PosencError
from posenc.registry import register

# every registered name, written by hand from each encoding's paper: (family, hooks it acts through, length-limited,
# randomized, constant across channels, per layer)
EXPECTED = {
    "integer": ("absolute", ("embed",), False, False, True, False),  # x + p in every channel (tutorial 000 §2)
    "normalized": ("absolute", ("embed",), False, False, True, False),  # x + p / (T - 1) in every channel
    "binary": ("absolute", ("embed",), False, False, False, False),
    "sinusoidal": ("absolute", ("embed",), False, False, False, False),
    "learned": ("absolute", ("embed",), True, False, False, False),  # a table of max_len rows
    "rope": ("rotary", ("rotate",), False, False, False, False),
    "xpos": ("rotary", ("rotate",), False, False, False, False),
    "p_rope": ("rotary", ("rotate",), False, False, False, False),
    "pope": ("rotary", ("rotate",), False, False, False, False),
    "mrope": ("rotary", ("rotate",), False, False, False, False),
    "axial_rope": ("rotary", ("rotate",), False, False, False, False),
    "videorope": ("rotary", ("rotate",), False, False, False, False),
    "alibi": ("bias", ("bias",), False, False, False, False),
    "t5": ("bias", ("bias",), False, False, False, False),
    "kerple": ("bias", ("bias",), False, False, False, False),
    "sandwich": ("bias", ("bias",), False, False, False, False),
    "fire": ("bias", ("bias",), False, False, False, False),
    "cope": ("contextual", ("contextual_bias",), False, False, False, False),  # gates from q . k
    "dape": ("contextual", ("contextual_bias",), False, False, False, False),  # an MLP over logits and bias
    "fox": ("contextual", ("contextual_bias",), False, False, False, True),  # forget gates from each layer's input
    "temperature": ("temperature", ("query_scale",), False, False, False, False),
    "nope": ("none", (), False, False, False, False),
    # positions drawn from a range of max_len, then any inner encoding's hooks
    "randomized": ("wrapper", ("embed", "rotate", "bias"), True, True, False, False),
}


def test_available_lists_every_expected_name_sorted():
    """Each name here is registered; an encoding added since declares its own capabilities in its own test file."""
    assert set(EXPECTED) <= set(posenc.available()) and posenc.available() == sorted(posenc.available())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_registered_name_declares_its_family_and_capabilities(name):
    info = posenc.get_class(name).info
    family, hooks, length_limited, randomized, constant, per_layer = EXPECTED[name]
    assert info.family == family
    assert set(info.hooks) == set(hooks)
    assert (info.length_limited, info.randomized, info.constant_across_channels, info.per_layer) == (
        length_limited, randomized, constant, per_layer)


def test_unknown_name_lists_valid_names():
    with pytest.raises(PosencError) as info:
        posenc.build("ropee")
    message = str(info.value)
    assert "'ropee'" in message and "sinusoidal" in message and "Did you mean 'rope'" in message


def test_unknown_option_lists_valid_options():
    with pytest.raises(PosencError) as info:
        posenc.build("rope", head_dimm=64)
    assert "'head_dimm'" in str(info.value) and "head_dim" in str(info.value) and "pairing" in str(info.value)


def test_duplicate_name_raises():
    with pytest.raises(PosencError, match="already registered"):
        @register("rope")
        class Another(PositionalEncoding):
            pass


def test_build_for_model_passes_only_sizes_an_encoding_takes():
    rope = posenc.build_for_model("rope", d_model=64, n_heads=4, head_dim=16, max_len=32)
    alibi = posenc.build_for_model("alibi", d_model=64, n_heads=4, head_dim=16, max_len=32)
    learned = posenc.build_for_model("learned", d_model=64, n_heads=4, head_dim=16, max_len=32)
    assert rope.head_dim == 16 and alibi.n_heads == 4
    assert learned.weight.shape == (32, 64)


def test_every_encoding_is_a_module_with_the_three_hooks():
    q, k = torch.randn(2, 4, 5, 16), torch.randn(2, 4, 5, 16)
    x = torch.randn(2, 5, 64)
    pos = torch.arange(5)
    for name in posenc.available():
        enc = posenc.build_for_model(name, d_model=64, n_heads=4, head_dim=16, max_len=32)
        assert isinstance(enc, torch.nn.Module)
        out = enc.embed(x, pos)
        assert out.shape == x.shape
        q2, k2 = enc.rotate(q, k, pos, pos)
        width = enc.rotated_dim(16)  # the head width, unless the encoding widens q and k (PoPE)
        assert q2.shape == (*q.shape[:-1], width) and k2.shape == (*k.shape[:-1], width)
        bias = enc.bias(pos, pos)
        assert bias is None or bias.shape[-2:] == (5, 5)
        # hooks the encoding does not declare are identities
        if "embed" not in enc.info.hooks:
            assert torch.equal(out, x)
        if "rotate" not in enc.info.hooks:
            assert torch.equal(q2, q) and torch.equal(k2, k)
        if "bias" not in enc.info.hooks:
            assert bias is None


def test_build_for_model_gives_d_model_as_dim_only_to_added_encodings():
    # combine="add" needs the model's width; "concat" keeps the encoding's own dim (or asks for one)
    assert posenc.build_for_model("learned", d_model=8, max_len=4).dim == 8
    assert posenc.build_for_model("learned", d_model=8, max_len=4, combine="concat").dim == 512  # its default
    assert posenc.build_for_model("learned", d_model=8, max_len=4, combine="concat", dim=3).dim == 3
    with pytest.raises(PosencError, match="combine='concat' needs an explicit dim"):
        posenc.build_for_model("sinusoidal", d_model=8, combine="concat")
