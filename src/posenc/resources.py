"""What work costs on this machine: memory, with one refusal for work that would not fit, and time, through one
measured rate.

Memory. Every command that allocates by a user-given length, width or count estimates its peak memory first
(:mod:`posenc.extend.memory` for a pretrained model, :mod:`posenc.lab.train` for a lab run, :mod:`posenc.properties.check`
for the property checks) and calls :func:`check_memory`, which compares the estimate with what is available now:
``MemAvailable`` of ``/proc/meminfo`` on CPU (Linux; else the total physical memory), free device memory on CUDA.

    >>> from posenc.resources import GB, check_memory
    >>> check_memory(GB // 2, "a small job", "use a smaller size", limit_bytes=GB)   # fits: returns the limit
    1073741824

Time. Every estimate of how long work takes (a lab run, a sweep, a property check, an extension plan) counts its
work and hands it to :func:`seconds`, the one place work becomes time. Work is counted in three units:

- floating-point operations (a multiply-add is two; float64 counts twice, at half float32's width), as each
  estimator derives them from its sizes;
- bytes that elementwise passes over arrays too large for the caches read and write (a copy, a comparison, a
  reduction): such a pass waits on memory, not arithmetic, and a byte costs :data:`BYTE_FLOPS` operations;
- calls into torch (one matmul, one addition, one optimiser update over a list of tensors), each with a fixed cost
  on the CPU (dispatch, autograd's bookkeeping, an allocation, the Python around it) whatever its size, in seconds
  per call as the caller measured it for its own kind of call (:func:`posenc.lab.train.call_seconds` for the lab's
  models).

Arithmetic and bytes run at this machine's rate, floating-point operations per second of one thread
(:func:`machine_rate`): measured once per machine and torch version by a fixed calibration (:func:`measure_rate`,
float32 matmuls of :data:`CALIBRATION_SIZE` squared on one thread, the best of :data:`CALIBRATION_CALLS` calls in
thread CPU time, a few milliseconds in all), :data:`DEFAULT_RATE` when it cannot be measured. A call's cost is
measured apart, not as so much arithmetic: the two do not move together (on the 2-core machine the calibrated rate
was 9.5e10 on 2026-11-26 and 1.4e11 to 1.6e11 on 2026-12-06, while a lab call cost 1e-5 s both times). Every
measurement is kept per machine and torch version in ``$POSENC_CACHE/rate.json`` (default ``~/.cache/posenc``;
:func:`calibrated`). Floating-point operations and bytes divide among threads; calls do not (one Python thread issues
them). So an estimate is CPU time of this work alone: other jobs on the same cores stretch the wall time by their
load. Measured the same way: :func:`thread_seconds` times one call in this thread's CPU time.

    >>> seconds(flops=2e9, rate=1e9), seconds(flops=2e9, threads=2, rate=1e9)
    (2.0, 1.0)
    >>> seconds(calls=1000, per_call=1e-5, threads=2, rate=1e9)   # calls do not divide among threads
    0.01
    >>> seconds(memory=1e9, threads=2, rate=BYTE_FLOPS * 1e9)
    0.5
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from posenc.errors import PosencError

__all__ = ["GB", "available_memory", "check_memory", "format_bytes", "format_seconds", "usable_cores", "seconds",
           "machine_rate", "measure_rate", "machine_key", "calibrated", "BYTE_FLOPS", "DEFAULT_RATE",
           "DEFAULT_CALL_SECONDS", "CALIBRATION_SIZE", "thread_seconds", "cache_root"]

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
    """``1.50 GB``, ``12 MB``: the unit that keeps the number readable."""
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


# -- time ------------------------------------------------------------------------------------------------------------
#: the calibration: float32 matmuls of this size squared on one thread (2 n^3 operations each, 0.1 to 1 ms)
CALIBRATION_SIZE = 256
#: calls timed one by one (after two to warm up); the best is kept, so that other jobs on the core do not lower it
CALIBRATION_CALLS = 24
#: the rate when the calibration cannot run (float32 operations per second of one thread): the calibration's value
#: on the 2-core machine the presets are timed on (1e11 and 1.2e11 at its best, 2026-11-28)
DEFAULT_RATE = 1.0e11
#: the cost of one call into torch of a lab run when it cannot be measured (:func:`posenc.lab.train.call_seconds`):
#: its measurement on the 2-core machine the presets are timed on (9.5e-6 to 1.0e-5 s, torch 2.13, 2026-12-06)
DEFAULT_CALL_SECONDS = 1.0e-5
#: the cost of one byte an elementwise pass over a large array reads or writes, in floating-point operations: the
#: uniqueness property's float64 passes over 512 x N blocks took 3000 to 4500 operations per pair of positions for
#: its 96 bytes per pair (2026-11-28, N = 4096 and 8192)
BYTE_FLOPS = 40.0

_KEPT: dict[str, float] = {}  # this process's calibrations, by key


def cache_root() -> Path:
    """posenc's cache folder: ``$POSENC_CACHE`` if set, else ``~/.cache/posenc`` (the machine's calibrations here,
    the pretrained models' float copies in :mod:`posenc.pretrained`)."""
    return Path(os.environ.get("POSENC_CACHE") or Path.home() / ".cache" / "posenc").expanduser()


def _cache_file() -> Path:
    """``rate.json`` in :func:`cache_root`, the calibrations of each machine and torch version."""
    return cache_root() / "rate.json"


def machine_key() -> str:
    """What the calibration is kept under: the host, its processor and the torch version."""
    import torch

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            model = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), model)
    except OSError:
        pass
    return f"{platform.node()} | {model} | torch {torch.__version__}"


def measure_rate(size: int = CALIBRATION_SIZE, calls: int = CALIBRATION_CALLS) -> float:
    """Floating-point operations per second of one thread: the best of ``calls`` float32 matmuls of ``size`` x
    ``size`` by ``size`` x ``size`` (``2 size^3`` operations), each timed in thread CPU time on one torch thread."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        generator = torch.Generator().manual_seed(0)
        a = torch.randn(size, size, generator=generator)
        b = torch.randn(size, size, generator=generator)
        out = torch.empty(size, size)
        best = float("inf")
        for call in range(calls + 2):
            start = time.thread_time_ns()
            torch.mm(a, b, out=out)
            elapsed = time.thread_time_ns() - start
            if call >= 2 and elapsed > 0:
                best = min(best, elapsed * 1e-9)
    finally:
        torch.set_num_threads(before)
    return 2.0 * size ** 3 / best if best < float("inf") else DEFAULT_RATE


def thread_seconds(fn: Callable[[], object]) -> float:
    """The CPU seconds this thread spends in ``fn()`` (time the machine gives other processes or other threads is not
    counted, so a busy machine does not lengthen it as it lengthens wall time; run ``fn`` on one torch thread for its
    whole work to be counted)."""
    start = time.thread_time()
    fn()
    return time.thread_time() - start


def _usable(value: Any) -> bool:
    """A calibration's value: a positive number (not a bool, not NaN)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def calibrated(name: str, measure: Callable[[], float], default: float) -> float:
    """The measurement ``name`` on this machine: kept per machine and torch version (:func:`machine_key`) in
    ``$POSENC_CACHE/rate.json``, measured by ``measure()`` and kept the first time, ``default`` when it cannot be
    measured (torch unusable, ``measure`` raising, a value that is not a positive number). Read once per process."""
    try:
        key = f"{machine_key()} | {name}"
    except Exception:  # torch unusable: nothing to calibrate with
        return default
    if key in _KEPT:
        return _KEPT[key]
    path = _cache_file()
    try:
        kept = json.loads(path.read_text())
    except (OSError, ValueError):
        kept = {}
    kept = kept if isinstance(kept, dict) else {}
    value = kept.get(key)
    if not _usable(value):
        try:
            value = measure()
        except Exception:  # a calibration that fails leaves the default, never the command
            value = default
        value = value if _usable(value) else default
        kept[key] = value
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f"{path.name}.{os.getpid()}")
            partial.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n")
            os.replace(partial, path)  # whole or not at all, for processes calibrating at once
        except OSError:  # a read-only home: measured again by the next process
            pass
    _KEPT[key] = float(value)
    return _KEPT[key]


def machine_rate() -> float:
    """This machine's rate (floating-point operations per second of one thread): :func:`measure_rate`, kept
    (:func:`calibrated`), :data:`DEFAULT_RATE` when it cannot be measured."""
    return calibrated("matmul rate", measure_rate, DEFAULT_RATE)


def seconds(flops: float = 0.0, memory: float = 0.0, threads: int = 1, rate: float | None = None,
            calls: float = 0.0, per_call: float = 0.0) -> float:
    """The seconds of ``flops`` floating-point operations and ``memory`` bytes of elementwise passes, shared by
    ``threads`` threads, at ``rate`` operations per second of one thread (default: this machine's,
    :func:`machine_rate`), and of ``calls`` calls into torch issued one after another, ``per_call`` seconds each:
    ``(flops + BYTE_FLOPS memory) / (threads rate) + calls per_call``."""
    per_thread = machine_rate() if rate is None else rate
    return (flops + BYTE_FLOPS * memory) / max(1, threads) / per_thread + calls * per_call

