#!/usr/bin/env bash
# Hard inputs through `gpulab sim`: every request the lab cannot run gets a
# clear message naming what and where, exit code 2 (1 for faults inside the
# kernel), and never a crash.
set -u
GPULAB=${1:?usage: hard_inputs.sh path/to/gpulab}
K=tests/kernels/vadd.cu
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ARGS4=(--arg f32[4] --arg f32[4] --arg f32[4] --arg i32=4)

# expect NAME RC GREP-PATTERN -- gpulab sim arguments...
# Runs gpulab, checks the exit code, that stderr+stdout match the pattern
# (grep -E -i, newlines read as spaces), and that nothing crashed (signals give exit codes > 128).
expect() {
  local name=$1 want=$2 pattern=$3; shift 4
  "$GPULAB" sim "$@" >"$tmp/out" 2>&1; local rc=$?
  if [ $rc != "$want" ]; then
    echo "FAIL: $name: exit $rc, expected $want"; sed 's/^/    /' "$tmp/out" | head -20; fails=$((fails+1)); return
  fi
  if ! tr '\n' ' ' < "$tmp/out" | grep -Eiq -- "$pattern"; then
    echo "FAIL: $name: output does not match /$pattern/"; sed 's/^/    /' "$tmp/out" | head -20; fails=$((fails+1)); return
  fi
  if grep -Eq 'terminate called|Segmentation|Aborted|AddressSanitizer|runtime error:' "$tmp/out"; then
    echo "FAIL: $name: crashed"; fails=$((fails+1)); return
  fi
  passes=$((passes+1))
}

# ---- files ----------------------------------------------------------------------
expect "missing file" 2 "nosuch\.cu.*no such file" -- "$tmp/nosuch.cu" --kernel k
: > "$tmp/empty.cu"
expect "empty .cu: no kernel" 2 "empty\.cu.*no (__global__ )?kernel" -- "$tmp/empty.cu" --kernel k
printf 'extern "C" __global__ void k(float* p) {\n  p[0] = undeclared_name;\n}\n' > "$tmp/syntax.cu"
expect ".cu that does not compile names file and line" 2 "syntax\.cu\(2\)" -- "$tmp/syntax.cu" --kernel k --arg f32[1]
printf '\x7fELF\x00\x01\x02garbage\xff\xfe' > "$tmp/binary.cu"
expect "binary .cu" 2 "binary\.cu" -- "$tmp/binary.cu" --kernel k

# ---- PTX the lab cannot take ------------------------------------------------------
nvcc=/usr/local/cuda/bin/nvcc
"$nvcc" -ptx -lineinfo -arch=compute_80 $K -o "$tmp/vadd.ptx" 2>/dev/null
expect "PTX input runs" 0 "no errors" -- "$tmp/vadd.ptx" --kernel vadd --grid 1 --block 4 "${ARGS4[@]}"
printf '.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(\n  .param .u64 p\n)\n{\n  .reg .b32 %%r<3>;\n  mov.u32 %%r1, %%tid.x\n  frobnicate.u32 %%r2, %%r1;\n  ret;\n}\n' > "$tmp/malformed.ptx"
expect "malformed PTX names file and line" 2 "malformed\.ptx:[0-9]+" -- "$tmp/malformed.ptx" --kernel k --arg u8[4]
printf 'this is not PTX at all {{{ ;;; \n' > "$tmp/garbage.ptx"
expect "garbage PTX" 2 "garbage\.ptx" -- "$tmp/garbage.ptx" --kernel k
# Declarations checked before anything is allocated or handed to ptxas (issue 29).
ptx_head='.version 8.0\n.target sm_90\n.address_size 64\n'
printf "$ptx_head"'.visible .entry k()\n{\n .reg .b32 %%r<4000000000>;\n ret;\n}\n' > "$tmp/bigreg.ptx"
expect "4e9 registers refused at their line" 2 "bigreg\.ptx:6.*4000000000 registers.*limit" -- "$tmp/bigreg.ptx" --kernel k
printf "$ptx_head"'.visible .entry k()\n{\n .shared .align 1073741824 .b8 s[4];\n ret;\n}\n' > "$tmp/align.ptx"
expect "1 GB alignment refused" 2 "align\.ptx:6.*\.align 1073741824" -- "$tmp/align.ptx" --kernel k
printf "$ptx_head"'.visible .entry k()\n{\n .shared .align 3 .b8 s[4];\n ret;\n}\n' > "$tmp/align3.ptx"
expect "alignment not a power of two" 2 "align3\.ptx:6.*power of two" -- "$tmp/align3.ptx" --kernel k
printf "$ptx_head"'.visible .entry k()\n{\n ret;\n}\n.visible .entry k()\n{\n ret;\n}\n' > "$tmp/dup.ptx"
expect "duplicate .entry names both lines" 2 "dup\.ptx:8.*second \.entry named 'k'.*line 4" -- "$tmp/dup.ptx" --kernel k
printf '.version 99.9\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n' > "$tmp/v99.ptx"
expect "PTX version 99.9 refused" 2 "v99\.ptx:1.*99\.9" -- "$tmp/v99.ptx" --kernel k
printf '.version 8.0\n.target sm_1000\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n' > "$tmp/t1000.ptx"
expect "target sm_1000 refused" 2 "t1000\.ptx:2.*sm_1000" -- "$tmp/t1000.ptx" --kernel k
cat > "$tmp/tex.cu" <<'CU'
extern "C" __global__ void sample(cudaTextureObject_t t, float* out) {
  out[threadIdx.x] = tex2D<float>(t, threadIdx.x, 0.5f);
}
CU
expect "unsupported PTX (texture) names the instruction" 2 "tex\.cu.*(unsupported|not supported).*tex" -- "$tmp/tex.cu" --kernel sample --arg u64=1 --arg f32[32]

# ---- kernel names and arguments -------------------------------------------------------
expect "unknown kernel lists the kernels" 2 "no kernel named 'vad'.*vadd" -- $K --kernel vad "${ARGS4[@]}"
expect "too few --arg" 2 "takes 4 parameters.*2 --arg" -- $K --kernel vadd --arg f32[4] --arg f32[4]
expect "too many --arg" 2 "takes 4 parameters" -- $K --kernel vadd "${ARGS4[@]}" --arg i32=1
expect "float scalar for an int parameter" 2 "parameter 3.*integer" -- $K --kernel vadd --arg f32[4] --arg f32[4] --arg f32[4] --arg f32=4
expect "scalar for a pointer" 2 "parameter 0" -- $K --kernel vadd --arg i32=1 --arg f32[4] --arg f32[4] --arg i32=4
expect "buffer for a scalar" 2 "parameter 3" -- $K --kernel vadd --arg f32[4] --arg f32[4] --arg f32[4] --arg i32[4]
expect "64-bit scalar for a 32-bit parameter" 2 "parameter 3.*4 bytes" -- $K --kernel vadd --arg f32[4] --arg f32[4] --arg f32[4] --arg i64=4
expect "bad spec syntax" 2 "--arg 'f32\[4'.*\]" -- $K --kernel vadd --arg 'f32[4' --arg f32[4] --arg f32[4] --arg i32=4
expect "unknown element type" 2 "unknown element type 'float'" -- $K --kernel vadd --arg 'float[4]' --arg f32[4] --arg f32[4] --arg i32=4
expect "value out of range" 2 "does not fit" -- $K --kernel vadd --arg f32[4] --arg f32[4] --arg f32[4] --arg i32=3000000000
expect "missing data file" 2 "cannot (open|read) '.*nope\.bin'" -- $K --kernel vadd --arg "f32[4]=@$tmp/nope.bin" --arg f32[4] --arg f32[4] --arg i32=4
printf 'abc' > "$tmp/odd.bin"
expect "data file of the wrong length" 2 "odd\.bin.*3 bytes" -- $K --kernel vadd --arg "f32[]=@$tmp/odd.bin" --arg f32[4] --arg f32[4] --arg i32=4
expect "element count that overflows 64 bits" 2 "too large" -- $K --kernel vadd --arg 'i64[2305843009213693953]' --arg f32[4] --arg f32[4] --arg i32=4

# ---- launches over the model's limits -------------------------------------------------
expect "block over 1024 threads" 2 "2048 threads per block exceeds the limit of 1024" -- $K --kernel vadd --block 2048 "${ARGS4[@]}"
expect "block z over 64" 2 "block dimensions are limited to 1024 x 1024 x 64" -- $K --kernel vadd --block 1,1,128 "${ARGS4[@]}"
expect "grid y over 65535" 2 "grid dimensions are limited" -- $K --kernel vadd --grid 1,70000 "${ARGS4[@]}"
# More threads than 2^64: refused as the GPU would, with no overflowed "big launch" warning first.
"$GPULAB" sim $K --kernel vadd --grid 4294967295,65535,65535 --block 1024 "${ARGS4[@]}" >"$tmp/out" 2>&1
if grep -q "a big launch" "$tmp/out" || ! grep -q "grid dimensions are limited" "$tmp/out"; then
  echo "FAIL: a grid past 2^64 threads: $(head -3 "$tmp/out")"; fails=$((fails+1))
else passes=$((passes+1)); fi
expect "zero block" 2 "positive integers" -- $K --kernel vadd --block 0 "${ARGS4[@]}"
expect "malformed --grid" 2 "--grid 'x4'" -- $K --kernel vadd --grid x4 "${ARGS4[@]}"
expect "four dimensions" 2 "at most three" -- $K --kernel vadd --grid 1,1,1,1 "${ARGS4[@]}"
expect "shared memory over the limit" 2 "shared memory per block.*limit" -- $K --kernel vadd --smem 1000000 "${ARGS4[@]}"
expect "registers per block over the limit" 2 "too many resources requested for launch.*registers per block" -- \
  tests/kernels/many_regs.cu --kernel many_regs --block 1024 --arg f32[1024] --arg f32[1024] --arg i32=1024
expect "unknown GPU model" 2 "P100|unknown GPU|GPU model" -- $K --kernel vadd --gpu P100 "${ARGS4[@]}"
expect "buffers larger than this machine's memory" 2 "GiB.*this machine has" -- $K --kernel vadd --arg 'f32[10000000000000]' --arg f32[4] --arg f32[4] --arg i32=4

# ---- faults inside the kernel: exit 1 ---------------------------------------------------
expect "buffer too small is out-of-bounds with a hint" 1 "out-of-bounds.*(past the end|enlarge).*arg" -- $K --kernel vadd --grid 1 --block 64 --arg f32[32] --arg f32[64] --arg f32[64] --arg i32=64 --check
out=$("$GPULAB" sim $K --kernel vadd --grid 1 --block 64 --arg f32[32] --arg f32[64] --arg f32[64] --arg i32=64 --check --json 2>&1); rc=$?
if [ $rc = 1 ] && python3 -c '
import json,sys; j=json.loads(sys.argv[1]); e=j["errors"][0]
assert e["kind"]=="out-of-bounds" and e["line"]==4 and e["file"].endswith("vadd.cu") and e["count"]>=1, e
assert "block" in e and "thread" in e and e["thread"][0]>=32, e' "$out"; then passes=$((passes+1)); else echo "FAIL: too-small buffer JSON: $out" | head -20; fails=$((fails+1)); fi
expect "hang is reported with the loop" 1 "hang.*loop.*line" -- tests/check/hang_spin.cu --kernel hang_spin --grid 1 --block 32 --arg i32[1] --max-steps 5000
expect "usage errors in --json mode are JSON" 2 '"ok": false' -- $K --kernel nosuch --json "${ARGS4[@]}"
# Limits that mean nothing are refused, and a --dump folder that cannot be
# made is named (issue 29).
expect "--time-limit -1 refused" 2 "time-limit.*above zero" -- $K --kernel vadd --grid 1 --block 32 "${ARGS4[@]}" --time-limit -1
expect "--time-limit nan refused" 2 "time-limit.*above zero" -- $K --kernel vadd --grid 1 --block 32 "${ARGS4[@]}" --time-limit nan
expect "--slice-sms 0 refused" 2 "slice-sms" -- $K --kernel vadd --grid 1 --block 32 "${ARGS4[@]}" --slice-sms 0
expect "--dump into an impossible folder is named" 2 "dump '/proc/nope'.*cannot create" -- $K --kernel vadd --grid 1 --block 32 "${ARGS4[@]}" --dump /proc/nope

echo "hard_inputs.sh: $passes passed, $fails failed"
[ $fails = 0 ]
