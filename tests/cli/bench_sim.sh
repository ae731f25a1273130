#!/usr/bin/env bash
# tests/cli/bench_sim.sh GPULAB: `gpulab bench sim` (issue 27) reports one row
# per kernel asked for, with its family, CPU-time rate and 2-worker speed-up,
# every result checked; an unknown kernel is refused.
set -u
GPULAB=${1:?usage: bench_sim.sh path/to/gpulab}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
check() { if eval "$2"; then passes=$((passes+1)); else echo "FAIL: $1"; fails=$((fails+1)); fi; }

"$GPULAB" bench sim --size 64 --e2e-size 32 --only 01_naive 03_smem_tiled --json >"$tmp/s.json" 2>"$tmp/s.err"
rc=$?
check "runs (exit 0)" "[ $rc = 0 ]"
python3 - "$tmp/s.json" >"$tmp/check.txt" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
rows = {r["kernel"]: r for r in s["rows"]}
assert set(rows) == {"01_naive", "03_smem_tiled"}, rows.keys()
assert rows["01_naive"]["family"] == "uncoalesced"
assert rows["03_smem_tiled"]["family"] == "shared-heavy"
for r in rows.values():
    assert r["correct"] is True, r
    assert r["thread_insts"] > 0 and r["cpu_seconds"] > 0 and r["thread_insts_per_cpu_s"] > 0, r
    assert abs(r["thread_insts_per_cpu_s"] - r["thread_insts"] / r["cpu_seconds"]) < 1e-6 * r["thread_insts_per_cpu_s"]
    assert r["workers"] == 2 and r["speedup"] > 0, r
# 64^3: 64 x 64 threads, 64 multiply-adds each and more
assert rows["01_naive"]["thread_insts"] > 64 * 64 * 64, rows["01_naive"]
assert s["cycle_warp_insts"] > 0 and s["timing_full_cpu_seconds"] >= s["cycle_cpu_seconds"] > 0, s
assert s["correct"] is True
print("ok")
PY
check "rows, families and rates" "grep -qx ok $tmp/check.txt"

"$GPULAB" bench sim --size 16 --e2e-size 16 --only 10_imaginary >"$tmp/bad.out" 2>"$tmp/bad.err"
rc=$?
check "an unknown kernel: exit 2" "[ $rc = 2 ]"
check "an unknown kernel: named, with what exists" "grep -q '10_imaginary: no such kernel (vector_add or a version in' $tmp/bad.err"

echo "bench_sim: $passes passed, $fails failed"
[ $fails = 0 ]
