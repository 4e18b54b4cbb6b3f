"""posenc's Triton RoPE kernel on a CUDA GPU: correctness, launch tuning and ``posenc bench``, in one process.

    PYTHONPATH=src python3 benchmarks/rope_cuda.py --out DIR            # on a machine with a CUDA GPU
    TRITON_INTERPRET=1 PYTHONPATH=src python benchmarks/rope_cuda.py --smoke --out /tmp/x   # the script itself, on CPU

1. Environment, and the copy ceiling: a 1 GiB device-to-device ``copy_`` (bytes read plus written over time).
2. Correctness against a float64 reference on the stored inputs, by ``|out - ref| / |ref|`` (norms over the whole
   tensor) and the elementwise check of the tests: float32, bfloat16, float16; half and interleaved pairing; odd head
   sizes, partial rotary, GQA / MQA, per-row position tables, decode (Tq = 1 against a longer key cache),
   non-contiguous layouts, in place and out of place, backward through autograd, packed sequences, empty inputs,
   mixed q / k dtypes, and a q of more than 2^31 elements (64-bit offsets). Outputs of the direct kernel calls are
   poisoned with NaN first, so an element the kernel never writes fails. The dispatcher must pick ``triton``.
3. Host time per call of each layer (launch, wrapper, validation, autograd) on small problems, and launch variants
   (heads per program, tokens per block, warps) at 1k, 8k and 32k tokens, timed in CUDA graphs over input sets larger
   than L2 (GPU time alone), next to a copy timed the same way.
4. ``posenc bench --device cuda`` for 1k to 32k tokens, q [1, 32, T, 128], k [1, 8, T, 128], through the CLI in this
   process (bfloat16 at 1k-32k, float32 at 4k and 32k, float16 at 8k; forward out of place and backward).

Everything lands in ``DIR/cuda_rope.json`` (the bench results inside it); a summary is printed last.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path

import torch

from posenc.kernels import apply_rope, apply_rope_packed, rope_apply_reference, select_provider
from posenc.kernels.triton_rope import rope_triton

START = time.time()
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
#: |out - ref| / |ref| over the whole tensor (METHOD: float32 far under 1e-3, bfloat16 under 1e-2)
REL_LIMIT = {torch.float32: 1e-5, torch.bfloat16: 1e-2, torch.float16: 2e-3}
#: the tests' elementwise tolerance: |out - ref| <= atol + rtol |ref|
ELEM_TOL = {torch.float32: (1e-5, 1e-5), torch.bfloat16: (1e-5, 1e-2), torch.float16: (1e-5, 1e-2)}


def log(*args):
    print(f"[{time.time() - START:6.1f}s]", *args, flush=True)


# ----------------------------------------------------------------------------------------------------------- checks

class Checker:
    def __init__(self, device: str, smoke: bool):
        self.device, self.smoke = device, smoke
        self.provider = None if device.startswith("cuda") else "triton"  # the interpreter is never automatic on CPU
        self.rows: list[dict] = []
        self.gen = torch.Generator().manual_seed(1234)

    # -- inputs
    def randn(self, *shape, dtype=torch.float32):
        return torch.randn(*shape, generator=self.gen).to(self.device, dtype)

    def tables(self, positions: torch.Tensor, r2: int, scale: float = 1.0):
        """float32 cos/sin ``positions.shape + [r2]`` built in float64 (base 10000, rotary width 2 r2)."""
        inv = 10000.0 ** (-torch.arange(r2, dtype=torch.float64) / r2)
        theta = positions.to(torch.float64)[..., None] * inv
        return (theta.cos() * scale).float().to(self.device), (theta.sin() * scale).float().to(self.device)

    def positions(self, B: int, T: int, per_row: bool):
        if not per_row:
            return torch.arange(T) + int(torch.randint(0, 1000, (), generator=self.gen))  # a KV-cache offset
        # per row: its own offset, like left padding or a batch of decodes at different lengths
        return torch.arange(T)[None] + torch.randint(0, 5000, (B, 1), generator=self.gen)

    @staticmethod
    def layout(x: torch.Tensor, how: str) -> torch.Tensor:
        if how == "bthd":  # [B, T, H, Dh] storage viewed as [B, H, T, Dh]: a projection's output
            return x.transpose(1, 2).contiguous().transpose(1, 2)
        if how == "offset":  # unaligned start, padded rows
            B, H, T, D = x.shape
            big = torch.full((B, H, T + 2, D + 3), float("nan"), dtype=x.dtype, device=x.device)
            big[:, :, 1:1 + T, 1:1 + D] = x
            return big[:, :, 1:1 + T, 1:1 + D]
        return x.contiguous()

    # -- comparison
    def record(self, name: str, what: str, got: torch.Tensor, ref: torch.Tensor, dtype: torch.dtype, **info):
        row = {"case": name, "check": what, "dtype": str(dtype).replace("torch.", ""), **info}
        try:
            assert got.shape == ref.shape, f"shape {list(got.shape)} != {list(ref.shape)}"
            g, r = got.detach().double(), ref.detach().double().to(got.device)
            finite = bool(torch.isfinite(g).all()) if g.numel() else True
            rel = float((g - r).norm() / r.norm().clamp_min(1e-300)) if g.numel() else 0.0
            atol, rtol = ELEM_TOL[dtype]
            excess = float(((g - r).abs() - (atol + rtol * r.abs())).max()) if g.numel() else -1.0
            ok = finite and rel <= REL_LIMIT[dtype] and excess <= 0.0
            row.update(rel_err=rel, elem_excess=excess, finite=finite, ok=ok)
        except Exception as exc:
            row.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:300])
        self.rows.append(row)
        if not row["ok"]:
            log("FAIL", row)
        return row["ok"]

    def error(self, name: str, what: str, exc: BaseException, **info):
        self.rows.append({"case": name, "check": what, "ok": False, **info,
                          "error": f"{type(exc).__name__}: {exc}"[:500], "trace": traceback.format_exc()[-1500:]})
        log("ERROR", name, what, type(exc).__name__, str(exc)[:300])

    @staticmethod
    def ref(x, cos, sin, pairing, inverse=False):
        return rope_apply_reference(x.double(), cos.double(), (-sin if inverse else sin).double(), pairing,
                                    math_dtype=torch.float64)

    # -- one problem, every path
    def case(self, name, B, H, Hk, Tq, Tk, Dh, R, dtype, pairing, per_row=False, q_layout="contiguous",
             k_layout="contiguous", inplace=True, backward=True, poison=True):
        info = dict(B=B, H=H, Hk=Hk, Tq=Tq, Tk=Tk, Dh=Dh, R=R, pairing=pairing, per_row=per_row,
                    q_layout=q_layout, k_layout=k_layout)
        try:
            r2 = R // 2
            q = self.layout(self.randn(B, H, Tq, Dh, dtype=dtype), q_layout)
            k = self.layout(self.randn(B, Hk, Tk, Dh, dtype=dtype), k_layout)
            qc, qs = self.tables(self.positions(B, Tq, per_row), r2, scale=1.1)
            kc, ks = self.tables(self.positions(B, Tk, per_row), r2)
            if self.provider is None:
                chosen = select_provider(q.device, dtype)
                if chosen != "triton":
                    raise AssertionError(f"the dispatcher chose {chosen!r} on {q.device} for {dtype}")
            q0, k0 = q.clone(), k.clone()
            rq, rk = self.ref(q0, qc, qs, pairing), self.ref(k0, kc, ks, pairing)
            qo, ko = apply_rope(q, k, qc, qs, kc, ks, pairing=pairing, provider=self.provider)
            self.record(name, "forward q", qo, rq, dtype, **info)
            self.record(name, "forward k", ko, rk, dtype, **info)
            if not (torch.equal(q, q0) and torch.equal(k, k0)):
                raise AssertionError("out-of-place forward changed its inputs")
            if poison:  # the kernel itself, into NaN-filled outputs: every element must be written
                pq = torch.full_like(q0, float("nan"), memory_format=torch.contiguous_format)
                pk = torch.full_like(k0, float("nan"), memory_format=torch.contiguous_format)
                rope_triton(q0, k0, qc, qs, kc, ks, interleaved=pairing == "interleaved", inverse=False,
                            q_out=pq, k_out=pk)
                self.record(name, "kernel into NaN q", pq, rq, dtype, **info)
                self.record(name, "kernel into NaN k", pk, rk, dtype, **info)
            if backward:
                qg = q0.clone().requires_grad_(True)
                kg = k0.clone().requires_grad_(True)
                qo, ko = apply_rope(qg, kg, qc, qs, kc, ks, pairing=pairing, provider=self.provider)
                gq = self.layout(self.randn(*qo.shape, dtype=dtype), "bthd")  # a non-contiguous incoming gradient
                gk = self.randn(*ko.shape, dtype=dtype)
                dq, dk = torch.autograd.grad((qo, ko), (qg, kg), (gq, gk))
                self.record(name, "backward dq", dq, self.ref(gq, qc, qs, pairing, inverse=True), dtype, **info)
                self.record(name, "backward dk", dk, self.ref(gk, kc, ks, pairing, inverse=True), dtype, **info)
            if inplace:
                qi, ki = q0.clone(), k0.clone()
                qi_view = self.layout(qi, q_layout) if q_layout != "offset" else qi
                qr, kr = apply_rope(qi_view, ki, qc, qs, kc, ks, pairing=pairing, inplace=True,
                                    provider=self.provider)
                if qr is not qi_view or kr is not ki:
                    raise AssertionError("in place did not return its inputs")
                self.record(name, "in place q", qi_view, rq, dtype, **info)
                self.record(name, "in place k", ki, rk, dtype, **info)
                if backward:  # in place on non-leaf tensors, then backward
                    ql = q0.clone().requires_grad_(True)
                    kl = k0.clone().requires_grad_(True)
                    qn, kn = ql * 1, kl * 1
                    apply_rope(qn, kn, qc, qs, kc, ks, pairing=pairing, inplace=True, provider=self.provider)
                    gq, gk = self.randn(*qn.shape, dtype=dtype), self.randn(*kn.shape, dtype=dtype)
                    dq, dk = torch.autograd.grad((qn, kn), (ql, kl), (gq, gk))
                    self.record(name, "in place backward dq", dq, self.ref(gq, qc, qs, pairing, True), dtype, **info)
                    self.record(name, "in place backward dk", dk, self.ref(gk, kc, ks, pairing, True), dtype, **info)
        except Exception as exc:
            self.error(name, "case", exc, **info)

    def packed(self, dtype, pairing, lengths, H=8, Hk=2, Dh=96, R=64):
        name = f"packed {lengths}"
        info = dict(H=H, Hk=Hk, Dh=Dh, R=R, pairing=pairing)
        try:
            cu = torch.tensor([0, *torch.tensor(lengths).cumsum(0).tolist()])
            N = int(cu[-1])
            q, k = self.randn(1, H, N, Dh, dtype=dtype), self.randn(1, Hk, N, Dh, dtype=dtype)
            cos, sin = self.tables(torch.arange(max(lengths) + 3), R // 2)
            qg, kg = q.clone().requires_grad_(True), k.clone().requires_grad_(True)
            qo, ko = apply_rope_packed(qg, kg, cos, sin, cu.to(self.device), pairing=pairing, provider=self.provider)
            gq, gk = self.randn(*qo.shape, dtype=dtype), self.randn(*ko.shape, dtype=dtype)
            dq, dk = torch.autograd.grad((qo, ko), (qg, kg), (gq, gk))
            # each sequence alone, from position 0
            parts = [slice(int(a), int(b)) for a, b in zip(cu[:-1], cu[1:], strict=True)]

            def each(x, inverse=False):
                outs = [self.ref(x[:, :, p], cos[:p.stop - p.start], sin[:p.stop - p.start], pairing, inverse)
                        for p in parts]
                return torch.cat(outs, dim=2)

            self.record(name, "forward q", qo, each(q), dtype, **info)
            self.record(name, "forward k", ko, each(k), dtype, **info)
            self.record(name, "backward dq", dq, each(gq, True), dtype, **info)
            self.record(name, "backward dk", dk, each(gk, True), dtype, **info)
        except Exception as exc:
            self.error(name, "packed", exc, **info)

    def empty(self, dtype, pairing):
        for B, Tq, Tk in [(0, 5, 5), (1, 0, 0), (2, 0, 7), (2, 7, 0), (0, 0, 0)]:
            name = f"empty B={B} Tq={Tq} Tk={Tk}"
            try:
                q = self.randn(B, 4, Tq, 10, dtype=dtype).requires_grad_(True)
                k = self.randn(B, 2, Tk, 10, dtype=dtype).requires_grad_(True)
                qc, qs = self.tables(torch.arange(Tq), 3)
                kc, ks = self.tables(torch.arange(Tk), 3)
                qo, ko = apply_rope(q, k, qc, qs, kc, ks, pairing=pairing, provider=self.provider)
                self.record(name, "forward q", qo, self.ref(q, qc, qs, pairing), dtype)
                self.record(name, "forward k", ko, self.ref(k, kc, ks, pairing), dtype)
                dq, dk = torch.autograd.grad((qo.sum() + ko.sum()), (q, k))
                ones_q, ones_k = torch.ones_like(qo), torch.ones_like(ko)
                self.record(name, "backward dq", dq, self.ref(ones_q, qc, qs, pairing, True), dtype)
                self.record(name, "backward dk", dk, self.ref(ones_k, kc, ks, pairing, True), dtype)
            except Exception as exc:
                self.error(name, "empty", exc)

    def mixed_dtypes(self):
        name = "q float32, k bfloat16"
        try:
            q, k = self.randn(2, 8, 33, 64), self.randn(2, 2, 33, 64, dtype=torch.bfloat16)
            c, s = self.tables(torch.arange(33), 32)
            qo, ko = apply_rope(q, k, c, s, c, s, provider=self.provider)
            self.record(name, "forward q", qo, self.ref(q, c, s, "half"), torch.float32)
            self.record(name, "forward k", ko, self.ref(k, c, s, "half"), torch.bfloat16)
        except Exception as exc:
            self.error(name, "mixed", exc)

    def huge(self):
        """q of more than 2^31 elements: element offsets past int32 must not wrap (checked on the last tokens)."""
        name = "q over 2^31 elements"
        try:
            T = (1 << 19) + 5
            q = torch.randn(1, 32, T, 128, device=self.device, dtype=torch.bfloat16)
            k = torch.randn(1, 8, T, 128, device=self.device, dtype=torch.bfloat16)
            c, s = self.tables(torch.arange(T), 64)
            qo, ko = apply_rope(q, k, c, s, c, s, pairing="half", provider=self.provider)
            for part in (slice(0, 64), slice(T - 64, T)):
                self.record(name, f"forward q tokens {part.start}..{part.stop}", qo[:, :, part],
                            self.ref(q[:, :, part], c[part], s[part], "half"), torch.bfloat16, T=T)
                self.record(name, f"forward k tokens {part.start}..{part.stop}", ko[:, :, part],
                            self.ref(k[:, :, part], c[part], s[part], "half"), torch.bfloat16, T=T)
            # in place, last head's last tokens
            apply_rope(q, k, c, s, c, s, pairing="half", inplace=True, provider=self.provider)
            torch.cuda.synchronize()
            self.record(name, "in place q last tokens", q[:, -1:, -64:], qo[:, -1:, -64:].double(), torch.bfloat16)
            del q, k, qo, ko
            torch.cuda.empty_cache()
        except Exception as exc:
            self.error(name, "huge", exc)


def run_checks(device: str, smoke: bool) -> dict:
    ck = Checker(device, smoke)
    t = (lambda n: min(n, 9)) if smoke else (lambda n: n)
    h = (lambda n: min(n, 4)) if smoke else (lambda n: n)
    for dtype in DTYPES.values():
        for pairing in ("half", "interleaved"):
            # Llama-like GQA, per-row positions, q in [B, T, H, Dh] storage
            ck.case("llama gqa 32/8 per-row", 2, h(32), h(8) if not smoke else 2, t(300), t(300), 128, 128, dtype,
                    pairing, per_row=True, q_layout="bthd")
            # odd head size, partial rotary, GQA 6/3
            ck.case("odd head 97, R 96", 2, h(6), h(3) if not smoke else 2, t(77), t(77), 97, 96, dtype, pairing,
                    k_layout="offset" if dtype == torch.float16 else "contiguous")
            # decode: one query token against a longer key cache
            ck.case("decode Tq=1, Tk=517", 3, h(8), 2, 1, t(517), 128, 128, dtype, pairing, per_row=True)
    extra = [  # (name, B, H, Hk, Tq, Tk, Dh, R, per_row, q_layout)
        ("head 80", 2, 12, 4, 129, 129, 80, 80, False, "contiguous"),
        ("head 6", 1, 3, 1, 19, 19, 6, 6, True, "bthd"),
        ("head 256", 1, 4, 2, 64, 70, 256, 256, False, "contiguous"),
        ("head 192, R 64 (MLA-like)", 2, 16, 16, 45, 45, 192, 64, False, "bthd"),
        ("partial 25%: R 32 of 128", 2, 8, 8, 200, 200, 128, 32, True, "contiguous"),
        ("odd head 75, R 18", 1, 7, 7, 50, 50, 75, 18, False, "offset"),
        ("MQA 7/1, 4099 tokens", 1, 7, 1, 4099, 4099, 128, 128, False, "bthd"),
        ("MHA, batch 5, per-row", 5, 4, 4, 33, 33, 64, 64, True, "contiguous"),
    ]
    combos = [(d, p) for d in DTYPES.values() for p in ("half", "interleaved")]
    for i, (name, B, H, Hk, Tq, Tk, Dh, R, per_row, q_layout) in enumerate(extra):
        dtype, pairing = combos[(i * 5) % len(combos)]
        if smoke and Dh > 128:
            continue
        ck.case(name, B, h(H), min(h(Hk), h(H)), t(Tq), t(Tk), Dh, R, dtype, pairing, per_row=per_row,
                q_layout=q_layout)
    for dtype, pairing in [(torch.float32, "half"), (torch.bfloat16, "interleaved"), (torch.float16, "half"),
                           (torch.float32, "interleaved")]:
        ck.packed(dtype, pairing, [5, 0, 3, 1] if smoke else [300, 0, 1, 77, 1024, 5])
    for dtype in DTYPES.values():
        ck.empty(dtype, "half" if dtype != torch.bfloat16 else "interleaved")
    ck.mixed_dtypes()
    if not smoke:
        ck.huge()
    rows = ck.rows
    worst = {}
    for r in rows:
        if "rel_err" in r:
            key = f"{r['dtype']} {r.get('pairing', '-')}"
            worst[key] = max(worst.get(key, 0.0), r["rel_err"])
    failed = [r for r in rows if not r["ok"]]
    return {"checks": len(rows), "failed": len(failed), "failures": failed[:50], "worst_rel_err": worst,
            "rows": rows}


# ------------------------------------------------------------------------------------------------ ceiling, tuning

def bench_ms(fn) -> float:
    from triton.testing import do_bench

    return float(do_bench(fn, warmup=25, rep=100, return_mode="median"))


def copy_ceiling(device: str) -> dict:
    n = 1 << 29  # 1 GiB of bfloat16... as 2^29 elements of 2 bytes
    src = torch.randn(n, device=device, dtype=torch.bfloat16)
    dst = torch.empty_like(src)
    ms = bench_ms(lambda: dst.copy_(src))
    return {"bytes_each_way": n * 2, "median_ms": ms, "gbps": 2 * n * 2 / ms / 1e6}


def graph_us(calls) -> float:
    """GPU time per call, in microseconds, of ``calls`` (one per input set) captured in one CUDA graph: no launch
    overhead, and the sets together are larger than L2, so each call reads from memory. Median of 30 replays."""
    for c in calls:  # compile and warm up
        c()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for c in calls:
            c()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for c in calls:
            c()
    times = []
    for _ in range(30):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / len(calls))
    del graph
    return sorted(times)[len(times) // 2]


def old_heuristic(T: int, interleaved: bool) -> tuple[int, int]:
    """(heads, tokens per block) the launch chose before the interleaved tile was halved (R/2 = 64, B = 1)."""
    block_t = min(16, T)
    t_blocks = -(-T // block_t)
    return (8 if t_blocks >= 256 else 4 if t_blocks >= 32 else 1), block_t


def _rope_calls(sets, c, s, interleaved: bool, kw: dict) -> list:
    return [lambda q=q, k=k, qo=qo, ko=ko: rope_triton(q, k, c, s, c, s, interleaved=interleaved, inverse=False,
                                                       q_out=qo, k_out=ko, **kw) for q, k, qo, ko in sets]


def tuning(device: str) -> list[dict]:
    """Launch variants of the kernel (bfloat16, forward, q [1, 32, T, 128], k [1, 8, T, 128]) timed in CUDA graphs
    over rotating input sets, next to a copy of the same bytes timed the same way."""
    out = []
    variants = [(None, None, None), ("old", None, None), (8, 8, 4), (4, 8, 4), (2, 8, 4), (8, 16, 4), (4, 16, 4),
                (8, 8, 8)]
    for T in (1024, 8192, 32768):
        per_set = 2 * 40 * T * 128 * 2
        n_sets = max(2, min(16, -(-(512 << 20) // per_set)))
        sets = []
        for _ in range(n_sets):
            q = torch.randn(1, 32, T, 128, device=device, dtype=torch.bfloat16)
            k = torch.randn(1, 8, T, 128, device=device, dtype=torch.bfloat16)
            sets.append((q, k, torch.empty_like(q), torch.empty_like(k)))
        inv = 10000.0 ** (-torch.arange(64, dtype=torch.float64) / 64)
        theta = torch.arange(T, dtype=torch.float64)[:, None] * inv
        c, s = theta.cos().float().to(device), theta.sin().float().to(device)
        traffic = 2 * 40 * T * 128 * 2
        try:
            us = graph_us([lambda q=q, k=k, qo=qo, ko=ko: (qo.copy_(q), ko.copy_(k)) for q, k, qo, ko in sets])
            out.append({"T": T, "variant": "copy", "us": us, "gbps": traffic / us / 1e3, "sets": n_sets})
        except Exception as exc:
            out.append({"T": T, "variant": "copy", "error": f"{type(exc).__name__}: {exc}"[:300]})
        for inter in (False, True):
            pairing = "interleaved" if inter else "half"
            ref_q = rope_apply_reference(sets[0][0], c, s, pairing)
            for heads, block_t, warps in variants:
                if heads == "old":
                    heads, block_t = old_heuristic(T, inter)
                    name = f"old heuristic {heads}/{block_t}"
                else:
                    name = "heuristic" if heads is None else f"{heads}/{block_t}/{warps}"
                kw = dict(heads_per_program=heads, block_tokens=block_t, num_warps=warps)
                try:
                    calls = _rope_calls(sets, c, s, inter, kw)
                    calls[0]()
                    err = float((sets[0][2].float() - ref_q.float()).abs().max())
                    assert err < 0.05, f"max error {err}"
                    us = graph_us(calls)
                    out.append({"T": T, "pairing": pairing, "variant": name, "us": us, "gbps": traffic / us / 1e3})
                except Exception as exc:
                    out.append({"T": T, "pairing": pairing, "variant": name,
                                "error": f"{type(exc).__name__}: {exc}"[:300]})
            # end to end with launch overhead, as posenc bench times it
            from triton.testing import do_bench

            ms = do_bench(_rope_calls(sets[:1], c, s, inter, {})[0], warmup=25, rep=100, return_mode="median")
            out.append({"T": T, "pairing": pairing, "variant": "heuristic, do_bench", "us": ms * 1e3,
                        "gbps": traffic / ms / 1e6})
        del sets
        torch.cuda.empty_cache()
    return out


def overhead(device: str) -> dict:
    """Host time per call (microseconds) of each layer between a user's call and the GPU, on small problems whose
    GPU time is far below it: the median of 5 rounds of 200 calls, then one synchronize."""
    return {label: _overhead_one(device, *shape)
            for label, shape in {"decode B=8 T=1": (8, 32, 8, 1), "prefill T=1024": (1, 32, 8, 1024)}.items()}


def _overhead_one(device: str, B: int, H: int, Hk: int, T: int) -> dict:
    import cProfile
    import io
    import pstats

    from posenc.kernels import triton_rope, validate_rope_inputs

    q = torch.randn(B, H, T, 128, device=device, dtype=torch.bfloat16)
    k = torch.randn(B, Hk, T, 128, device=device, dtype=torch.bfloat16)
    theta = torch.rand(B, T, 64, dtype=torch.float64) * 100  # per-row positions, as in decoding
    c, s = theta.cos().float().to(device), theta.sin().float().to(device)
    qo, ko = torch.empty_like(q), torch.empty_like(k)
    qg, kg = q.clone().requires_grad_(True), k.clone().requires_grad_(True)
    captured = {}
    orig = triton_rope._kernel

    class Capture:
        def __init__(self, kern):
            self.kern = kern

        def __getitem__(self, grid):
            def launch(*a, **kw):
                captured.update(grid=grid, a=a, kw=kw, kern=self.kern)
                return self.kern[grid](*a, **kw)
            return launch

    triton_rope._kernel = lambda interp: Capture(orig(interp))
    try:
        rope_triton(q, k, c, s, c, s, interleaved=False, inverse=False, q_out=qo, k_out=ko)
    finally:
        triton_rope._kernel = orig
    jit, grid, a, kw = captured["kern"], captured["grid"], captured["a"], captured["kw"]
    try:
        from transformers.models.llama.modeling_llama import apply_rotary_pos_emb
        cos_hf = torch.cat([c, c], -1).to(torch.bfloat16)
        sin_hf = torch.cat([s, s], -1).to(torch.bfloat16)
    except Exception:
        apply_rotary_pos_emb = None
    layers = {
        "triton launch alone": lambda: jit[grid](*a, **kw),
        "rope_triton (wrapper + launch)": lambda: rope_triton(q, k, c, s, c, s, interleaved=False, inverse=False,
                                                             q_out=qo, k_out=ko),
        "validate_rope_inputs": lambda: validate_rope_inputs(q, k, c, s, c, s, "half"),
        "torch.empty x2": lambda: (torch.empty_like(q), torch.empty_like(k)),
        "apply_rope, no grad": lambda: apply_rope(q, k, c, s, c, s),
        "apply_rope, inputs require grad": lambda: apply_rope(qg, kg, c, s, c, s),
        "apply_rope in place": lambda: apply_rope(qo, ko, c, s, c, s, inplace=True),
    }
    if apply_rotary_pos_emb is not None:
        layers["hf-eager apply_rotary_pos_emb"] = lambda: apply_rotary_pos_emb(q, k, cos_hf, sin_hf)
    row = {}
    for name, fn in layers.items():
        for _ in range(20):
            fn()
        torch.cuda.synchronize()
        rounds = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(200):
                fn()
            torch.cuda.synchronize()
            rounds.append((time.perf_counter() - t0) / 200 * 1e6)
        row[name] = sorted(rounds)[2]
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(300):
        apply_rope(q, k, c, s, c, s)
    torch.cuda.synchronize()
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(18)
    row["profile"] = buf.getvalue()[-6000:]
    return row


# ------------------------------------------------------------------------------------------------------------ bench

def bench_sweep(device: str, out_dir: Path, smoke: bool, deadline: float) -> list[dict]:
    from posenc.cli import main

    results = []
    plan = [("bfloat16", T) for T in (1024, 2048, 4096, 8192, 16384, 32768)] + \
           [("float32", T) for T in (4096, 32768)] + [("float16", 8192)]
    if smoke:
        plan = [("bfloat16", 16), ("float32", 16)]
    for dtype, T in plan:
        if time.time() > deadline:
            log(f"bench {dtype} T={T}: skipped (time budget)")
            results.append({"dtype": dtype, "seq_len": T, "skipped": "time budget"})
            continue
        path = out_dir / f"{dtype}_T{T}.json"
        argv = ["bench", "--device", device, "--dtype", dtype, "--seq-len", str(T), "--mode", "out-of-place",
                "--mode", "backward", "--only", "posenc:triton", "--only", "hf-", "--only", "liger",
                "--only", "flash-attn", "--json", str(path)]
        if smoke:
            argv += ["--q-heads", "4", "--kv-heads", "2", "--head-dim", "16", "--no-compile", "--repeats", "2",
                     "--only", "posenc:reference"]
        log("posenc", " ".join(argv))
        t0 = time.time()
        try:
            code = main(argv)
            res = json.loads(path.read_text()) if path.exists() else None
            results.append({"dtype": dtype, "seq_len": T, "exit": code, "seconds": time.time() - t0,
                            "argv": argv, "result": res})
        except Exception as exc:
            results.append({"dtype": dtype, "seq_len": T, "error": f"{type(exc).__name__}: {exc}"[:500],
                            "trace": traceback.format_exc()[-1500:]})
            log("bench failed", exc)
    return results


# ---------------------------------------------------------------------------------------------------------- summary

def summary(report: dict) -> None:
    print("\n==== summary ====")
    env = report["environment"]
    print(f"{env.get('gpu')}  torch {env['torch']}  triton {env.get('triton')}  "
          f"copy ceiling {report.get('copy', {}).get('gbps', float('nan')):.0f} GB/s")
    chk = report.get("checks", {})
    print(f"correctness: {chk.get('checks')} checks, {chk.get('failed')} failed; worst |out-ref|/|ref|:")
    for key, val in sorted(chk.get("worst_rel_err", {}).items()):
        print(f"   {key:24s} {val:.2e}")
    for f in chk.get("failures", [])[:10]:
        print("   FAIL", {k: v for k, v in f.items() if k != "trace"})
    tun = report.get("tuning", [])
    if tun:
        print("launch variants, GPU time per call in CUDA graphs (bfloat16 forward; heads/tokens/warps):")
        for r in tun:
            print(f"   T={r['T']:6d} {r.get('pairing', ''):11s} {r['variant']:24s} "
                  + (f"{r['us']:8.1f} us {r['gbps']:6.0f} GB/s" if "us" in r else r.get("error", "")))
    for label, row in report.get("overhead", {}).items():
        print(f"host time per call, {label}: "
              + ", ".join(f"{k} {v:.1f} us" for k, v in row.items() if k != "profile"))
    print(f"{'dtype':9s} {'T':>6s} {'mode':12s} {'provider':14s} {'gate':14s} {'median us':>10s} {'GB/s':>7s} "
          f"{'% copy':>7s} {'vs HF':>7s} {'vs HFc':>7s}")
    for b in report.get("bench", []):
        res = b.get("result")
        if not res:
            print(f"{b['dtype']:9s} {b['seq_len']:6d} {b.get('skipped') or b.get('error') or b.get('exit')}")
            continue
        for r in res["rows"]:
            ms = r.get("median_ms")
            print(f"{b['dtype']:9s} {b['seq_len']:6d} {r['mode']:12s} {r['provider']:14s} "
                  f"{str(r.get('gate', '')):14s} "
                  f"{'' if ms is None else format(ms * 1e3, '10.1f'):>10s} "
                  f"{'' if ms is None else format(r['gbps'], '7.0f'):>7s} "
                  f"{format(r['pct_of_copy'], '7.0f') if 'pct_of_copy' in r else '':>7s} "
                  f"{format(r['speedup_vs_hf_eager'], '7.2f') if 'speedup_vs_hf_eager' in r else '':>7s} "
                  f"{format(r['speedup_vs_hf_compile'], '7.2f') if 'speedup_vs_hf_compile' in r else '':>7s}")
    print(f"total {time.time() - START:.0f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--smoke", action="store_true", help="tiny shapes on CPU under TRITON_INTERPRET=1")
    ap.add_argument("--budget", type=float, default=280.0, help="seconds; later bench sizes are skipped past it")
    ap.add_argument("--skip", action="append", default=[], help="checks, copy, overhead, tuning, bench")
    args = ap.parse_args()
    device = "cpu" if args.smoke else "cuda"
    args.out.mkdir(parents=True, exist_ok=True)
    env = {"torch": torch.__version__, "python": platform.python_version(), "date": time.strftime("%Y-%m-%d"),
           "argv": sys.argv}
    try:
        import triton

        env["triton"] = triton.__version__
    except Exception:
        pass
    if device == "cuda":
        p = torch.cuda.get_device_properties(0)
        env.update(gpu=p.name, sms=p.multi_processor_count, memory_gib=round(p.total_memory / 2 ** 30, 1),
                   cuda=torch.version.cuda, capability=f"{p.major}.{p.minor}")
    report = {"environment": env}
    out_json = args.out / "cuda_rope.json"

    def save():
        out_json.write_text(json.dumps(report, indent=1, default=str))

    log("environment", env)
    if "copy" not in args.skip and device == "cuda":
        report["copy"] = copy_ceiling(device)
        log("copy", report["copy"])
    if "checks" not in args.skip:
        report["checks"] = run_checks(device, args.smoke)
        log("checks", report["checks"]["checks"], "failed", report["checks"]["failed"])
        save()
    if "overhead" not in args.skip and device == "cuda":
        try:
            report["overhead"] = overhead(device)
        except Exception as exc:
            report["overhead_error"] = traceback.format_exc()[-2000:]
            log("overhead failed", exc)
        save()
        log("overhead done")
    if "tuning" not in args.skip and device == "cuda":
        try:
            report["tuning"] = tuning(device)
        except Exception as exc:
            report["tuning_error"] = traceback.format_exc()[-2000:]
            log("tuning failed", exc)
        save()
        log("tuning done")
    if "bench" not in args.skip:
        import tempfile

        report["bench"] = bench_sweep(device, Path(tempfile.mkdtemp(prefix="posenc-bench-")), args.smoke,
                                      START + args.budget)
        save()
    summary(report)
    return 0 if not report.get("checks", {}).get("failed") else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
