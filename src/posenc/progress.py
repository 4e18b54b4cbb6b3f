"""Progress for long work: a tqdm bar on a terminal, plain lines elsewhere.

A bar redraws itself with carriage returns and cursor codes, which fill a log file or a pipe with garbage. When the
stream is not a terminal, :func:`progress` returns a :class:`PlainProgress` instead: the same small interface
(iterate, ``update``, ``set_postfix``, ``close``), printing one line every ``interval`` seconds and one at the end.

    >>> import io
    >>> log = io.StringIO()
    >>> for _ in progress(range(3), desc="demo", file=log):
    ...     pass
    >>> log.getvalue().startswith("demo: 3/3 (100%)")
    True
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

__all__ = ["progress", "PlainProgress", "is_terminal"]

#: seconds between two plain progress lines
PLAIN_INTERVAL_S = 30.0


def is_terminal(stream: Any) -> bool:
    """Whether ``stream`` is an interactive terminal (a bar can redraw itself there)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _clock(seconds: float) -> str:
    minutes, s = divmod(int(seconds), 60)
    h, m = divmod(minutes, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class PlainProgress:
    """Progress as plain lines (``desc: 12/40 (30%) 0:42 elapsed, loss=0.31``), for logs and pipes."""

    def __init__(self, iterable: Iterable | None = None, total: int | None = None, desc: str = "",
                 disable: bool = False, file: TextIO | None = None, initial: int = 0,
                 interval: float = PLAIN_INTERVAL_S, **_ignored: Any):
        self.iterable = iterable
        if total is None and iterable is not None and hasattr(iterable, "__len__"):
            total = len(iterable)
        self.total, self.desc, self.disable = total, desc, disable
        self.file = file if file is not None else sys.stderr
        self.n = initial
        self.interval = interval
        self.postfix = ""
        self.started = self.last = time.monotonic()
        self.closed = False

    def __iter__(self) -> Iterator:
        for item in self.iterable if self.iterable is not None else ():
            yield item
            self.update()
        self.close()

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def line(self) -> str:
        done = f"{self.n}/{self.total} ({100 * self.n // self.total}%)" if self.total else str(self.n)
        text = f"{self.desc}: {done} {_clock(time.monotonic() - self.started)} elapsed"
        return text + (f", {self.postfix}" if self.postfix else "")

    def _emit(self) -> None:
        if not self.disable:
            print(self.line(), file=self.file, flush=True)
        self.last = time.monotonic()

    def update(self, n: int = 1) -> None:
        self.n += n
        if time.monotonic() - self.last >= self.interval:
            self._emit()

    def set_postfix(self, ordered_dict: dict | None = None, refresh: bool = True, **kwargs: Any) -> None:
        items = {**(ordered_dict or {}), **kwargs}
        self.postfix = ", ".join(f"{k}={v}" for k, v in items.items())

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        self.postfix = s

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._emit()


def progress(iterable: Iterable | None = None, *, total: int | None = None, desc: str = "", disable: bool = False,
             file: TextIO | None = None, **tqdm_options: Any):
    """A tqdm bar when ``file`` (default stderr) is a terminal, else a :class:`PlainProgress`.

    ``tqdm_options`` (``position``, ``leave``, ``unit``, ``initial``, ...) go to tqdm; the plain lines keep
    ``initial`` and ignore the rest.
    """
    stream = file if file is not None else sys.stderr
    if is_terminal(stream):
        from tqdm.auto import tqdm

        return tqdm(iterable, total=total, desc=desc, disable=disable, file=stream, dynamic_ncols=True,
                    **tqdm_options)
    return PlainProgress(iterable, total=total, desc=desc, disable=disable, file=stream,
                         initial=tqdm_options.get("initial", 0))
