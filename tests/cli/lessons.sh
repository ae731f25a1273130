#!/usr/bin/env bash
# tests/cli/lessons.sh GPULAB: as a new student would, from the repository:
# every shipped exercise fails `gpulab check ID`, every reference solution
# passes `gpulab check ID --solution`, and the JSON list has the contract's shape.
set -u
GPULAB=${1:?usage: lessons.sh path/to/gpulab}
fail=0
# Check the shipped templates, not whatever a student has edited: work on a copy.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r lessons "$work/lessons"
for d in "$work"/lessons/*/; do
  for t in "$d"*.template; do cp "$t" "${t%.template}"; done
done
json=$("$GPULAB" lessons --json --lessons "$work/lessons") || { echo "FAIL: gpulab lessons --json"; exit 1; }
ids=$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); [print(l["id"]+"/"+e["id"]) for l in d["lessons"] for e in l["exercises"] if set(e)=={"id","file","done","reference_copy"}]' "$json")
[ -n "$ids" ] || { echo "FAIL: no exercises listed"; exit 1; }
for id in $ids; do
  out=$("$GPULAB" check "$id" --lessons "$work/lessons" 2>&1); rc=$?
  if [ $rc -eq 0 ]; then echo "FAIL: shipped $id passes its check"; fail=1; fi
  if ! grep -q "FAIL" <<<"$out"; then echo "FAIL: $id: no FAIL line in: $out"; fail=1; fi
  "$GPULAB" check "$id" --solution --lessons "$work/lessons" >/dev/null 2>&1 || { echo "FAIL: solution of $id does not pass"; fail=1; }
done
# Solutions stay out of the exercise folders (issue 16: hidden until a pass
# or an explicit --reveal): none lies beside an exercise, and each one the
# manifests name is in lessons/.solutions/.
for f in lessons/[0-9]*/solution*.cu; do
  [ -e "$f" ] && { echo "FAIL: $f: a reference solution in an exercise folder (move it to lessons/.solutions/)"; fail=1; }
done
grep -ho '^solution = "[^"]*"' lessons/[0-9]*/lesson.toml | grep -v '"../.solutions/' && { echo "FAIL: a manifest names a solution outside lessons/.solutions/"; fail=1; }
# The state file lives inside the copied lessons folder, never in the repository's.
[ -f "$work/lessons/.gpulab/progress.json" ] || { echo "FAIL: no progress state written"; fail=1; }
[ $fail -eq 0 ] && echo "ok: every shipped exercise fails, every solution passes"
exit $fail
