#!/usr/bin/env bash
# tools/numba_compare/run.sh [BUILD_DIR]: Numba's CUDA simulator against GPU
# Lab's interpreter on the kernels of kernels.cu (compare.py). Numba and NumPy
# go into a virtual environment under the build folder, made on first use:
# a measuring tool, not something the lab needs.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../../build}"
venv="$build/numba-venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet numba numpy
fi
exec "$venv/bin/python" "$here/compare.py" "$build/gpulab"
