#!/usr/bin/env bash
# tests/cli/view_inputs.sh GPULAB: `gpulab view` refuses bad options in a
# sentence, exit 2, before it opens a window (issue 29: --scale nan aborted
# in ImGui, --step past the lesson's end never exited, a bad --version or
# --grid 0 exited 0). No display is needed: the refusals come first.
set -u
GPULAB=${1:?usage: view_inputs.sh path/to/gpulab}
if ! "$GPULAB" view --help 2>&1 | grep -q -- "--scale"; then
  echo "skip: this gpulab was built without the visual lab"
  exit 0
fi
fails=0
expect() {
  local name=$1 pattern=$2; shift 2
  out=$(timeout 60 "$GPULAB" view "$@" --screenshot /dev/null 2>&1); rc=$?
  if [ $rc != 2 ] || ! grep -Eq -- "$pattern" <<<"$out"; then
    echo "FAIL: $name: exit $rc: $out" | head -5; fails=$((fails+1))
  fi
}
expect "--scale nan" "--scale nan: give a number from 0.5 to 4" --scale nan
expect "--scale inf" "--scale.*inf" --scale inf
expect "--step past the end" "lesson 03-coalescing has 5 steps" 03 --step 8
expect "--step 999" "has 5 steps" 03 --step 999
expect "--step -1" "has 5 steps" 03 --step -1
expect "a bad --version" "not a GEMM version; choose one of: 01_naive" --version bogus
expect "--grid 0" "positive integers" tests/kernels/vadd.cu --kernel vadd --grid 0 --block 4
[ $fails = 0 ] && echo "ok: view refuses bad options before opening a window"
exit $fails
