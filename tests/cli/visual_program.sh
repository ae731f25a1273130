#!/usr/bin/env bash
# tests/cli/visual_program.sh GPULAB: the program pane (visual/view_program.cpp).
# `gpulab view 11 --step 3` runs that step's CUDA program (4 simulated GPUs
# through the lab's own `gpulab run --json`) and shows it: the state names 4
# devices with events, peer copies among them, a predicted timeline, and the
# step's pane; a step's text that runs nothing keeps the view alive.
set -euo pipefail
GPULAB=${1:?usage: visual_program.sh path/to/gpulab}
source "$(dirname "$0")/visual_common.sh"
export GPULAB_CACHE="${GPULAB_CACHE:-$T/cache}"
xvfb 1280x720 "$GPULAB" view 11 --step 3 --size 1280x720 --frames 3 \
  --screenshot "$T/p.png" --state "$T/p.json" >/dev/null
python3 - "$T/p.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
p, bad = s.get("program", {}), []
def need(ok, what):
    if not ok: bad.append(what)
need(s.get("layout", {}).get("panes") == "program", f"panes {s.get('layout')}")
need(p.get("status") == "", f"status {p.get('status')!r}")
need(p.get("devices") == 4, f"devices {p.get('devices')}")
need(p.get("gpu") == "H100" and p.get("link") == "nvlink", f"gpu/link {p.get('gpu')} {p.get('link')}")
# Per device at least its launches; the ring's copies: 2 (N - 1) per device.
need(p.get("events", 0) >= 4 * 12, f"events {p.get('events')}")
need(p.get("peer_copies") == 4 * 2 * 3, f"peer copies {p.get('peer_copies')}")
need(p.get("timeline_us", 0) > 0, f"timeline {p.get('timeline_us')} us")
if bad:
    print("FAIL:", *bad, sep="\n  "); sys.exit(1)
print(f"ok: lesson 11 step 3's program pane: {p['devices']:.0f} GPUs, {p['events']:.0f} events, "
      f"{p['peer_copies']:.0f} peer copies, timeline {p['timeline_us']:.1f} us (predicted)")
PY
