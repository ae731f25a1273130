// kernels/mechanisms/wgmma_peak.cu: the tensor cores' rate through Hopper's
// warpgroup MMA (wgmma.mma_async.m64n256k16, f16 in, f32 accumulate), both
// operands in shared memory (no-swizzle K-major tiles of zeros), one
// accumulator chained `reps` times: back-to-back wgmmas pipeline on the
// tensor core. One warpgroup (128 threads) per block. Needs sm_90a.
#include "wgmma_ops.cuh"

extern "C" __global__ void __launch_bounds__(128) wgmma_peak(float* out, int reps) {
  __shared__ __align__(128) unsigned char tiles[64 * 16 * 2 + 256 * 16 * 2];
  for (int i = threadIdx.x; i < int(sizeof(tiles)); i += blockDim.x) tiles[i] = 0;
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(tiles));
  const unsigned long long a = wgmma_descriptor(base), b = wgmma_descriptor(base + 64 * 16 * 2);
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  wgmma_fence();
  for (int r = 0; r < reps; ++r) wgmma_m64n256k16(d, a, b);
  wgmma_commit();
  wgmma_wait_all();
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 128; ++i) s += d[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
