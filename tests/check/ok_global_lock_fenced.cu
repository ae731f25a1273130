// expect: clean
// run: --kernel ok_global_lock_fenced --grid 1 --block 128 --arg i32[1] --arg i32[2]
// One lane per warp takes a global lock (atomicCAS, then __threadfence: an
// acquire), updates two plain words, and releases it (__threadfence, then
// atomicExch: a release). The plain accesses are ordered by the lock (PTX
// ISA memory consistency model: release and acquire patterns).
extern "C" __global__ void ok_global_lock_fenced(int* lock, int* data) {
  if ((threadIdx.x & 31) != 0) return;
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
  data[0] += 1;
  data[1] += threadIdx.x;
  __threadfence();
  atomicExch(lock, 0);
}
