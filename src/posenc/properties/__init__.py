"""Mathematical properties of positional encodings, measured: each claim of the tutorials becomes a number and a verdict.

    >>> from posenc.properties import check_encoding
    >>> report = check_encoding("sinusoidal", d_model=64, length=256)
    >>> [(r.name, r.verdict) for r in report.results][:2]
    [('bounded', 'holds'), ('uniqueness', 'holds')]

One file per family of properties; :mod:`posenc.properties.view` reads an encoding through its hooks once;
:mod:`posenc.properties.check` runs them all.
"""

from posenc.properties.bounded import bounded
from posenc.properties.check import PROPERTIES, VARIANTS, build_checked, check_all, check_encoding, check_view
from posenc.properties.decay import decay, decay_curve, roformer_bound
from posenc.properties.naive_flaws import continuity, growth, length_independence
from posenc.properties.precision import first_aliased_position, precision
from posenc.properties.relative import (
    fit_pair_blocks,
    linear_map_residuals,
    relative,
    relative_map_residual,
    relative_residual,
)
from posenc.properties.result import ERROR, FAILS, HOLDS, NA, CheckReport, NotApplicable, PropertyResult
from posenc.properties.scaling_ramps import frequency_ratio, scaling_ramp
from posenc.properties.translation import translation
from posenc.properties.uniqueness import first_duplicate_length, min_distance_by_length, uniqueness
from posenc.properties.view import EncodingView, check_size
from posenc.properties.wavelength import wavelength

__all__ = [
    "check_encoding", "check_all", "check_view", "build_checked", "PROPERTIES", "VARIANTS",
    "CheckReport", "PropertyResult", "NotApplicable", "HOLDS", "FAILS", "NA", "ERROR",
    "EncodingView", "check_size",
    "bounded", "uniqueness", "relative", "translation", "wavelength", "growth", "length_independence", "continuity",
    "decay", "scaling_ramp", "precision",
    "roformer_bound", "decay_curve", "frequency_ratio", "first_aliased_position", "first_duplicate_length",
    "min_distance_by_length", "fit_pair_blocks", "linear_map_residuals", "relative_map_residual", "relative_residual",
]
