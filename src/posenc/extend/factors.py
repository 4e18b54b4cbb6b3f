"""Which RoPE scaling to put into a model for a target length: the scaling names and the factor rule.

The factor for a target length ``L`` on a model trained to ``L0`` tokens (its native context) is

    s(L) = max(1, L / L0)

the smallest stretch that maps ``L`` positions onto the trained range (Chen et al. 2023, Position Interpolation;
Peng et al. 2023, YaRN, use the same ratio). At or below the native length every scaling is then the identity
(s = 1 gives the model's own frequencies), so those lengths measure the unmodified model. ``factor=`` fixes ``s``
for every length instead (then shorter lengths are evaluated with the stretched frequencies too).

Each scaling name is a record of :data:`posenc.encodings.rope_scaling.SCALINGS`: the records that carry an
``extend_name`` are offered here, with the parameters their ``extend_params`` give (``none`` is the record
``default``, the model's own frequencies). Today:

======== ============================================================================================
none     the model's unscaled frequencies ``base^(-2i/d)``
linear   position interpolation: ``inv_freq / s``
ntk      static NTK-aware: ``base' = base * s^(d/(d-2))``
dynamic  dynamic NTK (Hugging Face semantics): ``base' = base * (s L / L0 - (s - 1))^(d/(d-2))``, ``L`` the current
         length, so it also changes while a passkey answer is decoded
yarn     YaRN: per-dimension ramp (beta_fast 32, beta_slow 1), attention factor ``0.1 ln s + 1``
llama3   Llama 3.1 bands (low_freq_factor 1, high_freq_factor 4)
======== ============================================================================================
"""

from __future__ import annotations

from typing import Any

from posenc.encodings.rope_scaling import SCALINGS, Scaling, is_stretch_factor
from posenc.errors import PosencError
from posenc.names import Registry

__all__ = ["EXTEND_SCALINGS", "SCALING_NAMES", "DEFAULT_SCALINGS", "check_scalings", "factor_for", "scaling_spec"]

#: ``posenc extend``'s name -> the scaling's record, for every scaling extend can put into a model, in table order
EXTEND_SCALINGS: Registry[Scaling] = Registry("scaling")
for _record in SCALINGS.values():
    if _record.extend_name is not None:
        EXTEND_SCALINGS.register(_record.extend_name, _record)
del _record

#: every scaling ``posenc extend`` can put into a model, in table order
SCALING_NAMES = EXTEND_SCALINGS.names()
DEFAULT_SCALINGS = SCALING_NAMES


def check_scalings(names: list[str] | tuple[str, ...]) -> list[str]:
    """Validate scaling names (order kept, duplicates dropped); an unknown name lists the valid ones."""
    if isinstance(names, str):
        names = [n for n in names.split(",") if n.strip()]
    out: list[str] = []
    for raw in names:
        name = str(raw).strip().lower()
        if name not in EXTEND_SCALINGS:
            raise EXTEND_SCALINGS.unknown(raw)
        if name not in out:
            out.append(name)
    if not out:
        raise PosencError(f"no scaling given; pick one or more of: {', '.join(SCALING_NAMES)}")
    return out


def factor_for(length: int, native_len: int, factor: float | None = None) -> float:
    """``s = max(1, length / native_len)``, or ``factor`` when given (it must be >= 1)."""
    if factor is not None:
        if not is_stretch_factor(factor):
            raise PosencError(f"--factor must be a number >= 1, got {factor!r}; e.g. --factor 2 stretches the "
                              f"context twofold (leave it out to use max(1, length / native length))")
        return float(factor)
    if native_len <= 0:
        raise PosencError(f"native length must be positive, got {native_len}")
    return max(1.0, length / native_len)


def scaling_spec(name: str, factor: float, native_len: int) -> dict[str, Any] | None:
    """The ``scaling`` option of ``posenc.build("rope", ...)`` for a scaling name and factor.

    A factor of 1 is the identity for every scaling whose frequencies do not depend on the current length (linear,
    ntk, yarn with attention factor 1, llama3), so they return ``None``: the unscaled frequencies bit for bit (llama3's
    blend would otherwise differ in the last bit). Dynamic NTK at factor 1 still grows its base past ``L0``
    (``base' = base (L / L0)^(d/(d-2))``), so it keeps its spec.

    Example::

        >>> scaling_spec("yarn", 2.0, 8192)
        {'type': 'yarn', 'factor': 2.0, 'original_max_len': 8192}
    """
    (name,) = check_scalings([name])
    record = EXTEND_SCALINGS.get(name)
    params = record.extend_params(factor, native_len)
    if params is None or (factor == 1 and not record.length_dependent):
        return None
    return {"type": record.name, **params}
