// tests/cli/many_gpus/ring_all_to_all.cu: lesson 11's ring exercise answered
// right for the wrong reason. Every rank sends its part of chunk c straight
// to rank c, which adds it (reduce-scatter), and rank c then sends its
// finished chunk straight to every other rank (all-gather). Each GPU sends
// 2 (N - 1) chunks, as many bytes as a ring's, but over every pair of GPUs
// instead of its two ring links. `gpulab check 11-many-gpus/ring --file`
// must reject it on max_gpu_link_bytes (a link that is not a ring
// neighbour's), on 3 GPUs: on 2 every pair is a ring link.
#include "../../../lessons/11-many-gpus/ring.h"

void ring_reduce_scatter(const Ring& ring, float* const* buf) {
  const int N = ring.ranks;
  for (int c = 0; c < N; ++c)
    for (int r = 0; r < N; ++r) {
      if (r == c) continue;
      CUDA_CHECK_RING(cudaSetDevice(r));
      CUDA_CHECK_RING(cudaMemcpyPeer(ring.scratch[c], c, buf[r] + ring.chunk_begin(c), r,
                                     ring.chunk_size(c) * sizeof(float)));  // straight to the chunk's owner
      CUDA_CHECK_RING(cudaSetDevice(c));
      add_into<<<unsigned((ring.chunk_size(c) + 255) / 256), 256>>>(ring.chunk_size(c), buf[c] + ring.chunk_begin(c),
                                                                      ring.scratch[c]);
      CUDA_CHECK_RING(cudaDeviceSynchronize());
    }
}

void ring_all_gather(const Ring& ring, float* const* buf) {
  const int N = ring.ranks;
  for (int c = 0; c < N; ++c)
    for (int r = 0; r < N; ++r) {
      if (r == c) continue;
      CUDA_CHECK_RING(cudaSetDevice(c));
      CUDA_CHECK_RING(cudaMemcpyPeer(buf[r] + ring.chunk_begin(c), r, buf[c] + ring.chunk_begin(c), c,
                                     ring.chunk_size(c) * sizeof(float)));  // the owner to everyone
    }
}
