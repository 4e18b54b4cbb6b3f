"""Where the time of posenc's RoPE backward goes on a CUDA GPU: the call as ``posenc bench --mode backward`` times
it (``torch.autograd.grad`` through posenc's Triton path), against the GPU kernels that call launches.

    PYTHONPATH=src python3 benchmarks/rope_backward_cuda.py --seq-len 32768 --dtype bfloat16 --repeats 3

The inputs are ``posenc bench``'s (q [1, 32, T, 128], k [1, 8, T, 128], half pairing). For each of ``--repeats``
rounds it prints the medians of ``triton.testing.do_bench`` (L2 flushed before each call) for the backward and for a
copy of the same bytes; then a ``torch.profiler`` table of ten backward calls, by operation, with the GPU time of
each kernel: a backward whose kernels take about a copy's time but whose call takes longer spends the rest on the
host (autograd, allocation) or in kernels other than the rotation.
"""

from __future__ import annotations

import argparse
import time

import torch
from torch.profiler import ProfilerActivity, profile
from triton.testing import do_bench

from posenc.kernels import apply_rope
from posenc.kernels.bench import BenchConfig, make_inputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seq-len", type=int, default=32768)
    parser.add_argument("--dtype", default="bfloat16", choices=["float32", "bfloat16", "float16"])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cfg = BenchConfig(device="cuda", dtype=args.dtype, seq_len=args.seq_len, modes=("backward",), compile=False)
    inp = make_inputs(cfg)
    qg = inp.q.detach().clone().requires_grad_(True)
    kg = inp.k.detach().clone().requires_grad_(True)
    qo, ko = apply_rope(qg, kg, inp.cos, inp.sin, inp.cos, inp.sin, pairing="half", provider="triton")
    gq, gk = torch.randn_like(qo), torch.randn_like(ko)
    q_buf, k_buf = torch.empty_like(inp.q), torch.empty_like(inp.k)

    def backward():
        return torch.autograd.grad((qo, ko), (qg, kg), (gq, gk), retain_graph=True)

    def copy():
        q_buf.copy_(inp.q)
        k_buf.copy_(inp.k)

    moved = 2 * (inp.q.numel() * inp.q.element_size() + inp.k.numel() * inp.k.element_size())
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; q {list(inp.q.shape)}, k {list(inp.k.shape)} "
          f"{args.dtype}; {moved / 1e6:.0f} MB read and written")
    for round_ in range(args.repeats):
        back = do_bench(backward, warmup=25, rep=200, quantiles=[0.25, 0.5, 0.75])
        base = do_bench(copy, warmup=25, rep=200, quantiles=[0.25, 0.5, 0.75])
        print(f"round {round_ + 1}: backward {1e3 * back[1]:.1f} us (quartiles {1e3 * back[0]:.1f}..{1e3 * back[2]:.1f}), "
              f"copy {1e3 * base[1]:.1f} us ({moved / base[1] / 1e6:.0f} GB/s); backward / copy {back[1] / base[1]:.2f}")
    torch.cuda.synchronize()
    started = time.perf_counter()
    calls = 50
    for _ in range(calls):
        backward()
    torch.cuda.synchronize()
    print(f"{calls} backward calls back to back, host clock: {1e6 * (time.perf_counter() - started) / calls:.1f} us each")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(10):
            backward()
        torch.cuda.synchronize()
    events = prof.key_averages()
    kernels = [e for e in events if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA]
    print("GPU kernels of 10 backward calls (name: count, microseconds per backward call):")
    for e in sorted(kernels, key=lambda e: -e.device_time_total):
        print(f"  {e.key[:90]}: {e.count}, {e.device_time_total / 10:.1f}")
    total = sum(e.device_time_total for e in kernels) / 10
    print(f"GPU kernel time per backward call: {total:.1f} us")
    print(events.table(sort_by="self_cpu_time_total", row_limit=12, max_name_column_width=60))
    host_parts()


def host_per_call(fn, calls: int = 300) -> float:
    """Microseconds of host time per call: ``calls`` calls back to back on inputs so small that the GPU finishes
    each long before the host issues the next, one synchronisation at the end."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return 1e6 * (time.perf_counter() - started) / calls


def host_parts() -> None:
    """The host time of one backward call, layer by layer, at 256 tokens (the GPU's part is a few microseconds)."""
    from posenc.kernels.triton_rope import rope_triton

    cfg = BenchConfig(device="cuda", dtype="bfloat16", seq_len=256, modes=("backward",), compile=False)
    inp = make_inputs(cfg)
    qg = inp.q.detach().clone().requires_grad_(True)
    kg = inp.k.detach().clone().requires_grad_(True)
    qo, ko = apply_rope(qg, kg, inp.cos, inp.sin, inp.cos, inp.sin, pairing="half", provider="triton")
    gq, gk = torch.randn_like(qo), torch.randn_like(ko)
    q_out, k_out = torch.empty_like(gq), torch.empty_like(gk)
    parts = {
        "torch.autograd.grad (the benchmark's backward call)":
            lambda: torch.autograd.grad((qo, ko), (qg, kg), (gq, gk), retain_graph=True),
        "apply_rope forward, no autograd (validation, dispatch, wrapper, launch)":
            lambda: _no_grad(lambda: apply_rope(inp.q, inp.k, inp.cos, inp.sin, inp.cos, inp.sin, pairing="half",
                                                provider="triton")),
        "rope_triton into preallocated outputs (wrapper and launch)":
            lambda: rope_triton(gq, gk, inp.cos, inp.sin, inp.cos, inp.sin, interleaved=False, inverse=True,
                                q_out=q_out, k_out=k_out),
        "two torch.empty outputs": lambda: (torch.empty_like(gq), torch.empty_like(gk)),
        "one elementwise kernel (q * 1.0001), for scale": lambda: gq * 1.0001,
    }
    print("host time per call at 256 tokens, bfloat16 (300 calls back to back):")
    for name, fn in parts.items():
        print(f"  {name}: {host_per_call(fn):.1f} us")


def _no_grad(fn):
    with torch.no_grad():
        return fn()


if __name__ == "__main__":
    main()
