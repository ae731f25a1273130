#!/usr/bin/env bash
# `gpulab run`: whole CUDA programs built with nvcc against the lab's runtime
# (docs/run.md): the examples, a program with streams and events, assert,
# printf, cooperative groups, an unserved call, --check, --report, --json;
# and the same device code through `gpulab sim`.
set -u
GPULAB=${1:?usage: run.sh path/to/gpulab}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export GPULAB_CACHE="${GPULAB_CACHE:-$tmp/cache}"
fails=0; passes=0
check() { if eval "$2"; then passes=$((passes+1)); else echo "FAIL: $1"; fails=$((fails+1)); fi; }
run() { "$GPULAB" run "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
has() { grep -qF -- "$2" "$tmp/$1"; }

# 1. The examples: built, run, verified by their own main().
run examples/vector_add.cu
check "vector_add exits 0" "[ $rc = 0 ]"
check "vector_add verifies" "has out PASSED"
check "event time is labelled a prediction" "has err PREDICTED"
check "host time noted once beside the predicted timeline" "[ \$(grep -c 'of host time to simulate 1 launch;' $tmp/err) = 1 ]"
run examples/vector_add.cu -- 1000
check "program arguments after --" "has out 'n = 1000,' && [ $rc = 0 ]"
run examples/reduction.cu
check "reduction passes" "[ $rc = 0 ] && has out PASSED"
run examples/matmul_tiled.cu --report -- 64
check "matmul_tiled passes" "[ $rc = 0 ] && has out PASSED"
check "--report has a row per launch" "has out matmul_naive && has out matmul_tiled && has out 'PREDICTIONS'"
# Hopper's TMA: the driver's cuTensorMapEncodeTiled served by the lab, the
# boxes copied (zero-filled past the edges) and checked by the program.
run examples/tma_tile_copy.cu -l cuda -- 100 136
check "tma_tile_copy passes (cuTensorMapEncodeTiled, cp.async.bulk.tensor)" "[ $rc = 0 ] && has out PASSED"

# 2. --json: the program's output and every launch with the sim's metrics.
"$GPULAB" run examples/matmul_tiled.cu --json -- 64 >"$tmp/j" 2>/dev/null; rc=$?
check "--json exits 0" "[ $rc = 0 ]"
check "--json fields" "python3 -c '
import json,sys; j=json.load(open(sys.argv[1]))
assert j[\"ok\"] is True and j[\"exit_code\"]==0 and j[\"gpu\"]==\"H100\" and \"PASSED\" in j[\"output\"]
L=j[\"launches\"]; assert [l[\"kernel\"] for l in L]==[\"matmul_naive\",\"matmul_tiled\"], L
assert L[0][\"grid\"]==[4,4,1] and L[0][\"block\"]==[16,16,1]
for l in L: assert l[\"predicted\"][\"time_ms\"]>0 and l[\"predicted\"][\"label\"]==\"prediction\" and l[\"metrics\"][\"warp_instructions\"]>0
# tiling: each global element loaded once per tile instead of once per use
assert L[1][\"metrics\"][\"global_load_requests\"] < L[0][\"metrics\"][\"global_load_requests\"]/4, L
assert L[1][\"metrics\"][\"shared_load_requests\"] > 0 and L[0][\"metrics\"][\"shared_load_requests\"]==0
' $tmp/j"

# 3. Several kernels, two streams, events, __constant__ and __device__ symbols, opt-in shared memory.
run tests/run/streams_events.cu --gpu A100
check "streams_events passes" "[ $rc = 0 ] && has out PASSED"
check "the device is the --gpu model" "has out 'A100' && has out '108 SMs, cc 8.0'"
check ">48 KB dynamic shared memory needs the attribute" "has out 'without opt-in: cudaErrorInvalidValue' && has err cudaFuncSetAttribute"
check "__device__ counter from every launch" "has out 'launches seen on the device: 3'"
run tests/run/mem_info.cu
check "cudaMemGetInfo counts live cudaMalloc bytes" "[ $rc = 0 ] && has out 'used 4000 freed 4000'"

# 4. assert: file, line, block, thread, expression; cudaErrorAssert, sticky.
run tests/run/device_assert.cu
check "a failed assert fails the run" "[ $rc = 1 ]"
check "the program sees cudaErrorAssert, sticky" "has out 'after the launch: cudaErrorAssert' && has out 'next call: cudaErrorAssert'"
check "the assert names file, line, expression, block, thread" "has err 'device_assert.cu:11' && has err 'Assertion \`v[i] >= 0\` failed' && has err 'block 0,0,0 thread 77,0,0' && has err 'check_positive'"

# 5. printf: per thread in warp order, after the host's output, at synchronisation.
run tests/run/device_printf.cu
check "printf exits 0" "[ $rc = 0 ]"
check "printf order and formats" "python3 -c '
import sys; lines=open(sys.argv[1]).read().splitlines()
want=[\"host: before synchronize\"]
for b in range(2):
  for t in (0,16,32,48):
    want.append(\"block %d thread %2d: tag=7 x=%.2f hex=%x %s %c %d\" % (b,t,t*0.5,255+t,\"warp0\" if t<32 else \"warp1\",chr(65+t//16),t*10000000000))
want.append(\"host: after synchronize\")
assert lines==want, (lines, want)
' $tmp/out"

# 6. Cooperative groups (tiles of one and two warps, cg::reduce).
run tests/run/cg_reduce.cu
check "cooperative groups compile and run" "[ $rc = 0 ] && has out PASSED"

# cuda::barrier + cuda::memcpy_async and cuda::pipeline: mbarrier objects and
# the asynchronous copies that arrive on them, on sm_90 (H100, cp.async.bulk)
# and sm_80 (A100, cp.async.mbarrier.arrive).
run tests/run/barrier_pipeline.cu
check "cuda::barrier and cuda::pipeline on H100" "[ $rc = 0 ] && has out 'barrier and pipeline: PASSED'"
run tests/run/barrier_pipeline.cu --gpu A100 --check
check "cuda::barrier and cuda::pipeline on A100, clean under --check" "[ $rc = 0 ] && has out 'barrier and pipeline: PASSED'"

# 6b. A block's warps advance together, as on hardware: a shared slot read right
# after a barrier and rewritten by a warp's next row without one (the shape of
# llm.c's softmax_autoregressive_backward_kernel) reads the right values, and
# --check still names the race (lab/sim/launch.cpp, kQuantum).
run tests/run/warp_interleave.cu
check "warps interleave: a slot read after a barrier is not overwritten first" "[ $rc = 0 ] && has out PASSED"
run tests/run/warp_interleave.cu --check
check "--check reports that race" "has err 'race: shared-memory' && has err slot"

run tests/run/two_files_main.cu tests/run/two_files_kernels.cu
check "a program in two files, each with kernels and __device__ variables" "[ $rc = 0 ] && has out 'x[0] = 1010: PASSED'"

# 7. A runtime call the lab does not serve is named, nothing runs.
run tests/run/unserved.cu
check "unserved call: exit 2, named" "[ $rc = 2 ] && has err cudaIpcGetMemHandle && has err 'does not serve'"

# 7a. The build scan names every missing symbol by who would define it (issue 30).
cat > "$tmp/driver_api.cu" <<'CU'
#include <cuda.h>
int main() { return cuInit(0) == CUDA_SUCCESS ? 0 : 1; }
CU
run "$tmp/driver_api.cu"
check "a driver API call: exit 2, named as the driver API" "[ $rc = 2 ] && has err cuInit && has err 'CUDA driver API'"
cat > "$tmp/missing_lib.cu" <<'CU'
extern "C" int omp_get_num_procs();
int main() { return omp_get_num_procs() > 0 ? 0 : 1; }
CU
run "$tmp/missing_lib.cu"
check "a symbol of a library not given: exit 2, named, with -l" "[ $rc = 2 ] && has err omp_get_num_procs && has err 'with -l'"
run "$tmp/missing_lib.cu" -l gomp
check "-l gomp links it" "[ $rc = 0 ]"

# 7b. The runtime beyond the basics (issue 30): attributes, managed memory,
# pools, registered memory, flags, limits, priorities, host functions, 2D
# memory, pointer attributes; graphs by capture and by nodes.
run tests/run/runtime_calls.cu
check "runtime calls: every check passes" "[ $rc = 0 ] && has out PASSED && ! has out FAIL"
run tests/run/graphs.cu --report
check "graphs: capture and nodes replay right" "[ $rc = 0 ] && has out PASSED && ! has out FAIL"
check "graphs: each replayed kernel is a launch in the report (3 replays x 3 + 1)" "[ \$(grep -cE '^ +[0-9]+ +(scale|add) ' $tmp/out) = 10 ]"
# Cooperative launches: grid.sync() across every block, the resident limit,
# a sync some blocks skip reported (not spun on), grid.sync() in a <<<>>> launch.
run tests/run/cooperative_grid.cu --report
check "cooperative grid: three phases across grid.sync() right" "[ $rc = 0 ] && has out PASSED && ! has out FAIL"
check "cooperative grid: the occupancy calculator's grid, one block more refused" "has out 'grid: 1056 blocks (8 per SM x 132 SMs)' && has err 'cudaErrorCooperativeLaunchTooLarge'"
run tests/run/cooperative_grid.cu -- deadlock
check "cooperative grid: a grid.sync() half the blocks skip is a hang at that line" "[ $rc = 1 ] && has err 'cooperative_grid.cu:58: hang: the cooperative grid cannot go on: 2 of its 4 blocks wait' && has out 'synchronize: cudaErrorLaunchTimeout'"
run tests/run/cooperative_grid.cu -- plain
check "grid.sync() in a <<<>>> launch traps, as on a GPU" "[ $rc = 1 ] && has err 'executed trap' && has out 'synchronize: cudaErrorLaunchFailure'"
# Managed memory is the host's to touch; cudaMalloc memory still is not.
run tests/run/managed_after_free.cu
check "managed memory: the host's until cudaFree, a crash after" "[ $rc = 1 ] && has out 'before cudaFree: 42' && ! has out 'the lab let the host'"
run tests/run/host_deref.cu
check "host dereference of device memory crashes, with the likely cause" "[ $rc = 1 ] && has out 'reading device memory' && ! has out 'the lab let the host' && has err cudaMallocManaged"

# 8. --check runs the kernel checks on every launch and names the launch.
run tests/run/oob.cu
check "without --check the guard gap hides it (as on a GPU)" "[ $rc = 0 ] && has out 'synchronize: cudaSuccess'"
run tests/run/oob.cu --check
check "--check: exit 1, the second launch named" "[ $rc = 1 ] && has err 'launch #2 fill<<<(2,1,1), (64,1,1)>>>' && has err 'oob.cu:8' && has err out-of-bounds"
check "--check: the program sees cudaErrorIllegalAddress" "has out 'synchronize: cudaErrorIllegalAddress'"
check "the first launch is not blamed" "! grep -q 'launch #1' $tmp/err"
run tests/run/use_after_free.cu
check "a kernel reading a freed buffer: unnoticed without --check" "[ $rc = 0 ] && has out 'synchronize: cudaSuccess'"
run tests/run/use_after_free.cu --check
check "--check: the use after free named at the kernel's line" "[ $rc = 1 ] && has err 'use_after_free.cu:9' && has err 'use after free' && has err 'cudaFree released'"

# 9. The same device code through `gpulab sim`.
K=tests/kernels/device_calls.cu
"$GPULAB" sim $K --kernel assert_nonneg --grid 2 --block 64 --arg i32[128]=iota --arg i32=128 --json >"$tmp/s" 2>&1; rc=$?
check "sim: a file with assert is accepted; no failing assert -> 0" "[ $rc = 0 ]"
python3 -c 'import struct; v=list(range(128)); v[70]=-5; open("'$tmp'/neg.bin","wb").write(struct.pack("128i",*v))'
"$GPULAB" sim $K --kernel assert_nonneg --grid 2 --block 64 --arg "i32[]=@$tmp/neg.bin" --arg i32=128 --json >"$tmp/s" 2>&1; rc=$?
check "sim: failing assert -> exit 1, kind assert at its line, block 1 thread 6" "[ $rc = 1 ] && python3 -c '
import json,sys; j=json.load(open(sys.argv[1])); e=j[\"errors\"][0]
assert e[\"kind\"]==\"assert\" and e[\"line\"]==12 and e[\"block\"]==[1,0,0] and e[\"thread\"]==[6,0,0], e
assert \"v[i] >= 0\" in e[\"message\"], e
' $tmp/s"
"$GPULAB" sim $K --kernel say --grid 2 --block 16 --arg i32=3 >"$tmp/s" 2>&1; rc=$?
check "sim: printf in warp order" "[ $rc = 0 ] && [ \"\$(head -4 $tmp/s | tr '\n' '|')\" = 'b0 t0 tag 3|b0 t8 tag 3|b1 t0 tag 3|b1 t8 tag 3|' ]"
"$GPULAB" sim $K --kernel pair_sums --grid 2 --block 128 --arg i32[256]=iota --arg i32[4] --dump "$tmp/d" >"$tmp/s" 2>&1; rc=$?
check "sim: cg::reduce over 64-thread tiles" "[ $rc = 0 ] && python3 -c '
import struct,sys; o=struct.unpack(\"4i\",open(sys.argv[1],\"rb\").read())
assert list(o)==[sum(range(64*k,64*k+64)) for k in range(4)], o
' $tmp/d/arg1.bin"

# 9b. --gpus 1 given: the device table lesson 11's README cites, printed (issue 25: it was in the JSON only);
# a plain run prints none.
run examples/vector_add.cu --gpus 1
check "--gpus 1: the one GPU's predicted time and memory printed" "[ $rc = 0 ] && has out '1 simulated GPU; times are PREDICTIONS' && has out 'peak bytes'"
run examples/vector_add.cu
check "no --gpus: no device table" "[ $rc = 0 ] && ! has out 'simulated GPU'"

# 10. A binary given as the program: one sentence, not nvcc's diagnostic per byte (issue 29).
cp "$(command -v ls)" "$tmp/renamed.cu"
"$GPULAB" run "$tmp/renamed.cu" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "a renamed ELF file: exit 2, a sentence naming it, short" "[ $rc = 2 ] && has err 'renamed.cu: an ELF file' && [ \$(wc -c < $tmp/err) -lt 1000 ]"

# 11. SIGTERM to gpulab run stops the program too, and leaves no report file (issue 29).
cat > "$tmp/sleepy_prog.cu" <<'CU'
#include <unistd.h>
int main() { for (int i = 0; i < 120; ++i) sleep(1); return 0; }
CU
"$GPULAB" run "$tmp/sleepy_prog.cu" >"$tmp/out" 2>"$tmp/err" &
runner=$!
for _ in $(seq 1 120); do pgrep -f "/sleepy_prog( |$)" >/dev/null && break; sleep 0.5; done
started=$(pgrep -f "/sleepy_prog( |$)" | head -1)
kill -TERM $runner; wait $runner; rc=$?
sleep 0.5
check "SIGTERM: the program had started" "[ -n \"$started\" ]"
check "SIGTERM: gpulab run ends by the signal, the program with it" "[ $rc = 143 ] && ! kill -0 $started 2>/dev/null && has err 'stopped by signal 15'"

# 12. A program check stopped mid-run leaves no temporary file behind (issue 29).
before=$(ls /tmp/gpulab-check-* 2>/dev/null)
"$GPULAB" check 11-many-gpus/ring --solution >/dev/null 2>&1 &
checker=$!
seen=""
for _ in $(seq 1 200); do
  seen=$(comm -13 <(echo "$before") <(ls /tmp/gpulab-check-* 2>/dev/null) | head -1)
  [ -n "$seen" ] && break
  sleep 0.1
done
kill -TERM $checker 2>/dev/null; wait $checker 2>/dev/null
sleep 0.5
check "a killed check: its temporary file was made, then removed" "[ -n \"$seen\" ] && [ ! -e \"$seen\" ]"

echo "run.sh: $passes passed, $fails failed"
[ $fails = 0 ]
