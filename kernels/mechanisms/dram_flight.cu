// kernels/mechanisms/dram_flight.cu: DRAM bandwidth against the bytes each
// thread keeps in flight, reads and writes apart. One wave of blocks (every
// SM full) walks an array far larger than the L2; each pass a thread issues
// LOADS independent VEC-wide accesses a grid apart, then the next pass.
//
// Reads: by Little's law the read rate is bytes in flight / load latency
// until the DRAM's read rate caps it (V. Volkov, "Understanding Latency
// Hiding on GPUs", 2016, ch. 4); the sweep over LOADS x sizeof(VEC) shows
// both the latency under load and the cap. Writes need no reply to go on,
// so one store per thread already reaches the DRAM's write rate. Copies
// mix the two: each load's value is stored to a second array.
#ifndef LOADS
#define LOADS 1
#endif
#ifndef VEC
#define VEC float4
#endif

__device__ __forceinline__ float lanes_sum(float v) { return v; }
__device__ __forceinline__ float lanes_sum(float2 v) { return v.x + v.y; }
__device__ __forceinline__ float lanes_sum(float4 v) { return v.x + v.y + v.z + v.w; }

// `never` is a value no sum of the array's elements takes (the array is
// filled with non-negative numbers and `never` is negative): the store below
// keeps the loads alive without writing anything.
extern "C" __global__ void dram_read(const VEC* a, float* out, int passes, float never) {
  const long long threads = (long long)gridDim.x * blockDim.x;
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
#pragma unroll 1
  for (int p = 0; p < passes; ++p) {
    const VEC* base = a + (long long)p * LOADS * threads + tid;
    VEC v[LOADS];
#pragma unroll
    for (int j = 0; j < LOADS; ++j) v[j] = base[j * threads];  // LOADS loads issued before any is used
#pragma unroll
    for (int j = 0; j < LOADS; ++j) acc += lanes_sum(v[j]);
  }
  if (acc == never) out[tid] = acc;
}

__device__ __forceinline__ void fill(float& v, float s) { v = s; }
__device__ __forceinline__ void fill(float2& v, float s) { v = make_float2(s, s); }
__device__ __forceinline__ void fill(float4& v, float s) { v = make_float4(s, s, s, s); }

extern "C" __global__ void dram_write(VEC* a, int passes, float s) {
  const long long threads = (long long)gridDim.x * blockDim.x;
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  VEC v;
  fill(v, s);
#pragma unroll 1
  for (int p = 0; p < passes; ++p) {
    VEC* base = a + (long long)p * LOADS * threads + tid;
#pragma unroll
    for (int j = 0; j < LOADS; ++j) base[j * threads] = v;
  }
}

extern "C" __global__ void dram_copy(const VEC* a, VEC* b, int passes) {
  const long long threads = (long long)gridDim.x * blockDim.x;
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll 1
  for (int p = 0; p < passes; ++p) {
    const long long base = (long long)p * LOADS * threads + tid;
    VEC v[LOADS];
#pragma unroll
    for (int j = 0; j < LOADS; ++j) v[j] = a[base + j * threads];
#pragma unroll
    for (int j = 0; j < LOADS; ++j) b[base + j * threads] = v[j];
  }
}
