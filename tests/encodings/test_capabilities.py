"""Every registered encoding declares its capabilities in ``info``, and each declaration matches what it does."""

import pytest
import torch

import posenc
from posenc.encodings.base import EncodingInfo, PositionalEncoding
from posenc.errors import PosencError

NAMES = posenc.available()
HOOKS = ("embed", "rotate", "bias", "contextual_bias", "query_scale")
D_MODEL, HEADS, HEAD_DIM, MAX_LEN = 16, 2, 8, 8
T = 6  #: tokens in a sequence that fits every encoding's max_len


def _build(name: str, max_len: int = MAX_LEN) -> PositionalEncoding:
    return posenc.build_for_model(name, d_model=D_MODEL, n_heads=HEADS, head_dim=HEAD_DIM, max_len=max_len)


def _inputs(batch: int, length: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``x [B, T, D]``, ``q [B, H, T, Dh]``, ``k [B, H, T, Dh]``; every batch row the same."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(1, length, D_MODEL, generator=g).expand(batch, -1, -1).clone()
    q = torch.randn(1, HEADS, length, HEAD_DIM, generator=g).expand(batch, -1, -1, -1).clone()
    k = torch.randn(1, HEADS, length, HEAD_DIM, generator=g).expand(batch, -1, -1, -1).clone()
    return x, q, k


def _run_hooks(enc: PositionalEncoding, x, q, k, positions) -> list[torch.Tensor | float | None]:
    """Every hook's output at ``positions``, one tensor object passed to all of them (as the model does)."""
    q2, k2 = enc.rotate(q, k, positions, positions)
    return [enc.embed(x, positions), q2, k2, enc.bias(positions, positions),
            enc.contextual_bias(q, k, positions, positions, x=x), enc.query_scale(positions)]


@pytest.mark.parametrize("name", NAMES)
def test_every_encoding_declares_its_own_info_and_exactly_the_hooks_it_overrides(name):
    cls = posenc.get_class(name)
    assert "info" in vars(cls), f"{name} inherits its info instead of declaring it"
    info = cls.info
    assert isinstance(info, EncodingInfo) and info.family and info.paper
    assert set(info.hooks) <= set(HOOKS)
    for flag in (info.length_limited, info.randomized, info.constant_across_channels, info.per_layer):
        assert isinstance(flag, bool)
    for hook in HOOKS:
        overridden = getattr(cls, hook) is not getattr(PositionalEncoding, hook)
        assert overridden == (hook in info.hooks), f"{name}.{hook}: overridden {overridden}, declared {info.hooks}"


def test_capabilities_read_the_hooks():
    info = EncodingInfo(family="test", paper="test", hooks=("rotate", "contextual_bias"))
    assert info.rotates_qk and info.biases_from_content
    assert not (info.acts_on_input or info.biases_logits or info.length_limited or info.randomized
                or info.constant_across_channels)
    info = EncodingInfo(family="test", paper="test", hooks=("embed", "bias"))
    assert info.acts_on_input and info.biases_logits and not (info.rotates_qk or info.biases_from_content)
    info = EncodingInfo(family="test", paper="test", hooks=("query_scale", "contextual_bias"))
    assert info.scales_queries and info.biases_from_content and not (info.rotates_qk or info.acts_on_input)
    assert not (EncodingInfo(family="test", paper="test", hooks=()).per_layer)


@pytest.mark.parametrize("name", NAMES)
def test_declared_hooks_act_and_undeclared_ones_do_nothing(name):
    enc = _build(name)
    info = enc.info
    x, q, k = _inputs(2, T)
    embedded, q2, k2, bias, contextual, factor = _run_hooks(enc, x, q, k, torch.arange(T))
    if info.acts_on_input:  # a vector added or concatenated: the input changes
        assert embedded.shape != x.shape or not torch.allclose(embedded, x)
    else:
        assert torch.equal(embedded, x)
    if info.rotates_qk:  # queries and keys turned (position 0 stays, the later ones move), or made wider (PoPE)
        assert q2.shape[-1] == k2.shape[-1] == enc.rotated_dim(HEAD_DIM)
        assert q2.shape != q.shape or not (torch.allclose(q2, q) or torch.allclose(k2, k))
    else:
        assert torch.equal(q2, q) and torch.equal(k2, k)
    if info.biases_logits:
        assert bias is not None and bias.shape == (HEADS, T, T) and bool(torch.isfinite(bias).all())
    else:
        assert bias is None
    if info.biases_from_content:
        assert contextual is not None and contextual.shape == (2, HEADS, T, T)
    else:
        assert contextual is None
    if info.scales_queries:  # a factor per query, which changes with the position somewhere
        far = enc.query_scale(torch.arange(T) * 10**6)
        assert factor.shape == (T,) and far.shape == (T,) and bool((far > 0).all()) and not torch.allclose(far, far[0])
    else:  # one number for every query: 1 as built by default
        assert not isinstance(factor, torch.Tensor) and factor == 1.0


@pytest.mark.parametrize("name", NAMES)
def test_length_limit_is_declared_exactly_where_a_longer_sequence_is_refused(name):
    enc = _build(name)
    assert _run_hooks(enc, *_inputs(1, MAX_LEN), torch.arange(MAX_LEN))  # max_len tokens always fit
    longer = (*_inputs(1, MAX_LEN + 4), torch.arange(MAX_LEN + 4))
    if enc.info.length_limited:
        assert enc.max_len == MAX_LEN
        with pytest.raises(PosencError, match=rf"\b{MAX_LEN}\b"):  # the error names the limit
            _run_hooks(enc, *longer)
    else:
        _run_hooks(enc, *longer)  # runs: no limit (cope clips its table, it does not refuse)


def _close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_randomized_is_declared_exactly_where_positions_are_drawn_per_sequence(name):
    enc = _build(name, max_len=64)
    x, q, k = _inputs(2, T)
    rows = _run_hooks(enc, x, q, k, torch.arange(T).repeat(2, 1))  # two sequences, the same tokens and positions
    # Equal rows up to float rounding: a batched matmul may block two identical rows differently (CoPE's gates),
    # while positions drawn afresh move a value by whole positions.
    same_rows = [not isinstance(out, torch.Tensor) or _close(out[0], out[1])  # None, or one number for every query
                 for out in rows]  # per-row positions: batch first
    again = _run_hooks(enc, x, q, k, torch.arange(T).repeat(2, 1))  # a second call with fresh positions
    same_calls = [a is b or a == b if not isinstance(a, torch.Tensor) else _close(a, b)
                  for a, b in zip(rows, again, strict=True)]
    if enc.info.randomized:
        assert not all(same_rows) and not all(same_calls)
    else:
        assert all(same_rows) and all(same_calls)


@pytest.mark.parametrize("name", NAMES)
def test_constant_across_channels_is_declared_exactly_where_embed_adds_one_value_per_token(name):
    enc = _build(name)
    x = torch.zeros(1, T, D_MODEL)
    added = enc.embed(x, torch.arange(T)) - x  # [1, T, D]
    if enc.info.constant_across_channels:
        assert enc.info.acts_on_input and bool(added.abs().sum() > 0)
        assert torch.equal(added, added[..., :1].expand_as(added))
    elif enc.info.acts_on_input:
        assert not torch.equal(added, added[..., :1].expand_as(added))


def test_only_a_wrapper_names_the_encoding_it_wraps():
    for name in NAMES:
        cls = posenc.get_class(name)
        assert (cls.wrapped({}) is not None) == (cls.info.family == "wrapper")
    randomized = posenc.get_class("randomized")
    assert randomized.wrapped({}) == (posenc.build("randomized").inner.name, {})  # the default it builds
    assert randomized.wrapped({"encoding": "alibi", "options": {"slopes": [1.0]}}) == ("alibi", {"slopes": [1.0]})


def test_randomized_declares_the_wrapped_encodings_capabilities_and_its_own():
    alibi = posenc.build("randomized", encoding="alibi", n_heads=2)
    assert alibi.info.hooks == ("bias",) and alibi.info.biases_logits and not alibi.info.rotates_qk
    assert alibi.info.randomized and alibi.info.length_limited and alibi.info.family == "wrapper"
    integer = posenc.build("randomized", encoding="integer", d_model=4)
    assert integer.info.acts_on_input and integer.info.constant_across_channels
    # the wrapper passes on embed, rotate and bias; CoPE's contextual bias is not passed on, so not declared
    cope = posenc.build("randomized", encoding="cope", head_dim=HEAD_DIM)
    assert cope.info.hooks == () and not cope.info.biases_from_content
    q = torch.randn(1, HEADS, T, HEAD_DIM)
    assert cope.contextual_bias(q, q, torch.arange(T), torch.arange(T)) is None
