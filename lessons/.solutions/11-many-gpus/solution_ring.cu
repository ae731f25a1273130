// Lesson 11 exercise: the ring all-reduce's two halves (reference solution).
//
// Each step every rank sends one chunk, 1/N of the buffer, to its right-hand
// neighbour, and all N copies run at once on N different links. After N - 1
// steps of the reduce-scatter and N - 1 of the all-gather every rank has
// sent 2 (N - 1) / N of the buffer: the same on every link whatever N is.
#include "../../11-many-gpus/ring.h"

static unsigned blocks(long n) { return unsigned((n + 255) / 256); }

void ring_reduce_scatter(const Ring& ring, float* const* buf) {
  const int N = ring.ranks;
  ring_start(ring);
  for (int s = 0; s < N - 1; ++s) {
    // Rank r passes on chunk (r - 1 - s): the partial sum it received (and
    // added to) at the previous step. After the last step the chunk rank r
    // receives is its own, r, with every rank's part in it.
    for (int r = 0; r < N; ++r) {
      const int to = (r + 1) % N, c = ((r - 1 - s) % N + N) % N;
      CUDA_CHECK_RING(cudaSetDevice(r));
      ring_wait(ring.done[to]);  // rank `to` has finished adding the previous chunk out of its scratch
      CUDA_CHECK_RING(cudaMemcpyPeerAsync(ring.scratch[to], to, buf[r] + ring.chunk_begin(c), r,
                                          ring.chunk_size(c) * sizeof(float), 0));
      ring_mark(ring.sent[r]);
    }
    for (int r = 0; r < N; ++r) {
      const int from = (r - 1 + N) % N, c = ((from - 1 - s) % N + N) % N;
      CUDA_CHECK_RING(cudaSetDevice(r));
      ring_wait(ring.sent[from]);  // the chunk has landed in this rank's scratch
      add_into<<<blocks(ring.chunk_size(c)), 256>>>(ring.chunk_size(c), buf[r] + ring.chunk_begin(c), ring.scratch[r]);
      CUDA_CHECK_RING(cudaGetLastError());
      ring_mark(ring.done[r]);
    }
  }
}

void ring_all_gather(const Ring& ring, float* const* buf) {
  const int N = ring.ranks;
  ring_start(ring);
  for (int s = 0; s < N - 1; ++s) {
    // Rank r passes on chunk (r - s): its own at the first step, then the one
    // it received at the previous step.
    for (int r = 0; r < N; ++r) {
      const int to = (r + 1) % N, from = (r - 1 + N) % N, c = ((r - s) % N + N) % N;
      CUDA_CHECK_RING(cudaSetDevice(r));
      ring_wait(ring.sent[from]);  // the chunk it passes on has arrived
      ring_wait(ring.done[to]);    // rank `to` is done with the place it lands in
      CUDA_CHECK_RING(cudaMemcpyPeerAsync(buf[to] + ring.chunk_begin(c), to, buf[r] + ring.chunk_begin(c), r,
                                          ring.chunk_size(c) * sizeof(float), 0));
      ring_mark(ring.sent[r]);
      ring_mark(ring.done[r]);
    }
  }
  ring_finish(ring);
}
