#!/usr/bin/env bash
# tests/cli/manifest_edited.sh GPULAB: an exercise's limits cannot be edited
# away (issue 26). A lessons folder whose lesson.toml loosens a shipped
# exercise's criteria is judged by the lab's own copy, and the check says so;
# an unedited folder gets no such note.
set -u
GPULAB=$(realpath "${1:?usage: manifest_edited.sh path/to/gpulab}")
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r lessons "$work/copy"
rm -rf "$work/copy/.gpulab"
out=$("$GPULAB" check 04-shared-memory-tiling/transpose --lessons "$work/copy" 2>&1)
grep -q "differs from the lab's own" <<<"$out" && { echo "FAIL: an unedited lesson.toml was reported as edited"; fail=1; }
# Loosen every limit of the transpose exercise: any conflicting kernel would pass them.
python3 - "$work/copy/04-shared-memory-tiling/lesson.toml" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
i = s.index('id = "transpose"')
head, tail = s[:i], s[i:]
tail = re.sub(r'(?m)^value = .*$', 'value = 1e12', tail)
open(p, "w").write(head + tail)
PY
out=$("$GPULAB" check 04-shared-memory-tiling/transpose --lessons "$work/copy" 2>&1)
rc=$?
[ $rc -ne 0 ] || { echo "FAIL: the shipped transpose passed under edited limits"; fail=1; }
grep -q "differs from the lab's own" <<<"$out" || { echo "FAIL: the edit was not reported: $out" | head -5; fail=1; }
grep -q "FAIL max_bank_conflicts" <<<"$out" || { echo "FAIL: the lab's own bank-conflict limit was not applied"; fail=1; }
json=$("$GPULAB" check 04-shared-memory-tiling/transpose --lessons "$work/copy" --json 2>/dev/null)
grep -q '"manifest_edited"' <<<"$json" || { echo "FAIL: --json does not carry the edit"; fail=1; }
[ $fail -eq 0 ] && echo "ok: edited limits are reported and the lab's are used"
exit $fail
