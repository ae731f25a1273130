// Lesson 11 exercise: the ring all-reduce's two halves.
//
// N GPUs (rank r = device r) each hold a buffer of n floats in N chunks
// (ring.h: ring.chunk_begin(c), ring.chunk_size(c)). Rank r may send only to
// rank (r + 1) % N. Each step, every rank sends ONE chunk: all N copies run
// at once, on N different links.
//
//   ring_reduce_scatter: N - 1 steps. At each, rank r sends one chunk of its
//     buffer into ring.scratch[r + 1] on the next rank, which adds it into
//     the same chunk of its own buffer (add_into). At the end rank r must hold
//     the sum over all ranks of chunk r. Which chunk does rank r send at step
//     s, so that the partial sum it received at step s - 1 travels on?
//   ring_all_gather: N - 1 steps. At each, rank r sends one chunk of its
//     buffer into the same place of the next rank's buffer. At the start rank
//     r holds the finished chunk r; at the end every rank holds every chunk.
//
// The ordering between GPUs is written for you (ring.h explains it): a copy
// waits for the receiver's last use of the place it lands in (done[to]), and
// a rank waits for the copy into it (sent[from]) before it reads what
// arrived. Without them, `gpulab run --check` reports the races: on a GPU a
// peer copy runs asynchronously to the other devices' work.
//
// Check with `gpulab check 11-many-gpus/ring`; run the whole training with
//   gpulab run lessons/11-many-gpus/data_parallel.cu lessons/11-many-gpus/exercise_ring.cu --gpus 4
#include "ring.h"

static unsigned blocks(long n) { return unsigned((n + 255) / 256); }

void ring_reduce_scatter(const Ring& ring, float* const* buf) {
  const int N = ring.ranks;
  ring_start(ring);
  for (int s = 0; s < N - 1; ++s) {
    for (int r = 0; r < N; ++r) {
      const int to = (r + 1) % N;
      const int c = 0;  // TODO: the chunk rank r sends at step s
      CUDA_CHECK_RING(cudaSetDevice(r));
      ring_wait(ring.done[to]);  // rank `to` has finished adding the previous chunk out of its scratch
      CUDA_CHECK_RING(cudaMemcpyPeerAsync(ring.scratch[to], to, buf[r] + ring.chunk_begin(c), r,
                                          ring.chunk_size(c) * sizeof(float), 0));
      ring_mark(ring.sent[r]);
    }
    for (int r = 0; r < N; ++r) {
      const int from = (r - 1 + N) % N;
      const int c = 0;  // TODO: the chunk rank r received from rank `from` at step s
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
    for (int r = 0; r < N; ++r) {
      const int to = (r + 1) % N, from = (r - 1 + N) % N;
      const int c = 0;  // TODO: the chunk rank r passes on at step s
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
