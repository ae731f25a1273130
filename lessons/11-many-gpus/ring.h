// lessons/11-many-gpus/ring.h: what the data-parallel program
// (data_parallel.cu) and the ring (exercise_ring.cu) share.
//
// N GPUs each hold a buffer of n floats, split into N chunks: chunk c is
// elements [chunk_begin(c), chunk_begin(c + 1)). Rank r ends a
// reduce-scatter owning the fully summed chunk r, which is also the shard
// of the optimizer state (and, in ZeRO stage 3, of the parameters) it keeps.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK_RING(call)                                                                     \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

constexpr int kMaxRanks = 8;

struct Ring {
  int ranks = 1;            // GPUs, device r is rank r; rank r sends to rank (r + 1) % ranks
  long n = 0;               // floats in each rank's buffer
  float* scratch[kMaxRanks] = {};  // per rank: room for the largest chunk, where a received chunk lands
  // The order between GPUs. cudaMemcpyPeerAsync runs asynchronously to the
  // work of every other device (CUDA Runtime API reference), so nothing makes
  // rank r + 1's add wait for rank r's copy unless events say so. Rank r
  // records sent[r] after each copy it issues and done[r] after its own work
  // on its buffers; a rank waits for the other side's event
  // (cudaStreamWaitEvent) before it uses what the other side wrote, or
  // overwrites what the other side may still read. Created on device r.
  cudaEvent_t sent[kMaxRanks] = {}, done[kMaxRanks] = {};
  long chunk_begin(int c) const { return long(c) * n / ranks; }
  long chunk_size(int c) const { return chunk_begin(c + 1) - chunk_begin(c); }
};

// On the current device's stream: wait for another rank's event, or mark
// where this rank's work stands.
inline void ring_wait(cudaEvent_t e) { CUDA_CHECK_RING(cudaStreamWaitEvent(0, e, 0)); }
inline void ring_mark(cudaEvent_t e) { CUDA_CHECK_RING(cudaEventRecord(e, 0)); }

// Before a collective: every rank marks its work so far (done[r]), so that
// a neighbour's first copy into its buffers waits for it.
inline void ring_start(const Ring& ring) {
  for (int r = 0; r < ring.ranks; ++r) {
    CUDA_CHECK_RING(cudaSetDevice(r));
    ring_mark(ring.done[r]);
  }
}
// After a collective: every rank waits for the last chunk it received, so
// its next kernels read its buffer after that copy has landed.
inline void ring_finish(const Ring& ring) {
  for (int r = 0; r < ring.ranks; ++r) {
    CUDA_CHECK_RING(cudaSetDevice(r));
    ring_wait(ring.sent[(r - 1 + ring.ranks) % ring.ranks]);
  }
}

// dst[i] += src[i] for i < n, on the current device (data_parallel.cu).
__global__ void add_into(long n, float* dst, const float* src);

// Every rank's buf[r] becomes, in chunk r only, the sum over ranks of that
// chunk (the other chunks are left partly summed). N - 1 steps; at each,
// every rank sends one chunk to the next rank, which adds it into its own.
void ring_reduce_scatter(const Ring& ring, float* const* buf);

// Every rank's buf[r] gets every other rank's chunk: chunk c is copied from
// rank c's buffer to all the others. N - 1 steps; at each, every rank sends
// one chunk to the next rank, which keeps it.
void ring_all_gather(const Ring& ring, float* const* buf);
