"""RoPE apply: every available provider side by side, in one process, on the same inputs.

Same as ``posenc bench`` (which it calls); examples::

    python benchmarks/bench_rope.py --dtype float32 --json results/rope_cpu_f32.json
    python benchmarks/bench_rope.py --dtype bfloat16 --mode out-of-place --mode in-place
    python benchmarks/bench_rope.py --device cuda --dtype bfloat16 --seq-len 16384 --mode out-of-place --mode backward

Prints median time, GB/s, % of copy bandwidth and speedups over Hugging Face eager and over an elementwise multiply.
"""

import sys

from posenc.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
