#!/usr/bin/env bash
# tests/cli/visual_timeline.sh GPULAB: the timeline pane (issue 15, item 4),
# one SM cycle by cycle from the cycle model, read back from `--state` and
# from the pixels of its picture under Xvfb:
#  - the same kernel (03_smem_tiled) is timed at 1 block per SM and at the
#    occupancy limit (2 blocks of 32 warps on H100), and the 1-block side
#    uses fewer issue slots (the model's numbers, as printed on screen);
#  - in the cycles shown, the 1-block side has fewer warps resident;
#  - the pane draws waits by stall reason: long_scoreboard waits are
#    counted on screen and painted (many orange regions, not only the legend's);
#  - idle issue slots are painted (the dark red of the legend, in the rows too);
#  - with --play the cursor moves on in cycles.
set -euo pipefail
GPULAB=${1:?usage: visual_timeline.sh path/to/gpulab}
source "$(dirname "$0")/visual_common.sh"

xvfb 1280x720 "$GPULAB" view --version 03_smem_tiled --panel timeline --size 1280x720 \
  --screenshot "$T/tl.png" --state "$T/tl.json" --frames 3 >/dev/null
S="$T/tl.json"
check "timeline ready" "$(get "$S" timeline.status)" "ready"
check "kernel" "$(get "$S" timeline.kernel)" "03_smem_tiled"
check "1-block side: blocks per SM" "$(get "$S" timeline.one.blocks_per_sm)" "1"
check "full side: blocks per SM" "$(get "$S" timeline.full.blocks_per_sm)" "2"
check "1-block side: warps" "$(get "$S" timeline.one.warps)" "32"
check "full side: warps" "$(get "$S" timeline.full.warps)" "64"
less "issue-slot utilisation, 1 block vs full" "$(get "$S" timeline.one.issue_utilisation)" \
  "$(get "$S" timeline.full.issue_utilisation)"
# The view opens in the 1-block side's longest idle stretch: its block has
# retired and the next one not yet started (the block scheduler's rate and
# a slot's 355-cycle turnaround, measured on an H200), so its slots hold no
# warp there while the full side's other block keeps its warps. (Its issue
# slots are not the measure: on the full side both blocks wait at barriers
# in the same stretch, 2,828 idle slots of 4,800 against 2,774.)
less "warp-cycles resident in view, 1 block vs full" \
  "$(python3 -c "print($(get "$S" timeline.one.view_waits_total) + $(get "$S" timeline.one.view_issued))")" \
  "$(python3 -c "print($(get "$S" timeline.full.view_waits_total) + $(get "$S" timeline.full.view_issued))")"
less "predicted kernel cycles, full vs 1 block" "$(get "$S" timeline.full.kernel_cycles)" \
  "$(get "$S" timeline.one.kernel_cycles)"
less "long_scoreboard waits drawn on the 1-block side" 0 "$(get "$S" timeline.one.view_waits.long_scoreboard)"
less "waits drawn on the full side" 0 "$(get "$S" timeline.full.view_waits_total)"
# (0.13 of them since a tile's two guarded loads issue together, as in the
# SASS, docs/timing-model.md; 0.2+ when each waited out its own latency.)
less "long_scoreboard's share of the 1-block side's warp-cycles" 0.1 "$(get "$S" timeline.one.stall_share.long_scoreboard)"
# Pixels: long_scoreboard waits (245,160,40) paint many separate row pieces; idle slots (95,38,38) more than the legend.
less "orange (long_scoreboard) regions" 10 "$($PIX "$T/tl.png" components 245 160 40)"
less "dark red (idle issue slot) regions" 1 "$($PIX "$T/tl.png" components 95 38 38)"

# --play moves the pane's cursor in cycles, from where it opened.
xvfb 960x540 "$GPULAB" view --version 03_smem_tiled --panel timeline --size 960x540 --play \
  --screenshot "$T/play.png" --state "$T/play.json" --shot-after 3 >/dev/null
less "the cursor played on (cycles)" "$(get "$S" timeline.cursor)" "$(get "$T/play.json" timeline.cursor)"

# Hopper's asynchronous units: 11_wgmma_pipelined's copy engine and tensor
# pipes get rows, and the view opens on a few stages of its pipeline.
xvfb 960x540 "$GPULAB" view --version 11_wgmma_pipelined --panel timeline --size 960x540 --at 0.3 \
  --screenshot "$T/tma.png" --state "$T/tma.json" --shot-after 5 >/dev/null
check "11: timeline ready" "$(get "$T/tma.json" timeline.status)" "ready"
less "11: copy-engine copies drawn" 0 "$(get "$T/tma.json" timeline.one.copy_engine_spans)"
less "11: wgmma work drawn" 0 "$(get "$T/tma.json" timeline.one.wgmma_spans)"
less "11: the tensor pipes busy in view" 0 "$(get "$T/tma.json" timeline.one.view_wgmma_busy_cycles)"
exit $fail
