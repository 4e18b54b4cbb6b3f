"""The Transformer with an encoding per layer: a uniform schedule is the single-encoding model, spans act as their
definition says, attention with a KV cache's positions equals the full pass, and mixing is refused where it cannot
mean anything."""

import pytest
import torch

from posenc.encodings.schedule import Layer, LayerSchedule
from posenc.errors import PosencError
from posenc.model import Transformer, TransformerConfig
from posenc.model.transformer import attend, attention_mask

SIZES = {"vocab_size": 20, "d_model": 32, "n_heads": 4}


def _model(schedule, causal=True, seed=0, **sizes):
    torch.manual_seed(seed)
    return Transformer(TransformerConfig(**{**SIZES, **sizes}, n_layers=len(schedule), causal=causal,
                                         schedule=schedule)).eval()


@pytest.mark.parametrize("encoding", ["rope", "alibi", "learned", "sinusoidal", "fire"])
def test_a_uniform_schedule_is_the_single_encoding_model(encoding):
    torch.manual_seed(0)
    plain = Transformer(TransformerConfig(**SIZES, n_layers=2, encoding=encoding, max_len=64)).eval()
    scheduled = _model(LayerSchedule.uniform(2, encoding), max_len=64)
    assert list(plain.state_dict()) == list(scheduled.state_dict())  # the same modules under the same names
    ids = torch.randint(0, 20, (2, 9))
    with torch.no_grad():
        torch.testing.assert_close(scheduled(ids), plain(ids), rtol=0, atol=0)


def test_each_layer_calls_its_own_encoding():
    schedule = LayerSchedule((Layer("rope", {"base": 10.0}), Layer("alibi"), Layer("rope", {"base": 10.0})))
    model = _model(schedule)
    encodings = model.encodings
    assert encodings[0] is encodings[2] and encodings[1].name == "alibi" and model.encoding.name == "nope"
    calls = []
    for n, e in enumerate(model.layer_encodings):
        original_rotate, original_bias = e.rotate, e.bias
        e.rotate = lambda q, k, qp, kp, inplace=False, f=original_rotate, n=n: (calls.append(("rotate", n)),
                                                                               f(q, k, qp, kp))[1]
        e.bias = lambda qp, kp, f=original_bias, n=n: (calls.append(("bias", n)), f(qp, kp))[1]
    model(torch.randint(0, 20, (1, 5)))
    rope, alibi = (0, 1) if model.layer_encodings[0].name == "rope" else (1, 0)
    # the bias of each encoding once per forward; rotate in every layer with its own encoding
    assert calls == [("bias", rope), ("rotate", rope), ("bias", alibi), ("rotate", alibi), ("rotate", rope)]


def test_a_window_hides_what_lies_outside_it():
    # one layer, window 3: the output at t reads tokens t-2..t only
    model = _model(LayerSchedule((Layer("rope", window=3),)))
    ids = torch.randint(0, 20, (1, 10))
    changed = ids.clone()
    changed[0, :5] = (changed[0, :5] + 1) % 20
    with torch.no_grad():
        a, b = model(ids), model(changed)
    assert torch.equal(a[0, 7:], b[0, 7:])  # positions 7..9 see 5..9 at most
    assert (a[0, 5:7] - b[0, 5:7]).abs().max() > 1e-4  # position 5 sees 3..5, 6 sees 4..6


def test_a_chunk_hides_earlier_chunks():
    model = _model(LayerSchedule((Layer("rope", chunk=4),)))
    ids = torch.randint(0, 20, (1, 10))
    changed = ids.clone()
    changed[0, :4] = (changed[0, :4] + 1) % 20
    with torch.no_grad():
        a, b = model(ids), model(changed)
    assert torch.equal(a[0, 4:], b[0, 4:]) and (a[0, :4] - b[0, :4]).abs().max() > 1e-4


def test_an_encoder_window_is_two_sided():
    model = _model(LayerSchedule((Layer("nope", window=2),)), causal=False)
    ids = torch.randint(0, 20, (1, 6))
    changed = ids.clone()
    changed[0, 5] = (changed[0, 5] + 1) % 20
    with torch.no_grad():
        a, b = model(ids), model(changed)
    assert torch.equal(a[0, :4], b[0, :4]) and (a[0, 4] - b[0, 4]).abs().max() > 1e-4


@pytest.mark.parametrize("layer", [Layer("rope"), Layer("alibi", window=3), Layer("rope", chunk=4),
                                   Layer("temperature", {"attn_scale": 0.5, "floor_scale": 2}), Layer("xpos")])
def test_cached_queries_equal_the_last_rows_of_the_full_pass(layer):
    # attention of the last 3 queries over all 9 keys (a KV cache) = the last 3 rows of the full pass
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(2, 4, 9, 8, generator=g) for _ in range(3))
    k, v = k[:, :2], v[:, :2]  # grouped-query attention: 2 key heads
    encoding = LayerSchedule((layer,)).build(n_heads=4, head_dim=8)[0]
    positions = torch.arange(9)
    full = attend(q, k, v, encoding, positions, positions,
                  attention_mask(encoding, positions, True, None, q.dtype, q.device, layer), True)
    mask = attention_mask(encoding, positions[6:], True, None, q.dtype, q.device, layer, k_positions=positions)
    cached = attend(q[:, :, 6:], k, v, encoding, positions[6:], positions, mask, True)
    torch.testing.assert_close(cached, full[:, :, 6:], rtol=1e-5, atol=1e-6)


def test_what_a_schedule_cannot_be():
    with pytest.raises(PosencError, match="the layer schedule has 2 layers but n_layers is 3"):
        TransformerConfig(**SIZES, n_layers=3, schedule=LayerSchedule.uniform(2, "rope"))
    with pytest.raises(PosencError, match="puts sinusoidal .* on some layers only"):
        _model(LayerSchedule((Layer("sinusoidal"), Layer("rope"))))


def test_the_config_keeps_its_schedule_as_data():
    schedule = LayerSchedule.cycle(4, [Layer("rope", window=8)] * 3 + [Layer("nope")])
    config = TransformerConfig(**SIZES, n_layers=4, schedule=schedule.as_dict())
    assert config.schedule == schedule
    data = config.as_dict()
    assert data["schedule"] == schedule.as_dict() and TransformerConfig(**data).schedule == schedule
    assert "schedule" not in TransformerConfig(**SIZES).as_dict()  # a single-encoding config reads as before
    model = Transformer(config)
    assert [e.name for e in model.encodings] == ["rope", "rope", "rope", "nope"]


def test_qk_norm_divides_queries_and_keys_by_their_root_mean_square():
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(1, 2, 5, 8, generator=g) for _ in range(3))
    encoding = LayerSchedule.uniform(1, "nope").build()[0]
    positions = torch.arange(5)
    got = attend(q, k, v, encoding, positions, positions, None, True, qk_norm=1e-6)
    unit = [t / t.pow(2).mean(-1, keepdim=True).add(1e-6).sqrt() for t in (q, k)]  # by hand
    logits = unit[0] @ unit[1].transpose(-1, -2) / 8 ** 0.5
    logits = logits.masked_fill(torch.ones(5, 5, dtype=torch.bool).triu(1), float("-inf"))
    torch.testing.assert_close(got, logits.softmax(-1) @ v, rtol=1e-5, atol=1e-6)
    model = _model(LayerSchedule((Layer("rope", qk_norm=1e-6), Layer("rope"))))
    ids = torch.randint(0, 20, (1, 6))
    torch.manual_seed(0)
    plain = Transformer(TransformerConfig(**SIZES, n_layers=2, schedule=LayerSchedule((Layer("rope"), Layer("rope")))))
    plain.load_state_dict(model.state_dict())
    with torch.no_grad():
        assert (model(ids) - plain.eval()(ids)).abs().max() > 1e-4  # the layer's norm acts in the model
