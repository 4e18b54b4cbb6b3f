"""posenc's error type: a ``ValueError`` whose message says what was given, what was expected, and how to fix it."""


class PosencError(ValueError):
    """Bad input to posenc. The message names the value given, the value expected, and the fix."""


class PosencWarning(UserWarning):
    """posenc did what was asked but assumed something the caller did not say; the message says what, and how to
    say it explicitly."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped long work cleanly. The message says what was finished and kept, and how to resume; the command
    line prints it and exits with status 130."""
