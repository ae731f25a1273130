// lessons/11-many-gpus/nccl_ring.cu: the ring's two halves by NCCL, for a
// machine with several NVIDIA GPUs. It replaces exercise_ring.cu in the
// same program (README, "On real GPUs: NCCL"):
//
//   nvcc -O2 -std=c++17 -arch=native lessons/11-many-gpus/data_parallel.cu lessons/11-many-gpus/nccl_ring.cu -lnccl -o data_parallel
//   ./data_parallel 64 128 5 0        # every GPU the machine has (CUDA_VISIBLE_DEVICES picks them)
//
// NCCL builds its own rings (and trees) over the NVLink and PCIe topology it
// finds, with the same reduce-scatter and all-gather. It needs equal chunks:
// n a multiple of the GPUs. The lab cannot run this file (it serves the CUDA
// runtime, not NCCL); the simulated ring is the lesson's tested path.
#include <nccl.h>

#include "ring.h"

namespace {

ncclComm_t comms[kMaxRanks];
cudaStream_t streams[kMaxRanks];
bool ready = false;

void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) {
    std::fprintf(stderr, "nccl_ring.cu: %s: %s\n", what, ncclGetErrorString(r));
    std::exit(1);
  }
}

void start(const Ring& ring) {
  if (ready) return;
  if (ring.n % ring.ranks) {
    std::fprintf(stderr, "nccl_ring.cu: NCCL needs equal chunks: %ld floats over %d GPUs\n", ring.n, ring.ranks);
    std::exit(1);
  }
  nccl_check(ncclCommInitAll(comms, ring.ranks, nullptr), "ncclCommInitAll");  // devices 0 .. N-1
  for (int r = 0; r < ring.ranks; ++r) {
    CUDA_CHECK_RING(cudaSetDevice(r));
    CUDA_CHECK_RING(cudaStreamCreate(&streams[r]));
  }
  ready = true;
}

// The program's next kernels run on each device's default stream: wait here.
void finish(const Ring& ring) {
  for (int r = 0; r < ring.ranks; ++r) {
    CUDA_CHECK_RING(cudaSetDevice(r));
    CUDA_CHECK_RING(cudaStreamSynchronize(streams[r]));
  }
}

}  // namespace

// In place: rank r's chunk r is the recvbuff at sendbuff + r * count (NCCL's in-place rule).
void ring_reduce_scatter(const Ring& ring, float* const* buf) {
  start(ring);
  const size_t count = size_t(ring.n / ring.ranks);
  nccl_check(ncclGroupStart(), "ncclGroupStart");
  for (int r = 0; r < ring.ranks; ++r)
    nccl_check(ncclReduceScatter(buf[r], buf[r] + ring.chunk_begin(r), count, ncclFloat, ncclSum, comms[r], streams[r]),
               "ncclReduceScatter");
  nccl_check(ncclGroupEnd(), "ncclGroupEnd");
  finish(ring);
}

void ring_all_gather(const Ring& ring, float* const* buf) {
  start(ring);
  const size_t count = size_t(ring.n / ring.ranks);
  nccl_check(ncclGroupStart(), "ncclGroupStart");
  for (int r = 0; r < ring.ranks; ++r)
    nccl_check(ncclAllGather(buf[r] + ring.chunk_begin(r), buf[r], count, ncclFloat, comms[r], streams[r]),
               "ncclAllGather");
  nccl_check(ncclGroupEnd(), "ncclGroupEnd");
  finish(ring);
}
