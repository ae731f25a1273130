#!/usr/bin/env bash
# tests/cli/visual_state.sh GPULAB: what the visual lab shows, read back from
# `--state FILE.json` (the numbers and names the frame printed) beside a
# picture rendered under Xvfb:
#  - a lesson view runs and names the lesson's own kernel (lesson 03: gemm_coalesced);
#  - a broadcast (32 lanes, one address) reads ideal 1 sector, no waste, and
#    its shared-memory twin one 32-lane word with no conflict;
#  - the text height follows --scale;
#  - the demo moves on to the next kernel within its timer;
#  - a shared atomic of 32 lanes on one word is drawn serialised (32
#    wavefronts, as the simulator counts them; no lane shares a box), not as
#    a broadcast.
set -euo pipefail
GPULAB=${1:?usage: visual_state.sh path/to/gpulab}
source "$(dirname "$0")/visual_common.sh"
XVFB=(xvfb 1280x720)
# get FILE KEY.PATH: a value of the state JSON ("" when absent).

# 1. `gpulab view 03` opens lesson 03 at its first "measure" step, runs that
#    step's kernel (the shipped template) and prints the step's numbers.
"${XVFB[@]}" "$GPULAB" view 03 --size 1280x720 --screenshot "$T/l03.png" --state "$T/l03.json" --frames 3 >/dev/null
check "lesson 03's id" "$(get "$T/l03.json" lesson.id)" "03-coalescing"
check "lesson 03's kernel on screen" "$(get "$T/l03.json" kernel.name)" "gemm_coalesced"
check "lesson 03's step runs it" "$(get "$T/l03.json" kernel.lesson_step)" "$(get "$T/l03.json" lesson.step)"
check "lesson 03's panes" "$(get "$T/l03.json" layout.panes)" "coalescing,source"
check "the uncoalesced load on screen: sectors" "$(get "$T/l03.json" coalescing.sectors)" "32"

# 1b. A text-only step (lesson 09's last, in a lesson whose other steps run
#     kernels) is its text, full window, and its picture is taken at once
#     (it waited for a kernel that never came).
"${XVFB[@]}" "$GPULAB" view 09 --step 14 --size 1280x720 --screenshot "$T/l09.png" --state "$T/l09.json" \
  --shot-after 1 >/dev/null || { echo "FAIL: a text-only step's picture did not finish"; fail=1; }
check "a text-only step: its text alone" "$(get "$T/l09.json" layout.story_only)" "True"

# 2. Broadcast: every lane reads in[0] (global) and s[0] (shared).
cat > "$T/bcast.cu" <<'CU'
extern "C" __global__ void bcast(const float* in, float* out) {
  __shared__ float s[32];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[0];         // the last shared access: 32 lanes, one word (a broadcast)
  float g = in[0];                 // the last global access: 32 lanes, one address
  if (g == 12345.f) out[0] = g;    // keeps the load (in[0] is 0: never taken)
}
CU
run_bcast() {
  "${XVFB[@]}" "$GPULAB" view "$T/bcast.cu" --kernel bcast --grid 1 --block 32 --arg "f32[32]=iota" --arg "f32[32]" \
    --panel "$1" --at 1 --size 1280x720 --screenshot "$T/$1.png" --state "$T/$1.json" --frames 3 >/dev/null
}
run_bcast coalescing
check "broadcast load: ideal sectors" "$(get "$T/coalescing.json" coalescing.ideal_sectors)" "1"
check "broadcast load: waste" "$(get "$T/coalescing.json" coalescing.waste_sectors)" "0"
run_bcast banks
check "shared broadcast: conflicts" "$(get "$T/banks.json" banks.conflicts)" "0"
check "shared broadcast: lanes sharing one word" "$(get "$T/banks.json" banks.most_lanes_per_word)" "32"

# 3. --scale 2 doubles the text height.
for s in 1 2; do
  "${XVFB[@]}" "$GPULAB" view --n 32 --panel source --scale $s --size 1280x720 --screenshot "$T/s$s.png" \
    --state "$T/s$s.json" --frames 2 >/dev/null
done
h1=$(get "$T/s1.json" window.text_height); h2=$(get "$T/s2.json" window.text_height)
python3 -c "import sys; r=$h2/$h1; sys.exit(0 if 1.8<=r<=2.2 else 1)" && echo "ok: text height $h1 -> $h2 px" \
  || { echo "FAIL: --scale 2 gave text height $h1 -> $h2"; fail=1; }
# The full layout folds as the text grows: six tiles, then the lesson and
# launch column beside one tabbed pane, then one tabbed pane (no control cut).
for s in 1 1.5 2; do
  "${XVFB[@]}" "$GPULAB" view --n 32 --scale $s --size 1280x720 --screenshot "$T/f$s.png" \
    --state "$T/f$s.json" --frames 2 >/dev/null
done
check "the six tiles at --scale 1" "$(get "$T/f1.json" layout.panes)" "all"
check "two columns at --scale 1.5" "$(get "$T/f1.5.json" layout.panes)" "all,two-columns"
check "one tabbed pane at --scale 2" "$(get "$T/f2.json" layout.panes)" "all,tabs"

# 4. The demo's timer moves it on: a 30-second script of 9 kernels gives each
#    3.3 s (4 beats of under a second); 15 s after the first trace it is past
#    the first kernel. (The clock advances at most one beat per frame, so a
#    UI starved of CPU for seconds per frame would lag; 15 s leaves room.)
"${XVFB[@]}" "$GPULAB" demo --minutes 0.5 --n 32 --predict 128 --size 1280x720 --screenshot "$T/demo.png" --state "$T/demo.json" \
  --shot-after 15 >/dev/null
k=$(get "$T/demo.json" demo.kernel_index)
[ "${k:-0}" -ge 1 ] && echo "ok: demo at kernel $((k + 1)) ($(get "$T/demo.json" demo.kernel)) after 15 s" \
  || { echo "FAIL: demo still on its first kernel after 15 s (state: $(head -c 400 "$T/demo.json"))"; fail=1; }

# 4b. The whole demo: it opens on CPU against GPU, ends on the whole
#     progression (chart and roofline), and its end is the picture taken;
#     --pictures writes each beat's picture and the list of them on the way.
mkdir -p "$T/beats"
"${XVFB[@]}" "$GPULAB" demo --minutes 0.2 --n 32 --predict 128 --size 1280x720 --screenshot "$T/demo_end.png" \
  --state "$T/demo_end.json" --shot-after 300 --pictures "$T/beats" >/dev/null
python3 - "$T/beats" <<'PY' || fail=1
import os, sys
d = sys.argv[1]
lines = open(os.path.join(d, "beats.txt")).read().splitlines()
pngs = sorted(f for f in os.listdir(d) if f.endswith(".png"))
# the opening, 9 kernels of at least 2 beats (overview, any moments, cycles), the close
if len(lines) < 2 + 9 * 2 or len(pngs) != len(lines):
    print(f"FAIL: --pictures wrote {len(pngs)} pictures and {len(lines)} lines"); sys.exit(1)
if "Why GPUs?" not in lines[0] or "The whole progression" not in lines[-1]:
    print(f"FAIL: --pictures: first {lines[0]!r}, last {lines[-1]!r}"); sys.exit(1)
# the replay is small (so that it steps): its idle SMs are not the lecture's point
idle = [l for l in lines if "nothing to do at this size" in l or "GPU at its fullest" in l]
if idle:
    print(f"FAIL: the demo shows the small replay's idle SMs: {idle[0]!r}"); sys.exit(1)
print(f"ok: --pictures: {len(pngs)} beats, from {lines[0][:40]!r} to {lines[-1][:40]!r}")
PY
st=$(get "$T/demo_end.json" demo.stage); fin=$(get "$T/demo_end.json" demo.finished); panes=$(get "$T/demo_end.json" layout.panes)
[ "$st" = closing ] && [ "$fin" = True ] && [ "$panes" = "comparison,roofline" ] && echo "ok: the demo ends on the whole progression ($panes)" \
  || { echo "FAIL: demo end: stage '$st', finished '$fin', panes '$panes'"; fail=1; }

# 4c. The projector layout on the progression (issue 28: --projector was
#     ignored there): two large panes, text at least 3% of the height.
"${XVFB[@]}" "$GPULAB" view --projector --size 1920x1080 --screenshot "$T/proj.png" --state "$T/proj.json" --frames 3 >/dev/null
check "--projector on the progression: its panes" "$(get "$T/proj.json" layout.panes)" "sm,source"
python3 -c "import sys; sys.exit(0 if $(get "$T/proj.json" window.text_height) / $(get "$T/proj.json" window.height) >= 0.03 else 1)" \
  && echo "ok: projector text $(get "$T/proj.json" window.text_height) px of $(get "$T/proj.json" window.height)" \
  || { echo "FAIL: projector text $(get "$T/proj.json" window.text_height) px of $(get "$T/proj.json" window.height): under 3%"; fail=1; }

# 5. Same-address shared atomics serialise: the banks pane draws 32 updates in bank 0, one per wavefront.
cat > "$T/atom.cu" <<'CU'
extern "C" __global__ void count_same(int* out) {
  __shared__ int counter;
  if (threadIdx.x == 0) counter = 0;
  __syncthreads();
  atomicAdd(&counter, 1);  // all 32 lanes update one word
  __syncthreads();
  if (threadIdx.x == 0) out[0] = counter;
}
CU
"${XVFB[@]}" "$GPULAB" view "$T/atom.cu" --kernel count_same --grid 1 --block 32 --arg "i32[1]" --panel banks \
  --at 0.6 --size 1280x720 --screenshot "$T/atom.png" --state "$T/atom.json" --frames 3 >/dev/null
check "the atomic on screen" "$(get "$T/atom.json" banks.atomic)" "True"
check "its wavefronts (the simulator's count)" "$(get "$T/atom.json" banks.wavefronts)" "32"
check "no lanes share a box (no broadcast)" "$(get "$T/atom.json" banks.most_lanes_per_word)" "1"
check "one bank conflicted" "$(get "$T/atom.json" banks.conflicted_banks)" "1"
exit $fail
