"""The tests behind posenc's checks of what a caller gives: whole numbers (counts, sizes, lengths, seeds) and
flags (a setting that is True or False)."""

import dataclasses

#: seeds are whole numbers in ``0..SEED_LIMIT - 1``: what every generator posenc seeds takes (NumPy's legacy
#: ``RandomState`` stops at 2^32 - 1, torch at 2^64 - 1), one rule for every command and function
SEED_LIMIT = 2 ** 32
#: the figure files posenc writes (``posenc plot``, ``posenc show``, :func:`posenc.plots.figures.save_figure`):
#: matplotlib picks the format from the suffix
FIGURE_SUFFIXES = (".png", ".svg", ".pdf", ".jpg", ".jpeg")


def whole_number(value: object, low: int = 1, high: int | None = None) -> bool:
    """Whether ``value`` is a Python ``int`` (not a ``bool``) with ``low <= value`` and, if ``high`` is given,
    ``value < high``.

    It only decides; the caller raises ``posenc.errors.PosencError`` with a message that names the value, what was
    expected and the fix. Floats (even ``2.0``), bools and NumPy integers are not whole numbers here.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        return False
    return high is None or value < high


def wrong_flags(settings: object) -> list[tuple[str, object]]:
    """``(field, value)`` for each field of the dataclass ``settings`` annotated ``bool`` (or ``bool | None``) whose
    value is not ``True`` or ``False`` (or ``None``): a string such as ``"no"`` would count as true.

    It only decides; the caller raises ``posenc.errors.PosencError`` naming the field and the value.
    """
    wrong = []
    for field in dataclasses.fields(settings):
        kind = field.type if isinstance(field.type, str) else getattr(field.type, "__name__", str(field.type))
        optional = kind.replace(" ", "") in ("bool|None", "None|bool", "Optional[bool]")
        if kind == "bool" or optional:
            value = getattr(settings, field.name)
            if not isinstance(value, bool) and not (optional and value is None):
                wrong.append((field.name, value))
    return wrong
