#!/usr/bin/env bash
# `gpulab validate` without a GPU: simulator side, comparison with a recorded
# GPU file, and the errors a user can cause.
set -u
GPULAB=${1:?usage: validate.sh path/to/gpulab}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
check() { if eval "$2"; then passes=$((passes+1)); else echo "FAIL: $1"; fails=$((fails+1)); fi; }

"$GPULAB" validate --size 40 --only 01_naive 03_smem_tiled --gpu-backend none --json --quiet > "$tmp/sim.json"; rc=$?
check "simulator-only validate exits 0" "[ $rc = 0 ]"
check "simulator side ran, correct, with counters" "python3 - '$tmp/sim.json' <<'PY'
import json,sys; j=json.load(open(sys.argv[1]))
assert j['size']==40 and j['gpu_source'].startswith('none'), j['gpu_source']
names=[k['name'] for k in j['kernels']]; assert names==['01_naive','03_smem_tiled'], names
for k in j['kernels']:
    s=k['sim']; assert s['ran'] and s['correct'] is True, k
    assert s['counters']['warp_instructions']>0 and s['counters']['global_load_sectors']>0
    assert k['gpu']['ran'] is False
# the tiled kernel reads shared memory, the naive one does not
assert j['kernels'][1]['sim']['counters']['shared_load_wavefronts']>0
assert j['kernels'][0]['sim']['counters']['shared_load_wavefronts']==0
PY"

# A recorded GPU file: here made from the simulator's own counters doubled,
# so every ratio must come out 0.5 and the times must be carried across.
python3 - "$tmp/sim.json" "$tmp/rec.json" <<'PY'
import json,sys; j=json.load(open(sys.argv[1])); ks=[]
for k in j['kernels']:
    c={key:2*v for key,v in k['sim']['counters'].items()}
    ks.append({'name':k['name'],'correct':True,'max_rel_error':1e-7,'ms':0.5,'counters':c})
json.dump({'gpu':'test GPU','date':'2026-01-01','size':40,'kernels':ks},open(sys.argv[2],'w'))
PY
"$GPULAB" validate --size 40 --only 01_naive 03_smem_tiled --gpu-backend none --against "$tmp/rec.json" --quiet > "$tmp/cmp.txt"; rc=$?
check "recorded comparison exits 0" "[ $rc = 0 ]"
check "recorded comparison names its source" "grep -q 'recorded: .*test GPU' $tmp/cmp.txt"
check "ratios of doubled counters are 0.50" "grep -E '^ +warp_instructions' $tmp/cmp.txt | awk '{print \$4}' | grep -qx 0.50"
check "measured time is shown" "grep -E '^ +time ms' $tmp/cmp.txt | grep -q 0.5000"

"$GPULAB" validate --size 41 --only 01_naive --gpu-backend none --against "$tmp/rec.json" --quiet >/dev/null 2>"$tmp/err"; rc=$?
check "size mismatch with the recording exits 2" "[ $rc = 2 ] && grep -q 'pass --size 40' $tmp/err"
"$GPULAB" validate --gpu-backend none --against "$tmp/none.json" --quiet >/dev/null 2>"$tmp/err"; rc=$?
check "missing recording exits 2" "[ $rc = 2 ] && grep -q 'cannot open' $tmp/err"
"$GPULAB" validate --size 16 --only 01_naive --record "$tmp/out.json" --quiet >/dev/null 2>"$tmp/err"; rc=$?
check "--record without a GPU exits 2" "[ $rc = 2 ] && [ ! -f $tmp/out.json ]"
"$GPULAB" validate --size 16 --only 01_naive --gpu-backend cuda --quiet >/dev/null 2>"$tmp/err"; rc=$?
check "--gpu-backend cuda without a GPU exits 2 with the reason" "[ $rc = 2 ] && grep -qi 'no GPU' $tmp/err"

# The lab's measurement on an H200 (docs/fidelity/h200, 2026-11-26): the
# model's global requests and sectors meet Nsight Compute's exactly, and the
# GPU's result was correct.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
"$GPULAB" validate --size 1024 --gpu H200 --only 03_smem_tiled --gpu-backend none \
  --against "$ROOT/docs/fidelity/h200/validate-1024.json" --quiet > "$tmp/h200.txt"; rc=$?
check "the H200 recording compares (exit 0)" "[ $rc = 0 ] && grep -q 'NVIDIA H200' $tmp/h200.txt"
check "H200: global load requests and sectors agree exactly" \
  "[ \"\$(grep -E '^ +global_load_(requests|sectors)' $tmp/h200.txt | awk '{print \$4}' | sort -u)\" = 1.00 ]"
check "H200: both sides correct" "grep -E '^ +result' $tmp/h200.txt | awk '{exit !(\$2==\"correct\" && \$3==\"correct\")}'"

# The GPU-side entry points without a GPU: a refusal with the reason, or the
# model's figures with the reason the GPU's are missing.
"$GPULAB" bench mechanisms --backend cuda --only banks --gpu H100 >/dev/null 2>"$tmp/err"; rc=$?
check "bench mechanisms --backend cuda without a GPU exits non-zero with the reason" "[ $rc != 0 ] && grep -qi 'driver' $tmp/err"
"$GPULAB" lesson 04 --before-after --backend cuda --lessons "$ROOT/lessons" > "$tmp/ba.txt" 2>&1
check "lesson --before-after --backend cuda without a GPU keeps the prediction and says why" \
  "grep -q 'predicted time' $tmp/ba.txt && grep -q 'not measured on the GPU:' $tmp/ba.txt"

echo "validate.sh: $passes passed, $fails failed"
[ $fails = 0 ]
