"""posenc's error type: a ``ValueError`` whose message says what was given, what was expected, and how to fix it."""


class PosencError(ValueError):
    """Bad input to posenc. The message names the value given, the value expected, and the fix."""


class PosencWarning(UserWarning):
    """posenc did what was asked but assumed something the caller did not say; the message says what, and how to
    say it explicitly."""
