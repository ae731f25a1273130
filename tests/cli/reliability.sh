#!/usr/bin/env bash
# tests/cli/reliability.sh GPULAB: issue 17's reproductions, each exactly as
# reported: progress lost by concurrent commands, hints past the end, runaway
# kernels under check and watch, --threads 40000, huge launches, and every raw
# library message (each must become a sentence naming what to fix).
set -u
GPULAB=$(realpath "${1:?usage: reliability.sh path/to/gpulab}")
fail=0
bad() { echo "FAIL: $*"; fail=1; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
L=$work/lessons
cp -r lessons "$L"
rm -rf "$L/.gpulab"
for d in "$L"/*/; do for t in "$d"*.template; do cp "$t" "${t%.template}"; done; done
E1=01-latency-vs-throughput/vector-add
E3=03-coalescing/$(python3 -c 'import tomllib,sys;print(tomllib.load(open(sys.argv[1],"rb"))["exercises"][0]["id"])' "$L/03-coalescing/lesson.toml")
state() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["exercises"].get(sys.argv[2],{}); print(d.get(sys.argv[3],""))' "$L/.gpulab/progress.json" "$1" "$2"; }

# ---- hints past the end (segfault / bad_alloc before) ------------------------
mkdir -p "$L/.gpulab"
echo "{\"version\":1,\"exercises\":{\"$E1\":{\"hints_shown\":4}}}" > "$L/.gpulab/progress.json"
out=$("$GPULAB" hint $E1 --lessons "$L" 2>&1); rc=$?
[ $rc -eq 0 ] || bad "hint with hints_shown 4 exits $rc: $out"
grep -q "No more hints (3 of 3 shown)" <<<"$out" || bad "hint past the end does not say so: $out"
rm -f "$L/.gpulab/progress.json"

# ---- two concurrent checks of one exercise: every count kept -----------------
for i in 1 2 3; do "$GPULAB" check $E1 --lessons "$L" >/dev/null 2>&1 & done
wait
[ "$(state $E1 checks)" = 3 ] || bad "3 concurrent checks recorded $(state $E1 checks) counts"

# ---- watch + check on different exercises ------------------------------------
cp "$L/.solutions/01-latency-vs-throughput/solution.cu" "$L/01-latency-vs-throughput/exercise.cu"
mkfifo "$work/keys"
"$GPULAB" watch $E3 --lessons "$L" <"$work/keys" >"$work/watch.out" 2>&1 &
wpid=$!
exec 7>"$work/keys"
for _ in $(seq 60); do grep -q "save the file" "$work/watch.out" && break; sleep 0.5; done
"$GPULAB" check $E1 --lessons "$L" >/dev/null 2>&1 || bad "check of the solved $E1 failed"
[ "$(state $E1 done)" = True ] || bad "check did not record $E1 done"
touch "$L/${E3%%/*}/exercise.cu"  # watch re-checks its own exercise and records it
for _ in $(seq 60); do [ "$(grep -c 'save the file' "$work/watch.out")" -ge 2 ] && break; sleep 0.5; done
echo q >&7; exec 7>&-
for _ in $(seq 20); do kill -0 $wpid 2>/dev/null || break; sleep 0.5; done
kill -0 $wpid 2>/dev/null && { bad "watch did not quit on q"; kill $wpid; }
[ "$(state $E1 done)" = True ] || bad "watch erased the pass check recorded for $E1"
[ "$(state $E3 checks)" -ge 2 ] 2>/dev/null || bad "watch did not record its checks of $E3 ($(state $E3 checks))"

# ---- a runaway kernel under check and under watch: a hang report in < 30 s ----
cat > "$L/01-latency-vs-throughput/exercise.cu" <<'CU'
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (i < n) {
    c[i] = a[i] + b[i];
  }
}
CU
start=$SECONDS
out=$(timeout 60 "$GPULAB" check $E1 --lessons "$L" 2>&1); rc=$?
[ $((SECONDS - start)) -le 30 ] || bad "check of an infinite loop took $((SECONDS - start)) s"
[ $rc -eq 1 ] || bad "check of an infinite loop exits $rc"
grep -q "hang" <<<"$out" && grep -qE "lines? 3" <<<"$out" || bad "no hang report naming the loop: $out"
[ "$(state $E1 done)" = False ] || bad "a failing re-check left $E1 done"
start=$SECONDS
out=$(timeout 60 "$GPULAB" watch $E1 --once --lessons "$L" 2>&1); rc=$?
[ $((SECONDS - start)) -le 30 ] || bad "watch of an infinite loop took $((SECONDS - start)) s"
grep -q "hang" <<<"$out" || bad "watch: no hang report: $out"
# watch stays responsive while a long check runs: q quits at once.
mkfifo "$work/keys2"
"$GPULAB" watch $E1 --lessons "$L" <"$work/keys2" >"$work/watch2.out" 2>&1 &
wpid=$!
exec 8>"$work/keys2"
for _ in $(seq 40); do grep -q "checking" "$work/watch2.out" && break; sleep 0.25; done
sleep 1
start=$SECONDS
echo q >&8; exec 8>&-
for _ in $(seq 40); do kill -0 $wpid 2>/dev/null || break; sleep 0.25; done
kill -0 $wpid 2>/dev/null && { bad "watch ignored q during a check"; kill $wpid; }
[ $((SECONDS - start)) -le 5 ] || bad "watch took $((SECONDS - start)) s to quit"

# A save during a long check cancels it (nothing printed or recorded for the
# old version) and checks the new one at once. The long check: a kernel
# that loops long at every size but finishes, and fails the criteria (about
# 10 s on the build machine). The runaway kernel above no longer serves: its
# hang is reported in about a second, since the sizes only compared with the
# reference run without the cycle model.
cat > "$L/01-latency-vs-throughput/exercise.cu" <<'CU'
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.f;
  for (int k = 0; k < 25000; ++k) s += a[(i + k) % n];
  c[i] = a[i] + b[i] + (s == 1e30f ? 1.f : 0.f);
}
CU
mkfifo "$work/keys3"
"$GPULAB" watch $E1 --lessons "$L" <"$work/keys3" >"$work/watch3.out" 2>&1 &
wpid=$!
exec 8>"$work/keys3"
for _ in $(seq 40); do grep -q "checking" "$work/watch3.out" && break; sleep 0.25; done
sleep 1
cp "$L/.solutions/01-latency-vs-throughput/solution.cu" "$L/01-latency-vs-throughput/exercise.cu"
start=$SECONDS
for _ in $(seq 120); do grep -q "PASS" "$work/watch3.out" && break; sleep 0.25; done
grep -q "PASS" "$work/watch3.out" || bad "watch did not re-check the saved fix: $(cat "$work/watch3.out")"
[ $((SECONDS - start)) -le 20 ] || bad "watch took $((SECONDS - start)) s to check the saved fix"
grep -q "hang" "$work/watch3.out" && bad "watch reported the cancelled check's hang: $(cat "$work/watch3.out")"
grep -q "FAIL" "$work/watch3.out" && bad "watch printed the cancelled check's verdict: $(cat "$work/watch3.out")"
[ "$(grep -c 'checking' "$work/watch3.out")" -eq 2 ] || bad "watch: expected 2 checks (the loop, then the fix): $(cat "$work/watch3.out")"
echo q >&8; exec 8>&-
for _ in $(seq 40); do kill -0 $wpid 2>/dev/null || break; sleep 0.25; done
kill -0 $wpid 2>/dev/null && { bad "watch ignored q"; kill $wpid; }
[ "$(state $E1 done)" = True ] || bad "watch did not record the fix's pass"
cp "$L/01-latency-vs-throughput/exercise.cu.template" "$L/01-latency-vs-throughput/exercise.cu"

# ---- the simulator's own limits -------------------------------------------------
K=tests/check/ok_global_neighbour.cu
out=$("$GPULAB" sim $K --kernel ok_global_neighbour --grid 2 --block 64 --arg f32[129]=iota --arg f32[128] --threads 40000 2>&1); rc=$?
[ $rc -eq 0 ] || bad "--threads 40000 exits $rc: $out"
grep -q "cores" <<<"$out" || bad "--threads 40000 is not explained: $out"
start=$SECONDS
out=$(timeout 60 "$GPULAB" sim tests/check/hang_spin.cu --kernel hang_spin --grid 1 --block 32 --arg i32[1] 2>&1); rc=$?
[ $((SECONDS - start)) -le 15 ] || bad "sim of a spinning warp took $((SECONDS - start)) s"
grep -q "hang" <<<"$out" || bad "sim: no hang report: $out"
out=$(timeout 60 "$GPULAB" sim tests/check/hang_spin.cu --kernel hang_spin --grid 1 --block 32 --arg i32[1] --max-steps 1000000000 --time-limit 1 2>&1)
grep -q "time limit of 1 s" <<<"$out" || bad "--time-limit: no hang report: $out"
# A launch of 1e9 threads: its size up front, and Ctrl-C stops it cleanly.
"$GPULAB" sim tests/check/ok_global_counter_atomic.cu --kernel ok_global_counter_atomic --grid 3906250 --block 256 --arg i32[1] >"$work/big.out" 2>&1 &
bpid=$!
for _ in $(seq 40); do grep -q "1000000000 threads" "$work/big.out" && break; sleep 0.25; done
grep -q "1000000000 threads" "$work/big.out" || bad "a 1e9-thread launch does not say its size: $(cat "$work/big.out")"
sleep 2
kill -INT $bpid
for _ in $(seq 40); do kill -0 $bpid 2>/dev/null || break; sleep 0.25; done
kill -0 $bpid 2>/dev/null && { bad "Ctrl-C did not stop a big launch"; kill -9 $bpid; }
wait $bpid; rc=$?
[ $rc -eq 130 ] || bad "Ctrl-C: exit $rc, expected 130"
grep -q "stopped by Ctrl-C after" "$work/big.out" || bad "Ctrl-C: no partial-result note: $(tail -3 "$work/big.out")"

# ---- raw library messages become sentences ------------------------------------
expect_msg() {  # expect_msg WANT_RC GREP_PATTERN command...
  local want=$1 pat=$2; shift 2
  local out rc
  out=$("$@" 2>&1); rc=$?
  [ $rc -eq "$want" ] || bad "$*: exit $rc (want $want): $out"
  grep -qE -- "$pat" <<<"$out" || bad "$*: message lacks /$pat/: $out"
  grep -qE "std::|filesystem error|terminate called|stoi|bad_alloc" <<<"$out" && bad "$*: raw library message: $out"
}
touch "$work/afile"
expect_msg 2 "--dump.*folder" "$GPULAB" sim $K --kernel ok_global_neighbour --grid 2 --block 64 --arg f32[129]=iota --arg f32[128] --dump "$work/afile"
expect_msg 2 "--size 100000" "$GPULAB" validate --size 100000
expect_msg 2 "no lesson '99999999999999999999'" "$GPULAB" lesson 99999999999999999999 --no-pause --lessons "$L"
expect_msg 2 "--only 'nope'.*versions are" "$GPULAB" bench gemm --only nope
expect_msg 2 "--only 'nope'.*versions are" "$GPULAB" validate --only nope
expect_msg 2 "out of range for u8" "$GPULAB" sim $K --kernel ok_global_neighbour --arg u8[4]=fill:300 --arg f32[128]
expect_msg 2 "is a folder" "$GPULAB" sim tests/check --kernel k
# A manifest path leading out of the lesson folder is refused before reset can write there.
cp -r "$L" "$work/evil"
# The escape target is named after this run's temp folder, so a stray /tmp/x cannot fail the test.
escape="escape-$(basename "$work")"
sed -i "s|^file = \"exercise.cu\"|file = \"../../../$escape\"|" "$work/evil/01-latency-vs-throughput/lesson.toml"
grep -q "$escape" "$work/evil/01-latency-vs-throughput/lesson.toml" || bad "evil manifest not written"
expect_msg 2 "inside the lesson folder" "$GPULAB" reset $E1 --lessons "$work/evil"
[ -e "$work/../$escape" ] && bad "reset wrote outside the lessons folder"
# A workspace whose state cannot be written still prints check's verdict.
cp -r "$L" "$work/ro"; rm -rf "$work/ro/.gpulab"; echo blocked > "$work/ro/.gpulab"
out=$("$GPULAB" check $E1 --lessons "$work/ro" 2>&1); rc=$?
[ $rc -eq 1 ] || bad "check in an unwritable workspace exits $rc: $out"
grep -q "FAIL" <<<"$out" || bad "check in an unwritable workspace prints no verdict: $out"
grep -q "not recorded" <<<"$out" || bad "check in an unwritable workspace does not say the result was not recorded: $out"

[ $fail -eq 0 ] && echo "ok: issue 17's reproductions all hold"
exit $fail
