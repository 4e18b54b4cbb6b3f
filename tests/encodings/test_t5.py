"""T5's bucketing with its defaults: the encoder's bidirectional buckets, as T5 defines them."""

from __future__ import annotations

import torch

from posenc.encodings.t5 import t5_bucket


def test_the_default_buckets_are_bidirectional_with_32_buckets_up_to_128():
    # T5's _relative_position_bucket defaults (bidirectional=True, num_buckets=32, max_distance=128): 16 buckets per
    # direction, distances below 8 exact, r > 0 (a key after the query) adds 16; d = 8 is the first log bucket,
    # 8 + floor(log(8 / 8) / log(128 / 8) * 8) = 8, and d = 200 caps at 15
    r = torch.tensor([0, -3, 3, -8, -200, 200])
    assert t5_bucket(r).tolist() == [0, 3, 19, 8, 15, 31]
