#!/usr/bin/env bash
# tests/cli/sass_widths.sh GPULAB: the cycle model times shared loads at the
# widths ptxas gives them (docs/timing-model.md, "Shared loads as ptxas emits
# them"): `gpulab validate --sass` agrees with the SASS on every line of the
# kernels below, for the Hopper, Ampere and Turing models (a line that
# differs prints DIFFER and exits 1: tests/test_bench_sass.cpp).
# Needs nvdisasm (.ci/bootstrap installs it into .tools/); exits 77 (ctest:
# skipped) without it.
set -u
GPULAB=${1:?usage: sass_widths.sh path/to/gpulab}
if ! out=$("$GPULAB" validate --sass lessons/13-attention/naive.cu --kernel attn_pv 2>&1) && grep -q "nvdisasm is not installed" <<<"$out"; then
  echo "skipped: $out"
  exit 77
fi
fail=0
corpus=(
  "kernels/gemm/03_smem_tiled.cu gemm_03_smem_tiled"
  "kernels/gemm/04_blocktile_1d.cu gemm_04_blocktile_1d"
  "kernels/gemm/05_blocktile_2d.cu gemm_05_blocktile_2d"
  "kernels/gemm/06_vectorized.cu gemm_06_vectorized"
  "kernels/gemm/07_warptile.cu gemm_07_warptile"
  "lessons/.solutions/04-shared-memory-tiling/solution.cu gemm_tiled"
  "lessons/.solutions/04-shared-memory-tiling/solution_transpose.cu transpose_tiled"
  "lessons/.solutions/05-occupancy/solution.cu gemm_regtile"
  "lessons/.solutions/09-reductions/solution_scan.cu scan_rows"
  "lessons/.solutions/09-reductions/row_sum_trees.cu row_sum_sequential"
  "lessons/12-convolution/implicit_regtile.cu conv3x3_regtile"
  "lessons/12-convolution/im2col.cu gemm_im2col"
  "lessons/.solutions/12-convolution/solution.cu conv3x3"
  "lessons/13-attention/naive.cu attn_scores"
  "lessons/13-attention/naive.cu attn_pv"
  "lessons/.solutions/13-attention/solution.cu attention"
  "lessons/13-attention/tensor_core.cu tc_flash"
)
# Every kernel on the Hopper model; three on the Ampere and Turing ones
# (ptxas vectorises the same way there: all seventeen agreed when checked).
for gpu in H100 A100 T4; do
  list=("${corpus[@]}")
  [ "$gpu" = H100 ] || list=("${corpus[0]}" "${corpus[1]}" "${corpus[15]}")
  for entry in "${list[@]}"; do
    read -r file kernel <<<"$entry"
    out=$("$GPULAB" validate --sass "$file" --kernel "$kernel" --gpu "$gpu" 2>&1) \
      || { echo "FAIL: $gpu $file $kernel: the model's shared-load widths differ from ptxas's:"; echo "$out"; fail=1; continue; }
    grep -q "agree" <<<"$out" || { echo "FAIL: $gpu $file $kernel: no line compared: $out"; fail=1; }
  done
done
# Lesson 13's fused kernel, line by line: the query row (48) as LDS.128, the
# 65-word key row (47) as scalar LDS, on both sides.
out=$("$GPULAB" validate --sass lessons/.solutions/13-attention/solution.cu --kernel attention --gpu H100 2>&1)
grep -Eq '^ +47 +16 x 4 B +16 x 4 B +16 x 4 B +agree' <<<"$out" || { echo "FAIL: lesson 13 line 47 is not 16 scalar loads on both sides: $out"; fail=1; }
grep -Eq '^ +48 +16 x 4 B +4 x 16 B +4 x 16 B +agree' <<<"$out" || { echo "FAIL: lesson 13 line 48 is not 4 LDS.128 on both sides: $out"; fail=1; }
# Lesson 6's fp16 tiles: ptxas pairs two 2-byte loads into one 4-byte LDS, and so does the model.
out=$("$GPULAB" validate --sass lessons/06-tensor-cores/fp32_cores.cu --kernel gemm_fp32_cores --gpu H100 2>&1)
grep -Eq '^ +28 +16 x 2 B +8 x 4 B +8 x 4 B +agree' <<<"$out" || { echo "FAIL: fp32_cores line 28 is not 8 paired loads on both sides: $out"; fail=1; }
# A kernel the file lacks: a usage error naming it.
out=$("$GPULAB" validate --sass lessons/13-attention/naive.cu --kernel nope 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "nope" <<<"$out" || { echo "FAIL: a missing kernel should be a usage error naming it (rc $rc): $out"; fail=1; }
[ $fail -eq 0 ] && echo "ok: the model's shared-load widths are ptxas's on ${#corpus[@]} kernels (H100), 3 of them on A100 and T4"
exit $fail
