"""Packed sequences: positions from cu_seqlens, their validation, and RoPE over a packed batch."""

import pytest
import torch

from posenc.errors import PosencError
from posenc.kernels import apply_rope, apply_rope_packed, check_cu_seqlens, dispatch, positions_from_cu_seqlens
from tolerance import bound


def test_positions_restart_at_each_sequence():
    # sequences of 3 and 2 tokens: [0, 1, 2 | 0, 1]
    assert positions_from_cu_seqlens(torch.tensor([0, 3, 5])).tolist() == [0, 1, 2, 0, 1]
    # an empty middle sequence repeats a boundary: [0, 1 | | 0, 1]
    assert positions_from_cu_seqlens([0, 2, 2, 4], total_tokens=4).tolist() == [0, 1, 0, 1]
    assert positions_from_cu_seqlens(torch.tensor([0, 4], dtype=torch.int32)).dtype == torch.int64


@pytest.mark.parametrize("dtype", [torch.int16, torch.int32, torch.int64])
def test_checked_cu_seqlens_is_an_int64_cpu_tensor(dtype):
    cu = check_cu_seqlens(torch.tensor([0, 3, 5], dtype=dtype), total_tokens=5)
    assert cu.dtype == torch.int64 and cu.device.type == "cpu"
    assert cu.tolist() == [0, 3, 5]
    assert check_cu_seqlens([0, 2, 2]).dtype == torch.int64

def test_positions_go_to_the_device_asked_for():
    # an explicit device wins over the list's (none) and the tensor's (the CPU); the meta device holds no data
    assert positions_from_cu_seqlens([0, 3, 5], device="meta").device.type == "meta"
    assert positions_from_cu_seqlens(torch.tensor([0, 3, 5]), device="meta").device.type == "meta"
    assert positions_from_cu_seqlens([0, 3, 5]).device.type == "cpu"


@pytest.mark.parametrize("cu, total, match", [
    ([1, 3, 5], None, "start at 0"),
    ([0, 3, 2, 5], None, "entry 2 .2. is smaller than entry 1 .3."),
    # an empty sequence (3 -> 3) before the decrease (3 -> 2): the entry named is the one that decreases, the third
    ([0, 3, 3, 2, 5], None, "entry 3 .2. is smaller than entry 2 .3."),
    ([0, 3, 5], 6, "ends at 5 but the packed tensor has 6 tokens"),
    (torch.tensor([0.0, 3.0]), None, "integers"),
    (torch.tensor([[0, 3]]), None, "1-D"),
    ([0], None, "at least 2 entries"),
])
def test_bad_cu_seqlens(cu, total, match):
    with pytest.raises(PosencError, match=match):
        positions_from_cu_seqlens(cu, total)


@pytest.mark.parametrize("pairing", ["half", "interleaved"])
def test_packed_equals_each_sequence_alone(pairing):
    lengths = [5, 1, 7]
    cu = torch.tensor([0, 5, 6, 13])
    theta = torch.arange(16, dtype=torch.float64)[:, None] * 10000.0 ** (-torch.arange(0, 8, 2) / 8)  # [16, 4]
    cos, sin = theta.cos().float(), theta.sin().float()
    q, k = torch.randn(1, 4, 13, 10), torch.randn(1, 2, 13, 10)  # partial rotary: R = 8 of 10
    qo, ko = apply_rope_packed(q, k, cos, sin, cu, pairing=pairing)
    start = 0
    for n in lengths:
        part = slice(start, start + n)
        eq, ek = apply_rope(q[:, :, part], k[:, :, part], cos[:n], sin[:n], cos[:n], sin[:n], pairing=pairing,
                            provider="reference")
        # two float32 rotations, each 3 steps (two products, a sum) on terms adding up to at most 2 max |x|
        for got, want, x in ((qo, eq, q), (ko, ek, k)):
            atol = bound(torch.float32, 2 * 3, scale=2 * float(x.abs().max()))
            torch.testing.assert_close(got[:, :, part], want, rtol=0, atol=atol)
        start += n


def test_packed_errors_come_before_any_kernel(monkeypatch):
    def spy(*args, **kwargs):
        raise AssertionError("a kernel ran before the input was rejected")

    monkeypatch.setattr(dispatch, "apply_rope", spy)
    q, k = torch.randn(1, 2, 6, 8), torch.randn(1, 1, 6, 8)
    cos, sin = torch.rand(8, 4), torch.rand(8, 4)
    with pytest.raises(PosencError, match="increasing"):
        apply_rope_packed(q, k, cos, sin, [0, 4, 3, 6])
    with pytest.raises(PosencError, match="tables cover 3 positions"):
        apply_rope_packed(q, k, cos[:3], sin[:3], [0, 4, 6])
    with pytest.raises(PosencError, match=r"\[1, heads, total_tokens, head_dim\]"):
        apply_rope_packed(q.expand(2, -1, -1, -1), k, cos, sin, [0, 6])
    with pytest.raises(PosencError, match="ends at 5"):
        apply_rope_packed(q, k, cos, sin, [0, 5])
