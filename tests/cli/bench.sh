#!/usr/bin/env bash
# tests/cli/bench.sh GPULAB: the `gpulab bench gemm` contract: JSON rows and
# fields (issue 4), every row correct, and --backend cuda without a GPU
# failing with exit 2 and the reason.
set -u
GPULAB=${1:?usage: bench.sh path/to/gpulab}
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$GPULAB" bench gemm --m 33 --n 40 --k 17 --backend sim --threads 2 --json >"$tmp/out.json" 2>"$tmp/err.txt"
rc=$?
[ $rc -eq 0 ] || { cat "$tmp/err.txt" >&2; fail "bench gemm exited $rc"; }
python3 - "$tmp/out.json" <<'PY' || fail "JSON contract"
import json, sys
j = json.load(open(sys.argv[1]))
assert (j["m"], j["n"], j["k"]) == (33, 40, 17), j
fields = {"name", "device", "backend", "precision", "ms", "gflops", "measured", "correct", "max_rel_error", "reference"}
rows = j["results"]
names = [r["name"] for r in rows]
# A simulator row adds the cycle model's figures: its cycles, what was timed
# (the sample), and where the seconds went.
sim_fields = {"cycles", "timing_note", "sim_seconds", "model_seconds", "model_cpu_seconds", "interpreter_seconds",
              "warp_insts_timed"}
for r in rows:
    # (a version that cannot run the size, 10 and 11 at K = 17, has no figures)
    want = fields | sim_fields if r["backend"] == "sim" and r["ms"] is not None else fields
    assert set(r) == want, (r["name"], sorted(set(r) ^ want))
    assert r["device"] in ("cpu", "gpu") and r["backend"] in ("cpu", "sim", "cuda"), r
    assert r["precision"] in ("fp32", "fp16"), r
    assert isinstance(r["measured"], bool) and isinstance(r["reference"], bool), r
cpu = [r for r in rows if r["device"] == "cpu"]
gpu = [r for r in rows if r["device"] == "gpu"]
assert [r["name"] for r in cpu] == ["cpu_01_naive", "cpu_02_reordered", "cpu_03_blocked", "cpu_04_simd_threads", "openblas"], names
for r in cpu:
    assert r["backend"] == "cpu" and r["measured"] is True and r["correct"] is True, r
    assert r["ms"] > 0 and r["gflops"] > 0, r
    assert r["reference"] == (r["name"] == "openblas"), r
assert [r["name"] for r in gpu] == ["01_naive", "02_coalesced", "03_smem_tiled", "04_blocktile_1d", "05_blocktile_2d",
                                   "06_vectorized", "07_warptile", "08_tensor_core_wmma", "09_tensor_core_mma",
                                   "10_wgmma_tma", "11_wgmma_pipelined"], names
for r in gpu:
    assert r["backend"] == "sim" and r["measured"] is False and r["reference"] is False, r
    # correct is null only when the simulator lacks an instruction; never false
    assert r["correct"] in (True, None), r
    if r["correct"]:
        assert 0 <= r["max_rel_error"] < 1e-3, r
assert sum(1 for r in gpu if r["correct"]) >= 7, "the fp32 versions must all run in the simulator"
assert [r["ms"] for r in gpu if r["name"].startswith("1")] == [None, None], "10 and 11 cannot take K = 17 (TMA)"
assert {r["precision"] for r in gpu if r["name"].startswith("0") and "tensor" in r["name"]} == {"fp16"}
PY

# The table names every version and says which timings are predictions.
"$GPULAB" bench gemm --size 16 --backend sim --quiet >"$tmp/table.txt" 2>&1 || fail "table run"
grep -q "09_tensor_core_mma" "$tmp/table.txt" || fail "table lacks 09"
grep -q "11_wgmma_pipelined" "$tmp/table.txt" || fail "table lacks 11"
grep -q "predicted" "$tmp/table.txt" || fail "table does not label predictions"

# --backend cuda with no GPU: exit 2 and the reason.
"$GPULAB" bench gemm --size 8 --backend cuda --quiet >"$tmp/o.txt" 2>"$tmp/e.txt"
rc=$?
if [ $rc -ne 0 ]; then
  [ $rc -eq 2 ] || fail "--backend cuda without a GPU exited $rc, want 2"
  grep -q -- "--backend sim" "$tmp/e.txt" || fail "--backend cuda error does not say what to do: $(cat "$tmp/e.txt")"
fi

# --backend cpu: the CPU rows alone, every one measured (issue 27: it was refused).
"$GPULAB" bench gemm --size 16 --backend cpu --json --quiet >"$tmp/cpu.json" 2>&1 || fail "--backend cpu run"
python3 -c 'import json,sys; rows=json.load(open(sys.argv[1]))["results"]; assert rows and all(r["device"]=="cpu" and r["measured"] for r in rows), rows' "$tmp/cpu.json" || fail "--backend cpu rows"

# Bad sizes are usage errors.
"$GPULAB" bench gemm --size 0 --quiet >/dev/null 2>&1; [ $? -eq 2 ] || fail "--size 0 should exit 2"
# bench mechanisms: the JSON rows say they are predictions and name their
# sources; an unknown mechanism is a usage error that lists the known ones.
"$GPULAB" bench mechanisms --gpu T4 --only banks atomics --json >"$tmp/m.json" 2>/dev/null || fail "bench mechanisms run"
python3 - "$tmp/m.json" <<'PY' || fail "bench mechanisms JSON"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert {r["mechanism"] for r in rows} == {"banks", "atomics"}, rows
assert all(r["gpu"] == "T4" and r["predicted"] is True for r in rows)
banks = [r for r in rows if r["mechanism"] == "banks"]
assert [r["x"] for r in banks] == [1, 2, 4, 8, 16, 32]
assert all(r["source"] for r in banks)
PY
"$GPULAB" bench mechanisms --only nosuch >/dev/null 2>"$tmp/e.txt"; [ $? -eq 2 ] || fail "unknown mechanism should exit 2"
grep -q "banks" "$tmp/e.txt" || fail "unknown mechanism error does not list the known ones"
echo "bench.sh: ok"
