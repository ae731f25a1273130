#!/usr/bin/env bash
# gpulab occupancy: JSON contract, known answers, exit codes.
set -u
G="$1"
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

out=$("$G" occupancy --gpu H100 --block 256 --regs 32 --smem 0 --json); rc=$?
check "exit 0" "[ $rc -eq 0 ]"
check "blocks_per_sm 8" "[ \"\$(echo '$out' | jq .blocks_per_sm)\" = 8 ]"
check "warps_per_sm 64" "[ \"\$(echo '$out' | jq .warps_per_sm)\" = 64 ]"
check "occupancy 1" "[ \"\$(echo '$out' | jq '.occupancy == 1')\" = true ]"
check "limiter warps" "[ \"\$(echo '$out' | jq -r .limiter)\" = warps ]"

out=$("$G" occupancy --gpu rtx-4090 --block 256 --regs 128 --json)
check "4090 regs-limited" "[ \"\$(echo '$out' | jq -r .limiter)\" = registers ]"
check "4090 2 blocks" "[ \"\$(echo '$out' | jq .blocks_per_sm)\" = 2 ]"
check "4090 occupancy 16/48" "[ \"\$(echo '$out' | jq '(.occupancy - 16/48) | fabs < 1e-9')\" = true ]"

out=$("$G" occupancy --gpu a100 --block 256 --regs 32 --smem 49152 --json)
check "a100 shared-limited" "[ \"\$(echo '$out' | jq -r .limiter)\" = shared_memory ]"
check "a100 3 blocks" "[ \"\$(echo '$out' | jq .blocks_per_sm)\" = 3 ]"

out=$("$G" occupancy --gpu H100 --block 128 --regs 32 --smem 102400 --json)
check "opt-in above 48 KB works" "[ \"\$(echo '$out' | jq .blocks_per_sm)\" = 2 ]"

text=$("$G" occupancy --gpu t4 --block 32 --regs 16); rc=$?
check "text exit 0" "[ $rc -eq 0 ]"
check "text names the limiter" "echo \"\$text\" | grep -q 'limited by blocks'"

for bad in "--block 1025" "--block 256 --regs 256" "--block 256 --smem 300000" "--gpu p100 --block 256"; do
  "$G" occupancy $bad --json >/dev/null 2>/tmp/occ_err.$$; rc=$?
  check "exit 2 for $bad" "[ $rc -eq 2 ]"
  check "message for $bad" "[ -s /tmp/occ_err.$$ ]"
done
rm -f /tmp/occ_err.$$
exit $fail
