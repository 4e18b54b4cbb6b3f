"""Fused CPU RoPE: a small C++ library built on first use, called through ``ctypes``.

The source, ``rope_cpu.cpp`` beside this module (shipped as package data, read by :func:`source`), is built once per
machine type by one call of the system C++ compiler (with OpenMP) into a cache directory (:func:`cache_dir`:
``$POSENC_CACHE_DIR``, or ``extensions`` in posenc's cache folder, ``$POSENC_CACHE`` or ``~/.cache/posenc``), written
under a temporary name and renamed into place, and reused by later processes. The instruction set is picked at run time from ``torch.backends.cpu.get_cpu_capability()`` (AVX-512, AVX2
or the compiler's baseline) and is part of the build's name, so machines of different kinds sharing a cache never
load each other's binary; so is a digest of the source and the compiler flags (:func:`library_name`), so an edited
source is built afresh.

Where no compiler is available (``$CXX`` or ``c++``), the source cannot be read, the build fails, or
``POSENC_DISABLE_CPP=1`` is set, :func:`load_library` returns ``None``, a warning says so once, and the dispatcher
uses the torch path.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import logging
import os
import platform
import shutil
import subprocess
import sys
import threading
import warnings
from importlib import resources
from pathlib import Path

import torch

from posenc.resources import cache_root

__all__ = ["cache_dir", "isa_flags", "source", "library_name", "load_library", "build_error", "supports", "rope_cpu",
           "rope_cpu_pair", "empty_output", "CPU_DTYPES", "SOURCE_FILE"]

log = logging.getLogger(__name__)

#: storage dtypes the C++ kernel handles (code passed to ``posenc_rope_apply``)
CPU_DTYPES = {torch.float32: 0, torch.bfloat16: 1, torch.float16: 2}

#: the kernel's C++ source, a file of this package
SOURCE_FILE = "rope_cpu.cpp"

_lock = threading.Lock()
_state: dict[str, object] = {}


def cache_dir() -> Path:
    """Where built kernels live: ``$POSENC_CACHE_DIR``, or ``extensions`` in posenc's cache folder
    (:func:`posenc.resources.cache_root`), so ``$POSENC_CACHE`` moves them with the rest of the cache."""
    root = os.environ.get("POSENC_CACHE_DIR")
    return Path(root) if root else cache_root() / "extensions"


def isa_flags() -> tuple[str, list[str]]:
    """``(name, compiler flags)`` for the widest vector ISA this CPU runs, as torch detects it."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return "generic", []
    capability = torch.backends.cpu.get_cpu_capability()
    if capability.startswith("AVX512"):
        return "avx512", ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mavx2", "-mfma", "-mf16c"]
    if capability == "AVX2":
        return "avx2", ["-mavx2", "-mfma", "-mf16c"]
    return "x86-64", []


def source() -> str:
    """The C++ source of the kernel: :data:`SOURCE_FILE`, read from the installed package."""
    return resources.files(__package__).joinpath(SOURCE_FILE).read_text(encoding="utf-8")


def library_name(isa: str, cflags: list[str], text: str) -> str:
    """The build's name, ``posenc_rope_cpu_<isa>_<digest>``: the digest covers the source ``text`` and the flags, so
    a changed source or flag gives a new name (a new build), never a stale library."""
    digest = hashlib.sha256((text + " ".join(cflags)).encode()).hexdigest()[:12]
    return f"posenc_rope_cpu_{isa}_{digest}"


def build_error() -> str | None:
    """Why the C++ kernel is not available (``None`` when it is, or before the first build attempt)."""
    return _state.get("error")  # type: ignore[return-value]


def _build() -> ctypes.CDLL:
    if os.environ.get("POSENC_DISABLE_CPP", "") not in ("", "0"):
        raise RuntimeError("disabled by POSENC_DISABLE_CPP")
    compiler = os.environ.get("CXX", "c++")
    isa, flags = isa_flags()
    cflags = ["-O3", "-fopenmp", "-fno-math-errno", *flags]
    text = source()
    name = library_name(isa, cflags, text)
    directory = cache_dir() / name
    library = directory / f"{name}.so"
    if not library.exists():
        # one compiler call into a temporary name, then an atomic rename: concurrent processes may both build,
        # neither ever loads a half-written file, and no lock can be left behind by a killed build
        if shutil.which(compiler) is None:
            raise RuntimeError(f"no C++ compiler ({compiler!r} not on PATH)")
        log.info("building the posenc CPU RoPE kernel (%s) in %s", isa, directory)
        directory.mkdir(parents=True, exist_ok=True)
        # the compiler reads a copy of the very text the name was hashed from (the package may live in a zip)
        copy = directory / f"rope_cpu.{os.getpid()}.cpp"
        copy.write_text(text, encoding="utf-8")
        tmp = library.with_suffix(f".tmp{os.getpid()}.so")
        try:
            done = subprocess.run([compiler, *cflags, "-shared", "-fPIC", str(copy), "-o", str(tmp)],
                                  capture_output=True, text=True, timeout=600)
            if done.returncode:
                raise RuntimeError(f"{compiler} failed: {done.stderr.strip()[-1500:]}")
            tmp.replace(library)
        finally:
            copy.unlink(missing_ok=True)
            tmp.unlink(missing_ok=True)
    lib = ctypes.CDLL(str(library))
    i64, ptr = ctypes.c_int64, ctypes.c_void_p
    lib.posenc_rope_apply.restype = ctypes.c_int
    lib.posenc_rope_apply.argtypes = [ctypes.c_int, ptr, ptr, ptr, ptr, *[i64] * 13, *[ctypes.c_int] * 4]
    lib.posenc_rope_has_f16.restype = ctypes.c_int
    return lib


def load_library() -> ctypes.CDLL | None:
    """The built C++ kernel, building it on the first call; ``None`` (with one warning) where it cannot be built."""
    if "lib" in _state:
        return _state["lib"]  # type: ignore[return-value]
    with _lock:
        if "lib" not in _state:
            try:
                _state["lib"] = _build()
            except Exception as exc:  # no compiler or a failed build: fall back to torch
                _state["lib"] = None
                _state["error"] = f"{type(exc).__name__}: {exc}".strip()[:2000]
                message = (f"posenc: the fused C++ RoPE kernel is unavailable ({_state['error'].splitlines()[0]}); "
                           f"using the slower torch path on CPU. Install a C++ compiler with OpenMP to enable it.")
                log.warning(message)
                warnings.warn(message, RuntimeWarning, stacklevel=3)
    return _state["lib"]  # type: ignore[return-value]


_MADV_HUGEPAGE = 14  # linux/mman.h
_HUGE = 1 << 21  # 2 MiB, the x86-64 and arm64 transparent huge page size


@functools.cache
def _madvise():
    if sys.platform != "linux":
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        return libc.madvise
    except (OSError, AttributeError):
        return None


def empty_output(shape: torch.Size | tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """A new contiguous CPU tensor for a kernel's output, backed by transparent huge pages where Linux allows.

    A fresh output of tens of megabytes costs one page fault per 4 KiB page on first write, which takes longer than
    the rotation itself; ``madvise(MADV_HUGEPAGE)`` on the 2 MiB-aligned part of the buffer (before anything touches
    it) makes that one fault per 2 MiB. Outputs below 4 MiB, other systems, or ``POSENC_HUGEPAGES=0``: plain
    ``torch.empty``.
    """
    out = torch.empty(shape, dtype=dtype)
    nbytes = out.numel() * out.element_size()
    madvise = _madvise() if nbytes >= 2 * _HUGE and os.environ.get("POSENC_HUGEPAGES", "1") != "0" else None
    if madvise is not None:
        start = -(-out.data_ptr() // _HUGE) * _HUGE
        end = (out.data_ptr() + nbytes) // _HUGE * _HUGE
        if end > start:
            madvise(start, end - start, _MADV_HUGEPAGE)  # advice only: a refusal changes nothing
    return out


def supports(dtype: torch.dtype) -> bool:
    """Whether the built kernel handles this storage dtype."""
    lib = load_library()
    if lib is None or dtype not in CPU_DTYPES:
        return False
    return dtype != torch.float16 or bool(lib.posenc_rope_has_f16())


def rope_cpu(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, *, interleaved: bool, inverse: bool,
             out: torch.Tensor) -> torch.Tensor:
    """Rotate ``x [B, H, T, Dh]`` into ``out`` (same shape and dtype; may be ``x`` itself for in place).

    ``cos``/``sin`` are float32 ``[T, R/2]`` or ``[B|1, T, R/2]``. Inputs whose last dimension is strided are made
    contiguous first; any strides over batch, heads and tokens are used as they are (transposed views cost nothing).
    An empty ``x`` (a zero batch, head or sequence size) writes nothing and returns ``out`` (the C++ function
    returns at once for such shapes too).
    """
    lib = load_library()
    if lib is None:
        raise RuntimeError("the C++ RoPE kernel is not built")
    B, H, T, D = x.shape
    if x.numel() == 0:  # nothing to rotate; an empty tensor's data pointer and strides say nothing about its layout
        return out
    if x.stride(-1) != 1 and x.shape[-1] > 1:
        if out.data_ptr() == x.data_ptr():  # in place on a channel-strided tensor: rotate a copy, write it back
            tmp = x.contiguous()
            rope_cpu(tmp, cos, sin, interleaved=interleaved, inverse=inverse, out=tmp)
            return out.copy_(tmp)
        x = x.contiguous()
    if out.stride(-1) != 1 and out.shape[-1] > 1:
        tmp = torch.empty_like(out, memory_format=torch.contiguous_format)
        rope_cpu(x, cos, sin, interleaved=interleaved, inverse=inverse, out=tmp)
        return out.copy_(tmp)
    cos3 = cos if cos.dim() == 3 else cos[None]  # [B|1, T, R/2]
    sin3 = sin if sin.dim() == 3 else sin[None]
    cos3 = cos3.to(torch.float32)
    sin3 = sin3.to(torch.float32)
    if cos3.stride(-1) != 1 or cos3.stride() != sin3.stride():
        cos3, sin3 = cos3.contiguous(), sin3.contiguous()
    csb = cos3.stride(0) if cos3.shape[0] > 1 else 0
    code = lib.posenc_rope_apply(CPU_DTYPES[x.dtype], x.data_ptr(), out.data_ptr(), cos3.data_ptr(), sin3.data_ptr(),
                                 B, H, T, D, cos3.shape[-1], *x.stride()[:3], *out.stride()[:3], csb, cos3.stride(1),
                                 int(interleaved), int(inverse), int(out.data_ptr() != x.data_ptr()),
                                 torch.get_num_threads())
    if code:
        raise RuntimeError(f"the C++ RoPE kernel does not handle {x.dtype}")
    return out


def rope_cpu_pair(q: torch.Tensor | None, k: torch.Tensor | None, q_cos: torch.Tensor, q_sin: torch.Tensor,
                  k_cos: torch.Tensor, k_sin: torch.Tensor, *, interleaved: bool, inverse: bool,
                  q_out: torch.Tensor | None, k_out: torch.Tensor | None) -> tuple[torch.Tensor | None, ...]:
    """The kernel interface of :mod:`posenc.kernels.autograd`: rotate q into q_out and k into k_out."""
    if q is not None:
        rope_cpu(q, q_cos, q_sin, interleaved=interleaved, inverse=inverse, out=q_out)
    if k is not None:
        rope_cpu(k, k_cos, k_sin, interleaved=interleaved, inverse=inverse, out=k_out)
    return q_out, k_out
