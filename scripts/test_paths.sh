#!/usr/bin/env bash
# Run the tests that compute numbers under the other code paths torch, numpy and the BLAS libraries let this CPU take
# (make test-paths), so that a tolerance tighter than its dtype allows fails here and not on someone else's CPU:
#   scripts/test_paths.sh                  every configuration below
#   scripts/test_paths.sh avx2 threads-1   only the ones named
#   scripts/test_paths.sh --list           the configurations and what each sets
# Each configuration prints what it set and its pytest summary line; the script exits 1 if any failed, 2 on bad usage.
# TESTS="tests/x tests/y.py" replaces the numeric tests below; PYTEST_ARGS adds pytest options (default: -n 2).
set -uo pipefail
cd "$(dirname "$0")/.."
VPY=${VPY:-.venv/bin/python}
[ -x "$VPY" ] || { echo "test_paths: $VPY is missing; run make setup first" >&2; exit 2; }

# the tests that compute numbers: encodings, kernels, properties, probes, the model, statistics, context extension,
# the Hugging Face comparisons and the report's numbers (the slow experiments excluded, as in make test)
DEFAULT_TESTS="tests/encodings tests/kernels tests/properties tests/probe tests/model tests/extend tests/test_stats.py
  tests/test_tolerance.py tests/hf/test_config_rotary.py tests/hf/test_hf_schedule.py tests/hf/test_hf_tables.py
  $(ls tests/report/test_numbers_*.py | tr '\n' ' ')"
read -r -a TEST_PATHS <<< "$(echo ${TESTS:-$DEFAULT_TESTS})"
read -r -a EXTRA <<< "${PYTEST_ARGS:--n 2 --dist loadgroup}"

flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
has() { [[ " $flags " == *" $1 "* ]]; }
# numpy's SIMD groups this CPU has beyond numpy's baseline (numpy.show_runtime()'s "found"); disabling them all
# leaves numpy's baseline loops
npy_found=$("$VPY" - <<'EOF'
import numpy as np
from numpy._core._multiarray_umath import __cpu_baseline__, __cpu_dispatch__, __cpu_features__
print(" ".join(f for f in __cpu_dispatch__ if __cpu_features__.get(f) and f not in __cpu_baseline__))
EOF
)

# name | environment (VAR=value;VAR=value) | what it is
CONFIGS=(
  "aten-default|ATEN_CPU_CAPABILITY=default|torch's kernels without vector extensions"
  "aten-avx2|ATEN_CPU_CAPABILITY=avx2|torch's AVX2 kernels"
)
has avx512f && has avx512bw && has avx512vl && has avx512dq &&
  CONFIGS+=("aten-avx512|ATEN_CPU_CAPABILITY=avx512|torch's AVX-512 kernels (this CPU has AVX-512)")
[ -n "$npy_found" ] &&
  CONFIGS+=("numpy-baseline|NPY_DISABLE_CPU_FEATURES=$npy_found|numpy's baseline loops: its dispatch to $npy_found off")
CONFIGS+=(
  "blas-avx2|MKL_ENABLE_INSTRUCTIONS=AVX2;ONEDNN_MAX_CPU_ISA=AVX2;OPENBLAS_CORETYPE=Haswell|the BLAS and oneDNN kernels for AVX2: MKL and oneDNN (torch), OpenBLAS (numpy, scipy)"
  "threads-1|OMP_NUM_THREADS=1;MKL_NUM_THREADS=1;OPENBLAS_NUM_THREADS=1|one thread per test process (torch, MKL, OpenBLAS)"
  "threads-2|OMP_NUM_THREADS=2;MKL_NUM_THREADS=2;OPENBLAS_NUM_THREADS=2|two threads per test process: reductions split in two"
)

names=()
for c in "${CONFIGS[@]}"; do names+=("${c%%|*}"); done
if [ "${1:-}" = "--list" ]; then
  for c in "${CONFIGS[@]}"; do IFS='|' read -r n e w <<< "$c"; printf '%-15s %s\n%-15s (%s)\n' "$n" "${e//;/ }" "" "$w"; done
  exit 0
fi
for want in "$@"; do
  [[ " ${names[*]} " == *" $want "* ]] || {
    echo "test_paths: no configuration '$want' on this CPU; expected some of: ${names[*]} (or --list)" >&2; exit 2; }
done

failed=()
for c in "${CONFIGS[@]}"; do
  IFS='|' read -r name env what <<< "$c"
  if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
  IFS=';' read -r -a assignments <<< "$env"
  echo "[$name] ${env//;/ }  ($what)"
  check=$(env "${assignments[@]}" "$VPY" -c "
import torch
from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__ as f
from threadpoolctl import threadpool_info
on = [d for d in __cpu_dispatch__ if f.get(d)]
blas = [f\"{i['internal_api']} {i.get('architecture', '?')} x{i['num_threads']}\" for i in threadpool_info()
        if i['user_api'] == 'blas']
print(f'torch capability {torch.backends.cpu.get_cpu_capability()}, torch threads {torch.get_num_threads()},',
      'numpy dispatch to', ' '.join(on) or 'nothing beyond its baseline', '| numpy BLAS', ', '.join(blas) or '?')" \
    2>&1 | tail -1)
  echo "[$name] in effect: $check"
  start=$(date +%s)
  summary=$(env "${assignments[@]}" "$VPY" -m pytest -m "not slow" -q -p no:cacheprovider "${EXTRA[@]}" \
    "${TEST_PATHS[@]}" 2>&1 | tee "${TMPDIR:-/tmp}/posenc-test-paths-$name.log" | tail -1)
  status=${PIPESTATUS[0]}
  echo "[$name] $summary (exit $status, $(( $(date +%s) - start )) s; log ${TMPDIR:-/tmp}/posenc-test-paths-$name.log)"
  [ "$status" -eq 0 ] || failed+=("$name")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "[test-paths] FAILED under: ${failed[*]} (each log holds the failures)" >&2
  exit 1
fi
echo "[test-paths] all passed"
