#!/usr/bin/env bash
# `gpulab train` (lesson 10): the MLP step on the CPU (measured) and the
# simulated GPU (predicted) train the same network on the same batches, so
# their losses must match and fall; the GPU step's parts add up to the
# program's own model clock; every figure is labelled measured or predicted.
set -u
GPULAB=${1:?usage: train.sh path/to/gpulab}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export GPULAB_CACHE="${GPULAB_CACHE:-$tmp/cache}"
fails=0; passes=0
check() { if eval "$2"; then passes=$((passes+1)); else echo "FAIL: $1"; fails=$((fails+1)); fi; }

"$GPULAB" train --steps 3 --json >"$tmp/j" 2>"$tmp/err"; rc=$?
check "train exits 0 ($(head -c 300 "$tmp/err"))" "[ $rc = 0 ]"
python3 - "$tmp/j" <<'PY' || fails=$((fails+1))
import json, sys
j = json.load(open(sys.argv[1]))
bad = []
def need(ok, what):
    if not ok: bad.append(what)
c, g = j["cpu"], j["gpu"]
need(len(c["losses"]) == 3 and len(g["losses"]) == 3, "three losses on each side")
need(all(abs(a - b) <= 1e-3 for a, b in zip(c["losses"], g["losses"])), f"losses match: {c['losses']} vs {g['losses']}")
need(c["losses"][-1] < c["losses"][0] and g["losses"][-1] < g["losses"][0], "loss falls on both")
need(2.0 < g["losses"][0] < 4.0, f"first loss near ln(16) = 2.77: {g['losses'][0]}")
need(c["label"] == "measured" and g["label"] == "prediction", "labels")
need(c["step_ms"] > 0 and g["step_ms"] > 0, "both step times positive")
need(abs(sum(c["part_ms"].values()) - c["step_ms"]) < 1e-9, "the CPU step is the sum of its parts (one measured step)")
need(g["launches_per_step"] == 12 and len(g["kernels"]) == 12, "twelve launches a step")
need([k["kernel"] for k in g["kernels"]].count("matmul") == 5, "five fp32 GEMMs")
parts = sum(k["predicted_ms"] for k in g["kernels"]) + g["launch_overhead_ms"] + g["pcie_ms"]
need(abs(parts - g["step_ms"]) < 1e-9, "the step is the sum of its parts")
# The program's cudaEventElapsedTime reads the runtime's model clock: kernels and copies, the same total.
need(abs(g["program_event_ms"] - g["step_ms"]) <= 0.01 * g["step_ms"], f"event {g['program_event_ms']} vs {g['step_ms']}")
need(g["h2d_bytes"] == 64 * 64 * 4 + 64 * 4 and g["d2h_bytes"] == 4, "batch in, loss out")
need(abs(g["launch_overhead_ms"] - 12 * 0.002) < 1e-9, "12 launches x 2 us")
need(j["peak_ratio"]["ratio"] > 1, "peak ratio")
# Device memory as the runtime counted it (cudaMemGetInfo): P = 10384 parameters, batch 64, hidden 128, 16 classes.
mem = dict(g["memory_bytes"])
P = j["shape"]["params"]
need(mem == {"weights": 4 * P, "gradients": 4 * P, "optimizer": 8 * P,
             "activations": 4 * (2 * 64 * 128 + 2 * 64 * 16 + 64 + 1), "batch": 4 * (64 * 64 + 64)}, f"memory {mem}")
for b in bad: print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
[ $? = 0 ] && passes=$((passes+1))

# Mixed precision: tensor-core GEMMs on the GPU, the same operand rounding on the CPU, fp32 master weights.
"$GPULAB" train --steps 2 --precision bf16 --json >"$tmp/b" 2>"$tmp/err"; rc=$?
check "bf16 train exits 0 ($(head -c 300 "$tmp/err"))" "[ $rc = 0 ]"
check "bf16: losses match and fall, GEMMs on the tensor cores" "python3 -c '
import json, sys
j = json.load(open(sys.argv[1])); c, g = j[\"cpu\"][\"losses\"], j[\"gpu\"][\"losses\"]
ok = j[\"precision\"] == \"bf16\" and j[\"losses_match\"] and j[\"losses_fall\"] and abs(c[0] - g[0]) < 1e-3
ok = ok and j[\"peak_ratio\"][\"gpu_peak_kind\"] == \"BF16 tensor\"
ok = ok and [k[\"kernel\"] for k in j[\"gpu\"][\"kernels\"]].count(\"matmul_bf16\") == 5
f = json.load(open(sys.argv[2]))[\"gpu\"][\"losses\"][0]
ok = ok and g[0] != f  # the rounding is really there: not the fp32 curve
sys.exit(0 if ok else 1)' $tmp/b $tmp/j"

# The student's AdamW as shipped (plain SGD): the GPU's updates differ from the CPU's AdamW, so must the losses.
"$GPULAB" train --steps 2 --adamw exercise >"$tmp/o" 2>&1; rc=$?
check "the shipped exercise (SGD) does not match the CPU's AdamW" "[ $rc = 1 ] && grep -q 'DO NOT MATCH' $tmp/o && grep -q 'gpulab check 10-training-step/adamw' $tmp/o"

# A copy of the lessons folder, away from the lab's sources, still builds train.cu.
cp -r lessons "$tmp/lessons"
"$GPULAB" train --steps 2 --lessons "$tmp/lessons" >"$tmp/o" 2>&1; rc=$?
check "train from a copied lessons folder" "[ $rc = 0 ] && grep -q 'losses match' $tmp/o"

"$GPULAB" train --steps 1 >"$tmp/o" 2>&1; rc=$?
check "--steps 1 is a usage error" "[ $rc = 2 ] && grep -q 'steps >= 2' $tmp/o"
"$GPULAB" train --sweep 64 >"$tmp/o" 2>&1; rc=$?
check "a bad --sweep item is named" "[ $rc = 2 ] && grep -q \"'64' is not BATCHxHIDDEN\" $tmp/o"

echo "train: $passes passed, $fails failed"
[ $fails = 0 ]
