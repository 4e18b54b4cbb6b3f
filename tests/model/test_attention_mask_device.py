"""``attention_mask`` builds the mask on the device it is asked for, also when the encoding has no bias (the mask
then starts from zeros). Without a GPU the meta device stands in for another device: it holds shapes and dtypes, no
values, and refuses to mix with CPU tensors, so a mask started on the CPU fails here as it would on a GPU."""

import pytest
import torch

import posenc
from posenc.model.transformer import attention_mask

META = torch.device("meta")


@pytest.mark.parametrize("name", ["nope", "rope", "alibi"])
def test_the_mask_is_built_on_the_device_asked_for(name):
    encoding = posenc.build(name, **({"n_heads": 2} if name == "alibi" else {}))
    pad = torch.zeros(2, 4, dtype=torch.bool, device=META)
    mask = attention_mask(encoding, torch.arange(4), True, pad, torch.float32, META)
    assert mask.device == META and mask.dtype == torch.float32
    assert mask.shape == ((2, 2, 4, 4) if name == "alibi" else (2, 1, 4, 4))


def test_the_mask_on_the_cpu_by_hand():
    pad = torch.tensor([[False, False, False, True]])
    mask = attention_mask(posenc.build("nope"), torch.arange(4), True, pad, torch.float64, torch.device("cpu"))
    inf = float("-inf")
    want = torch.tensor([[0, inf, inf, inf], [0, 0, inf, inf], [0, 0, 0, inf], [0, 0, 0, inf]], dtype=torch.float64)
    torch.testing.assert_close(mask, want[None, None], rtol=0, atol=0)
