// expect: clean
// run: --kernel ok_cp_async_wait --grid 1 --block 64 --arg f32[64]=iota --arg f32[64]
// The twin of race_cp_async_no_wait: each thread waits for its copies
// (__pipeline_wait_prior(0): cp.async.wait_group 0), then the barrier
// makes them visible to the block.
#include <cuda_pipeline.h>
extern "C" __global__ void ok_cp_async_wait(const float* in, float* out) {
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = 0.0f;
  __syncthreads();
  __pipeline_memcpy_async(&s[t], &in[t], sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[t] = s[63 - t];
}
