#!/usr/bin/env bash
# `gpulab train` (lesson 10): the MLP step on the CPU (measured) and the
# simulated GPU (predicted) train the same network on the same batches, so
# their losses must match and fall; the GPU step's parts add up to the
# program's own model clock; every figure is labelled measured or predicted.
# Will it fit?: the counted device bytes equal the formula; checkpointing
# keeps the losses bit for bit and cuts the activations; accumulation keeps
# them to float rounding and divides them; a step past the GPU model's
# memory is refused before anything is allocated, by train and by the runtime.
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
# The H100 model's launch: the empty launch the lab timed on an H100 (3.21 us, lab/sim/device.cpp).
need(abs(g["launch_overhead_ms"] - 12 * 0.00321) < 1e-9, f"12 launches x 3.21 us: {g['launch_overhead_ms']}")
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

# Gradient checkpointing: 9 hidden layers, k = 3: checkpoints H3, H6, H9 and a
# segment of 2 buffers (5 instead of 9); backward recomputes segments 0 and 1
# (2 layers each: 8 more launches), not the last. A step is 6 L + 6 launches:
# 2 a layer forward, 4 back (3 for the first), 6 for the output layer and the loss, AdamW.
"$GPULAB" train --layers 9 --hidden 32 --batch 32 --steps 3 --checkpoint --json >"$tmp/c" 2>"$tmp/err"; rc=$?
check "checkpointed train exits 0 ($(head -c 300 "$tmp/err"))" "[ $rc = 0 ]"
python3 - "$tmp/c" <<'PY' || fails=$((fails+1))
import json, sys
j = json.load(open(sys.argv[1]))
b, t, g = j["baseline"], j["trade"], j["gpu"]
bad = []
def need(ok, what):
    if not ok: bad.append(what)
need(j["plan"] == {"accumulate": 1, "checkpoint_every": 3, "hidden_buffers": 5}, f"plan {j['plan']}")
need(g["losses"] == b["gpu"]["losses"] and t["losses_equal"] and t["loss_max_abs_diff"] == 0,
     f"checkpointing must not move a loss by one bit: {g['losses']} vs {b['gpu']['losses']}")
need(j["losses_match"] and b["losses_match"], "CPU and GPU agree on both runs")
mem, base = dict(g["memory_bytes"]), dict(b["gpu"]["memory_bytes"])
need(mem == dict(g["formula_bytes"]) and base == dict(b["gpu"]["formula_bytes"]), "counted bytes = formula, both runs")
need(base["activations"] - mem["activations"] == 4 * 4 * 32 * 32, "4 fewer hidden buffers of 32 x 32 floats")
need(g["peak_bytes"] == sum(mem.values()) and b["gpu"]["peak_bytes"] == sum(base.values()), "peak = the groups' sum")
need(t["peak_bytes"] < t["peak_bytes_baseline"], "the peak falls")
need(t["launches_per_step"] == t["launches_per_step_baseline"] + 8 == 6 * 9 + 6 + 8, f"launches {t['launches_per_step']}")
rec = [k for k in g["kernels"] if k["part"] == "recompute"]
need(sum(k["launches"] for k in rec) == 8 and t["gpu_recompute_ms"] > 0, "8 recompute launches, predicted time > 0")
need(j["cpu"]["part_ms"].get("recompute", 0) > 0, "the CPU step times its recompute")
need(t["recompute_gemm_flops"] == 2 * 32 * 32 * (64 + 3 * 32), f"recompute FLOPs {t['recompute_gemm_flops']}")
for x in bad: print("FAIL:", x)
sys.exit(1 if bad else 0)
PY
[ $? = 0 ] && passes=$((passes+1))

# Gradient accumulation: 4 micro-batches of 16 rows, one AdamW step: the full batch's losses to float rounding.
"$GPULAB" train --batch 64 --accumulate 4 --steps 3 --json >"$tmp/a" 2>"$tmp/err"; rc=$?
check "accumulated train exits 0 ($(head -c 300 "$tmp/err"))" "[ $rc = 0 ]"
python3 - "$tmp/a" <<'PY' || fails=$((fails+1))
import json, sys
j = json.load(open(sys.argv[1]))
b, t, g = j["baseline"], j["trade"], j["gpu"]
bad = []
def need(ok, what):
    if not ok: bad.append(what)
need(all(abs(x - y) <= 1e-5 for x, y in zip(g["losses"], b["gpu"]["losses"])) and t["losses_equal"],
     f"accumulated losses {g['losses']} vs full batch {b['gpu']['losses']}")
need(j["losses_match"] and j["losses_fall"], "CPU and GPU agree and fall")
mem, base = dict(g["memory_bytes"]), dict(b["gpu"]["memory_bytes"])
need(mem == dict(g["formula_bytes"]), "counted bytes = formula")
need(mem["activations"] == 4 * (2 * 16 * 128 + 2 * 16 * 16 + 16 + 1) and base["activations"] == 4 * (2 * 64 * 128 + 2 * 64 * 16 + 64 + 1),
     f"activations for 16 rows, not 64: {mem['activations']} vs {base['activations']}")
need(mem["batch"] * 4 == base["batch"], "a quarter of the batch on the device")
need(mem["weights"] == base["weights"] and mem["optimizer"] == base["optimizer"], "the same state")
need(g["launches_per_step"] == 4 * 11 + 1, "four micro-batches of 11 launches, one AdamW")
need(g["h2d_bytes"] == b["gpu"]["h2d_bytes"], "the same bytes cross PCIe")
for x in bad: print("FAIL:", x)
sys.exit(1 if bad else 0)
PY
[ $? = 0 ] && passes=$((passes+1))

# The 7B table: 16 bytes a parameter of state; only the H200 holds it.
"$GPULAB" train --fit --json >"$tmp/f" 2>&1
check "--fit: 112 GB of state, 14 GB of fp16 weights; H100 no, H200 yes" "python3 -c '
import json, sys
j = json.load(open(sys.argv[1])); g = {x[\"name\"]: x for x in j[\"gpus\"]}
ok = j[\"state_bytes\"] == 112e9 and j[\"weights_fp16_bytes\"] == 14e9
ok = ok and not g[\"H100\"][\"state_fits\"] and g[\"H200\"][\"state_fits\"] and g[\"T4\"][\"weights_fit\"]
ok = ok and g[\"H200\"][\"sequences_checkpointed\"] > g[\"H200\"][\"sequences\"] >= 1
sys.exit(0 if ok else 1)' $tmp/f"

# Out of memory: a batch the T4 cannot hold is refused before anything is allocated (a fraction of a second),
# saying what was asked, the capacity and what to do.
start=$(date +%s)
"$GPULAB" train --batch 20000000 --gpu T4 --steps 2 >"$tmp/o" 2>&1; rc=$?
check "train refuses a batch past the T4's 16 GB" "[ $rc = 1 ] && grep -q 'does not fit on the T4' $tmp/o && grep -q '28.32 GB' $tmp/o"
check "the refusal says what to do" "grep -q -- '--accumulate K' $tmp/o && grep -q -- '--checkpoint' $tmp/o && grep -q -- '--gpu H200' $tmp/o && grep -q 'smaller --batch' $tmp/o"
check "the refusal costs nothing (no run)" "[ $(( $(date +%s) - start )) -le 5 ]"
# The runtime's own refusal, in a program: 20 GB on a T4, then 1 MB, then the rest of the 16 GB.
cat >"$tmp/oom.cu" <<'CU'
#include <cstdio>
int main() {
  void *a = nullptr, *b = nullptr, *c = nullptr;
  cudaError_t e1 = cudaMalloc(&a, 20000000000ull);
  cudaError_t e2 = cudaMalloc(&b, 1000000);
  cudaError_t e3 = cudaMalloc(&c, 16000000000ull - 500000);
  std::printf("e1 %d e2 %d e3 %d a %p c %p\n", int(e1), int(e2), int(e3), a, c);
  return e1 == cudaErrorMemoryAllocation && e2 == cudaSuccess && e3 == cudaErrorMemoryAllocation ? 0 : 1;
}
CU
"$GPULAB" run "$tmp/oom.cu" --gpu T4 >"$tmp/o" 2>&1; rc=$?
check "the runtime refuses past capacity, counting what is live ($(tail -c 300 "$tmp/o"))" "[ $rc = 0 ] && grep -q 'a (nil) c (nil)' $tmp/o"
check "its message: asked, live, capacity, what to do" "grep -q 'cudaMalloc of 20000000000 bytes (20.00 GB) refused, out of memory: 0 bytes' $tmp/o && grep -q '1000000 bytes (0.00 GB) are live and the T4 holds 16000000000 bytes' $tmp/o && grep -q 'gradient checkpointing' $tmp/o && grep -q -- '--gpu' $tmp/o"

# The column-sum exercise: a correct, fast attempt that adds with a global atomic from every warp is
# rejected on its store requests, naming the atomic's line; the shipped kernel (one warp at work) trains
# the same losses, slower.
cat >"$tmp/atomic.cu" <<'CU'
extern "C" __global__ void col_sum(int M, int N, const float* dY, float* db, int accumulate) {
  int j = blockIdx.x * 32 + threadIdx.x;
  if (j < N && !accumulate && threadIdx.y == 0) db[j] = 0.f;
  __syncthreads();
  float acc = 0.f;
  for (int i = threadIdx.y; i < M && j < N; i += 32) acc += dY[long(i) * N + j];
  if (j < N) atomicAdd(&db[j], acc);
}
CU
"$GPULAB" check 10-training-step/col-sum --file "$tmp/atomic.cu" >"$tmp/o" 2>&1; rc=$?
check "col-sum: per-warp atomics rejected, naming the line" "[ $rc != 0 ] && grep -q 'correct on all 4 sizes' $tmp/o && grep -q 'FAIL max_global_store_requests' $tmp/o && grep -q 'atomic.cu:7: if (j < N) atomicAdd' $tmp/o"
# Slower: one warp of 32 walks the batch's rows alone. The H100 model gives
# it 1.6x the reference's time at this batch (it was 3x before the model
# timed ptxas's unrolling of its row loop, 16 loads in flight: cycle/unroll.h).
"$GPULAB" train --steps 2 --col-sum exercise --json >"$tmp/x" 2>"$tmp/err"; rc=$?
check "the shipped col_sum trains the reference's losses, slower" "[ $rc = 0 ] && python3 -c '
import json, sys
x, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
cs = lambda j: sum(k[\"predicted_ms\"] for k in j[\"gpu\"][\"kernels\"] if k[\"kernel\"] == \"col_sum\")
ok = x[\"col_sum\"] == \"exercise\" and all(abs(a - b) < 1e-5 for a, b in zip(x[\"gpu\"][\"losses\"], r[\"gpu\"][\"losses\"]))
sys.exit(0 if ok and cs(x) > 1.3 * cs(r) else 1)' $tmp/x $tmp/j"

# `gpulab run --report` shows the runtime's live and peak bytes: train.cu's 256,772 at batch 64, width 128.
"$GPULAB" run lessons/10-training-step/train.cu --report -D ADAMW_REFERENCE=1 -D COL_SUM_REFERENCE=1 -- 64 128 2 >"$tmp/o" 2>&1
check "run --report: the runtime's peak" "grep -q 'device memory: 256772 bytes live at the last launch, peak 256772 bytes' $tmp/o"

"$GPULAB" train --accumulate 3 >"$tmp/o" 2>&1; rc=$?
check "--accumulate must divide the batch" "[ $rc = 2 ] && grep -q 'must divide --batch 64' $tmp/o"
"$GPULAB" train --layers 4 --checkpoint 5 >"$tmp/o" 2>&1; rc=$?
check "--checkpoint k past the layers is a usage error" "[ $rc = 2 ] && grep -q \"checkpoint '5'\" $tmp/o"

# The accumulation exercise (a program exercise): the template fails, the solution passes, and two
# wrong-reason answers are rejected for the lesson's reason: the whole batch at once (right losses) on
# the device's peak bytes, naming its reserve_rows line; an AdamW step per micro-batch on the losses.
acc() { "$GPULAB" check 10-training-step/accumulate "$@" --json 2>&1 | python3 -c '
import json, sys
t = sys.stdin.read(); r = json.loads(t[t.index("{"):])["results"][0]
c = {x["name"]: x for x in r.get("criteria", [])}.get("max_gpu_peak_bytes", {})
print(r["passed"], r["stage"], c.get("ok"), c.get("measured", 0) > c.get("limit", 0), c.get("source_line", "").strip())
print(r["message"])'; }
acc >"$tmp/a"
check "accumulate: the template fails ($(head -c 300 $tmp/a))" "head -1 $tmp/a | grep -q '^False correctness'"
acc --solution >"$tmp/a"
check "accumulate: the solution passes ($(head -c 300 $tmp/a))" "head -1 $tmp/a | grep -q '^True passed True False'"
acc --file tests/cli/training/accumulate_whole_batch.cu >"$tmp/a"
check "accumulate: the whole batch at once fails on its peak bytes, at its line ($(head -c 400 $tmp/a))" \
  "head -1 $tmp/a | grep -q '^False criteria False True reserve_rows(batch_rows());'"
acc --file tests/cli/training/accumulate_step_each.cu >"$tmp/a"
check "accumulate: AdamW per micro-batch fails on the losses, saying so ($(head -c 400 $tmp/a))" \
  "head -1 $tmp/a | grep -q '^False correctness' && grep -q 'AdamW stepped 4 times' $tmp/a"

# A sweep point that does not fit is named as such, not as a loss mismatch (issue 29).
"$GPULAB" train --sweep 99999x99999 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "a sweep point too big for the GPU: exit 1, named as not fitting" \
  "[ $rc = 1 ] && grep -q '99999x99999 do not fit' $tmp/e && ! grep -q 'losses must match' $tmp/e"

echo "train: $passes passed, $fails failed"
[ $fails = 0 ]
