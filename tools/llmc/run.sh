#!/usr/bin/env bash
# tools/llmc/run.sh GPULAB LLMC_DIR [WORK_DIR]: llm.c's GPT-2 training as
# written (train_gpt2_fp32.cu) on the lab, beside llm.c's own CPU trainer
# (train_gpt2.c) on the same tiny checkpoint and data (make_tiny_gpt2.py),
# and a table of the two loss curves. LLMC_DIR is a checkout of
# github.com/karpathy/llm.c; nothing of it is copied into the lab.
#
# Both trainers use B=4, T=64, learning rate 1e-4 (train_gpt2.c's fixed
# values) and llm.c's data loader with its fixed shuffle seed, so step k
# trains on the same batch in both.
set -euo pipefail
GPULAB=$(realpath "${1:?usage: run.sh GPULAB LLMC_DIR [WORK_DIR]}")
LLMC=$(realpath "${2:?usage: run.sh GPULAB LLMC_DIR [WORK_DIR]}")
WORK=${3:-$(mktemp -d)}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$WORK" && cd "$WORK"
python3 "$HERE/make_tiny_gpt2.py" "$WORK"
mkdir -p dev/data/tinyshakespeare
cp train.bin dev/data/tinyshakespeare/tiny_shakespeare_train.bin
cp val.bin dev/data/tinyshakespeare/tiny_shakespeare_val.bin

echo "== CPU: llm.c train_gpt2.c (gcc -O2)"
gcc -O2 -I"$LLMC" "$LLMC/train_gpt2.c" -lm -o train_cpu 2>/dev/null
# train_gpt2.c always runs 40 steps and samples 64 tokens twice; the lab's
# run trains on 5 batches, so the CPU stops once its step 4 is printed.
start=$(date +%s.%N)
./train_cpu >cpu.log 2>&1 &
cpu=$!
while kill -0 $cpu 2>/dev/null && ! grep -q "^step 4:" cpu.log; do sleep 0.5; done
kill $cpu 2>/dev/null || true
wait $cpu 2>/dev/null || true
echo "   $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") s to step 4"

echo "== the lab: llm.c train_gpt2_fp32.cu under gpulab run"
start=$(date +%s.%N)
"$GPULAB" run "$LLMC/train_gpt2_fp32.cu" -I "$LLMC" --report -- \
  -i train.bin -j val.bin -b 4 -t 64 -l 1e-4 -v 100 -m 5 -s 100 -g 2 >gpu.log 2>gpu.err
echo "   $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") s (log: $WORK/gpu.log)"

python3 - cpu.log gpu.log <<'PY'
import re, sys
cpu = {int(k): float(v) for k, v in re.findall(r"^step (\d+): train loss ([\d.]+)", open(sys.argv[1]).read(), re.M)}
gpu = {int(k) - 1: float(v) for k, v in re.findall(r"^step +(\d+)/\d+: train loss ([\d.]+)", open(sys.argv[2]).read(), re.M)}
print("| step | CPU (train_gpt2.c) | lab (train_gpt2_fp32.cu) | difference |")
print("|---|---|---|---|")
worst = 0.0
for k in sorted(gpu):
    c = cpu.get(k)
    d = abs(gpu[k] - c) if c is not None else float("nan")
    worst = max(worst, d) if c is not None else worst
    print(f"| {k} | {c if c is not None else '-'} | {gpu[k]} | {d:.6f} |")
falling = all(gpu[k + 1] < gpu[k] for k in sorted(gpu)[:-1])
print(f"\nlargest difference {worst:.6f}; the lab's loss {'falls every step' if falling else 'does NOT fall every step'}")

# One training step's predicted GPU time, by kernel, from the --report
# table: the launches after one AdamW update up to and including the next
# (forward, backward, update; the first step also follows validation).
rows = []
for m in re.finditer(r"^\s+\d+\s+(.+?)\s+\d+x\d+x\d+\s+\d+x\d+x\d+\s+([\d.]+) ms", open(sys.argv[2]).read(), re.M):
    rows.append((re.sub(r"\s*\(.*", "", m[1]) if m[1].startswith("cublas") else m[1], float(m[2])))
updates = [i for i, (k, _) in enumerate(rows) if k.startswith("adamw")]
if len(updates) >= 2:
    step = rows[updates[-2] + 1 : updates[-1] + 1]
    total = sum(t for _, t in step)
    by = {}
    for k, t in step:
        by[k] = by.get(k, 0.0) + t
    print(f"\none training step: {len(step)} launches, PREDICTED {total:.3f} ms on the model")
    print("| kernel | predicted ms | share |\n|---|---|---|")
    for k, v in sorted(by.items(), key=lambda kv: -kv[1])[:10]:
        print(f"| {k} | {v:.3f} | {100 * v / total:.1f}% |")
PY
grep -E "^ +total|predicted|PREDICTED" gpu.err | tail -2 || true
