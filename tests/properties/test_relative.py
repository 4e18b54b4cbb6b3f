"""The relative property's wording: plain rotations, or rotations times scales."""

from posenc.properties import check_encoding


def test_rope_blocks_are_called_plain_rotations_and_xpos_blocks_scaled_ones():
    # RoPE's attention factor is 1, so every block has scale 1; xPos damps each pair by zeta^(k/512) < 1
    rope = check_encoding("rope", d_model=4, length=16, properties=["relative"])["relative"]
    assert rope.verdict == "holds" and "one block-diagonal map of 2x2 rotations fits every p" in rope.reason
    xpos = check_encoding("xpos", d_model=4, length=16, properties=["relative"])["relative"]
    assert xpos.verdict == "holds" and "2x2 rotations times scales" in xpos.reason
