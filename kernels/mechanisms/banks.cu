// kernels/mechanisms/banks.cu: shared-memory bank conflicts, 1..32-way.
// Lane i reads word i * ways + 32 k (k = 0..15; 32 words on is the same
// bank): the 32 lanes fall on 32 / ways banks, `ways` lanes to a bank, so each
// load is `ways` wavefronts (CUDA C++ Programming Guide, "Shared Memory": an
// n-way conflicting request is split into n conflict-free ones, and
// throughput falls by n). The loads are inline PTX with immediate offsets, so
// the compiler can neither hoist them out of the loop nor add address
// arithmetic: one load and one add each, and with enough warps the shared
// data path, not issue or latency, sets the pace. `reps` is a multiple of 16.
extern "C" __global__ void shared_ways(float* out, int ways, int reps) {
  __shared__ float s[2048];
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) s[i] = float(i);
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const unsigned base = unsigned(__cvta_generic_to_shared(s + lane * ways));
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
#define LOAD(k)                                                                 \
  {                                                                             \
    float v;                                                                    \
    asm volatile("ld.volatile.shared.f32 %0, [%1+%2];" : "=f"(v) : "r"(base), "n"((k) * 128)); \
    acc[(k) & 3] += v;                                                          \
  }
  for (int r = 0; r < reps; r += 16) {
    LOAD(0) LOAD(1) LOAD(2) LOAD(3) LOAD(4) LOAD(5) LOAD(6) LOAD(7)
    LOAD(8) LOAD(9) LOAD(10) LOAD(11) LOAD(12) LOAD(13) LOAD(14) LOAD(15)
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc[0] + acc[1] + acc[2] + acc[3];
}
