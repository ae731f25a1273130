#!/usr/bin/env bash
# tests/cli/reference_copy.sh GPULAB: a pass with the reference solution's
# own code (copied over the exercise, even re-indented) is recorded as the
# reference's, not as the student's (issue 26), and says so.
set -u
GPULAB=$(realpath "${1:?usage: reference_copy.sh path/to/gpulab}")
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r lessons "$work/copy"
rm -rf "$work/copy/.gpulab"
# The reference with its indentation changed: still the reference's code.
sed 's/^  /    /' "$work/copy/.solutions/03-coalescing/solution.cu" > "$work/copy/03-coalescing/exercise.cu"
out=$("$GPULAB" check 03-coalescing/coalesced-gemm --lessons "$work/copy" 2>&1)
grep -q "reference solution's code" <<<"$out" || { echo "FAIL: a copied reference passed without saying so: $out" | tail -5; fail=1; }
grep -q '"reference_copy": true' "$work/copy/.gpulab/progress.json" || { echo "FAIL: progress does not record the reference copy"; fail=1; }
"$GPULAB" lessons --lessons "$work/copy" | grep "03-coalescing/coalesced-gemm" | grep -q "reference's code" \
  || { echo "FAIL: gpulab lessons does not show the pass as the reference's"; fail=1; }
# A student's own passing version (the reference with a changed expression) is recorded plainly.
sed 's/alpha \* acc/acc * alpha/' "$work/copy/.solutions/03-coalescing/solution.cu" > "$work/copy/03-coalescing/exercise.cu"
grep -q "acc \* alpha" "$work/copy/03-coalescing/exercise.cu" || { echo "FAIL: the test's edit did not apply"; fail=1; }
out=$("$GPULAB" check 03-coalescing/coalesced-gemm --lessons "$work/copy" 2>&1) || { echo "FAIL: the edited version did not pass: $out" | tail -5; fail=1; }
grep -q "reference solution's code" <<<"$out" && { echo "FAIL: a student's own version was called the reference's"; fail=1; }
grep -q '"reference_copy"' "$work/copy/.gpulab/progress.json" && { echo "FAIL: progress still says reference copy"; fail=1; }
[ $fail -eq 0 ] && echo "ok: a copied reference is recorded as such; a student's own version is not"
exit $fail
