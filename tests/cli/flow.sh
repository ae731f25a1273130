#!/usr/bin/env bash
# tests/cli/flow.sh GPULAB: the lesson flow students know from rustlings and
# exercism (issue 16 item 4): --lessons carried into every printed command,
# progress inside the lessons folder and shown by `lessons`, a failing
# re-check clears "done", `reset LESSON/EXERCISE`, "no more hints (3 of 3
# shown)", the next exercise after a pass, solutions hidden until asked for.
set -u
GPULAB=$(realpath "${1:?usage: flow.sh path/to/gpulab}")
fail=0
bad() { echo "FAIL: $*"; fail=1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
L="$work/my lessons"   # a space: printed commands must quote it
cp -r lessons "$L"
rm -rf "$L/.gpulab"
for d in "$L"/*/; do for t in "$d"*.template; do cp "$t" "${t%.template}"; done; done
E1=01-latency-vs-throughput/vector-add
REPO=$(pwd)
cd "$work"   # not the repository: every printed command must work from here

# `lesson --lessons DIR`: step commands and exercise commands carry the folder.
out=$("$GPULAB" lesson 02 --no-pause --lessons "$L" 2>&1) || bad "lesson 02 failed: $out"
grep -q "^\$ gpulab sim '$L/02-simt/divergence.cu'" <<<"$out" || bad "step command lost the lessons folder: $(grep '^\$' <<<"$out")"
grep -q "gpulab check 02-simt/.* --lessons '$L'" <<<"$out" || bad "exercise command lost --lessons: $(grep 'check' <<<"$out")"

# `lessons` says where progress is and how to reset it.
out=$("$GPULAB" lessons --lessons "$L")
grep -q "Progress is kept in $L/.gpulab/progress.json" <<<"$out" || bad "lessons does not say where progress is: $out"
grep -q "reset --progress" <<<"$out" || bad "lessons does not say how to reset progress"

# The solution stays hidden until the exercise passes or the student asks.
out=$("$GPULAB" solution $E1 --lessons "$L" 2>&1); rc=$?
[ $rc -ne 0 ] || bad "solution shown before a pass"
grep -q "__global__" <<<"$out" && bad "solution text printed before a pass"
grep -q -- "--reveal" <<<"$out" || bad "no way to reveal named: $out"
"$GPULAB" solution $E1 --reveal --lessons "$L" | grep -q "__global__" || bad "--reveal does not show the solution"

# Hints: one at a time, then "no more hints (3 of 3 shown)".
for i in 1 2 3; do "$GPULAB" hint $E1 --lessons "$L" >/dev/null; done
out=$("$GPULAB" hint $E1 --lessons "$L")
grep -q "No more hints (3 of 3 shown)" <<<"$out" || bad "4th hint: $out"

# A pass names the next exercise and its command; a failing re-check clears done.
cp "$L/.solutions/01-latency-vs-throughput/solution.cu" "$L/01-latency-vs-throughput/exercise.cu"
out=$("$GPULAB" check $E1 --lessons "$L" 2>&1) || bad "solved exercise fails: $out"
grep -q "^Next: 02-simt/" <<<"$out" || bad "no next exercise after a pass: $out"
grep -q "gpulab check 02-simt/.* --lessons '$L'" <<<"$out" || bad "next command lacks --lessons: $out"
"$GPULAB" solution $E1 --lessons "$L" | grep -q "__global__" || bad "solution hidden after a pass"
done_of() { "$GPULAB" lessons --json --lessons "$L" | python3 -c 'import json,sys; d=json.load(sys.stdin); print([e["done"] for l in d["lessons"] for e in l["exercises"] if l["id"]+"/"+e["id"]==sys.argv[1]][0])' "$1"; }
[ "$(done_of $E1)" = True ] || bad "pass not recorded"
cp "$L/01-latency-vs-throughput/exercise.cu.template" "$L/01-latency-vs-throughput/exercise.cu"
"$GPULAB" check $E1 --lessons "$L" >/dev/null 2>&1 && bad "broken exercise passes"
[ "$(done_of $E1)" = False ] || bad "a failing re-check left the exercise done"

# reset LESSON/EXERCISE resets one exercise (backed up); a lesson with two needs a name.
T=04-shared-memory-tiling
echo "// mine A" > "$L/$T/exercise.cu"; echo "// mine B" > "$L/$T/exercise_transpose.cu"
out=$("$GPULAB" reset 04 --lessons "$L" 2>&1); rc=$?
[ $rc -eq 2 ] || bad "reset of a two-exercise lesson without a name exits $rc"
grep -q "reset $T/" <<<"$out" || bad "reset does not list the exercises: $out"
first=$(python3 -c 'import tomllib,sys;print(tomllib.load(open(sys.argv[1],"rb"))["exercises"][0]["id"])' "$L/$T/lesson.toml")
out=$("$GPULAB" reset $T/$first --lessons "$L") || bad "reset $T/$first failed"
cmp -s "$L/$T/exercise.cu" "$L/$T/exercise.cu.template" || bad "reset did not restore the first exercise"
grep -q "// mine B" "$L/$T/exercise_transpose.cu" || bad "reset touched the other exercise"
backup=$(sed -n 's/.*saved as //p' <<<"$out")
[ -n "$backup" ] && grep -q "// mine A" "$backup" || bad "no backup of the student's file: $out"
case "$backup" in "$L"/*) ;; *) bad "backup outside the lessons folder: $backup";; esac

# Two copies of the lessons under one parent keep separate progress.
cp -r "$REPO/lessons" "$work/second"; rm -rf "$work/second/.gpulab"
[ "$("$GPULAB" lessons --json --lessons "$work/second" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(e["done"] for l in d["lessons"] for e in l["exercises"]))')" = 0 ] || bad "a second copy shares progress"

[ $fail -eq 0 ] && echo "ok: the lesson flow holds"
exit $fail
