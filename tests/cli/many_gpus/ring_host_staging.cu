// tests/cli/many_gpus/ring_host_staging.cu: lesson 11's ring exercise
// answered right for the wrong reason. Every buffer is copied to the host,
// summed there and copied back: the sums are exact and no link carries a
// byte, so a bound on the busiest link alone passes it. `gpulab check
// 11-many-gpus/ring --file` must reject it on max_gpu_link_bytes (the ring's
// links carry less than a ring's share).
#include <vector>

#include "../../../lessons/11-many-gpus/ring.h"

void ring_reduce_scatter(const Ring& ring, float* const* buf) {
  const int N = ring.ranks;
  std::vector<float> sum(size_t(ring.n), 0.0f), part(size_t(ring.n));
  for (int r = 0; r < N; ++r) {
    CUDA_CHECK_RING(cudaSetDevice(r));
    CUDA_CHECK_RING(cudaMemcpy(part.data(), buf[r], ring.n * sizeof(float), cudaMemcpyDeviceToHost));
    for (long i = 0; i < ring.n; ++i) sum[size_t(i)] += part[size_t(i)];
  }
  for (int r = 0; r < N; ++r) {
    CUDA_CHECK_RING(cudaSetDevice(r));
    CUDA_CHECK_RING(cudaMemcpy(buf[r], sum.data(), ring.n * sizeof(float), cudaMemcpyHostToDevice));
  }
}

void ring_all_gather(const Ring& ring, float* const* buf) {}  // every rank already has every sum
