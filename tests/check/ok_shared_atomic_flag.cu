// expect: clean
// run: --kernel ok_shared_atomic_flag --grid 1 --block 128 --arg i32[128]=iota --arg i32[2]
// Atomics never race with atomics: every warp bumps a shared counter and a
// shared maximum; the results are read after a barrier.
extern "C" __global__ void ok_shared_atomic_flag(const int* in, int* out) {
  __shared__ int count, biggest;
  if (threadIdx.x == 0) { count = 0; biggest = 0; }
  __syncthreads();
  int v = in[threadIdx.x];
  if (v % 3 == 0) atomicAdd(&count, 1);
  atomicMax(&biggest, v);
  __syncthreads();
  if (threadIdx.x == 0) { out[0] = count; out[1] = biggest; }
}
