"""The tolerance of a float comparison, from its dtype and its number of rounding steps (docs/testing.md, "Tolerances").

A result computed in a floating-point dtype differs from the exact value by about one machine epsilon per rounding
step, and how the steps are ordered (vector width, threads, fused multiply-add) differs between CPUs and libraries.
A sum or dot product of n terms is good to ``n * eps`` relative to the sum of the terms' magnitudes (the worst case
of the textbook bound, ``(n - 1)`` unit roundoffs of ``eps / 2``, doubled); a chain of k operations to ``k * eps``.

    >>> bound("float32", 8)   # a float32 sum of 8 terms
    9.5367431640625e-07
    >>> bound("float32", 8, scale=4.0)  # ... of terms whose magnitudes add up to 4: an absolute tolerance
    3.814697265625e-06
"""

from __future__ import annotations

import numpy as np
import torch

#: machine epsilon: the gap between 1 and the next number of the dtype (numpy's and torch's finfo(...).eps)
EPS = {
    "float64": 2.0**-52,  # 2.22e-16
    "float32": 2.0**-23,  # 1.19e-7
    "float16": 2.0**-10,  # 9.77e-4
    "bfloat16": 2.0**-7,  # 7.81e-3
}


def eps(dtype: str | torch.dtype | np.dtype | type) -> float:
    """Machine epsilon of ``dtype``: a name (``"float32"``), a torch dtype, a numpy dtype or scalar type."""
    if isinstance(dtype, torch.dtype):
        name = str(dtype).removeprefix("torch.")
    elif isinstance(dtype, str) and dtype in EPS:
        name = dtype
    elif dtype is None:  # np.dtype(None) would be float64
        name = None
    else:
        try:
            name = np.dtype(dtype).name
        except TypeError:
            name = None
    if name not in EPS:
        raise ValueError(f"no machine epsilon for dtype {dtype!r}; expected one of {sorted(EPS)} "
                         "(a name, a torch dtype or a numpy dtype), e.g. bound('float32', 8)")
    return EPS[name]


def bound(dtype: str | torch.dtype | np.dtype | type, ops: int = 1, scale: float = 1.0) -> float:
    """``ops * eps(dtype) * scale``: the rounding error of ``ops`` steps in ``dtype``, relative (scale 1) or absolute.

    ``ops`` counts the rounding steps on the longest path to the result: n for a sum or dot product of n terms (n - 1
    additions and the products' roundings), k for a chain of k operations. For a sum whose terms may cancel, pass the
    sum of the terms' magnitudes as ``scale`` and use the result as an absolute tolerance.
    """
    if isinstance(ops, bool) or not isinstance(ops, int) or ops < 1:
        raise ValueError(f"ops={ops!r}: expected the number of rounding steps, an int >= 1 (e.g. 8 for a sum of 8 terms)")
    if not scale >= 0:
        raise ValueError(f"scale={scale!r}: expected a magnitude >= 0 (the sum of the terms' absolute values)")
    return ops * eps(dtype) * scale
