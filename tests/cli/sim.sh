#!/usr/bin/env bash
# The `gpulab sim` contract: exit codes, JSON fields, --dump.
set -u
GPULAB=${1:?usage: sim.sh path/to/gpulab}
K=tests/kernels/vadd.cu
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
check() { if eval "$2"; then passes=$((passes+1)); else echo "FAIL: $1"; fails=$((fails+1)); fi; }

# 1. A correct launch: exit 0, the fixed JSON fields, and the right data.
out=$("$GPULAB" sim $K --kernel vadd --grid 3 --block 128 --arg f32[300]=iota --arg f32[300]=fill:2 \
      --arg f32[300] --arg i32=300 --json --dump "$tmp/d"); rc=$?
check "vadd exits 0" "[ $rc = 0 ]"
check "vadd JSON fields" "python3 -c '
import json,sys; j=json.loads(sys.argv[1])
assert j[\"kernel\"]==\"vadd\" and j[\"backend\"]==\"sim\" and j[\"ok\"] is True
assert j[\"grid\"]==[3,1,1] and j[\"block\"]==[128,1,1] and j[\"errors\"]==[]
m=j[\"metrics\"]; assert m[\"thread_instructions\"]>0 and m[\"warp_instructions\"]>0
assert m[\"thread_instructions\"] <= 32*m[\"warp_instructions\"]
' \"\$out\""
check "machine-model metrics, prediction and lines (issue 3 keys)" "python3 -c '
import json,sys; j=json.loads(sys.argv[1]); m=j[\"metrics\"]
keys=\"global_load_requests global_load_sectors global_store_requests global_store_sectors shared_load_requests shared_load_wavefronts shared_load_bank_conflicts shared_store_requests shared_store_wavefronts shared_store_bank_conflicts warp_execution_efficiency dram_read_bytes dram_write_bytes flops registers_per_thread shared_bytes_per_block blocks_per_sm theoretical_occupancy achieved_occupancy occupancy_limiter\".split()
missing=[k for k in keys if k not in m]; assert not missing, missing
# 300 floats read twice, written once, coalesced: 10 warps, 4 sectors a request at most
assert m[\"global_load_requests\"]==20 and m[\"global_store_requests\"]==10, m
assert m[\"global_load_sectors\"]<=4*20 and m[\"shared_load_requests\"]==0 and m[\"flops\"]==300
p=j[\"predicted\"]; assert p[\"time_ms\"]>0 and p[\"bound\"] and p[\"gpu\"]==\"H100\"
assert any(l[\"line\"]==4 for l in j[\"lines\"]), j[\"lines\"]
' \"\$out\""
check "--dump writes every buffer" "[ -f $tmp/d/arg0.bin ] && [ -f $tmp/d/arg2.bin ] && [ ! -f $tmp/d/arg3.bin ]"
check "c = a + b" "python3 -c '
import struct,sys; c=struct.unpack(\"300f\",open(sys.argv[1],\"rb\").read())
assert all(c[i]==i+2.0 for i in range(300)), c[:5]
' $tmp/d/arg2.bin"

# 2. File input with COUNT taken from the file.
python3 -c 'import struct; open("'$tmp'/x.bin","wb").write(struct.pack("4f",1,2,3,4))'
"$GPULAB" sim $K --kernel vadd --grid 1 --block 32 --arg "f32[]=@$tmp/x.bin" --arg "f32[]=@$tmp/x.bin" \
    --arg f32[4] --arg i32=4 --dump "$tmp/e" >/dev/null; rc=$?
check "file input exits 0" "[ $rc = 0 ]"
check "file input doubled" "python3 -c '
import struct,sys; assert struct.unpack(\"4f\",open(sys.argv[1],\"rb\").read())==(2,4,6,8)' $tmp/e/arg2.bin"

# 3. Usage errors: exit 2 with a plain message.
"$GPULAB" sim $K --kernel nosuch --arg i32=1 >/dev/null 2>"$tmp/err"; rc=$?
check "unknown kernel exits 2" "[ $rc = 2 ]"
check "unknown kernel lists kernels" "grep -q vadd $tmp/err && grep -q past_end $tmp/err"
"$GPULAB" sim $K --kernel vadd --arg f32[4] --arg i32=4 >/dev/null 2>"$tmp/err"; rc=$?
check "wrong parameter count exits 2" "[ $rc = 2 ] && grep -q 'takes 4 parameters' $tmp/err"
"$GPULAB" sim $K --kernel vadd --arg f32[4] --arg f32[4] --arg f32[4] --arg f32=4 >/dev/null 2>"$tmp/err"; rc=$?
check "wrong parameter type exits 2" "[ $rc = 2 ] && grep -q 'parameter 3' $tmp/err"
"$GPULAB" sim $K --kernel vadd --arg i32=1 --arg f32[4] --arg f32[4] --arg i32=4 >/dev/null 2>"$tmp/err"; rc=$?
check "scalar for a pointer exits 2" "[ $rc = 2 ]"
printf 'extern "C" __global__ void k(float* p) {\n  p[0] = nope;\n}\n' > "$tmp/bad.cu"
"$GPULAB" sim "$tmp/bad.cu" --kernel k --arg f32[1] >/dev/null 2>"$tmp/err"; rc=$?
check "compile error exits 2 with file and line" "[ $rc = 2 ] && grep -q 'bad.cu(2)' $tmp/err"
"$GPULAB" sim $K --kernel vadd --block 2048 --arg f32[4] --arg f32[4] --arg f32[4] --arg i32=4 >/dev/null 2>"$tmp/err"; rc=$?
check "block over the limit exits 2" "[ $rc = 2 ] && grep -q '1024' $tmp/err"
"$GPULAB" sim $K --kernel vadd --grid 0 --arg f32[4] --arg f32[4] --arg f32[4] --arg i32=4 >/dev/null 2>&1; rc=$?
check "zero grid exits 2" "[ $rc = 2 ]"
out=$("$GPULAB" sim $K --kernel vadd --arg f32[4] --json 2>/dev/null); rc=$?
check "usage error in --json mode is still JSON" "[ $rc = 2 ] && python3 -c 'import json,sys; j=json.loads(sys.argv[1]); assert j[\"ok\"] is False and j[\"errors\"][0][\"kind\"]' \"\$out\""

# 3b. Backends: cuda needs a GPU (exit 2 with the reason here); auto falls back
# to the simulator and says so.
if ! ls /dev/nvidia0 >/dev/null 2>&1; then
  "$GPULAB" sim $K --kernel vadd --arg f32[4] --arg f32[4] --arg f32[4] --arg i32=4 --backend cuda >/dev/null 2>"$tmp/err"; rc=$?
  check "--backend cuda without a GPU exits 2 with the reason" "[ $rc = 2 ] && grep -qi 'driver' $tmp/err"
  out=$("$GPULAB" sim $K --kernel vadd --block 32 --arg f32[4]=iota --arg f32[4]=iota --arg f32[4] --arg i32=4 --backend auto --json 2>"$tmp/err"); rc=$?
  check "--backend auto falls back to the simulator and says so" "[ $rc = 0 ] && grep -q 'simulating' $tmp/err && python3 -c 'import json,sys; assert json.loads(sys.argv[1])[\"backend\"]==\"sim\"' \"\$out\""
fi

# 4. A kernel that writes past its buffer faults: exit 1, error with a source line.
out=$("$GPULAB" sim $K --kernel past_end --grid 1 --block 64 --arg i32[32] --arg i32=32 --check --json); rc=$?
check "out-of-bounds exits 1" "[ $rc = 1 ]"
check "out-of-bounds names kind and line" "python3 -c '
import json,sys; j=json.loads(sys.argv[1]); e=j[\"errors\"][0]
assert j[\"ok\"] is False and e[\"kind\"]==\"out-of-bounds\" and e[\"line\"]==10, e' \"\$out\""

echo "sim.sh: $passes passed, $fails failed"
[ $fails = 0 ]
