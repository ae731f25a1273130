#!/usr/bin/env bash
# tools/cuda_samples/run.sh GPULAB SAMPLES_DIR [CATEGORY ...]: builds and
# runs NVIDIA's cuda-samples as written, each with `gpulab run --json`, and
# prints one Markdown row per sample: its result and the reason (docs/run.md
# keeps the table). SAMPLES_DIR is a checkout of
# github.com/NVIDIA/cuda-samples (its Common/ and Samples/); nothing of it is
# copied into the lab.
#
# Result, by the program's own verdict: PASS (it exited 0 and printed no
# failure), WAIVED (it declined, exit 2: a feature the device does not
# offer), FAIL (it exited non-zero or printed a failure), BUILD (gpulab run
# could not build it; an unserved call is named), TIMEOUT (over LIMIT s).
set -u
GPULAB=$(realpath "${1:?usage: run.sh GPULAB SAMPLES_DIR [CATEGORY ...]}")
ROOT=$(realpath "${2:?usage: run.sh GPULAB SAMPLES_DIR [CATEGORY ...]}")
shift 2
CATS=("$@")
[ ${#CATS[@]} = 0 ] && CATS=(0_Introduction 2_Concepts_and_Techniques 6_Performance)
LIMIT=${LIMIT:-300}
OUT=${OUT:-/tmp/cuda_samples_logs}
mkdir -p "$OUT"
printf '| sample | result | reason |\n|---|---|---|\n'
for cat in "${CATS[@]}"; do
  for dir in "$ROOT/Samples/$cat"/*/; do
    name=$(basename "$dir")
    mapfile -t srcs < <(find "$dir" -maxdepth 1 \( -name '*.cu' -o -name '*.cpp' \) | sort)
    [ ${#srcs[@]} = 0 ] && continue
    (cd "$dir" && timeout "$LIMIT" "$GPULAB" run "${srcs[@]}" -I "$ROOT/Common" --json >"$OUT/$name.json" 2>"$OUT/$name.err")
    rc=$?
    python3 - "$cat/$name" "$rc" "$OUT/$name.json" "$OUT/$name.err" "$LIMIT" <<'PY'
import json, re, sys
name, rc, jpath, epath, limit = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
err = open(epath, errors="replace").read()
try: j = json.load(open(jpath))
except Exception: j = None
def first(pattern, text):
    m = re.search(pattern, text, re.M)
    return m.group(0) if m else ""
if rc == 124:
    result, reason = "TIMEOUT", f"over {limit} s"
elif j is None or "exit_code" not in j:
    msgs = [e.get("message", "") for e in (j or {}).get("errors", [])]
    text = "\n".join(msgs) + "\n" + err
    result = "BUILD"
    reason = (first(r"the program calls [^\n]*?(?=(, which| of the))", text) or first(r"the link found no definition of [^:]*", text)
              or first(r"[^\n]*(error|fatal)[^\n]*", text) or text.strip()[:150])
else:
    out = j.get("output", "")
    code = j["exit_code"]
    failed = re.search(r"FAILED|Test failed|\bFAIL\b", out) and not re.search(r"\b0 Failures", out)
    if code == 2 or re.search(r"[Ww]aiv", out):
        result, reason = "WAIVED", first(r"[^\n]*([Ww]aiv|requires|not support)[^\n]*", out)
    elif code == 0 and not failed:
        result, reason = "PASS", ""
    else:
        result = "FAIL"
        reason = first(r"^gpulab:[^\n]*", err) or first(r"[^\n]*(FAIL|[Ee]rror)[^\n]*", out) or f"exit {code}"
reason = reason.replace("|", "\\|")[:160]
print(f"| {name} | {result} | {reason} |")
PY
  done
done
