"""Where posenc computes and in which precision: one place that turns ``--device`` and ``--dtype`` into torch's.

Every command that runs a model (``train``, ``sweep``, ``probe``, ``extend``, ``report``, ``bench``) and its Python
function resolve their ``device`` and ``dtype`` here, before any work, so a bad value fails the same way everywhere
(a :class:`~posenc.errors.PosencError` naming what was given and what fits; exit status 2 on the command line).

Devices: ``auto`` (CUDA when a GPU is visible, else Apple's MPS when available, else the CPU), ``cpu``, ``cuda``,
``cuda:N`` (GPU ``N``) and ``mps``. Dtypes: ``float32`` (the default), ``bfloat16`` and ``float16``. Training in a
lower precision runs the forward pass under :func:`torch.autocast` with float32 weights (float16 adds a
:class:`torch.amp.GradScaler`); inference casts the model. float16 training on the CPU is refused (see
:func:`resolve_dtype`).

Example::

    >>> from posenc.device import resolve_device, resolve_dtype
    >>> resolve_device("cpu")
    device(type='cpu')
    >>> resolve_dtype("bfloat16", resolve_device("cpu"), training=True)
    torch.bfloat16
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from posenc.errors import PosencError

__all__ = ["HostReads", "DTYPES", "DEVICE_FORMS", "DEVICE_HELP", "DTYPE_HELP", "parse_device", "resolve_device", "resolve_dtype",
           "device_label", "dtype_name", "setup", "autocast", "Placement"]

#: the dtypes posenc computes in, by name
DTYPES: dict[str, torch.dtype] = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
#: the device kinds, in the order ``auto`` tries them
_KINDS = ("cuda", "mps", "cpu")
#: what a device string may be, for error messages
DEVICE_FORMS = "auto, cpu, cuda, cuda:N (N a GPU index) or mps"
#: help text of ``--device`` and ``--dtype``
DEVICE_HELP = "auto (cuda when a GPU is visible, else mps, else cpu), cpu, cuda, cuda:N or mps"
DTYPE_HELP = "float32, bfloat16 or float16"


def parse_device(spec: Any, accept: tuple[str, ...] = _KINDS) -> str:
    """The normalised device string (``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"mps"``), checked for form
    only (nothing about this machine): an unknown string, or a kind outside ``accept``, raises."""
    forms = _forms(accept)
    text = str(spec).strip().lower() if isinstance(spec, str | torch.device) else None
    if text is None or not text:
        raise PosencError(f"device must be a string such as 'cpu', got {spec!r}; use one of: {forms}")
    if text == "auto":
        return text
    kind, colon, index = text.partition(":")
    if kind not in _KINDS or (colon and (kind != "cuda" or not index.isdigit())):
        raise PosencError(f"unknown device {spec!r}; use one of: {forms}")
    if kind not in accept:
        raise PosencError(f"device {spec!r} is not supported by this command; use one of: {forms}")
    return f"cuda:{int(index)}" if colon else kind


def _forms(accept: tuple[str, ...]) -> str:
    if tuple(accept) == _KINDS:
        return DEVICE_FORMS
    parts = ["auto"] + [part for kind in ("cpu", "cuda", "mps") if kind in accept
                        for part in ((kind, "cuda:N (N a GPU index)") if kind == "cuda" else (kind,))]
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def _mps_available() -> bool:
    mps = getattr(torch.backends, "mps", None)
    return bool(mps is not None and mps.is_available())


def _torch_build() -> str:
    if torch.version.cuda:
        return f"torch {torch.__version__} built with CUDA {torch.version.cuda}, no GPU visible"
    return f"torch {torch.__version__}, built without CUDA"


def resolve_device(spec: Any = "auto", accept: tuple[str, ...] = _KINDS) -> torch.device:
    """The :class:`torch.device` of ``spec``, checked against this machine.

    ``auto`` picks CUDA when a GPU is visible, else MPS when available (and accepted), else the CPU. ``cuda`` /
    ``cuda:N`` with no GPU, ``cuda:N`` past the last GPU, ``mps`` where there is none, and an unknown string each
    raise a :class:`PosencError` that names what was given and what fits. ``accept`` limits the kinds (``bench``
    times only ``("cpu", "cuda")``).
    """
    if isinstance(spec, torch.device):
        spec = str(spec)
    text = parse_device(spec, accept)
    cuda = torch.cuda.is_available()
    if text == "auto":
        if cuda and "cuda" in accept:
            return torch.device("cuda")
        if "mps" in accept and _mps_available():
            return torch.device("mps")
        return torch.device("cpu")
    if text == "cpu":
        return torch.device("cpu")
    if text == "mps":
        if not _mps_available():
            raise PosencError(f"device {spec!r}: MPS is not available here (torch {torch.__version__}; MPS needs an "
                              f"Apple-silicon Mac and a torch built with MPS); use --device cpu or auto")
        return torch.device("mps")
    if not cuda:
        raise PosencError(f"device {spec!r}: CUDA is not available here ({_torch_build()}); use --device cpu or "
                          f"auto")
    if text != "cuda":
        count = torch.cuda.device_count()
        if int(text[5:]) >= count:
            raise PosencError(f"device {spec!r}: this machine has {count} CUDA device(s), cuda:0..cuda:{count - 1}; "
                              f"use one of them, cuda, cpu or auto")
    return torch.device(text)


def resolve_dtype(spec: Any, device: torch.device | str = "cpu", training: bool = False) -> torch.dtype:
    """The :class:`torch.dtype` named ``spec`` (``float32``, ``bfloat16``, ``float16``, or a ``torch.dtype``),
    checked against ``device``.

    float16 training on the CPU is refused: float16 needs loss scaling for its narrow range, and on the CPU it is no
    faster than float32; bfloat16 (float32's range) is the CPU's low precision. float16 inference on the CPU runs.
    """
    if isinstance(spec, torch.dtype):
        name = next((n for n, d in DTYPES.items() if d == spec), None)
    else:
        name = str(spec).strip().lower() if isinstance(spec, str) else None
        name = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16", "half": "float16"}.get(name, name)
    if name not in DTYPES:
        raise PosencError(f"unknown dtype {spec!r}; use one of: {', '.join(DTYPES)}")
    kind = torch.device(device).type
    if training and name == "float16" and kind == "cpu":
        raise PosencError("dtype 'float16' cannot train on the CPU: float16 needs loss scaling for its narrow range "
                          "and runs no faster than float32 there; use --dtype bfloat16 (float32's range, the CPU's "
                          "low precision) or float32, or train on a GPU (--device cuda)")
    return DTYPES[name]


def dtype_name(dtype: torch.dtype | str) -> str:
    """``torch.bfloat16`` -> ``"bfloat16"`` (a name passes through, checked; another torch dtype, such as a model's
    float64, gives its own name)."""
    if isinstance(dtype, torch.dtype) and dtype not in DTYPES.values():
        return str(dtype).removeprefix("torch.")
    return next(n for n, d in DTYPES.items() if d == resolve_dtype(dtype))


def device_label(device: torch.device | str) -> str:
    """The device as results record it: ``"cpu"``, ``"mps"``, ``"cuda:0"`` (a bare ``cuda`` gets the current
    GPU's index)."""
    device = torch.device(device)
    if device.type == "cuda" and device.index is None:
        return f"cuda:{torch.cuda.current_device()}"
    return str(device)


def setup(device: torch.device | str, dtype: torch.dtype | str) -> dict[str, str]:
    """``{"device": ..., "dtype": ...}`` (and ``"gpu"``, the GPU's name, on CUDA): what a result records about
    where it was computed."""
    label = device_label(device)
    out = {"device": label, "dtype": dtype_name(dtype)}
    if label.startswith("cuda"):
        out["gpu"] = torch.cuda.get_device_name(torch.device(label))
    return out


def autocast(device: torch.device | str, dtype: torch.dtype | str):
    """A :func:`torch.autocast` block for ``dtype`` on ``device``; float32 gives a block that changes nothing."""
    dtype = resolve_dtype(dtype)
    if dtype == torch.float32:
        return contextlib.nullcontext()
    return torch.autocast(device_type=torch.device(device).type, dtype=dtype)


@dataclass(frozen=True)
class Placement:
    """Where a computation runs and in which precision, checked once: what a command resolves at its edge and hands
    down, so that the layers below use torch's objects and check no string again.

    Build it with :meth:`resolve` (which checks both against this machine); a ``Placement`` built directly is taken
    as it is.

    Example::

        >>> placement = Placement.resolve("cpu", "bfloat16", training=True)
        >>> placement.setup()
        {'device': 'cpu', 'dtype': 'bfloat16'}
    """

    device: torch.device
    dtype: torch.dtype

    @classmethod
    def resolve(cls, device: Any = "auto", dtype: Any = "float32", training: bool = False) -> Placement:
        """:func:`resolve_device` and :func:`resolve_dtype` (float16 training on the CPU refused), once."""
        target = resolve_device(device)
        return cls(target, resolve_dtype(dtype, target, training=training))

    def autocast(self):
        """The :func:`torch.autocast` block of this precision (float32: a block that changes nothing)."""
        if self.dtype == torch.float32:
            return contextlib.nullcontext()
        return torch.autocast(device_type=self.device.type, dtype=self.dtype)

    def setup(self) -> dict[str, str]:
        """What a result records about where it was computed (:func:`setup`)."""
        return setup(self.device, self.dtype)


#: the tensor methods that copy a value back to the host (on a GPU each waits for the device to finish)
HOST_READS = frozenset({"item", "tolist", "__bool__", "__int__", "__float__", "__index__", "__complex__", "numpy"})


class HostReads(TorchFunctionMode):
    """Counts the tensor -> host reads (:data:`HOST_READS`) made while it is active: ``with HostReads() as reads:
    model(x)`` then ``reads.count``. A real ``torch.overrides.TorchFunctionMode``, so every read passes through it."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") in HOST_READS:
            self.count += 1
        return func(*args, **(kwargs or {}))
