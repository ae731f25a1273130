#!/usr/bin/env bash
# tests/cli/lessons_copy.sh GPULAB: the lessons work from a copy in another
# folder (issue 25): lesson 10's program, which shares its task with the
# lab's CPU step (lab/cpu/mlp_task.h), builds and runs from the copy, as its
# README says, and lesson 11's program runs there on several GPUs.
set -u
GPULAB=$(realpath "${1:?usage: lessons_copy.sh path/to/gpulab}")
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r lessons "$work/copy"
cd "$work"
out=$("$GPULAB" run copy/10-training-step/train.cu --report 2>&1) || { echo "FAIL: lesson 10's train.cu from a copy: $out" | head -20; fail=1; }
grep -q "device memory" <<<"$out" || { echo "FAIL: lesson 10 from a copy printed no report"; fail=1; }
out=$("$GPULAB" run copy/11-many-gpus/data_parallel.cu copy/.solutions/11-many-gpus/solution_ring.cu --gpus 2 -- 64 128 1 0 2>&1) \
  || { echo "FAIL: lesson 11's program from a copy: $out" | head -20; fail=1; }
# Inside a lesson of the copy, `gpulab check` checks that lesson of the copy
# (not the build tree's lessons) and says which folder it uses.
out=$(cd copy/03-coalescing && "$GPULAB" check 2>&1)
grep -q "checking 03-coalescing/" <<<"$out" || { echo "FAIL: check inside copy/03-coalescing did not check lesson 3: $out" | head -5; fail=1; }
grep -q "$work/copy/03-coalescing/exercise.cu" <<<"$out" || { echo "FAIL: check inside the copy did not use the copy's exercise: $out" | head -5; fail=1; }
grep -q "using the lessons in $work/copy" <<<"$out" || { echo "FAIL: check inside the copy does not say which lessons it uses"; fail=1; }
[ -f copy/.gpulab/progress.json ] || { echo "FAIL: the copy's progress was not recorded in the copy"; fail=1; }
# Every step of every lesson runs from the copy (issue 25's "done when").
for d in copy/[0-9][0-9]-*/; do
  id=$(basename "$d")
  out=$("$GPULAB" lesson "${id%%-*}" --no-pause --lessons "$work/copy" 2>&1) \
    || { echo "FAIL: gpulab lesson ${id%%-*} from a copy: $(grep -E 'exited with status|could not run|DISAGREES|does not cite' <<<"$out" | head -3)"; fail=1; }
done
[ $fail -eq 0 ] && echo "ok: every lesson runs every step from a copy; check inside a copied lesson uses the copy"
exit $fail
