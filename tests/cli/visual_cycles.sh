#!/usr/bin/env bash
# tests/cli/visual_cycles.sh GPULAB: the SM grid and the block view drawn from
# the cycle model's cycles (issue 15, item 4), read back from `--state` and
# from the pixels under Xvfb. The case a new user tried: 01_naive's block
# view at --at 0.13 showed warps "(not started)" coloured as issuing, because
# the interpreter replays a block's warps one after another. Now:
#  - the block view's time base is the cycle model, at a cycle (--at: 10% of
#    the drawn SM's cycles, a moment some warp issues at: since the model
#    times the k loop as ptxas unrolls it, eight loads a warp leave at once
#    and the block spends long stretches throttled on the LSU queue, as at
#    13%), and names that cycle;
#  - at that cycle the block's warps are in at least two different states,
#    and some warp waits with an Nsight stall reason (counted by reason);
#  - at one cycle at most one warp per scheduler is drawn issuing (4 per SM);
#  - the SM grid draws both sides (1 block per SM, the occupancy limit) at
#    the same cycle, per-scheduler issue slots with idle ones counted and
#    painted (the timeline's dark red), and still every SM of the GPU below;
#  - --play moves the shared cycle cursor in both panes.
set -euo pipefail
GPULAB=${1:?usage: visual_cycles.sh path/to/gpulab}
source "$(dirname "$0")/visual_common.sh"

# 1. The block view, as the new user opened it.
xvfb 1280x720 "$GPULAB" view --version 01_naive --panel block --at 0.10 --size 1280x720 \
  --screenshot "$T/block.png" --state "$T/block.json" --frames 3 >/dev/null
B="$T/block.json"
check "block view: time base" "$(get "$B" block.time_base)" "cycle model"
total=$(get "$B" cycles.of)
cyc=$(get "$B" block.cycle)
less "a cycle model run was drawn (cycles)" 1000 "$total"
python3 -c "import sys; c,t=float('$cyc'),float('$total'); sys.exit(0 if abs(c-0.10*t)<=1 else 1)" \
  && echo "ok: --at 0.10 opens at 10% of the cycles ($cyc of $total)" \
  || { echo "FAIL: --at 0.10 opened at cycle $cyc of $total"; fail=1; }
less "the block's warps are in two or more states" 1 "$(get "$B" block.distinct_states)"
waiting=$(get "$B" block.states.waiting)
less "some warp of the block waits" 0 "$waiting"
python3 - "$B" <<'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))["block"]["states"]
waits = s.get("waits", {})
n = sum(waits.values())
if not waits or n != s["waiting"]:
    print(f"FAIL: waiting warps {s['waiting']} not all counted by stall reason: {waits}"); sys.exit(1)
print(f"ok: waiting warps by stall reason: {waits}")
warps = s["issuing"] + s["waiting"] + s["not_resident"] + s["done"]
if warps != 32:
    print(f"FAIL: 01_naive's block has 32 warps, the view counted {warps}"); sys.exit(1)
print("ok: 32 warps, each in one state")
PY
less "a warp issued in the strip of recent cycles" 0 "$(get "$B" block.strip_issues)"

# 2. The SM grid at the same cycle: both sides, issue slots with idle ones, every SM below.
xvfb 1280x720 "$GPULAB" view --version 01_naive --panel sm --at 0.10 --size 1280x720 --warp 5 \
  --screenshot "$T/sm.png" --state "$T/sm.json" --frames 3 >/dev/null
S="$T/sm.json"
check "SM grid: time base" "$(get "$S" sm.time_base)" "cycle model"
check "SM grid: the block view's cycle" "$(get "$S" sm.cycle)" "$cyc"
check "1-block side: blocks resident" "$(get "$S" sm.one.blocks_resident)" "1"
check "full side: blocks resident" "$(get "$S" sm.full.blocks_resident)" "2"
"less" "at most 4 warps issuing at one cycle (full side)" "$(get "$S" sm.full.issuing)" 5
less "idle issue slots counted (1-block side)" 0 "$(get "$S" sm.one.strip_idle)"
less "dark red (idle issue slot) regions painted" 2 "$($PIX "$T/sm.png" components 95 38 38)"
check "every SM of the GPU still drawn below" "$($PIX "$T/sm.png" components 52 84 130)" "132"
# --warp 5 picks warp slot 5 of the 1-block SM: the grid says what it does
# at the cursor and, waiting on a register, whose result and how long ago.
check "picked warp slot" "$(get "$S" sm.one.picked.slot)" "5"
python3 - "$S" <<'PY' || fail=1
import json, sys
p = json.load(open(sys.argv[1]))["sm"]["one"]["picked"]
t = p["text"]
if not t.startswith("warp 5 of block "):
    print(f"FAIL: the picked warp's story: {t!r}"); sys.exit(1)
if p["waited_pc"] >= 0 and not ("It needs the result of" in t and p["cycles_earlier"] > 0):
    print(f"FAIL: waits on instruction {p['waited_pc']} but the story does not say so: {t!r}"); sys.exit(1)
print(f"ok: the picked warp: {t}")
PY

# 2b. One truth on screen: the timeline of a launch names the launch's
#     standard prediction, and it is the number `gpulab sim` gives for the same launch.
LAUNCH=(docs/examples/strided_copy.cu --kernel strided_copy --grid 8 --block 256 --arg "f32[2048]=iota" --arg "f32[2048]"
        --arg i32=8 --arg i32=2048)
xvfb 1280x720 "$GPULAB" view "${LAUNCH[@]}" --panel timeline --size 1280x720 \
  --screenshot "$T/tl.png" --state "$T/tl.json" --frames 3 >/dev/null
"$GPULAB" sim "${LAUNCH[@]}" --json >"$T/sim.json" 2>/dev/null
python3 - "$T/tl.json" "$T/sim.json" <<'PY' || fail=1
import json, sys
view = json.load(open(sys.argv[1]))["timeline"]["standard_time_us"]
sim = json.load(open(sys.argv[2]))["predicted"]["time_ms"] * 1e3
if abs(view - sim) > 1e-6 * max(1.0, sim):
    print(f"FAIL: the timeline names {view} us as the launch's prediction, gpulab sim gives {sim} us"); sys.exit(1)
print(f"ok: the timeline's standard prediction is gpulab sim's ({sim:.4g} us)")
PY

# 3. --play moves the shared cursor.
xvfb 960x540 "$GPULAB" view --version 01_naive --panel block --at 0.10 --size 960x540 --play \
  --screenshot "$T/play.png" --state "$T/play.json" --shot-after 2 >/dev/null
less "the cycle cursor played on" "$cyc" "$(get "$T/play.json" block.cycle)"
exit $fail
