#!/usr/bin/env bash
# tests/cli/lesson_before_after.sh GPULAB: `gpulab lesson NN --before-after`
# prints a lesson's measured before/after (issue 25), from the lessons or a
# copy of them, and exits non-zero when a ratio leaves the range the lesson
# states, saying so.
set -u
GPULAB=$(realpath "${1:?usage: lesson_before_after.sh path/to/gpulab}")
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$("$GPULAB" lesson 02 --before-after 2>&1) || { echo "FAIL: lesson 02 --before-after exited non-zero: $out" | head -20; fail=1; }
grep -q "predicted time" <<<"$out" || { echo "FAIL: no predicted times in: $out" | head -10; fail=1; }
grep -q "the measurement agrees" <<<"$out" || { echo "FAIL: lesson 02's before/after does not agree with its text"; fail=1; }
grep -q "Divergence: measure it" <<<"$out" && { echo "FAIL: --before-after printed steps without a before/after"; fail=1; }
# A copy whose stated range the lab's measurement cannot meet: reported, exit non-zero.
cp -r lessons "$work/copy"
sed -i 's/^expect = \[1.5, 2.2\]/expect = [5, 9]/' "$work/copy/02-simt/lesson.toml"
out=$("$GPULAB" lesson 02 --before-after --lessons "$work/copy" 2>&1)
rc=$?
[ $rc -ne 0 ] || { echo "FAIL: a ratio outside the stated range exited 0"; fail=1; }
grep -q "DISAGREES" <<<"$out" || { echo "FAIL: a ratio outside the stated range was not reported: $out" | head -20; fail=1; }
[ $fail -eq 0 ] && echo "ok: --before-after measures, and reports a ratio outside the lesson's range"
exit $fail
