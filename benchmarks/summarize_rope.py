"""Summarise repeated ``posenc bench --json`` results: median over runs of each provider's time and ratios.

    python benchmarks/summarize_rope.py benchmarks/results/rope/*.json

Groups runs by (dtype, pairing, threads) and prints, per provider and mode, the median over runs of the per-run
median time, and of the speed ratios against Hugging Face eager and against ``mul`` / ``mul_``.
"""

import json
import statistics
import sys
from collections import defaultdict


def _fmt(value: float | None, spec: str) -> str:
    return "" if value is None else format(value, spec)


def main(paths: list[str]) -> None:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for path in paths:
        with open(path) as f:
            result = json.load(f)
        cfg = result["config"]
        groups[(cfg["dtype"], cfg["pairing"], result["environment"]["threads"])].append(result)
    for (dtype, pairing, threads), runs in sorted(groups.items()):
        loads = [r["environment"]["loadavg_before"][0] for r in runs]
        print(f"\n{dtype} {pairing}, {threads} threads: {len(runs)} runs, load average {min(loads):.1f}-{max(loads):.1f}")
        rows: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        for run in runs:
            for row in run["rows"]:
                for key in ("median_ms", "min_ms", "speedup_vs_hf_eager", "speed_vs_mul", "speed_vs_mul_", "pct_of_copy"):
                    if key in row:
                        rows[(row["provider"], row["mode"])][key].append(row[key])
        print(f"  {'provider':26s} {'mode':13s} {'median ms':>10s} {'min ms':>8s} {'vs HF':>7s} {'vs mul(_)':>9s} "
              f"{'% copy':>7s}  (medians over runs)")
        for (provider, mode), values in rows.items():
            med = {key: statistics.median(v) for key, v in values.items() if v}
            vs_base = med.get("speed_vs_mul", med.get("speed_vs_mul_"))
            print(f"  {provider:26s} {mode:13s} {_fmt(med.get('median_ms'), '10.2f')} "
                  f"{_fmt(med.get('min_ms'), '8.2f')} {_fmt(med.get('speedup_vs_hf_eager'), '7.2f')} "
                  f"{_fmt(vs_base, '9.2f')} {_fmt(med.get('pct_of_copy'), '7.0f')}")


if __name__ == "__main__":
    main(sys.argv[1:])
