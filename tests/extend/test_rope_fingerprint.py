"""The context-extension plan's cache key: ``rope_fingerprint`` decides which scalings share a forward pass (window
jobs and passkey prompts are keyed by ``(length, offset or depth and trial, fingerprint)``), so every field that
changes what the model computes must change it, and two scalings that compute the same must share it.

Each case below changes one field and keeps the others equal (checked on the encodings themselves), so a
fingerprint that left that field out would pass the others and fail here. (The rotary width is not a field of its
own: it is the length of the frequency vector. ``scale_logits`` is not in it: the patch refuses such an encoding.)
The sharing itself: ``tests/extend/test_plan.py::test_windows_shared_by_protocols_and_unscaled_lengths_are_one_job_each``.
"""

from __future__ import annotations

import torch

import posenc
from posenc.extend.plan import rope_fingerprint


def rope(**options):
    return posenc.build("rope", **{"head_dim": 64, **options})


def same_frequencies(a, b, n: int) -> bool:
    (fa, sa), (fb, sb) = a.frequencies(n), b.frequencies(n)
    return fa.shape == fb.shape and bool(torch.equal(fa.double(), fb.double())) and float(sa) == float(sb)


def test_two_encodings_that_compute_the_same_share_a_fingerprint():
    assert rope_fingerprint(rope(), [256]) == rope_fingerprint(rope(), [256])
    # a scaling that leaves a length unchanged is the unscaled RoPE there (dynamic NTK up to its original length)
    dynamic = rope(scaling={"type": "dynamic", "factor": 4, "original_max_len": 128})
    assert rope_fingerprint(dynamic, [128]) == rope_fingerprint(rope(), [128])


def test_the_head_width_alone_changes_it():
    # 32 rotated channels of 64 (16 pass through) against 32 of 32: the same frequencies, another model
    partial, full = rope(rotary_dim=32), rope(head_dim=32)
    assert same_frequencies(partial, full, 256) and partial.pairing == full.pairing
    assert rope_fingerprint(partial, [256]) != rope_fingerprint(full, [256])


def test_the_pairing_alone_changes_it():
    half, interleaved = rope(pairing="half"), rope(pairing="interleaved")
    assert same_frequencies(half, interleaved, 256) and half.rotary_dim == interleaved.rotary_dim
    assert rope_fingerprint(half, [256]) != rope_fingerprint(interleaved, [256])


def test_the_frequencies_alone_change_it():
    a, b = rope(base=10000.0), rope(base=500000.0)
    assert a.frequencies(256)[1] == b.frequencies(256)[1] and a.pairing == b.pairing
    assert rope_fingerprint(a, [256]) != rope_fingerprint(b, [256])


def test_the_attention_factor_alone_changes_it():
    scaling = {"type": "yarn", "factor": 4, "original_max_len": 64}
    default, given = rope(scaling=scaling), rope(scaling={**scaling, "attention_factor": 1.0})
    fa, sa = default.frequencies(256)
    fb, sb = given.frequencies(256)
    assert torch.equal(fa, fb) and sa != sb  # YaRN's 0.1 ln 4 + 1 = 1.1386 against 1
    assert rope_fingerprint(default, [256]) != rope_fingerprint(given, [256])


def test_the_length_changes_it_for_a_scaling_that_follows_the_length_only():
    dynamic = rope(scaling={"type": "dynamic", "factor": 4, "original_max_len": 128})
    assert rope_fingerprint(dynamic, [256]) != rope_fingerprint(dynamic, [512])
    assert rope_fingerprint(rope(), [256]) == rope_fingerprint(rope(), [512])

