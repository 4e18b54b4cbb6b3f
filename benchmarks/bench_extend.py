"""Benchmark context extension: seconds and peak memory of one forward pass per length, the patched model (posenc's
frequencies through transformers' RoPE registry) against the unpatched library model, side by side in one process on
the same tokens; and ``--passkey``: seconds and peak memory of one passkey trial (a prompt after a cached prefix, the
case where all but a few tokens are new queries after a cache), each length in a child process, so that two
checkouts can be compared with ``PYTHONPATH=<checkout>/src``.

Both run SmolLM2-135M's shape (30 layers, hidden 576, 9 heads, 3 kv heads, vocab 49152) with random weights by
default (no download, identical speed to the real weights), or the real model with ``--real``. Peak memory is measured
per length in a child process (``resource.getrusage`` is a high-water mark), next to the estimate that
``posenc extend`` checks before loading.

    python benchmarks/bench_extend.py                       # 1k, 2k, 4k
    python benchmarks/bench_extend.py --lengths 4096,8192 --threads 2
    python benchmarks/bench_extend.py --passkey --lengths 8192,16384 --threads 2
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time


def _model(real: bool):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    if real:
        from posenc.pretrained import load_model

        return load_model("smollm2", attn_implementation="sdpa").model
    torch.manual_seed(0)
    config = LlamaConfig(hidden_size=576, num_attention_heads=9, num_key_value_heads=3, head_dim=64,
                         intermediate_size=1536, num_hidden_layers=30, vocab_size=49152, max_position_embeddings=8192,
                         rope_parameters={"rope_type": "default", "rope_theta": 100000.0}, tie_word_embeddings=True,
                         attn_implementation="sdpa")
    return LlamaForCausalLM(config).eval()


def _time(model, ids, repeats: int) -> float:
    from posenc.extend import token_nll

    token_nll(model, ids[:64])  # warm-up
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        token_nll(model, ids)
        best = min(best, time.perf_counter() - start)
    return best


def speed(lengths: list[int], real: bool, repeats: int) -> list[dict]:
    import copy

    import torch

    from posenc.extend import patch_model, scaled_rope

    library = _model(real)
    ours = patch_model(copy.deepcopy(library), scaled_rope(library.config, "none", 1.0))
    rows = []
    for n in lengths:
        ids = torch.randint(0, library.config.vocab_size, (n,), generator=torch.Generator().manual_seed(n))
        t_lib, t_ours = _time(library, ids, repeats), _time(ours, ids, repeats)
        rows.append({"length": n, "library_s": round(t_lib, 3), "posenc_s": round(t_ours, 3),
                     "posenc_over_library": round(t_ours / t_lib, 3)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def peak(length: int, real: bool) -> dict:
    import resource

    import torch

    from posenc.extend import estimate_memory, patch_model, scaled_rope, token_nll

    model = _model(real)
    model = patch_model(model, scaled_rope(model.config, "none", 1.0))
    ids = torch.randint(0, model.config.vocab_size, (length,), generator=torch.Generator().manual_seed(0))
    token_nll(model, ids)
    return {"length": length, "peak_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20,
            "estimate_gb": estimate_memory(model.config, length, kv_cache=False).total / 2 ** 30}


def passkey_peak(length: int, real: bool) -> dict:
    """One passkey trial at ``length`` tokens whose needle comes after 64 tokens: 64 cached, ``length - 72`` new
    queries after them, then 8 decoded tokens (YaRN at s = length / 8192 past 8192 tokens)."""
    import resource

    import torch

    from posenc.extend import patch_model, scaled_rope
    from posenc.extend.passkey import PasskeyPrompt, SharedPrefix

    model = _model(real)
    factor = max(1.0, length / 8192)
    model = patch_model(model, scaled_rope(model.config, "yarn" if factor > 1 else "none", factor, 8192))
    ids = torch.randint(0, model.config.vocab_size, (length - 8,), generator=torch.Generator().manual_seed(0))
    prompt = PasskeyPrompt(ids=ids, key=12345, needle_at=64, depth=0.0)
    shared = SharedPrefix(model)
    shared.answer(PasskeyPrompt(ids=ids[:80], key=1, needle_at=64, depth=0.0), 1)  # the cached 64-token prefix
    start = time.perf_counter()
    shared.answer(prompt, 8)
    return {"length": length, "passkey_s": round(time.perf_counter() - start, 2),
            "peak_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="1024,2048,4096")
    parser.add_argument("--real", action="store_true", help="the real SmolLM2 weights (cached float copy)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--passkey", action="store_true", help="one passkey trial per length (see the docstring)")
    parser.add_argument("--peak", type=int, default=None, help=argparse.SUPPRESS)  # child process: one length
    parser.add_argument("--passkey-peak", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    real = args.real
    if args.peak:
        print(json.dumps(peak(args.peak, real)))
        return
    if args.passkey_peak:
        print(json.dumps(passkey_peak(args.passkey_peak, real)))
        return
    lengths = [int(x) for x in args.lengths.split(",")]
    if args.passkey:
        for n in lengths:
            cmd = [sys.executable, __file__, "--passkey-peak", str(n)] + (["--real"] if real else [])
            if args.threads:
                cmd += ["--threads", str(args.threads)]
            print(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1],
                  flush=True)
        return
    speed(lengths, real, args.repeats)
    for n in lengths:
        cmd = [sys.executable, __file__, "--peak", str(n)] + (["--real"] if real else [])
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
        print(out, flush=True)


if __name__ == "__main__":
    main()
