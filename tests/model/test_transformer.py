import inspect

import pytest
import torch

import posenc
from posenc.encodings.base import EncodingInfo, PositionalEncoding
from posenc.errors import PosencError
from posenc.model import ModelConfig, Transformer, TransformerConfig
from posenc.model import transformer as transformer_module


def _encoder(encoding: str, **options) -> Transformer:
    config = TransformerConfig(vocab_size=20, d_model=32, n_layers=2, n_heads=4, causal=False, encoding=encoding,
                               encoding_options=options)
    return Transformer(config).eval()


def test_nope_encoder_is_permutation_equivariant():
    # tutorial 000: without position information "I love you" and "you love I" are the same bag of vectors
    model = _encoder("nope")
    i_love_you = torch.tensor([[3, 7, 11]])
    you_love_i = torch.tensor([[11, 7, 3]])
    with torch.no_grad():
        a, b = model(i_love_you), model(you_love_i)
        perm = torch.tensor([1, 0, 2])
        c = model(i_love_you[:, perm])
    torch.testing.assert_close(b, a.flip(1), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(c, a[:, perm], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("encoding", ["sinusoidal", "rope", "alibi", "t5", "learned"])
def test_position_aware_encoder_is_not(encoding):
    model = _encoder(encoding)
    perm = torch.tensor([1, 0, 2])  # not a reversal: a symmetric bias like ALiBi's is reversal-invariant
    ids = torch.tensor([[3, 7, 11]])
    with torch.no_grad():
        a, b = model(ids), model(ids[:, perm])
    assert (b - a[:, perm]).abs().max() > 1e-3


def test_attention_never_branches_on_the_encoding():
    source = inspect.getsource(transformer_module.Attention)
    for name in posenc.available():
        assert f'"{name}"' not in source and f"'{name}'" not in source
    assert "isinstance" not in source


def test_a_new_encoding_plugs_in_through_the_hooks_alone():
    calls = []

    class Spy(PositionalEncoding):
        info = EncodingInfo(family="none", paper="test", hooks=("embed", "rotate", "bias"))

        def embed(self, x, positions):
            calls.append("embed")
            return x

        def rotate(self, q, k, qp, kp, inplace=False):
            calls.append("rotate")
            return q, k

        def bias(self, qp, kp):
            calls.append("bias")
            return torch.zeros(qp.shape[-1], kp.shape[-1])

    model = Transformer(TransformerConfig(vocab_size=10, d_model=16, n_layers=2, n_heads=2, encoding="nope"))
    model.input.encoding = Spy()
    model(torch.randint(0, 10, (1, 4)))
    assert calls == ["embed", "bias", "rotate", "rotate"]  # the bias is built once per forward, for every layer


@pytest.mark.parametrize("encoding", sorted(set(posenc.available())))
def test_every_encoding_trains(encoding):
    model = Transformer(TransformerConfig(vocab_size=12, d_model=32, n_layers=1, n_heads=4, n_kv_heads=2,
                                          encoding=encoding, max_len=64))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    ids = torch.randint(0, 12, (8, 16))
    losses = []
    for _ in range(30):
        logits = model(ids[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 12), ids[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]


def test_causal_decoder_does_not_look_ahead():
    for encoding in ("rope", "alibi", "t5", "nope"):
        model = Transformer(TransformerConfig(vocab_size=10, d_model=16, n_layers=2, n_heads=2, encoding=encoding))
        ids = torch.randint(0, 10, (1, 6))
        changed = ids.clone()
        changed[0, 5] = (ids[0, 5] + 1) % 10
        with torch.no_grad():
            torch.testing.assert_close(model(ids)[:, :5], model(changed)[:, :5])


def test_key_padding_mask_hides_padding():
    model = _encoder("rope")
    ids = torch.tensor([[1, 2, 3, 0]])
    pad = torch.tensor([[False, False, False, True]])
    other = torch.tensor([[1, 2, 3, 9]])
    with torch.no_grad():
        torch.testing.assert_close(model(ids, key_padding_mask=pad)[:, :3], model(other, key_padding_mask=pad)[:, :3])


def test_config_errors():
    with pytest.raises(PosencError, match="divisible"):
        TransformerConfig(d_model=30, n_heads=4)
    with pytest.raises(PosencError, match="multiple"):
        TransformerConfig(d_model=32, n_heads=4, n_kv_heads=3)
    with pytest.raises(PosencError, match="unknown encoding"):
        Transformer(TransformerConfig(encoding="rotary"))
    with pytest.raises(PosencError, match="divisible"):
        Transformer(TransformerConfig(d_model=32, n_heads=4, encoding="sinusoidal",
                                      encoding_options={"combine": "concat", "dim": 6}))


def test_explicit_encoding_options_win_over_model_sizes():
    model = Transformer(TransformerConfig(vocab_size=10, d_model=32, n_heads=4, max_len=64, encoding="randomized",
                                          encoding_options={"encoding": "rope", "max_len": 2048}))
    assert model.encoding.max_len == 2048 and model.encoding.inner.head_dim == 8


def test_bias_mask_is_the_encoding_bias_plus_causal_mask():
    from posenc.model.transformer import attention_mask

    alibi = posenc.build("alibi", n_heads=2)
    mask = attention_mask(alibi, torch.arange(3), True, None, torch.float32, torch.device("cpu"))
    expected = alibi.bias(torch.arange(3), torch.arange(3)).masked_fill(torch.ones(3, 3, dtype=torch.bool).triu(1),
                                                                       float("-inf"))
    assert torch.equal(mask, expected)
    assert attention_mask(posenc.build("rope", head_dim=8), torch.arange(3), True, None, torch.float32,
                          torch.device("cpu")) is None


def test_the_config_defaults_each_written_out():
    config = TransformerConfig()
    assert (config.vocab_size, config.d_model, config.n_layers, config.n_heads, config.n_kv_heads, config.d_ff,
            config.dropout, config.causal, config.encoding, config.encoding_options, config.scale_embedding,
            config.max_len, config.schedule) == (256, 64, 2, 4, None, None, 0.0, True, "rope", {}, False, 512, None)
    model = Transformer(config)
    attention, mlp = model.blocks[0].attn, model.blocks[0].mlp
    # n_kv_heads None: one key/value head per query head (4 heads of 16: q 64 wide, k and v 64 each)
    assert (attention.n_heads, attention.n_kv_heads, attention.head_dim) == (4, 4, 16)
    assert attention.kv_proj.weight.shape == (2 * 4 * 16, 64)
    assert mlp[0].weight.shape == (4 * 64, 64)  # d_ff None: 4 * width
    assert len(model.blocks) == 2 and model.head.weight.shape == (256, 64)
    # the default encoding gets the model's sizes: RoPE over the 16-wide heads
    assert model.encoding.name == "rope" and model.encoding.head_dim == 16 and model.input.scale == 1.0


def test_the_transformer_config_is_the_model_config_and_what_its_use_decides():
    model = ModelConfig(encoding="alibi", d_model=32, n_heads=2, n_kv_heads=1, d_ff=48, dropout=0.1,
                        scale_embedding=True)
    whole = TransformerConfig.of(model, vocab_size=10, causal=False, max_len=9)
    assert isinstance(whole, ModelConfig)
    assert (whole.encoding, whole.d_model, whole.n_heads, whole.n_kv_heads, whole.d_ff, whole.dropout,
            whole.scale_embedding, whole.vocab_size, whole.causal, whole.max_len) == \
        ("alibi", 32, 2, 1, 48, 0.1, True, 10, False, 9)
    whole.encoding_options["slopes"] = "changed"
    assert model.encoding_options == {}  # the model's options are copied, not shared
    with pytest.raises(TypeError):
        TransformerConfig(10)  # every setting by name: a bare number could mean any of them


@pytest.mark.parametrize(("dropout", "accepted"), [(-0.001, False), (0, True), (0.999, True), (1, False)])
def test_dropout_is_accepted_in_0_to_1_without_1(dropout, accepted):
    if accepted:
        assert TransformerConfig(dropout=dropout).dropout == dropout
    else:
        with pytest.raises(PosencError, match=rf"dropout must be a number in \[0, 1\), got {dropout!r}"):
            TransformerConfig(dropout=dropout)


@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16])
def test_a_mask_without_a_bias_comes_in_the_dtype_asked_for(dtype):
    """Padding alone (NoPE has no bias): 0 on the real keys, -inf on the padded one, in the model's dtype, so that a
    float64 or bfloat16 model gets a mask of its own precision and size."""
    from posenc.model.transformer import attention_mask

    pad = torch.tensor([[False, False, True]])
    mask = attention_mask(posenc.build("nope"), torch.arange(3), False, pad, dtype, torch.device("cpu"))
    inf = float("inf")
    expected = torch.tensor([[[[0.0, 0.0, -inf]] * 3]], dtype=dtype)  # [B 1, H 1, Tq 3, Tk 3]: every query alike
    torch.testing.assert_close(mask, expected)  # checks the dtype too


def _dropping_model(p: float) -> Transformer:
    return Transformer(TransformerConfig(vocab_size=10, d_model=4, n_layers=1, n_heads=1, encoding="nope",
                                         dropout=p, causal=True))


def _dropped_or_scaled(train: torch.Tensor, evaluated: torch.Tensor, p: float) -> torch.Tensor:
    """Rows of ``train`` that are 0 where ``evaluated`` is not (dropped); every other row must be ``evaluated / (1 -
    p)`` (inverted dropout keeps the expectation)."""
    dropped = (train == 0).all(-1)
    torch.testing.assert_close(train[~dropped], evaluated[~dropped] / (1 - p))
    return dropped


def test_the_config_dropout_drops_attention_weights_in_training():
    """One token per row: its only key gets softmax weight 1, so attention dropout p leaves the row's attention output
    (no bias in the output projection) either 0 (the weight dropped) or 1 / (1 - p) = 2 times its evaluated value."""
    p = 0.5
    attention = _dropping_model(p).blocks[0].attn
    x = torch.randn(400, 1, 4, generator=torch.Generator().manual_seed(0))
    nope, pos = posenc.build("nope"), torch.arange(1)
    with torch.no_grad():
        evaluated = attention.eval()(x, pos, nope, None, True)
        torch.manual_seed(0)
        train = attention.train()(x, pos, nope, None, True)
    dropped = _dropped_or_scaled(train, evaluated, p)
    assert 120 < int(dropped.sum()) < 280  # Binomial(400, 0.5): mean 200, sd 10


def test_the_config_dropout_drops_mlp_outputs_in_training():
    """The MLP ends in dropout p: each output channel is 0 or 1 / (1 - p) = 2 times its evaluated value."""
    p = 0.5
    mlp = _dropping_model(p).blocks[0].mlp
    x = torch.randn(100, 4, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        evaluated = mlp.eval()(x)
        torch.manual_seed(0)
        train = mlp.train()(x)
    dropped = _dropped_or_scaled(train[..., None], evaluated[..., None], p)  # one channel at a time
    assert 120 < int(dropped.sum()) < 280  # Binomial(400 channels, 0.5): mean 200, sd 10


def test_a_rotary_encoding_that_widens_the_model_is_refused(monkeypatch):
    """Rotation turns q and k of the head width; an encoding that also concatenates a position part to the input
    changes that width under it. No built-in encoding combines the two, so a made-up one is registered here;
    the same encoding without rotation builds."""
    from posenc.encodings import catalog

    def widening(hooks):
        class Widening(PositionalEncoding):
            info = EncodingInfo(family="none", paper="test", hooks=hooks)

            def output_dim(self, d_model):
                return d_model + 8

        return Widening

    config = TransformerConfig(vocab_size=10, d_model=16, n_heads=2, encoding="widening_rotary")
    monkeypatch.setitem(catalog.ENCODINGS, "widening_rotary", widening(("embed", "rotate")))
    with pytest.raises(PosencError, match="a rotary encoding cannot also change the model width"):
        Transformer(config)
    monkeypatch.setitem(catalog.ENCODINGS, "widening_rotary", widening(("embed",)))
    assert Transformer(config).width == 24
