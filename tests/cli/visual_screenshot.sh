#!/usr/bin/env bash
# tests/cli/visual_screenshot.sh GPULAB: the visual lab as a student sees it,
# rendered under Xvfb and checked pixel by pixel.
#  - the full layout renders at 1600x900;
#  - the SM grid shows exactly the GPU model's SM count (H100: 132, T4: 40);
#  - a 256^3 run is watched live (no trace) and still draws every SM;
#  - the bank view of a 32-way conflict highlights exactly one bank.
# The bootstrap installs xvfb; a missing Xvfb is a failure, not a skip.
set -euo pipefail
GPULAB=${1:?usage: visual_screenshot.sh path/to/gpulab}
if ! "$GPULAB" view --help | grep -q -- --screenshot; then echo "FAIL: gpulab view has no --screenshot"; exit 1; fi
source "$(dirname "$0")/visual_common.sh"
XVFB=(xvfb 1600x900)

# 1. The whole lab on the GEMM progression.
"${XVFB[@]}" "$GPULAB" view --n 64 --screenshot "$T/all.png" --frames 5 --at 0.4
check "full layout size" "$($PIX "$T/all.png" size)" "1600 900"
d=$($PIX "$T/all.png" distinct)
[ "$d" -gt 20 ] && echo "ok: layout has $d colours" || { echo "FAIL: layout looks blank ($d colours)"; fail=1; }

# 2. One SM header strip (colour 52,84,130) per SM of the model.
for spec in H100:132 T4:40; do
  gpu=${spec%%:*}; want=${spec##*:}
  "${XVFB[@]}" "$GPULAB" view --n 64 --gpu "$gpu" --panel sm --screenshot "$T/sm_$gpu.png" --frames 3
  check "SM grid on $gpu" "$($PIX "$T/sm_$gpu.png" components 52 84 130)" "$want"
done

# 3. A run above 128^3 is watched live: the simulator's time is printed, the
#    SM grid still shows every SM, and the trace's stepping is not offered.
out=$("${XVFB[@]}" "$GPULAB" view --n 256 --panel sm --sim-time --screenshot "$T/live.png" --frames 3)
grep -q "256^3 on H100 in .* s (live view" <<<"$out" && echo "ok: 256^3 runs live" || { echo "FAIL: 256^3 did not run live: $out"; fail=1; }
check "SM grid of a live run" "$($PIX "$T/live.png" components 52 84 130)" "132"

# 4. A 32-way bank conflict: every lane reads column 0 of a 32x32 float tile.
cat > "$T/conflict.cu" <<'CU'
extern "C" __global__ void column_read(float* out) {
  __shared__ float tile[32][32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) tile[i / 32][i % 32] = float(i);
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][0];  // lane l reads word 32*l: all in bank 0
}
CU
"${XVFB[@]}" "$GPULAB" view "$T/conflict.cu" --kernel column_read --grid 1 --block 32 --arg "f32[32]" \
  --panel banks --at 1 --screenshot "$T/banks.png" --frames 3
check "banks highlighted in a 32-way conflict" "$($PIX "$T/banks.png" columns 255 40 40)" "1"

# 5. A kernel that does not compile: the window shows nvcc's words, and the
#    exit status says so too (2, as `gpulab sim` gives), with the message on
#    stderr (issue 29: it exited 0).
printf 'extern "C" __global__ void k(float* x) { x[0] = undefined_thing; }\n' > "$T/bad.cu"
rc=0
"${XVFB[@]}" "$GPULAB" view "$T/bad.cu" --kernel k --grid 1 --block 32 --arg "f32[32]" \
  --screenshot "$T/bad.png" --frames 2 >/dev/null 2>"$T/bad.err" || rc=$?
check "a compile error: exit status" "$rc" "2"
grep -q 'undefined_thing.*is undefined' "$T/bad.err" && echo "ok: the compile error on stderr" \
  || { echo "FAIL: no compile error on stderr: $(head -3 "$T/bad.err")"; fail=1; }

# 6. A lesson step that runs no kernel, opened first (03's step 1): the
#    screenshot is taken, showing the step (issue 28: it never finished).
rc=0
"${XVFB[@]}" timeout 120 "$GPULAB" view 03 --step 1 --screenshot "$T/step.png" --state "$T/step.json" \
  --frames 2 >/dev/null 2>&1 || rc=$?
check "a step with no kernel: the screenshot finishes" "$rc" "0"
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['lesson']['step_title'])" "$T/step.json" \
  >"$T/step.title" 2>&1 || true
check "a step with no kernel: its step on screen" "$(cat "$T/step.title")" "Why the mapping of threads to data matters"

# 6b. A step whose command is `gpulab sim ...` shows that launch (issue 28:
#     lesson 02's divergence kernels were never shown): 02's step 3 runs
#     branch_by_lane on 4 blocks of 256 threads.
"${XVFB[@]}" timeout 120 "$GPULAB" view 02 --step 3 --screenshot "$T/sim.png" --state "$T/sim.json" \
  --frames 2 >/dev/null 2>&1 || true
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); k=s['kernel']; print(k['name'], k['problem'], s['playback']['status'] or 'clean')" \
  "$T/sim.json" >"$T/sim.txt" 2>&1 || true
check "lesson 02 step 3: its gpulab sim launch on screen" "$(cat "$T/sim.txt")" "branch_by_lane grid 4,1,1, block 256,1,1 clean"

# 6c. Lesson 01 honours --step too (issue 28: it opened the progression at
#     step 1): its step 7 runs vector_add on 4 blocks of 256 threads.
"${XVFB[@]}" timeout 120 "$GPULAB" view 01 --step 7 --screenshot "$T/l01.png" --state "$T/l01.json" \
  --frames 2 >/dev/null 2>&1 || true
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); k=s['kernel']; print(k['name'], k['problem'], s['playback']['status'] or 'clean')" \
  "$T/l01.json" >"$T/l01.txt" 2>&1 || true
check "lesson 01 step 7: its gpulab sim launch on screen" "$(cat "$T/l01.txt")" "vector_add grid 4,1,1, block 256,1,1 clean"

# 6d. Lesson 07's batch step draws the layer's roofline bound at each batch
#     (issue 28: the batch roofline was not drawn), the numbers `gpulab
#     lesson 07` prints: B=1 at 1.0 FLOP/byte, B=4096 on the tensor peak.
"${XVFB[@]}" timeout 120 "$GPULAB" view 07 --step 2 --screenshot "$T/l07.png" --state "$T/l07.json" \
  --frames 2 >/dev/null 2>&1 || true
python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['roofline']; p=r['points']
print(int(r['point_count']), sorted(p), round(p['B=1']['intensity'], 1), round(p['B=4096']['gflops'] / 1e3))" \
  "$T/l07.json" >"$T/l07.txt" 2>&1 || true
check "lesson 07 step 2: the batch roofline" "$(cat "$T/l07.txt")" "5 ['B=1', 'B=4096', 'B=512', 'B=64', 'B=8'] 1.0 989"

# 6e. Lesson 10's train step runs `gpulab train --steps 5 --json` and draws
#     its CPU step, measured, beside its GPU step, predicted (issue 28: the
#     comparison was not in the view, and the comparison pane wrote no state).
"${XVFB[@]}" timeout 120 "$GPULAB" view 10 --step 2 --screenshot "$T/l10.png" --state "$T/l10.json" \
  --frames 2 >/dev/null 2>&1 || true
python3 -c "
import json,sys; c=json.load(open(sys.argv[1]))['comparison']; b=c['bars']
print(int(c['bar_count']), sorted(b), b['GPU step']['predicted'], b['CPU step']['predicted'], 'gpulab train --steps 5' in c['problem'])" \
  "$T/l10.json" >"$T/l10.txt" 2>&1 || true
check "lesson 10 step 2: CPU step beside GPU step" "$(cat "$T/l10.txt")" "4 ['CPU GEMMs', 'CPU step', 'GPU GEMMs', 'GPU step'] True False True"

# 6f. A before/after step (lesson 04's padding, [steps.compare]) draws both
#     times, the speed-up against the lesson's range and the counters behind
#     it, beside the step's own panes (issue 25: printed, never drawn).
"${XVFB[@]}" timeout 180 "$GPULAB" view 04 --step 4 --screenshot "$T/ba.png" --state "$T/ba.json" \
  --frames 2 >/dev/null 2>&1 || true
python3 -c "
import json,sys; j=json.load(open(sys.argv[1])); c=j['comparison']; b=c['bars']
s=b['tile[32][32]']['seconds']/b['tile[32][33]']['seconds']
print(j['layout']['panes'], int(c['bar_count']), abs(s-c['speedup'])<1e-9, 1.3<=c['speedup']<=4.0, c['agrees'],
      c['counters']['bank conflicts']['after'], c['counters']['bank conflicts']['before']>1e7)" \
  "$T/ba.json" >"$T/ba.txt" 2>&1 || true
check "lesson 04 step 4: the before/after drawn" "$(cat "$T/ba.txt")" "banks,comparison 2 True True True 0.0 True"

# 7. Lesson 09's histogram step: the view fills the integer input as the
#    check does (values 0..15), so the shipped kernel runs clean (issue 28:
#    values over the whole int range wrote out of bounds).
"${XVFB[@]}" timeout 120 "$GPULAB" view 09 --step 12 --screenshot "$T/hist.png" --state "$T/hist.json" \
  --frames 2 >/dev/null 2>&1 || true
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['playback']['status'] or 'clean')" "$T/hist.json" \
  >"$T/hist.status" 2>&1 || true
check "lesson 09's histogram step runs clean" "$(cat "$T/hist.status")" "clean"

# 8. Lesson 05's `gpulab occupancy` steps drive the calculator with the
#    command's numbers (issue 28: they opened an empty lab): step 2 asks for
#    256 threads, 128 registers, 8 KB; `gpulab occupancy` says 16 of 64 warps.
"${XVFB[@]}" timeout 120 "$GPULAB" view 05 --step 2 --screenshot "$T/occ.png" --state "$T/occ.json" \
  --frames 3 >/dev/null 2>&1 || true
python3 -c "import json,sys; o=json.load(open(sys.argv[1]))['occupancy']; print(int(o['block_threads']), int(o['registers']), int(o['shared_bytes']), int(o['warps_per_sm']), o['limiter'])" \
  "$T/occ.json" >"$T/occ.txt" 2>&1 || true
want_warps=$("$GPULAB" occupancy --gpu H100 --block 256 --regs 128 --smem 8192 | sed -n 's/.*(\([0-9]*\) of 64 warps per SM).*/\1/p')
check "lesson 05 step 2: the calculator at the step's command" "$(cat "$T/occ.txt")" "256 128 8192 $want_warps registers"
exit $fail
