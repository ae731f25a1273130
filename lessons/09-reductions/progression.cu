// lessons/09-reductions/progression.cu: summing N floats, six ways.
//
// Every kernel has the signature (const float* x, float* out, int N) and
// blocks of 256 threads; `gpulab lesson 09` runs each one on N = 4,194,304
// (lesson.toml's steps give the exact `gpulab sim` lines).
//
//   1 sum_atomic       every thread atomicAdd(out, x[i]): N updates of one address, serialised
//   2 sum_interleaved  shared-memory tree, interleaved addressing (s[2*k*tid]): bank conflicts
//   3 sum_sequential   shared-memory tree, sequential addressing (s[tid] += s[tid + k]): conflict-free
//   4 sum_first_add    as 3, each thread adds two elements while loading: half the blocks
//   5 sum_shuffle      grid-stride loads, __shfl_down_sync inside each warp, 8 warp sums through shared
//   6 two passes       5 on G blocks writes G partial sums; 5 again with one block sums the partials
//   7 sum_shuffle_atomic  5 in one pass: each block adds its sum to out[0] with one atomicAdd
//
// Versions 2-5 write one partial sum per block to out[blockIdx.x]; version 6's
// second pass turns those into the total. Versions 1 and 7 need out[0] = 0 first.

#define BLOCK 256

// 1: every thread one global atomic, all to one address.
extern "C" __global__ void sum_atomic(const float* x, float* out, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) atomicAdd(out, x[i]);
}

// 2: a tree in shared memory; at step k thread tid adds s[2*k*tid + k] into
// s[2*k*tid]. The active threads are packed at the front (no divergence
// within a warp until k = 16), but their addresses are 2k words apart.
extern "C" __global__ void sum_interleaved(const float* x, float* out, int N) {
  __shared__ float s[BLOCK];
  int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
  s[tid] = i < N ? x[i] : 0.f;
  __syncthreads();
  for (int k = 1; k < blockDim.x; k *= 2) {
    int at = 2 * k * tid;
    if (at < blockDim.x) s[at] += s[at + k];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 3: the same tree with sequential addressing: the first half adds the second
// half, so 32 lanes read 32 consecutive words (32 banks).
extern "C" __global__ void sum_sequential(const float* x, float* out, int N) {
  __shared__ float s[BLOCK];
  int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
  s[tid] = i < N ? x[i] : 0.f;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (tid < k) s[tid] += s[tid + k];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 4: as 3, but each block covers 2 * 256 elements and each thread adds its
// two while loading: the tree's fixed cost is paid once per 512 elements.
extern "C" __global__ void sum_first_add(const float* x, float* out, int N) {
  __shared__ float s[BLOCK];
  int tid = threadIdx.x, i = blockIdx.x * 2 * blockDim.x + tid;
  float v = i < N ? x[i] : 0.f;
  if (i + blockDim.x < N) v += x[i + blockDim.x];
  s[tid] = v;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (tid < k) s[tid] += s[tid + k];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 5: each thread sums a grid-stride slice in a register (first add, as many
// as it likes), each warp reduces its 32 values with shuffles (no shared
// memory, no barrier), lane 0 of each warp leaves one value in shared memory,
// and warp 0 reduces those 8.
__device__ float warp_sum(float v) {
  for (int k = 16; k > 0; k /= 2) v += __shfl_down_sync(0xffffffffu, v, k);
  return v;
}

extern "C" __global__ void sum_shuffle(const float* x, float* out, int N) {
  __shared__ float warp_sums[BLOCK / 32];
  int tid = threadIdx.x;
  float v = 0.f;
  for (int i = blockIdx.x * blockDim.x + tid; i < N; i += gridDim.x * blockDim.x) v += x[i];
  v = warp_sum(v);
  if (tid % 32 == 0) warp_sums[tid / 32] = v;
  __syncthreads();
  if (tid < 32) {
    v = tid < blockDim.x / 32 ? warp_sums[tid] : 0.f;
    v = warp_sum(v);
    if (tid == 0) out[blockIdx.x] = v;
  }
}

// 7: as 5, but the block sums meet in out[0] through one global atomic per
// block: G same-address updates instead of a second launch. The order in
// which blocks arrive varies from run to run on a GPU, so the float total's
// last bits do too; the two-pass version adds in a fixed order.
extern "C" __global__ void sum_shuffle_atomic(const float* x, float* out, int N) {
  __shared__ float warp_sums[BLOCK / 32];
  int tid = threadIdx.x;
  float v = 0.f;
  for (int i = blockIdx.x * blockDim.x + tid; i < N; i += gridDim.x * blockDim.x) v += x[i];
  v = warp_sum(v);
  if (tid % 32 == 0) warp_sums[tid / 32] = v;
  __syncthreads();
  if (tid < 32) {
    v = tid < blockDim.x / 32 ? warp_sums[tid] : 0.f;
    v = warp_sum(v);
    if (tid == 0) atomicAdd(out, v);
  }
}
