"""Output paths checked before any work: every command calls these on its ``--out`` / ``--json`` / ``--store`` first,
so an unwritable path fails in milliseconds instead of after minutes of computing.

A path is usable when it is of the expected kind (a folder where a folder is expected, not a folder where a file is
expected) and the nearest folder that exists on the way to it is writable: proved by creating and removing a file
there, which also catches read-only file systems and ``/proc``. Nothing is left behind: folders that do not exist
yet are created by the command when it writes, so a refused run leaves no empty folder. A file the user names
(``--json``, a figure's ``--out``) must go into a folder that exists: posenc creates folders for its results
(``--out DIR``, the store's default ``runs/``), never for a single file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from posenc.errors import PosencError

__all__ = ["output_dir", "output_file"]


def _nearest_existing(path: Path) -> Path:
    """``path`` or its closest ancestor that exists."""
    for part in [path, *path.parents]:
        if part.exists():
            return part
    return Path.cwd()


def _check_folder(folder: Path, option: str, path: Path, fix: str) -> None:
    """``folder`` (where ``path`` will go) can be made and written: its nearest existing ancestor is a writable
    folder."""
    base = _nearest_existing(folder)
    if not base.is_dir():
        raise PosencError(f"{option} {path}: {base} is a file, not a folder, so nothing can be written under it; "
                          f"{fix}")
    try:
        fd, probe = tempfile.mkstemp(prefix=".posenc-write-test-", dir=base)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise PosencError(f"{option} {path}: cannot write to {base} ({exc.strerror or exc}); {fix}") from exc


def output_dir(path: str | os.PathLike, option: str = "--out") -> Path:
    """Check that the folder ``path`` can be created (if needed) and written; raise :class:`PosencError` naming the
    option. Creates nothing."""
    out = Path(path).expanduser()
    fix = f"pass a writable folder with {option} DIR"
    if out.exists() and not out.is_dir():
        raise PosencError(f"{option} {out} is a file, not a folder; {fix}, e.g. {option} {out.with_suffix('')}-out")
    _check_folder(out, option, out, fix)
    return out


def output_file(path: str | os.PathLike, option: str = "--out", suffixes: tuple[str, ...] | None = None,
                existing_folder: bool = False) -> Path:
    """Check that the file ``path`` can be written (its folder created if needed, or, with ``existing_folder``, its
    folder already there: a file named on the command line is written where the user keeps files, and no folder
    appears that nobody asked for); ``suffixes`` (lower case, with the dot) restricts the file type. Creates
    nothing and leaves an existing file untouched."""
    out = Path(path).expanduser()
    fix = f"pass a writable file path with {option} FILE"
    if existing_folder and not out.parent.is_dir() and not out.is_dir():
        raise PosencError(f"{option} {out}: the folder {out.parent} does not exist, and posenc creates no folder for "
                          f"a file; create it first (mkdir -p {out.parent}) or pass a file in an existing folder")
    if out.is_dir():
        raise PosencError(f"{option} {out} is a folder, not a file; {fix}, e.g. {option} "
                          f"{out / ('out' + (suffixes[0] if suffixes else ''))}")
    if suffixes and out.suffix.lower() not in suffixes:
        raise PosencError(f"{option} must end in {', '.join(suffixes)}, got {out.name!r}; e.g. {option} "
                          f"{out.with_suffix(suffixes[0])}")
    _check_folder(out.parent, option, out, fix)
    if out.exists() and not os.access(out, os.W_OK):
        raise PosencError(f"{option} {out} exists and is read-only; {fix}")
    return out
