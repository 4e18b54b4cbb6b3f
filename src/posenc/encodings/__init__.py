"""Every encoding family, one file each, and the table of them by name.

Each family module imports only the contract (:mod:`~posenc.encodings.base`) and its own helpers; none knows the
table. This file lists every family in :data:`FAMILIES` and adds each to :mod:`~posenc.encodings.catalog` under its
``name``, so importing any part of the package fills the table.
"""

from posenc.encodings.alibi import ALiBi, alibi_slopes
from posenc.encodings.axial import AxialRoPE
from posenc.encodings.base import AbsoluteEncoding, EncodingInfo, PositionalEncoding
from posenc.encodings.catalog import register
from posenc.encodings.cope import CoPE
from posenc.encodings.dape import DAPE
from posenc.encodings.fire import FIRE
from posenc.encodings.fox import FoX
from posenc.encodings.kerple import KERPLE
from posenc.encodings.learned import LearnedPE, PositionOutOfRange
from posenc.encodings.mrope import MRoPE
from posenc.encodings.naive import BinaryPE, IntegerPE, NormalizedPE
from posenc.encodings.nope import NoPE
from posenc.encodings.pope import PoPE
from posenc.encodings.prope import PRoPE
from posenc.encodings.randomized import Randomized, sorted_random_positions
from posenc.encodings.rope import RoPE, convert_qk_weights, rope_tables
from posenc.encodings.sandwich import Sandwich
from posenc.encodings.sinusoidal import SinusoidalPE, convert_sinusoidal_layout, sinusoidal_table
from posenc.encodings.t5 import T5Bias, t5_bucket
from posenc.encodings.temperature import AttentionTemperature
from posenc.encodings.videorope import VideoRoPE
from posenc.encodings.xpos import XPos

__all__ = [
    "PositionalEncoding", "AbsoluteEncoding", "EncodingInfo",
    "IntegerPE", "NormalizedPE", "BinaryPE", "SinusoidalPE", "LearnedPE", "PositionOutOfRange",
    "RoPE", "XPos", "ALiBi", "T5Bias", "NoPE", "Randomized",
    "MRoPE", "AxialRoPE", "PRoPE", "FIRE", "KERPLE", "Sandwich", "CoPE",
    "AttentionTemperature", "PoPE", "FoX", "DAPE", "VideoRoPE",
    "alibi_slopes", "t5_bucket", "sinusoidal_table", "rope_tables", "convert_qk_weights", "sorted_random_positions",
    "convert_sinusoidal_layout",
]

#: every family of this package, in the order of ``__all__``; each class carries its name (``RoPE.name == "rope"``)
FAMILIES = (IntegerPE, NormalizedPE, BinaryPE, SinusoidalPE, LearnedPE, RoPE, XPos, ALiBi, T5Bias, NoPE, Randomized,
            MRoPE, AxialRoPE, PRoPE, FIRE, KERPLE, Sandwich, CoPE,
            AttentionTemperature, PoPE, FoX, DAPE, VideoRoPE)

for _family in FAMILIES:
    register(_family.name)(_family)
del _family
