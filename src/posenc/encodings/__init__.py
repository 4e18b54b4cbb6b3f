"""Every encoding family, one file each, and the table of them by name.

Each family module imports the contract (:mod:`~posenc.encodings.base`), its own helpers and the decorator that
registers its class (``@register("rope")`` from :mod:`~posenc.encodings.catalog`). This file imports every module of
the folder, so importing any part of the package fills the table (:data:`~posenc.encodings.catalog.ENCODINGS`), and a
new family file joins it without being listed here. The names below are the package's public classes and helpers.
"""

import importlib
import pkgutil

from posenc.encodings.alibi import ALiBi, alibi_slopes
from posenc.encodings.axial import AxialRoPE
from posenc.encodings.base import AbsoluteEncoding, EncodingInfo, PositionalEncoding
from posenc.encodings.catalog import ENCODINGS
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
    "convert_sinusoidal_layout", "ENCODINGS",
]

# every module of the folder, so that each family's @register runs: the table needs no list of them
for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
del _module
