#!/usr/bin/env bash
# The kernel-check corpus (tests/check/*.cu) through `gpulab sim --check --json`.
# Each file's first lines say what must happen:
#   // expect: KIND line N [; KIND line N ...]   every listed error is reported, exit 1,
#                                                and no error of a kind not listed
#   // expect: clean                             no errors, exit 0
#   // run: ARGS                                 the gpulab sim arguments
set -u
GPULAB=${1:?usage: checks.sh path/to/gpulab}
fails=0; passes=0
for f in tests/check/*.cu; do
  expect=$(sed -n 's|^// expect: ||p' "$f" | head -1)
  run=$(sed -n 's|^// run: ||p' "$f" | head -1)
  if [ -z "$expect" ] || [ -z "$run" ]; then echo "FAIL: $f has no '// expect:' or '// run:' line"; fails=$((fails+1)); continue; fi
  # shellcheck disable=SC2086
  out=$("$GPULAB" sim "$f" $run --check --json 2>&1); rc=$?
  if python3 - "$f" "$expect" "$rc" "$out" <<'PY'
import json, sys
f, expect, rc, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
try:
    j = json.loads(out)
except Exception:
    print(f"FAIL: {f}: not JSON (exit {rc}):\n{out[:2000]}"); sys.exit(1)
errs = j.get("errors", [])
got = [(e.get("kind"), e.get("line")) for e in errs]
if expect.strip() == "clean":
    if rc != 0 or errs:
        print(f"FAIL: {f}: expected no errors and exit 0, got exit {rc}: " +
              "; ".join(f"{e.get('kind')} line {e.get('line')}: {e.get('message')}" for e in errs)); sys.exit(1)
    sys.exit(0)
want = []
for part in expect.split(";"):
    kind, _, line = part.split()
    want.append((kind, int(line)))
missing = [w for w in want if w not in got]
extra = [g for g in got if g[0] not in {k for k, _ in want}]
if rc != 1 or missing or extra:
    print(f"FAIL: {f}: expected {want} and exit 1; got exit {rc}, errors {got}" +
          (f", missing {missing}" if missing else "") + (f", unexpected kinds {extra}" if extra else ""))
    for e in errs: print(f"    {e.get('kind')} line {e.get('line')}: {e.get('message')}")
    sys.exit(1)
PY
  then passes=$((passes+1)); else fails=$((fails+1)); fi
done
echo "checks.sh: $passes passed, $fails failed"
[ $fails = 0 ]
