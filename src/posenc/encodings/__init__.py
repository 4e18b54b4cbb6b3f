"""Every encoding family, one file each; importing this package registers them all."""

from posenc.encodings.alibi import ALiBi, alibi_slopes
from posenc.encodings.axial import AxialRoPE
from posenc.encodings.base import AbsoluteEncoding, EncodingInfo, PositionalEncoding
from posenc.encodings.cope import CoPE
from posenc.encodings.fire import FIRE
from posenc.encodings.kerple import KERPLE
from posenc.encodings.learned import LearnedPE, PositionOutOfRange
from posenc.encodings.mrope import MRoPE
from posenc.encodings.naive import BinaryPE, IntegerPE, NormalizedPE
from posenc.encodings.nope import NoPE
from posenc.encodings.prope import PRoPE
from posenc.encodings.randomized import Randomized, sorted_random_positions
from posenc.encodings.rope import RoPE, convert_qk_weights, rope_tables
from posenc.encodings.sandwich import Sandwich
from posenc.encodings.sinusoidal import SinusoidalPE, convert_sinusoidal_layout, sinusoidal_table
from posenc.encodings.t5 import T5Bias, t5_bucket
from posenc.encodings.xpos import XPos

__all__ = [
    "PositionalEncoding", "AbsoluteEncoding", "EncodingInfo",
    "IntegerPE", "NormalizedPE", "BinaryPE", "SinusoidalPE", "LearnedPE", "PositionOutOfRange",
    "RoPE", "XPos", "ALiBi", "T5Bias", "NoPE", "Randomized",
    "MRoPE", "AxialRoPE", "PRoPE", "FIRE", "KERPLE", "Sandwich", "CoPE",
    "alibi_slopes", "t5_bucket", "sinusoidal_table", "rope_tables", "convert_qk_weights", "sorted_random_positions",
    "convert_sinusoidal_layout",
]
