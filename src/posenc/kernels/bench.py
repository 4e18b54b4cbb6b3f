"""Side-by-side RoPE benchmark: every available provider, one process, the same inputs.

Applying RoPE reads q and k once and writes them once, so the yardstick is memory traffic:

    GB/s = 2 * (numel(q) + numel(k)) * bytes_per_element / time        (the small angle tables are not counted)

and "% of copy" is ``time(copy of q and k into preallocated buffers) / time(provider)``. Before any timing, every
provider's output is checked against a float64 reference (:func:`posenc.kernels.reference.rope_apply_reference`
with float64 math): ``|out - ref| <= tol (1 + |ref|)`` with tol 1e-5 for float32 and 1e-2 for bfloat16/float16; the
table shows the worst ratio (<= 1 passes). A provider that fails is still timed, and flagged ``FAIL`` (Hugging Face
eager in bfloat16 rounds its tables and products to bfloat16 and can land there); one that raises is not timed.

posenc's out-of-place path allocates its outputs with :func:`posenc.kernels.cpu.empty_output` (transparent huge pages
on Linux); the ``mul`` baseline and the other providers use torch's allocator, whose 4 KiB page faults dominate their
time at these sizes. ``copy`` into a preallocated buffer is the bound for both.

Timing: on CUDA ``triton.testing.do_bench`` (median, L2 flushed: it clears L2 before each call, and hides a call's
host time only while the GPU is busier than the host, so short calls are timed by their host time; see
docs/kernels.md); on CPU the median of ``repeats`` rounds after
``warmup`` rounds, the providers interleaved round by round so that load from other processes hits all of them alike.
Baselines: ``copy`` (``copy_`` into a buffer), ``mul`` (``q * 1.0001``: an allocating elementwise op) and ``mul_``
(``q.mul_(1.0001)``: in place).
"""

from __future__ import annotations

import difflib
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from posenc.checks import SEED_LIMIT, whole_number, wrong_flags
from posenc.device import DTYPES as _DTYPES
from posenc.device import resolve_device as _resolve_device
from posenc.errors import PosencError
from posenc.kernels.dispatch import apply_rope, available_providers
from posenc.kernels.reference import rope_apply_reference
from posenc.kernels.validate import check_pairing

__all__ = ["BenchConfig", "Provider", "resolve_device", "make_inputs", "collect_providers", "run_benchmark",
           "write_json"]

def resolve_device(name: str) -> str:
    """``auto`` -> ``cuda`` when a CUDA device is present, else ``cpu``; ``cpu``, ``cuda`` and ``cuda:N`` are checked
    against this machine by :func:`posenc.device.resolve_device` (the benchmark times CPU and CUDA only, so ``mps``
    is refused). Anything else, or CUDA where there is none, is a :class:`PosencError` naming what was given and
    what fits."""
    return str(_resolve_device(name, accept=("cpu", "cuda")))


#: every provider name the benchmark may time (``--only`` takes prefixes of these); the baselines always run
PROVIDER_NAMES = ("posenc:cpp", "posenc:triton", "posenc:triton-kernel", "posenc:reference",
                  "posenc:reference+compile", "hf-eager", "hf-compile", "liger", "flash-attn")


@dataclass
class BenchConfig:
    """Shapes and settings: q ``[batch, q_heads, seq_len, head_dim]``, k ``[batch, kv_heads, seq_len, head_dim]``.

    Attributes:
        batch: batch size B.
        q_heads: query heads H.
        kv_heads: key/value heads Hk (H must be a multiple).
        seq_len: tokens T.
        head_dim: channels per head Dh.
        rotary_dim: rotary width R (default: head_dim).
        dtype: float32, bfloat16 or float16.
        pairing: half (GPT-NeoX / HF) or interleaved (GPT-J / Meta).
        device: auto (cuda when present, else cpu), cpu, cuda or cuda:N.
        modes: out-of-place, in-place, backward.
        repeats: timed rounds on CPU (median reported).
        warmup: untimed rounds first.
        threads: torch / OpenMP threads (default: torch's).
        compile: include torch.compile providers.
        seed: seed of the random q and k.
        only: provider name prefixes to keep; every provider when empty.
    """

    batch: int = 1
    q_heads: int = 32
    kv_heads: int = 8
    seq_len: int = 4096
    head_dim: int = 128
    rotary_dim: int | None = None
    dtype: str = "float32"
    pairing: str = "half"
    device: str = "cpu"
    modes: tuple[str, ...] = ("out-of-place", "in-place")
    repeats: int = 21
    warmup: int = 3
    threads: int | None = None
    compile: bool = True
    seed: int = 0
    only: tuple[str, ...] = ()

    def __post_init__(self):
        if isinstance(self.only, str):  # one name given as a string, not its letters
            self.only = (self.only,)
        if isinstance(self.modes, str):
            self.modes = (self.modes,)
        for name, value in wrong_flags(self):
            raise PosencError(f"BenchConfig.{name} is a flag: True or False, got {value!r} (a string such as 'no' "
                              f"would count as true)")
        self.device = resolve_device(self.device)
        for name in ("batch", "q_heads", "kv_heads", "seq_len", "head_dim"):
            value = getattr(self, name)
            if not whole_number(value):
                # apply_rope takes empty tensors (their outputs are empty too), but an empty problem moves no bytes,
                # so there is nothing to time and no GB/s to report
                raise PosencError(f"{name} must be a positive integer, got {value!r}: an empty tensor has nothing "
                                  f"to time; set {name} (--{name.replace('_', '-')}) to 1 or more, e.g. "
                                  f"{getattr(BenchConfig, name)}")
        if self.dtype not in _DTYPES:
            raise PosencError(f"dtype must be one of {list(_DTYPES)}, got {self.dtype!r}")
        check_pairing(self.pairing)
        for mode in self.modes:
            if mode not in ("out-of-place", "in-place", "backward"):
                raise PosencError(f"mode must be out-of-place, in-place or backward, got {mode!r}")
        if self.q_heads % self.kv_heads:
            raise PosencError(f"q_heads ({self.q_heads}) must be a multiple of kv_heads ({self.kv_heads})")
        rot = self.rotary_dim or self.head_dim
        if rot % 2 or not 2 <= rot <= self.head_dim:
            raise PosencError(f"rotary_dim must be even and in 2..head_dim ({self.head_dim}), got {rot}")
        if not whole_number(self.repeats) or not whole_number(self.warmup, 0):
            raise PosencError(f"repeats must be an integer >= 1 and warmup an integer >= 0, got {self.repeats!r} and "
                              f"{self.warmup!r}")
        if self.threads is not None and not whole_number(self.threads, 0):
            raise PosencError(f"threads must be an integer >= 0 (0 or None: torch's own choice), got "
                              f"{self.threads!r}")
        if not whole_number(self.seed, 0, SEED_LIMIT):
            raise PosencError(f"seed must be an integer in 0..{SEED_LIMIT - 1}, got {self.seed!r}")

        unknown = [o for o in self.only if not any(name.startswith(o) for name in PROVIDER_NAMES)]
        if unknown:
            close = difflib.get_close_matches(unknown[0], PROVIDER_NAMES, n=1)
            raise PosencError(f"--only {unknown[0]!r} names no provider; providers are: {', '.join(PROVIDER_NAMES)} "
                              f"(a prefix such as posenc: picks several)" + (f". Did you mean {close[0]!r}?"
                                                                              if close else ""))


@dataclass
class Provider:
    """One way of applying RoPE (or a baseline): ``fn(q, k) -> (q', k')`` for one mode."""

    name: str
    mode: str
    fn: Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]
    baseline: bool = False
    note: str = ""


@dataclass
class Inputs:
    q: torch.Tensor
    k: torch.Tensor
    cos: torch.Tensor  # [T, R/2] float32
    sin: torch.Tensor
    extras: dict = field(default_factory=dict)


def make_inputs(cfg: BenchConfig) -> Inputs:
    """Random q, k in the benchmark dtype and float32 RoPE tables (base 10000) built in float64."""
    gen = torch.Generator().manual_seed(cfg.seed)
    dtype = _DTYPES[cfg.dtype]
    q = torch.randn(cfg.batch, cfg.q_heads, cfg.seq_len, cfg.head_dim, generator=gen).to(cfg.device, dtype)
    k = torch.randn(cfg.batch, cfg.kv_heads, cfg.seq_len, cfg.head_dim, generator=gen).to(cfg.device, dtype)
    rot = cfg.rotary_dim or cfg.head_dim
    inv_freq = 10000.0 ** (-torch.arange(0, rot, 2, dtype=torch.float64) / rot)  # [R/2]
    theta = torch.arange(cfg.seq_len, dtype=torch.float64)[:, None] * inv_freq  # [T, R/2]
    return Inputs(q, k, theta.cos().float().to(cfg.device), theta.sin().float().to(cfg.device))


def _hf_tables(inp: Inputs, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """Hugging Face's layout: full-width ``[1, T, R]`` tables (each angle twice) in the activations' dtype."""
    cos = torch.cat([inp.cos, inp.cos], dim=-1)[None].to(dtype)  # [1, T, R]
    sin = torch.cat([inp.sin, inp.sin], dim=-1)[None].to(dtype)
    return cos, sin


def collect_providers(cfg: BenchConfig, inp: Inputs) -> tuple[list[Provider], list[str]]:
    """Every provider usable here for the configured modes, and notes on the ones skipped (and why)."""
    providers: list[Provider] = []
    skipped: list[str] = []
    dev = torch.device(cfg.device)
    dtype = _DTYPES[cfg.dtype]
    full = (cfg.rotary_dim or cfg.head_dim) == cfg.head_dim
    paths = [p for p in available_providers() if p != "triton" or dev.type == "cuda"]
    for path in paths:
        if path == "cpp" and dev.type != "cpu":
            continue
        for mode in cfg.modes:
            inplace = mode == "in-place"

            def fn(q, k, _path=path, _inplace=inplace):
                return apply_rope(q, k, inp.cos, inp.sin, inp.cos, inp.sin, pairing=cfg.pairing, inplace=_inplace,
                                  provider=_path)

            providers.append(Provider(f"posenc:{path}", mode, fn))
    if dev.type == "cuda" and "triton" in paths and "out-of-place" in cfg.modes:
        from posenc.kernels.triton_rope import rope_triton

        q_dst, k_dst = torch.empty_like(inp.q), torch.empty_like(inp.k)
        interleaved = cfg.pairing == "interleaved"
        providers.append(Provider(
            "posenc:triton-kernel", "out-of-place",
            lambda q, k: rope_triton(q, k, inp.cos, inp.sin, inp.cos, inp.sin, interleaved=interleaved,
                                     inverse=False, q_out=q_dst, k_out=k_dst),
            note="the Triton kernel alone into preallocated outputs, like copy: no validation, dispatch or autograd"))
    if cfg.compile:
        # torch.compile caches compiled graphs per function and falls back to eager, silently, past its recompile
        # limit (8): earlier benchmarks in this process (other shapes, dtypes) must not count against this one
        torch._dynamo.reset()
    if cfg.compile and "out-of-place" in cfg.modes:
        compiled = torch.compile(rope_apply_reference, dynamic=False)
        providers.append(Provider("posenc:reference+compile", "out-of-place",
                                  lambda q, k: (compiled(q, inp.cos, inp.sin, cfg.pairing),
                                                compiled(k, inp.cos, inp.sin, cfg.pairing))))
    try:
        from transformers.models.llama.modeling_llama import apply_rotary_pos_emb
    except Exception as exc:  # transformers missing or broken
        skipped.append(f"hf-eager: {type(exc).__name__}: {exc}")
        apply_rotary_pos_emb = None
    if apply_rotary_pos_emb is not None and (cfg.pairing != "half" or not full):
        skipped.append("hf-eager: Llama's apply_rotary_pos_emb rotates all channels with half pairing only")
    elif apply_rotary_pos_emb is not None:
        cos_hf, sin_hf = _hf_tables(inp, dtype)
        for mode in ("out-of-place", "backward"):
            if mode in cfg.modes:
                providers.append(Provider("hf-eager", mode, lambda q, k: apply_rotary_pos_emb(q, k, cos_hf, sin_hf)))
        if cfg.compile and "out-of-place" in cfg.modes:
            hf_compiled = torch.compile(apply_rotary_pos_emb, dynamic=False)
            providers.append(Provider("hf-compile", "out-of-place", lambda q, k: hf_compiled(q, k, cos_hf, sin_hf)))
    providers += _liger(cfg, inp, skipped) + _flash_attn(cfg, inp, skipped)
    q_buf, k_buf = torch.empty_like(inp.q), torch.empty_like(inp.k)
    providers.append(Provider("copy", "baseline", lambda q, k: (q_buf.copy_(q), k_buf.copy_(k)), baseline=True,
                              note="copy_ into preallocated buffers"))
    if "out-of-place" in cfg.modes or "backward" in cfg.modes:
        providers.append(Provider("mul", "baseline", lambda q, k: (q * 1.0001, k * 1.0001), baseline=True,
                                  note="allocating elementwise q * 1.0001"))
    if "in-place" in cfg.modes:
        providers.append(Provider("mul_", "baseline", lambda q, k: (q.mul_(1.0001), k.mul_(1.0001)), baseline=True,
                                  note="in-place q.mul_(1.0001)"))
    if cfg.only:
        providers = [p for p in providers if p.baseline or any(p.name.startswith(o) for o in cfg.only)]
        if all(p.baseline for p in providers):
            why = [note for note in skipped if any(note.startswith(o) for o in cfg.only)]
            raise PosencError(f"--only {', '.join(cfg.only)} leaves no provider to time here"
                              + (f" ({'; '.join(why)})" if why else f" (on {cfg.device} with these settings)")
                              + "; drop --only or pick a provider this machine runs")
    return providers, skipped


#: providers the table always lists: a row saying "not installed" (or why not importable) when they are missing
OPTIONAL_PROVIDERS = ("liger", "flash-attn")


def _import_failure(exc: Exception, module: str) -> str:
    if isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] == module:
        return "not installed"
    return f"not importable ({type(exc).__name__}: {exc})"[:200]


def _liger(cfg: BenchConfig, inp: Inputs, skipped: list[str]) -> list[Provider]:
    try:
        from liger_kernel.transformers.rope import liger_rotary_pos_emb
    except Exception as exc:
        skipped.append(f"liger: {_import_failure(exc, 'liger_kernel')}")
        return []
    if cfg.device == "cpu" or cfg.pairing != "half" or cfg.rotary_dim not in (None, cfg.head_dim):
        skipped.append("liger: CUDA, half pairing and full rotary only")
        return []
    cos_hf, sin_hf = _hf_tables(inp, _DTYPES[cfg.dtype])
    return [Provider("liger", m, lambda q, k: liger_rotary_pos_emb(q, k, cos_hf, sin_hf))
            for m in ("out-of-place", "backward") if m in cfg.modes]


def _flash_attn(cfg: BenchConfig, inp: Inputs, skipped: list[str]) -> list[Provider]:
    try:
        from flash_attn.layers.rotary import apply_rotary_emb
    except Exception as exc:
        skipped.append(f"flash-attn: {_import_failure(exc, 'flash_attn')}")
        return []
    if cfg.device == "cpu":
        skipped.append("flash-attn: CUDA only")
        return []
    cos, sin = inp.cos.to(_DTYPES[cfg.dtype]), inp.sin.to(_DTYPES[cfg.dtype])
    interleaved = cfg.pairing == "interleaved"
    out = []
    for mode in cfg.modes:
        inplace = mode == "in-place"

        def fn(q, k, _inplace=inplace):  # flash-attn takes [B, T, H, Dh]: transposed views, no copy
            qo = apply_rotary_emb(q.transpose(1, 2), cos, sin, interleaved=interleaved, inplace=_inplace)
            ko = apply_rotary_emb(k.transpose(1, 2), cos, sin, interleaved=interleaved, inplace=_inplace)
            return qo.transpose(1, 2), ko.transpose(1, 2)

        out.append(Provider("flash-attn", mode, fn))
    return out


def _gate(provider: Provider, inp: Inputs, cfg: BenchConfig) -> tuple[bool, float]:
    """Max error against the float64 reference, scaled by the dtype's tolerance (<= 1 passes)."""
    q, k = inp.q.clone(), inp.k.clone()
    if provider.mode == "backward":
        q.requires_grad_(True)
        k.requires_grad_(True)
        qo, ko = provider.fn(q, k)
        gq_out, gk_out = torch.ones_like(qo), torch.ones_like(ko)
        gq, gk = torch.autograd.grad((qo, ko), (q, k), (gq_out, gk_out))
        outputs = (gq, gk)
        # the gradient of RoPE is the rotation by -theta of the incoming gradient
        expected = (rope_apply_reference(gq_out.double(), inp.cos.double(), -inp.sin.double(), cfg.pairing,
                                         torch.float64),
                    rope_apply_reference(gk_out.double(), inp.cos.double(), -inp.sin.double(), cfg.pairing,
                                         torch.float64))
    else:
        with torch.no_grad():
            outputs = provider.fn(q, k)
        expected = tuple(rope_apply_reference(x.double(), inp.cos.double(), inp.sin.double(), cfg.pairing,
                                              torch.float64) for x in (inp.q, inp.k))
    tol = 1e-5 if cfg.dtype == "float32" else 1e-2
    worst = 0.0
    for got, ref in zip(outputs, expected, strict=True):
        err = (got.double() - ref).abs() / (tol + tol * ref.abs())
        worst = max(worst, float(err.max()))
    return worst <= 1.0, worst


def _timed_call(provider: Provider, q: torch.Tensor, k: torch.Tensor) -> Callable[[], object]:
    """The call to time: forward modes without autograd (as in the gate: one compiled graph per provider), backward
    with it (as in training)."""
    if provider.mode != "backward":
        def forward():
            with torch.no_grad():
                return provider.fn(q, k)

        return forward
    qg, kg = q.detach().clone().requires_grad_(True), k.detach().clone().requires_grad_(True)
    qo, ko = provider.fn(qg, kg)
    gq, gk = torch.randn_like(qo), torch.randn_like(ko)

    def backward():
        with torch.enable_grad():
            return torch.autograd.grad((qo, ko), (qg, kg), (gq, gk), retain_graph=True)

    return backward


def _time_cpu(calls: dict[str, Callable[[], object]], cfg: BenchConfig, progress) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(cfg.warmup):
        for call in calls.values():
            call()
    for _ in progress(range(cfg.repeats), desc="timing rounds"):
        for name, call in calls.items():  # interleaved: contention hits every provider alike
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return times


def _time_cuda(calls: dict[str, Callable[[], object]], progress) -> dict[str, list[float]]:
    from triton.testing import do_bench

    times = {}
    for name, call in progress(calls.items(), desc="timing"):
        q25, median, q75 = do_bench(call, warmup=25, rep=200, quantiles=[0.25, 0.5, 0.75])
        times[name] = [q25 / 1e3, median / 1e3, q75 / 1e3]
    return times


def run_benchmark(cfg: BenchConfig, progress=None) -> dict:
    """Gate, then time every provider; returns a JSON-ready dict with one row per (provider, mode)."""
    if progress is None:  # a bar on a terminal, plain lines in a log or a pipe
        from posenc.progress import progress
    cfg.device = resolve_device(cfg.device)  # a config changed after construction is checked again
    if cfg.device.startswith("cuda:"):
        torch.cuda.set_device(cfg.device)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    load_before = os.getloadavg()
    inp = make_inputs(cfg)
    providers, skipped = collect_providers(cfg, inp)
    rows, calls = [], {}
    for p in progress(providers, desc="correctness gate"):
        key = f"{p.name} [{p.mode}]"
        row = {"provider": p.name, "mode": p.mode, "baseline": p.baseline, "note": p.note}
        if not p.baseline:
            try:
                ok, worst = _gate(p, inp, cfg)
            except Exception as exc:  # a provider that crashes is reported, not timed
                row.update(gate="error", error=f"{type(exc).__name__}: {exc}"[:300])
                rows.append(row)
                continue
            row.update(gate="pass" if ok else "FAIL", gate_error=worst)
        # in-place providers work on their own copies so out-of-place ones see unchanged inputs
        q, k = (inp.q.clone(), inp.k.clone()) if p.mode == "in-place" or p.name == "mul_" else (inp.q, inp.k)
        calls[key] = _timed_call(p, q, k)
        rows.append(row)
    for name in OPTIONAL_PROVIDERS:  # listed in the table even when missing, with the reason
        note = next((n.split(": ", 1)[1] for n in skipped if n.startswith(f"{name}: ")), None)
        if note is not None and not any(r["provider"] == name for r in rows):
            rows.append({"provider": name, "mode": "-", "baseline": False, "note": note,
                         "gate": "not installed" if note == "not installed" else "skipped"})
    times = _time_cuda(calls, progress) if cfg.device.startswith("cuda") else _time_cpu(calls, cfg, progress)
    traffic = 2 * (inp.q.numel() + inp.k.numel()) * inp.q.element_size()
    for row in rows:
        key = f"{row['provider']} [{row['mode']}]"
        if key not in times:
            continue
        ts = sorted(times[key])
        median = statistics.median(ts)
        row.update(median_ms=median * 1e3, q25_ms=ts[len(ts) // 4] * 1e3, q75_ms=ts[(3 * len(ts)) // 4] * 1e3,
                   min_ms=ts[0] * 1e3, gbps=traffic / median / 1e9)
    by_key = {(r["provider"], r["mode"]): r.get("median_ms") for r in rows}
    copy_ms = by_key.get(("copy", "baseline"))
    for row in rows:
        ms = row.get("median_ms")
        if ms is None:
            continue
        if copy_ms:
            row["pct_of_copy"] = 100.0 * copy_ms / ms
        ref = {"out-of-place": ("mul", "baseline"), "in-place": ("mul_", "baseline"),
               "backward": ("hf-eager", "backward")}.get(row["mode"])
        hf = by_key.get(("hf-eager", "out-of-place" if row["mode"] != "backward" else "backward"))
        if hf and not row["baseline"]:
            row["speedup_vs_hf_eager"] = hf / ms
        hf_compiled = by_key.get(("hf-compile", "out-of-place"))
        if hf_compiled and not row["baseline"] and row["mode"] != "backward":
            row["speedup_vs_hf_compile"] = hf_compiled / ms
        if ref and by_key.get(ref) and not row["baseline"] and ref[0] != "hf-eager":
            row[f"speed_vs_{ref[0]}"] = by_key[ref] / ms
    return {
        "config": asdict(cfg),
        "environment": {"torch": torch.__version__, "device": cfg.device, "threads": torch.get_num_threads(),
                        "cpu_capability": torch.backends.cpu.get_cpu_capability(), "machine": platform.machine(),
                        "cuda": torch.cuda.get_device_name(cfg.device) if cfg.device.startswith("cuda") else None,
                        "triton": _version("triton"), "transformers": _version("transformers"),
                        "loadavg_before": load_before, "loadavg_after": os.getloadavg()},
        "traffic_bytes": traffic,
        "skipped": skipped,
        "rows": rows,
    }


def _version(module: str) -> str | None:
    try:
        return __import__(module).__version__
    except Exception:
        return None


def write_json(result: dict, path: str | Path) -> Path:
    """Write a benchmark result as indented JSON; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, default=str))
    return path
