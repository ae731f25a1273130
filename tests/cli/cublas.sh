#!/usr/bin/env bash
# `gpulab run` with cuBLAS: the lab's stand-in (libgpulab_cublas, lab/cublas,
# docs/run.md "cuBLAS"). A program checks every call against float64 on the
# CPU (tests/run/cublas_gemm.cu); here: its launches are the lab's kernels on
# the simulator, named after the call and the kernel, predicted, checked by
# --check; -lcublas maps to the stand-in; an unserved cuBLAS call and another
# CUDA library are refused by name.
set -u
GPULAB=${1:?usage: cublas.sh path/to/gpulab}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export GPULAB_CACHE="${GPULAB_CACHE:-$tmp/cache}"
fails=0; passes=0
check() { if eval "$2"; then passes=$((passes+1)); else echo "FAIL: $1"; fails=$((fails+1)); fi; }
run() { "$GPULAB" run "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
has() { grep -qF -- "$2" "$tmp/$1"; }

# 1. Every call right (the program compares each with float64), and each one
#    a launch of the lab's kernels on the simulator, named, with a prediction.
"$GPULAB" run tests/run/cublas_gemm.cu -lcublas --json >"$tmp/j" 2>"$tmp/err"; rc=$?
check "cublas_gemm: exit 0" "[ $rc = 0 ] || { cat $tmp/err; python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(\"output\"))' $tmp/j; false; }"
check "cublas_gemm: every case PASSED, none FAILED" "python3 -c '
import json,sys; j=json.load(open(sys.argv[1])); o=j[\"output\"]
assert \"ALL PASSED\" in o and \"FAILED\" not in o and o.count(\"PASSED\") == 27, o
' $tmp/j"
check "cublas_gemm: the launches name the call and the lab kernel, each predicted" "python3 -c '
import json,sys; j=json.load(open(sys.argv[1])); L=j[\"launches\"]; names=[l[\"kernel\"] for l in L]
# 19 Sgemm / SgemmStridedBatched and 4 GemmEx / GemmStridedBatchedEx calls compute, 2 of the 3 split-K ones
# with a beta pass first; the 2 refused ones launch nothing
assert len(L)==25, names
assert all(n.startswith(\"cublas\") for n in names), names
assert names.count(\"cublasSgemm (lab GEMM: gemm_07_warptile)\")==4, names  # the packed cases: two, llm.c dinp, the device-pointer one
assert \"cublasSgemm (lab cuBLAS: gemm_tiled TN fp32)\" in names, names
assert \"cublasSgemm (lab cuBLAS: gemm_tiled TT fp32)\" in names, names
assert \"cublasSgemmStridedBatched (lab cuBLAS: gemm_tiled TN fp32)\" in names, names
assert \"cublasGemmEx (lab GEMM: gemm_09_tensor_core_mma)\" in names, names
assert \"cublasGemmEx (lab cuBLAS: gemm_tiled NT bf16)\" in names, names
assert \"cublasGemmStridedBatchedEx (lab cuBLAS: gemm_tiled TN fp16)\" in names, names
for l in L: assert l[\"ok\"] and l[\"predicted\"][\"time_ms\"]>0 and l[\"metrics\"][\"warp_instructions\"]>0, l
# the strided-batched attention call: grid.z walks the B*NH = 4 batches
att=[l for l in L if l[\"kernel\"].startswith(\"cublasSgemmStridedBatched\")][0]
assert att[\"grid\"]==[1,1,4] and att[\"block\"]==[256,1,1], att
# split-K: 64 x 48 over k = 3000 is one tile, so 11 slices of k (at least 256 each) after C = beta C
i=names.index(\"cublasSgemm (lab cuBLAS: gemm_tiled NN fp32, split-K 11)\")
assert names[i-1]==\"cublasSgemm (lab cuBLAS: gemm_scale_c, beta before split-K)\" and L[i][\"grid\"]==[1,1,11], names
# beta 1: no beta pass; (batch, slice) pairs over grid.z
i=names.index(\"cublasSgemmStridedBatched (lab cuBLAS: gemm_tiled NT fp32, split-K 5)\")
assert \"scale\" not in names[i-1] and L[i][\"grid\"]==[1,1,10], names
# the lab GEMM runs the packed 96 x 80 x 64 call as row-major C^T: grid (ceil(96/128), ceil(80/128))
lab=[l for l in L if \"gemm_07\" in l[\"kernel\"]][0]
assert lab[\"grid\"]==[1,1,1] and lab[\"block\"]==[128,1,1], lab
' $tmp/j"
check "the refusals say what is not served and what to do" "grep -q 'cublasGemmEx: Atype CUDA_R_64F' $tmp/err && grep -q 'run the program on a GPU with --backend cuda' $tmp/err && grep -q 'cublasSgemm: a leading dimension is smaller' $tmp/err"

# 2. --report: the table names them in full.
run tests/run/cublas_gemm.cu --report
check "--report names the lab GEMM launches" "[ $rc = 0 ] && has out 'cublasSgemm (lab GEMM: gemm_07_warptile)' && has out 'cublasSgemmStridedBatched (lab cuBLAS: gemm_tiled NT fp32)'"

# 3. --check runs the kernel checks on the stand-in's launches too: clean.
run tests/run/cublas_gemm.cu --check
check "--check: the stand-in's kernels run clean" "[ $rc = 0 ] && has out 'ALL PASSED'"

# 4. An older GPU model: fp16 GemmEx on the lab's WMMA kernel (sm_75 has no sm_80 mma path).
"$GPULAB" run tests/run/cublas_gemm.cu --gpu T4 --json >"$tmp/j" 2>/dev/null; rc=$?
check "T4: passes, GemmEx fp16 on gemm_08_tensor_core_wmma" "[ $rc = 0 ] && python3 -c '
import json,sys; j=json.load(open(sys.argv[1])); names=[l[\"kernel\"] for l in j[\"launches\"]]
assert \"cublasGemmEx (lab GEMM: gemm_08_tensor_core_wmma)\" in names, names
' $tmp/j"

# 5. A cuBLAS call the stand-in does not serve: exit 2, named as the program writes it.
cat > "$tmp/dgemm.cu" <<'CU'
#include <cublas_v2.h>
int main() {
  cublasHandle_t h; cublasCreate(&h);
  double one = 1; double* d = nullptr;
  cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, d, 1, d, 1, &one, d, 1);
  return 0;
}
CU
run "$tmp/dgemm.cu" -lcublas
check "unserved cuBLAS call: exit 2, named" "[ $rc = 2 ] && has err 'the program calls cublasDgemm, which the lab' && has err 'cuBLAS stand-in does not serve'"

# 6. -l: another CUDA library has no stand-in, refused before nvcc runs.
run tests/run/cublas_gemm.cu -lcufft
check "-lcufft refused by name" "[ $rc = 2 ] && has err '-lcufft: the lab stands in for the CUDA runtime and cuBLAS'"

# 7. cuBLASLt as llm.c's train_gpt2.cu calls it: every case right, each a named launch; --check clean.
"$GPULAB" run tests/run/cublaslt_matmul.cu -lcublasLt --check --json >"$tmp/j" 2>"$tmp/err"; rc=$?
check "cublaslt_matmul: exit 0, every case PASSED, the launches named" "[ $rc = 0 ] && python3 -c '
import json,sys; j=json.load(open(sys.argv[1])); o=j[\"output\"]; names=[l[\"kernel\"] for l in j[\"launches\"]]
assert \"ALL PASSED\" in o and \"FAILED\" not in o and o.count(\"PASSED\")==9, o
assert names==[\"cublasLtMatmul (lab cuBLAS: gemm_tiled TN fp32)\", \"cublasLtMatmul (lab cuBLAS: gemm_tiled TN fp32, +bias)\",
  \"cublasLtMatmul (lab cuBLAS: gemm_tiled TN fp32, +bias, gelu)\", \"cublasLtMatmul (lab cuBLAS: gemm_tiled NN fp32, dgelu)\",
  \"cublasLtMatmul (lab cuBLAS: gemm_tiled NT fp32)\", \"cublasLtMatmul (lab cuBLAS: gemm_bias_grad, BGRADB)\",
  \"cublasLtMatmul (lab cuBLAS: gemm_tiled TN bf16, +bias)\", \"cublasLtMatmul (lab cuBLAS: gemm_tiled TN fp32)\"], names
' $tmp/j" 
check "cublasLt: an unserved epilogue is named" "grep -q 'cublasLtMatmulAlgoGetHeuristic: CUBLASLT_EPILOGUE_RELU_BIAS' $tmp/err"

# 8. A program that does not call cuBLAS does not load the stand-in (linked --as-needed).
run examples/vector_add.cu
newest() { find "$GPULAB_CACHE/run" -maxdepth 2 -type f -name "$1" -printf '%T@ %p\n' | sort -rn | head -1 | cut -d' ' -f2; }
exe=$(newest vector_add)
check "vector_add: built, and libgpulab_cublas.so not needed" "[ $rc = 0 ] && [ -n \"$exe\" ] && readelf -d \"$exe\" | grep -q libgpulab_cudart && ! readelf -d \"$exe\" | grep -q libgpulab_cublas"
cu_exe=$(newest cublas_gemm)
check "cublas_gemm: libgpulab_cublas.so needed" "[ -n \"$cu_exe\" ] && readelf -d \"$cu_exe\" | grep -q libgpulab_cublas"

# tools/llmc/make_tiny_gpt2.py: the checkpoint train_gpt2_fp32.cu can reproduce
# train_gpt2.c on: C a multiple of 128 (matmul_forward_kernel4 has no bounds
# checks) and wte's padding rows zero (fused_classifier_kernel3 leaves the
# padding logits as their gradients); 5 batches of B=4, T=64 in each token file.
python3 tools/llmc/make_tiny_gpt2.py "$tmp/tiny" >/dev/null
check "make_tiny_gpt2: C % 128 == 0, zero wte padding, 5 batches per token file" "python3 -c '
import sys; from array import array
d=sys.argv[1]; h=array(\"i\"); h.frombytes(open(d+\"/gpt2_124M.bin\",\"rb\").read(1024))
assert h[0]==20240326 and h[1]==3, h[:2]
T,V,L,NH,C,Vp=h[2],h[3],h[4],h[5],h[6],h[7]
assert C%128==0 and C%NH==0, (C,NH)
w=array(\"f\"); f=open(d+\"/gpt2_124M.bin\",\"rb\"); f.seek(1024); w.frombytes(f.read(4*Vp*C))
assert any(w[:V*C]) and not any(w[V*C:]), \"wte padding rows must be zero\"
for n in (\"train\",\"val\"):
    t=array(\"i\"); t.frombytes(open(d+\"/\"+n+\".bin\",\"rb\").read(1024)); assert t[2]>=5*4*64+1, (n,t[2])
' $tmp/tiny"

echo "cublas.sh: $passes passed, $fails failed"
[ $fails = 0 ]
