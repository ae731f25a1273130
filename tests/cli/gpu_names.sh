#!/usr/bin/env bash
# tests/cli/gpu_names.sh GPULAB: --gpu is resolved once, at the edge: the same
# unknown name gives the same message and exit code 2 from every command
# that takes it (issue 13), and a known alias is accepted by each.
set -u
GPULAB=${1:?usage: gpu_names.sh path/to/gpulab}
K=tests/kernels/vadd.cu
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
check() { if eval "$2"; then passes=$((passes+1)); else echo "FAIL: $1"; fails=$((fails+1)); fi; }

run_bad() {  # NAME ARGS...: runs gpulab with --gpu V100, keeps the message
  local name=$1; shift
  "$GPULAB" "$@" --gpu V100 >"$tmp/$name.out" 2>"$tmp/$name.err"; echo $? >"$tmp/$name.rc"
}
run_bad sim sim $K --kernel vadd --grid 1 --block 4 --arg f32[4] --arg f32[4] --arg f32[4] --arg i32=4
run_bad check check 01
run_bad view view
run_bad bench bench gemm --size 16 --quiet
run_bad benchsim bench sim --size 16 --e2e-size 16
run_bad validate validate --size 16 --quiet
run_bad occupancy occupancy --block 256
want=$(grep -o "unknown GPU model 'V100'.*" "$tmp/sim.err" | head -1)
check "sim names the unknown model and the valid ones" "[ -n \"\$want\" ] && grep -q H100 <<<\"\$want\""
for c in sim check view bench benchsim validate occupancy; do
  check "$c: exit 2" "[ \"\$(cat $tmp/$c.rc)\" = 2 ]"
  check "$c: the same message" "grep -qF \"\$want\" $tmp/$c.err"
  check "$c: nothing on stdout" "[ ! -s $tmp/$c.out ]"
done

# An alias resolves everywhere the same way.
"$GPULAB" sim $K --kernel vadd --grid 1 --block 4 --arg f32[4] --arg f32[4] --arg f32[4] --arg i32=4 \
  --gpu rtx-4090 --json >"$tmp/alias.json" 2>&1; rc=$?
check "alias rtx-4090 runs" "[ $rc = 0 ] && grep -q '\"gpu\": \"RTX4090\"' $tmp/alias.json"

echo "gpu_names: $passes passed, $fails failed"
[ $fails = 0 ]
