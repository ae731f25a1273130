// expect: race line 11
// run: --kernel race_global_lock_unfenced --grid 1 --block 128 --arg i32[1] --arg i32[2]
// The twin of ok_global_lock_fenced without the fence before the unlock:
// relaxed atomics order only themselves, so the next holder's plain reads
// are not ordered after this holder's writes.
extern "C" __global__ void race_global_lock_unfenced(int* lock, int* data) {
  if ((threadIdx.x & 31) != 0) return;
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
  data[0] += 1;  // <- planted bug
  atomicExch(lock, 0);
}
