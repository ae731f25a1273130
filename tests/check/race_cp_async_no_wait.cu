// expect: race line 15
// run: --kernel race_cp_async_no_wait --grid 1 --block 64 --arg f32[64]=iota --arg f32[64]
// A cp.async stage with its commit but without its wait: the copy may still
// be in flight at the barrier (cp.async completes at cp.async.wait_group,
// PTX ISA), so the reads after it can see the old shared values.
#include <cuda_pipeline.h>
extern "C" __global__ void race_cp_async_no_wait(const float* in, float* out) {
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = 0.0f;
  __syncthreads();
  __pipeline_memcpy_async(&s[t], &in[t], sizeof(float));
  __pipeline_commit();
  __syncthreads();
  out[t] = s[63 - t];  // <- planted bug
}
