"""Memory available to posenc, and one refusal for work that would not fit, raised before anything is allocated.

Every command that allocates by a user-given length, width or count estimates its peak memory first
(:mod:`posenc.extend.memory` for a pretrained model, :mod:`posenc.lab.train` for a lab run, :mod:`posenc.properties.check`
for the property checks) and calls :func:`check_memory`, which compares the estimate with what is available now:
``MemAvailable`` of ``/proc/meminfo`` on CPU (Linux; else the total physical memory), free device memory on CUDA.

    >>> from posenc.resources import GB, check_memory
    >>> check_memory(GB // 2, "a small job", "use a smaller size", limit_bytes=GB)   # fits: returns the limit
    1073741824
"""

from __future__ import annotations

import os
from typing import Any

from posenc.errors import PosencError

__all__ = ["GB", "available_memory", "check_memory", "format_bytes", "format_seconds", "usable_cores"]

GB = 1024 ** 3


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity mask on Linux, else the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def available_memory(device: Any = "cpu") -> int:
    """Bytes available now: ``MemAvailable`` on CPU (Linux; else total physical memory), free memory on CUDA."""
    if str(device).startswith("cuda"):
        import torch

        free, _ = torch.cuda.mem_get_info(torch.device(device))
        return int(free)
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def format_bytes(n: float) -> str:
    """``1.5 GB``, ``12 MB``: the unit that keeps the number readable."""
    if n >= GB:
        return f"{n / GB:.2f} GB"
    return f"{n / 1024 ** 2:.0f} MB"


def format_seconds(s: float) -> str:
    """``45 s``, ``12 min``, ``3.5 h``, ``2.1 days``."""
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    if s < 2 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} days"


def check_memory(needed: int, what: str, fix: str, device: Any = "cpu", limit_bytes: int | None = None,
                 detail: str = "") -> int:
    """Raise :class:`PosencError` if ``needed`` bytes exceed what is available; return the limit compared against.

    Args:
        needed: the estimated peak in bytes.
        what: the work, as the error names it (``"posenc check at length 1000000000, d_model 512"``).
        fix: how to make it fit (``"use a smaller --length"``).
        device: where the memory is needed.
        limit_bytes: a cap instead of what is available now.
        detail: the estimate's breakdown, shown in brackets.
    """
    limit = available_memory(device) if limit_bytes is None else int(limit_bytes)
    if needed > limit:
        raise PosencError(f"{what} does not fit in memory: estimated {format_bytes(needed)}"
                          + (f" ({detail})" if detail else "")
                          + f", but only {format_bytes(limit)} is available on {device}; {fix}")
    return limit
