// tests/cli/many_gpus/ring_whole_buffers.cu: lesson 11's ring exercise
// answered right for the wrong reason. Each rank r fetches every other rank's
// *whole* buffer and adds only chunk r of it: the sums are exact, but every
// GPU receives N - 1 whole buffers where a ring's reduce-scatter receives
// (N - 1) / N of one. The all-gather is a fair direct copy of each chunk.
// `gpulab check 11-many-gpus/ring --file` must reject it on
// max_gpu_link_bytes, naming the whole-buffer copy's line
// (tests/cli/many_gpus.sh).
#include "../../../lessons/11-many-gpus/ring.h"

static float* staging[kMaxRanks] = {};  // per rank: one whole buffer from another rank at a time

void ring_reduce_scatter(const Ring& ring, float* const* buf) {
  const int N = ring.ranks;
  for (int r = 0; r < N; ++r) {
    CUDA_CHECK_RING(cudaSetDevice(r));
    if (!staging[r]) CUDA_CHECK_RING(cudaMalloc(&staging[r], ring.n * sizeof(float)));
    for (int s = 0; s < N; ++s) {
      if (s == r) continue;
      // Rank s's chunk r is still its own gradient: only rank s changes chunk s.
      CUDA_CHECK_RING(cudaMemcpyPeer(staging[r], r, buf[s], s, ring.n * sizeof(float)));  // the whole buffer
      add_into<<<unsigned((ring.chunk_size(r) + 255) / 256), 256>>>(ring.chunk_size(r), buf[r] + ring.chunk_begin(r),
                                                                    staging[r] + ring.chunk_begin(r));
    }
  }
}

void ring_all_gather(const Ring& ring, float* const* buf) {
  const int N = ring.ranks;
  for (int c = 0; c < N; ++c)
    for (int r = 0; r < N; ++r)
      if (r != c)
        CUDA_CHECK_RING(cudaMemcpyPeer(buf[r] + ring.chunk_begin(c), r, buf[c] + ring.chunk_begin(c), c,
                                       ring.chunk_size(c) * sizeof(float)));
}
