"""Benchmark the model probe: wall time and peak memory of the full probe of MiniLM and SmolLM2, and the memory of
layer-by-layer attention capture against ``output_attentions=True`` on one long window.

Each measurement runs in its own process so that ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` (peak resident
memory) belongs to it alone. Targets: MiniLM under 30 s, SmolLM2 under 3 minutes with its float cache warm (the first
SmolLM2 load dequantizes the GGUF file and writes the cache; run it once before timing).

    python benchmarks/bench_probe.py                 # everything
    python benchmarks/bench_probe.py minilm smollm2  # a subset
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

CASES = ("minilm", "smollm2", "capture")


def _peak_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def _cpu_s() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _full(spec: str) -> dict:
    from posenc.pretrained import load_model
    from posenc.probe import run_probe

    load_model(spec)  # warms the GGUF cache if it is cold (not timed)
    start, cpu = time.perf_counter(), _cpu_s()
    result = run_probe(spec, progress=False)
    return {"case": f"full probe {spec}", "wall_s": time.perf_counter() - start, "cpu_s": _cpu_s() - cpu,
            "peak_mib": _peak_mib(),
            "windows": result["text"]["windows"], "window_tokens": result["text"]["window_tokens"],
            "timing": {k: round(v, 2) for k, v in result["timing"].items()}}


def _capture(mode: str, tokens: int = 1024) -> dict:
    import torch

    from posenc.corpora import shakespeare_text
    from posenc.pretrained import load_model
    from posenc.probe.capture import capture
    from posenc.probe.heads import HeadAccumulator

    lm = load_model("smollm2")
    ids = lm.tokenizer(shakespeare_text(tokens * 8), return_tensors="pt").input_ids[:, :tokens]
    layers, heads = lm.config.num_hidden_layers, lm.config.num_attention_heads
    acc = HeadAccumulator(layers, heads, max_len=tokens)
    base = _peak_mib()
    start, cpu = time.perf_counter(), _cpu_s()
    with torch.no_grad():
        if mode == "hooks":
            with capture(lm.model, acc.add):
                lm.model(ids)
        else:
            for layer, weights in enumerate(lm.model(ids, output_attentions=True).attentions):
                acc.add(layer, weights)
    return {"case": f"smollm2 heads, {tokens} tokens, {mode}", "wall_s": time.perf_counter() - start,
            "cpu_s": _cpu_s() - cpu,
            "peak_mib": _peak_mib(), "peak_above_loaded_mib": _peak_mib() - base}


def _child(args: list[str]) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> None:
    if argv[:1] == ["--child"]:
        kind, *rest = argv[1:]
        result = _full(rest[0]) if kind == "full" else _capture(rest[0])
        print(json.dumps(result))
        return
    cases = argv or list(CASES)
    rows = []
    print(f"load average before: {os.getloadavg()[0]:.2f} (timings on a shared machine stretch with it)")
    for case in cases:
        if case in ("minilm", "smollm2"):
            rows.append(_child(["full", case]))
        elif case == "capture":
            rows += [_child(["capture", "hooks"]), _child(["capture", "output_attentions"])]
        else:
            raise SystemExit(f"unknown case {case!r}; choose from {', '.join(CASES)}")
    for row in rows:
        extra = f", above loaded model {row['peak_above_loaded_mib']:.0f} MiB" if "peak_above_loaded_mib" in row else ""
        print(f"{row['case']:45s} {row['wall_s']:7.1f} s wall, {row['cpu_s']:7.1f} s CPU   peak RSS "
              f"{row['peak_mib']:7.0f} MiB{extra}")
        if "timing" in row:
            print(f"    {row['timing']}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    hooks = [r for r in rows if r["case"].endswith("hooks")]
    full = [r for r in rows if r["case"].endswith("output_attentions")]
    if hooks and full:
        print(f"memory above the loaded model, output_attentions / hooks: "
              f"{full[0]['peak_above_loaded_mib'] / max(hooks[0]['peak_above_loaded_mib'], 1):.1f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
