// tests/cli/many_gpus/ring_all_to_one.cu: lesson 11's ring exercise answered
// right for the wrong reason. Every GPU sends its whole buffer to GPU 0,
// which adds them and sends each rank its chunk back (reduce-scatter), then
// gathers the chunks and sends the whole buffer to everyone (all-gather).
// The sums are exact; but GPU 0's link carries N - 1 whole buffers each way
// per pass where a ring's carries (N - 1) / N of one. `gpulab check
// 11-many-gpus/ring --file` must reject it on max_gpu_link_bytes, naming the
// line of the copy into GPU 0 (tests/cli/many_gpus.sh).
#include "../../../lessons/11-many-gpus/ring.h"

static float* staging = nullptr;  // on GPU 0: one whole buffer from another rank at a time

void ring_reduce_scatter(const Ring& ring, float* const* buf) {
  const int N = ring.ranks;
  if (!staging) {
    CUDA_CHECK_RING(cudaSetDevice(0));
    CUDA_CHECK_RING(cudaMalloc(&staging, ring.n * sizeof(float)));
  }
  for (int r = 1; r < N; ++r) {
    CUDA_CHECK_RING(cudaSetDevice(r));
    CUDA_CHECK_RING(cudaMemcpyPeer(staging, 0, buf[r], r, ring.n * sizeof(float)));  // all into GPU 0
    CUDA_CHECK_RING(cudaSetDevice(0));
    add_into<<<unsigned((ring.n + 255) / 256), 256>>>(ring.n, buf[0], staging);
  }
  for (int r = 1; r < N; ++r)
    CUDA_CHECK_RING(cudaMemcpyPeer(buf[r] + ring.chunk_begin(r), r, buf[0] + ring.chunk_begin(r), 0,
                                   ring.chunk_size(r) * sizeof(float)));
}

void ring_all_gather(const Ring& ring, float* const* buf) {
  const int N = ring.ranks;
  for (int r = 1; r < N; ++r)
    CUDA_CHECK_RING(cudaMemcpyPeer(buf[0] + ring.chunk_begin(r), 0, buf[r] + ring.chunk_begin(r), r,
                                   ring.chunk_size(r) * sizeof(float)));
  for (int r = 1; r < N; ++r)
    CUDA_CHECK_RING(cudaMemcpyPeer(buf[r], r, buf[0], 0, ring.n * sizeof(float)));  // and out again
}
