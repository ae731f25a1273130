#!/usr/bin/env bash
# tests/cli/ring_order.sh GPULAB: lesson 11's ring as CUDA defines many GPUs
# (issue 25). A peer copy runs asynchronously to the other devices' work, so
# the ring without its events races: `gpulab run --check` reports it, naming
# the copy's line and the kernel, and fails; the lesson's ring (events and
# cudaStreamWaitEvent) is clean on 2, 4 and 8 GPUs, and every ZeRO stage.
set -u
GPULAB=$(realpath "${1:?usage: ring_order.sh path/to/gpulab}")
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The ring as it was before the events: the reference with them removed.
grep -v 'ring_wait\|ring_mark\|ring_start\|ring_finish' lessons/.solutions/11-many-gpus/solution_ring.cu \
  | sed "s|#include \"../../11-many-gpus/ring.h\"|#include \"$PWD/lessons/11-many-gpus/ring.h\"|" > "$work/unordered.cu"
out=$("$GPULAB" run lessons/11-many-gpus/data_parallel.cu "$work/unordered.cu" --gpus 4 --check -- 64 128 1 0 2>&1)
rc=$?
[ $rc -ne 0 ] || { echo "FAIL: the unordered ring passed --check"; fail=1; }
grep -q "stream-order race: kernel add_into (launch #[0-9]*) on GPU [0-9] reads bytes that cudaMemcpyPeerAsync" <<<"$out" \
  || { echo "FAIL: no read-after-copy race reported: $out" | head -20; fail=1; }
grep -q "unordered.cu:[0-9]" <<<"$out" || { echo "FAIL: the race does not name the copy's line"; fail=1; }
grep -q "cudaStreamWaitEvent" <<<"$out" || { echo "FAIL: the report does not say how to order the two"; fail=1; }
for g in 2 4 8; do
  out=$("$GPULAB" run lessons/11-many-gpus/data_parallel.cu lessons/.solutions/11-many-gpus/solution_ring.cu --gpus $g --check -- 64 128 1 0 2>&1) \
    || { echo "FAIL: the ordered ring on $g GPUs failed --check: $out" | tail -5; fail=1; }
  grep -q "stream-order race" <<<"$out" && { echo "FAIL: the ordered ring on $g GPUs has races"; fail=1; }
done
for z in 1 2 3; do
  out=$("$GPULAB" run lessons/11-many-gpus/data_parallel.cu lessons/.solutions/11-many-gpus/solution_ring.cu --gpus 4 --check -- 64 128 1 $z 2>&1) \
    || { echo "FAIL: ZeRO stage $z failed --check: $out" | tail -5; fail=1; }
done
# The ring's self-check holds a student's ring to the same rule.
out=$("$GPULAB" check 11-many-gpus/ring --file "$work/unordered.cu" 2>&1)
grep -q "stream-order race" <<<"$out" || { echo "FAIL: gpulab check accepted the unordered ring: $out" | tail -5; fail=1; }
[ $fail -eq 0 ] && echo "ok: the unordered ring races under --check; the lesson's ring is ordered"
exit $fail
