"""The whole-number test behind posenc's checks of counts, sizes, lengths and seeds given by the caller."""

#: seeds are whole numbers in ``0..SEED_LIMIT - 1``: what every generator posenc seeds takes (NumPy's legacy
#: ``RandomState`` stops at 2^32 - 1, torch at 2^64 - 1), one rule for every command and function
SEED_LIMIT = 2 ** 32


def whole_number(value: object, low: int = 1, high: int | None = None) -> bool:
    """Whether ``value`` is a Python ``int`` (not a ``bool``) with ``low <= value`` and, if ``high`` is given,
    ``value < high``.

    It only decides; the caller raises ``posenc.errors.PosencError`` with a message that names the value, what was
    expected and the fix. Floats (even ``2.0``), bools and NumPy integers are not whole numbers here.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        return False
    return high is None or value < high
