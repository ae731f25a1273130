// barrier_pipeline.cu: libcu++'s asynchronous copies as a program writes
// them: tiles staged through shared memory by cuda::memcpy_async completing
// on a cuda::barrier (sm_80: cp.async + cp.async.mbarrier.arrive +
// mbarrier.test_wait; sm_90: cp.async.bulk + expect_tx + mbarrier.try_wait),
// and a two-stage cuda::pipeline double buffer. Checked on the host.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>

#include <cstdio>

#include <cuda_runtime.h>

namespace cg = cooperative_groups;

constexpr int kTile = 256;

// out[i] = sum over tiles t of in[t][i] * (t + 1), read back through shared memory.
__global__ void barrier_tiles(const float* in, float* out, int tiles) {
  __shared__ alignas(16) float tile[kTile];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  float acc = 0;
  for (int t = 0; t < tiles; ++t) {
    cuda::memcpy_async(block, tile, in + t * kTile, cuda::aligned_size_t<16>(sizeof(float) * kTile), bar);
    bar.arrive_and_wait();
    acc += tile[(threadIdx.x + 3 * t) % kTile] * (t + 1);
    bar.arrive_and_wait();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void pipeline_tiles(const float* in, float* out, int tiles) {
  __shared__ alignas(16) float stage[2][kTile];
  auto pipe = cuda::make_pipeline();
  const int i = threadIdx.x;
  float acc = 0;
  pipe.producer_acquire();
  cuda::memcpy_async(&stage[0][i], in + i, sizeof(float), pipe);
  pipe.producer_commit();
  for (int t = 0; t < tiles; ++t) {
    if (t + 1 < tiles) {
      pipe.producer_acquire();
      cuda::memcpy_async(&stage[(t + 1) & 1][i], in + (t + 1) * kTile + i, sizeof(float), pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    acc += stage[t & 1][i] * (t + 1);
    pipe.consumer_release();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

int main() {
  const int tiles = 6, blocks = 3, n = tiles * kTile;
  static float h_in[n], h_out[blocks * kTile];
  for (int i = 0; i < n; ++i) h_in[i] = float(i % 17) - 8.0f;
  float *d_in, *d_out;
  cudaMalloc(&d_in, sizeof h_in);
  cudaMalloc(&d_out, sizeof h_out);
  cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  int bad = 0;
  for (int k = 0; k < 2; ++k) {
    if (k == 0) barrier_tiles<<<blocks, kTile>>>(d_in, d_out, tiles);
    else pipeline_tiles<<<blocks, kTile>>>(d_in, d_out, tiles);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("%s: %s\n", k ? "pipeline" : "barrier", cudaGetErrorString(e)); return 1; }
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b)
      for (int x = 0; x < kTile; ++x) {
        float want = 0;
        for (int t = 0; t < tiles; ++t) want += h_in[t * kTile + (k ? x : (x + 3 * t) % kTile)] * (t + 1);
        if (h_out[b * kTile + x] != want) {
          if (bad++ < 5) printf("%s: out[%d] = %g, want %g\n", k ? "pipeline" : "barrier", b * kTile + x, h_out[b * kTile + x], want);
        }
      }
  }
  cudaFree(d_in);
  cudaFree(d_out);
  printf(bad ? "FAILED (%d wrong)\n" : "barrier and pipeline: PASSED\n", bad);
  return bad ? 1 : 0;
}
