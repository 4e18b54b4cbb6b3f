"""Bias attention two ways, side by side in one process on the same inputs: the materialised bias added to SDPA's
logits (``attention_mask`` + ``attend``) and compiled FlexAttention with the encoding's ``score_mod`` (``flex_mask``
+ ``attend``). Forward without gradients by default (PyTorch's CPU build refuses FlexAttention backward); on a GPU
(``--device cuda``) ``--grad`` times a training step's attention instead: forward, then backward of the output's sum
into q, k, v and the encoding's own parameters.

Run by hand (never a timed test), niced on a shared machine:
    PYTHONPATH=src nice python benchmarks/bench_flex.py --lengths 512 1024 2048 4096 8192 --encodings alibi \
        --json benchmarks/results/flex/cpu.json

For every encoding and length: the first FlexAttention call (its compile: once per shape and process), then the
median of ``--repeat`` calls of each path, alternated (materialised, flex, materialised, ...) so that a change of
load hits both; the ratio is materialised / flex (above 1: flex faster). Each path's time includes building its mask
(the bias and the masks, or the score_mod's tables and the block mask), as a forward pays it once per encoding.
Peak memory is the most the process's resident memory grew during one call of the path over what it held before
(``/proc/self/statm``, read every millisecond by a thread; large tensors are mapped and unmapped, so this follows the
tensors alive, to within what the C library keeps for reuse; the machine's other work does not count, it is another
process); on a GPU, the most the allocator's memory grew (``torch.cuda.max_memory_allocated``), and every time is
taken between two synchronisations of the device. No ratio of memory is printed: the flex path's growth is often below what the sampling resolves. The q, k, v are ``[B, H, T, Dh]`` float32, causal.
A length whose materialised bias would not fit in the memory available is skipped for that path (the skip is
printed); ``--max-materialised`` skips it from a given length on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import threading
import time
import warnings
from functools import partial

import torch

import posenc
from posenc.errors import PosencError
from posenc.model.flex import flex_mask
from posenc.model.transformer import attend, attention_mask

_PAGE = os.sysconf("SC_PAGE_SIZE")


def _resident() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * _PAGE


def _peak_bytes(fn) -> int:
    """Most bytes the resident memory grew during ``fn()`` over what it was before (sampled every millisecond)."""
    before, peak, done = _resident(), [0], threading.Event()

    def watch():
        while not done.is_set():
            peak[0] = max(peak[0], _resident() - before)
            time.sleep(0.001)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        fn()
    finally:
        done.set()
        watcher.join()
    return max(peak[0], _resident() - before)


def _cuda_peak_bytes(fn) -> int:
    """Most bytes the CUDA allocator's memory grew during ``fn()``."""
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    fn()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - before


def _materialised(enc, q, k, v, pos):
    mask = attention_mask(enc, pos, True, None, torch.float32, q.device)
    return attend(q, k, v, enc, pos, pos, mask, True)


def _flex(enc, q, k, v, pos):
    return attend(q, k, v, enc, pos, pos, flex_mask(enc, pos, True, None, q.shape[0], q.device), True)


def _step(path, enc, q, k, v, pos):
    """Forward and backward of one path (the output's sum), the gradients dropped after."""
    path(enc, q, k, v, pos).sum().backward()
    for tensor in (q, k, v, *enc.parameters()):
        tensor.grad = None


def _seconds(fn) -> float:
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    start = time.perf_counter()
    fn()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[512, 1024, 2048, 4096, 8192, 16384])
    parser.add_argument("--encodings", nargs="+", default=["alibi"])
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--head-dim", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--max-materialised", type=int, default=None, help="skip the materialised path from here on")
    parser.add_argument("--json", default=None, help="write the numbers here")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--grad", action="store_true", help="forward and backward (a GPU only)")
    args = parser.parse_args()
    if args.grad and args.device != "cuda":
        parser.error("--grad needs --device cuda: PyTorch's CPU build refuses FlexAttention backward")
    device = torch.device(args.device)
    warnings.filterwarnings("ignore", message=".*flex_attention called without torch.compile.*")
    torch.manual_seed(0)
    B, H, Dh = args.batch, args.heads, args.head_dim
    load = os.getloadavg()
    where = torch.cuda.get_device_name(device) if device.type == "cuda" else (platform.processor() or
                                                                                 platform.machine())
    print(f"torch {torch.__version__}, {where}, {torch.get_num_threads()} "
          f"threads, {os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; "
          f"q, k, v [{B}, {H}, T, {Dh}] float32, causal, "
          f"{'forward and backward' if args.grad else 'forward without gradients'}", flush=True)
    peak_bytes = _cuda_peak_bytes if device.type == "cuda" else _peak_bytes
    rows = []
    with torch.set_grad_enabled(args.grad):
        for name in args.encodings:
            enc = posenc.build(name, n_heads=H).to(device)
            for T in args.lengths:
                q, k, v = (torch.randn(B, H, T, Dh, device=device, requires_grad=args.grad) for _ in range(3))
                pos = torch.arange(T, device=device)
                if args.grad:
                    materialised, flex = (partial(_step, path, enc, q, k, v, pos) for path in (_materialised, _flex))
                    check = [partial(path, enc, q, k, v, pos) for path in (_materialised, _flex)]
                else:
                    materialised, flex = (partial(path, enc, q, k, v, pos) for path in (_materialised, _flex))
                    check = [materialised, flex]

                row = {"encoding": name, "T": T, "batch": B, "heads": H, "head_dim": Dh, "device": where,
                       "grad": args.grad}
                first = _seconds(flex)
                run_materialised = args.max_materialised is None or T < args.max_materialised
                if run_materialised:
                    try:
                        with torch.no_grad():
                            expected = check[0]()
                    except PosencError as error:
                        print(f"  {name} T={T}: materialised path refused: {str(error)[:160]}", flush=True)
                        run_materialised = False
                if run_materialised:
                    with torch.no_grad():
                        row["max_abs_difference"] = (check[1]() - expected).abs().max().item()
                    del expected
                times: dict[str, list[float]] = {"materialised": [], "flex": []}
                for _ in range(args.repeat):
                    if run_materialised:
                        times["materialised"].append(_seconds(materialised))
                    times["flex"].append(_seconds(flex))
                row["flex_s"] = statistics.median(times["flex"])
                row["flex_compile_s"] = first - row["flex_s"]
                row["flex_peak_bytes"] = peak_bytes(flex)
                if run_materialised:
                    row["materialised_s"] = statistics.median(times["materialised"])
                    row["materialised_peak_bytes"] = peak_bytes(materialised)
                    row["ratio"] = row["materialised_s"] / row["flex_s"]
                row["load_after"] = os.getloadavg()[0]
                rows.append(row)
                text = (f"  {name:9s} T={T:6d}  flex {row['flex_s'] * 1e3:9.1f} ms (compile {row['flex_compile_s']:6.1f}"
                        f" s), peak {row['flex_peak_bytes'] / 2**20:8.1f} MiB")
                if run_materialised:
                    text += (f" | materialised {row['materialised_s'] * 1e3:9.1f} ms, peak "
                             f"{row['materialised_peak_bytes'] / 2**20:8.1f} MiB | time x{row['ratio']:.2f}, max |diff| "
                             f"{row['max_abs_difference']:.1e}")
                else:
                    text += " | materialised not run"
                print(text + f"  (load {row['load_after']:.1f})", flush=True)
                if args.json:  # after every row, so an interrupted run keeps what finished
                    with open(args.json, "w") as handle:
                        json.dump({"torch": torch.__version__, "load_before": load, "rows": rows}, handle, indent=1)


if __name__ == "__main__":
    main()
