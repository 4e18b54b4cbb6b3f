"""One encoding in layers of several kinds: the mask a forward builds once and reuses must be keyed by everything
that changes it (the encoding, the window, the chunk).

The model builds each distinct mask once per forward (``Transformer.forward``'s ``masks``). Each case here puts one
shared encoding module into layers of different spans, in both orders, and compares the model with the same layers
run one by one, each with a mask built for its own layer and nothing reused; a key that left out a field would hand
one layer's mask to another and change the output.
"""

import pytest
import torch

from posenc.encodings.schedule import Layer, LayerSchedule
from posenc.model import Transformer, TransformerConfig
from posenc.model.flex import choose, flex_mask
from posenc.model.transformer import attention_mask

SIZES = {"vocab_size": 20, "d_model": 32, "n_heads": 4, "max_len": 64}
#: each case: the layers, in order; every layer of a case holds the same encoding and options (one shared module)
CASES = {
    "alibi window then full": [Layer("alibi", window=3), Layer("alibi")],
    "alibi full then window": [Layer("alibi"), Layer("alibi", window=3)],
    "alibi window, chunk, full": [Layer("alibi", window=3), Layer("alibi", chunk=4), Layer("alibi"),
                                  Layer("alibi", window=5)],
    "alibi two windows": [Layer("alibi", window=2), Layer("alibi", window=5)],
    "alibi two chunks": [Layer("alibi", chunk=2), Layer("alibi", chunk=5)],
    "alibi window and chunk, then window": [Layer("alibi", window=3, chunk=4), Layer("alibi", window=3)],
    "rope window then full": [Layer("rope", window=3), Layer("rope")],
    "rope full then chunk": [Layer("rope"), Layer("rope", chunk=3)],
    "t5 full then window": [Layer("t5"), Layer("t5", window=2)],
    "kerple chunk then window": [Layer("kerple", chunk=3), Layer("kerple", window=3)],
}


def _model(layers, causal=True):
    torch.manual_seed(0)
    schedule = LayerSchedule(tuple(layers))
    return Transformer(TransformerConfig(**SIZES, n_layers=len(layers), causal=causal, schedule=schedule)).eval()


def _layer_by_layer(model, ids, bias_path="materialised"):
    """The forward pass with every layer's mask built for that layer alone."""
    positions = torch.arange(ids.shape[1])
    x = model.input(ids, positions)
    for block, encoding, layer in zip(model.blocks, model.encodings, model.schedule, strict=True):
        causal = model.config.causal
        mask = None
        if choose(bias_path, encoding, ids.shape[1], x.device, 0.0):
            mask = flex_mask(encoding, positions, causal, None, ids.shape[0], x.device, layer)
        if mask is None:
            mask = attention_mask(encoding, positions, causal, None, x.dtype, x.device, layer)
        x = block(x, positions, encoding, mask, causal, layer.qk_norm)
    return model.head(model.ln_f(x))


@pytest.mark.parametrize("causal", [True, False], ids=["decoder", "encoder"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_one_encoding_in_layers_of_several_spans(case, causal):
    model = _model(CASES[case], causal)
    assert len({id(e) for e in model.encodings}) == 1  # one module for all its layers: one key but for the span
    ids = torch.randint(0, 20, (2, 11), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        got, want = model(ids, bias_path="materialised"), _layer_by_layer(model, ids)
        # the spans matter here: the same model with every layer full attention gives another output
        full = _model([Layer(x.encoding, x.options) for x in CASES[case]], causal)
        other = full(ids, bias_path="materialised")
    torch.testing.assert_close(got, want, rtol=0, atol=0)
    assert (got - other).abs().max() > 1e-4


@pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile")
@pytest.mark.parametrize("case", ["alibi full then window", "alibi window, chunk, full"])
def test_one_encoding_in_layers_of_several_spans_on_flex_attention(case, monkeypatch):
    monkeypatch.setenv("POSENC_FLEX_COMPILE", "0")  # eager: the same values, no compile
    model = _model(CASES[case])
    ids = torch.randint(0, 20, (2, 11), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        got, want = model(ids, bias_path="flex"), _layer_by_layer(model, ids, "flex")
        materialised = model(ids, bias_path="materialised")
    torch.testing.assert_close(got, want, rtol=0, atol=0)
    torch.testing.assert_close(got, materialised, rtol=1e-5, atol=1e-5)


def test_two_encodings_with_equal_spans_keep_their_own_masks():
    # ALiBi and T5 both bias the logits; layers of equal span must not share a mask across encodings
    layers = [Layer("alibi", window=4), Layer("t5", window=4), Layer("alibi"), Layer("t5")]
    model = _model(layers)
    ids = torch.randint(0, 20, (1, 9), generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        torch.testing.assert_close(model(ids), _layer_by_layer(model, ids), rtol=0, atol=0)


def test_one_encoding_with_two_option_sets_is_two_modules_with_their_own_masks():
    # the same name with other options is another module: KERPLE at two starting r1
    layers = [Layer("kerple", {"r1": 0.5}), Layer("kerple", {"r1": 2.0})]
    model = _model(layers)
    first, second = model.encodings
    assert first is not second
    r1 = [torch.nn.functional.softplus(e.raw_r1)[0].item() for e in (first, second)]  # r1 = softplus(raw)
    assert r1 == [pytest.approx(0.5), pytest.approx(2.0)]
    ids = torch.randint(0, 20, (1, 9), generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        torch.testing.assert_close(model(ids), _layer_by_layer(model, ids), rtol=0, atol=0)
