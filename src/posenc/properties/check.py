"""Run every property on one encoding (or the whole registry) and collect a :class:`CheckReport`.

    >>> from posenc.properties import check_encoding
    >>> report = check_encoding("sinusoidal", d_model=64, length=256)
    >>> report["relative"].verdict
    'holds'

A property that does not apply answers ``n.a.`` with its reason (an encoding's own refusal, e.g. a learned table asked
past its length, counts as not applicable); any other exception inside a property is recorded as ``error`` with its
message, so one broken property never hides the others.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import torch

from posenc.checks import whole_number
from posenc.errors import PosencError
from posenc.names import Registry
from posenc.progress import progress as progress_bar
from posenc.properties.bounded import bounded
from posenc.properties.decay import decay
from posenc.properties.naive_flaws import continuity, growth, length_independence
from posenc.properties.precision import precision
from posenc.properties.relative import relative
from posenc.properties.relative_2d import relative_2d
from posenc.properties.result import ERROR, NA, CheckReport, NotApplicable, PropertyResult
from posenc.properties.scaling_ramps import scaling_ramp
from posenc.properties.translation import translation
from posenc.properties.uniqueness import uniqueness
from posenc.properties.view import EncodingView, check_size
from posenc.properties.wavelength import wavelength
from posenc.registry import available, build_for_model, get_class
from posenc.resources import GB, check_memory, format_bytes, seconds

__all__ = ["PROPERTIES", "VARIANTS", "check_encoding", "check_all", "check_view", "build_checked", "build_sized",
           "estimate_check", "check_fits", "torch_threads", "SIZE_OPTIONS"]

#: property name -> function of an :class:`EncodingView`, in the order reports list them
PROPERTIES: Registry[Callable[[EncodingView], PropertyResult]] = Registry("property", plural="properties")
PROPERTIES.register_all({
    "bounded": bounded,
    "uniqueness": uniqueness,
    "relative": relative,
    "relative_2d": relative_2d,
    "translation": translation,
    "wavelength": wavelength,
    "growth": growth,
    "length_independence": length_independence,
    "continuity": continuity,
    "decay": decay,
    "scaling_ramp": scaling_ramp,
    "precision": precision,
})

#: encodings ``check --all`` adds to the registry: RoPE with the scalings whose ramps the report draws
VARIANTS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("rope+yarn", "rope", {"scaling": {"type": "yarn", "factor": 4.0, "original_max_len": 2048}}),
    ("rope+llama3", "rope", {"base": 500000.0, "scaling": {"type": "llama3", "factor": 8.0, "original_max_len": 8192}}),
)

_MODEL_HEADS = 8


@contextlib.contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Run the block with ``torch.set_num_threads(threads)`` and restore the previous count (``None`` or 0: torch's
    own choice, unchanged).

    The checks are many small vectorised steps; on a busy machine one thread avoids oversubscription (measured in
    ``benchmarks/bench_check.py``)."""
    if not whole_number(threads, 0) and threads is not None:
        raise PosencError(f"threads must be an integer >= 0 or None (0 or None: torch's own choice), got {threads!r}")
    if not threads:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


#: options that are sizes the check sets itself, and the command-line option that sets each
SIZE_OPTIONS = {"d_model": "--d-model", "head_dim": "--d-model", "n_heads": "--n-heads", "max_len": "--length"}

#: memory of the checks: float64 tables and their copies per (position, channel), and the uniqueness property's
#: blocks of pairwise distances (512 rows x N float64, a few at a time) per position; fitted to the peak resident
#: memory of ``check --all`` at (N, d_model) = (4096, 512), (32768, 512), (32768, 64), and rounded up
BYTES_PER_CELL = 128
BYTES_PER_POSITION = 24 * 1024
#: the Python process with torch imported
RUNTIME_BYTES = int(0.4 * GB)
#: bytes the uniqueness property's elementwise passes read and write per pair of positions it compares: the float64
#: squared distance built from the Gram block (three passes), the mask of pairs p < q (one byte, filled), its minimum
PAIR_BYTES = 96


def estimate_check(length: int, d_model: int, names: Sequence[str] = ("sinusoidal",), pairwise: bool = True
                   ) -> tuple[int, float]:
    """``(peak bytes, seconds)`` of checking (``pairwise``) or drawing the encodings ``names`` at ``length``
    positions and width ``d_model`` (arithmetic only). The time counts the pairwise uniqueness property of the
    absolute tables alone, which dominates past a few thousand positions: ``N (N - 1) / 2`` pairs, each a Gram
    product over the ``D'`` distinct channels in float64 (``2 D'`` operations, counted twice: float64 runs at half
    float32's width) and :data:`PAIR_BYTES` bytes of elementwise passes, on one thread at this machine's rate
    (:func:`posenc.resources.seconds`)."""
    cells = BYTES_PER_CELL * length * d_model
    total = RUNTIME_BYTES + cells + (BYTES_PER_POSITION * length if pairwise else 0)
    flops = moved = 0.0
    if pairwise:
        pairs = length * (length - 1) / 2
        for name in names:
            if get_class(name).info.family != "absolute":
                continue
            channels = {"integer": 1, "normalized": 1, "binary": min(d_model, length.bit_length() + 1)}.get(name, d_model)
            flops += pairs * 4 * channels
            moved += pairs * PAIR_BYTES
    return total, seconds(flops, memory=moved)


def check_fits(length: int, d_model: int, names: Sequence[str] = ("sinusoidal",), pairwise: bool = True,
               limit_bytes: int | None = None) -> tuple[int, float]:
    """:func:`estimate_check`, raising :class:`PosencError` (with the estimate and the memory available) before
    anything is allocated when it does not fit."""
    check_size(length, d_model)
    needed, time_s = estimate_check(length, d_model, names, pairwise)
    check_memory(needed, f"{'checking' if pairwise else 'drawing'} {', '.join(names)} at length {length}, d_model "
                 f"{d_model}", "use a smaller --length or --d-model", limit_bytes=limit_bytes,
                 detail=f"{format_bytes(BYTES_PER_CELL * length * d_model)} of tables for {length} x {d_model} "
                 + (f"float64 cells, {format_bytes(BYTES_PER_POSITION * length)} of pairwise distance blocks"
                    if pairwise else "float64 cells") + f", runtime {format_bytes(RUNTIME_BYTES)}")
    return needed, time_s


def build_sized(name: str, d_model: int, length: int, options: dict[str, Any] | None = None,
                n_heads: int = _MODEL_HEADS):
    """``build_for_model`` with the check's sizes: an option that is one of those sizes is refused (naming the
    option that sets it), and an encoding that rejects its options raises :class:`PosencError` naming them."""
    options = dict(options or {})
    clash = sorted(set(options) & set(SIZE_OPTIONS))
    if clash:
        fixes = ", ".join(f"{SIZE_OPTIONS[k]} instead of -o {k}=..." for k in clash)
        raise PosencError(f"option(s) {clash} are sizes this command sets itself; use {fixes}")
    try:
        return build_for_model(name, d_model=d_model, n_heads=n_heads, head_dim=d_model, max_len=length, **options)
    except PosencError:
        raise
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise PosencError(f"encoding {name!r} rejects options {options!r}: {type(exc).__name__}: {exc}; fix the "
                          f"option values (see docs/encodings.md)") from exc


def build_checked(name: str, d_model: int, length: int, options: dict[str, Any] | None = None,
                  n_heads: int = _MODEL_HEADS):
    """Build ``name`` for a model of width ``d_model`` (rotary encodings use it as ``head_dim``, tables get
    ``max_len = length``)."""
    check_size(length, d_model)
    return build_sized(name, d_model, length, options, n_heads)


def _run(name: str, fn: Callable[[EncodingView], PropertyResult], view: EncodingView) -> PropertyResult:
    try:
        result = fn(view)
    except NotApplicable as exc:
        return PropertyResult(name, NA, {}, str(exc))
    except PosencError as exc:  # the encoding refused (e.g. a position past a learned table)
        return PropertyResult(name, NA, {}, f"{view.name} refused: {exc}")
    except Exception as exc:  # noqa: BLE001  (recorded, reported, and turned into a non-zero exit by the CLI)
        return PropertyResult(name, ERROR, {}, f"internal error: {type(exc).__name__}: {exc}")
    if view.notes and result.reason:
        result.reason += f" [{view.notes[0]}]"
    return result


def check_view(view: EncodingView, properties: Sequence[str] | None = None) -> list[PropertyResult]:
    """Run the named properties (default: all) on a view."""
    names = list(PROPERTIES) if properties is None else list(properties)
    checks = [PROPERTIES.get(n) for n in names]  # an unknown name lists the valid ones
    return [_run(n, check, view) for n, check in zip(names, checks, strict=True)]


def check_encoding(name: str, d_model: int = 512, length: int = 4096, options: dict[str, Any] | None = None,
                   n_heads: int = _MODEL_HEADS, properties: Sequence[str] | None = None,
                   label: str | None = None, threads: int | None = None) -> CheckReport:
    """Every property of the encoding ``name`` (built with ``options``) at positions ``0..length-1``.

    Args:
        name: a registry name (``posenc.available()``).
        d_model: model width; absolute tables get this width, rotary encodings use it as ``head_dim``.
        length: number of positions N (>= 8).
        options: encoding options, e.g. ``{"scaling": {"type": "yarn", "factor": 4}}``.
        n_heads: heads for bias encodings.
        properties: names from :data:`PROPERTIES` (default: all).
        threads: torch threads while checking (``None`` or 0: leave torch's setting).
    Returns:
        a :class:`CheckReport`; ``.to_dict()`` is JSON-able.
    """
    check_fits(length, d_model, [name])
    start = time.perf_counter()
    encoding = build_checked(name, d_model, length, options, n_heads)
    view = EncodingView(encoding, length, d_model)
    with torch_threads(threads):
        results = check_view(view, properties)
    cls = get_class(name)
    return CheckReport(encoding=name, options=dict(options or {}), d_model=d_model, length=length,
                       family=cls.info.family, hooks=tuple(encoding.info.hooks), results=results,
                       wall_s=time.perf_counter() - start, label=label or name, notes=list(view.notes))


def check_all(d_model: int = 512, length: int = 4096, names: Sequence[str] | None = None, variants: bool = True,
              n_heads: int = _MODEL_HEADS, progress: bool = True, threads: int | None = None) -> list[CheckReport]:
    """:func:`check_encoding` for every registered encoding (or ``names``), plus :data:`VARIANTS`."""
    jobs: list[tuple[str, str, dict[str, Any]]] = [(n, n, {}) for n in (names or available())]
    if variants:
        jobs += list(VARIANTS)
    check_fits(length, d_model, [name for _, name, _ in jobs])
    reports = []
    for label, name, options in progress_bar(jobs, desc="posenc check", unit="encoding", disable=not progress):
        reports.append(check_encoding(name, d_model, length, options, n_heads, label=label, threads=threads))
    return reports
