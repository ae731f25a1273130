// kernels/mechanisms/dram_pages.cu: DRAM bandwidth against how far apart the
// 128-byte segments that neighbouring warps read (or write) lie. A pass of the
// grid covers the whole array once, each warp a line per access and LOADS
// accesses in flight per thread; only the order differs. Segment g of the
// sequential order maps to a bit rotation of g by STRIDE_LOG2 places:
// neighbouring warps land STRIDE segments (STRIDE x 128 bytes) apart, as a
// transpose's column walk puts its warps a row apart. Same bytes, same
// sectors per request, same L2 misses; what can differ is how many DRAM pages
// (rows of a bank) the accesses in flight keep open.
#ifndef LOADS
#define LOADS 4
#endif
#ifndef STRIDE_LOG2
#define STRIDE_LOG2 0
#endif

// segs_log2: the array holds 2^segs_log2 segments of 32 floats.
__device__ __forceinline__ unsigned long long placed(unsigned long long g, unsigned segs_log2) {
  const unsigned long long mask = (1ull << segs_log2) - 1;
#if STRIDE_LOG2 == 0
  return g & mask;
#else
  return ((g << STRIDE_LOG2) & mask) | (g >> (segs_log2 - STRIDE_LOG2));
#endif
}

// `never`: a value the sum never takes (the array holds non-negative numbers).
extern "C" __global__ void pages_read(const float* a, float* out, unsigned segs_log2, float never) {
  const unsigned long long warps = ((unsigned long long)gridDim.x * blockDim.x) >> 5;
  const unsigned long long w = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const unsigned lane = threadIdx.x & 31;
  const unsigned long long per_pass = warps * LOADS;
  const unsigned long long passes = (1ull << segs_log2) / per_pass;
  float acc = 0.f;
#pragma unroll 1
  for (unsigned long long p = 0; p < passes; ++p) {
    float v[LOADS];
#pragma unroll
    for (int j = 0; j < LOADS; ++j) v[j] = a[placed(p * per_pass + j * warps + w, segs_log2) * 32 + lane];
#pragma unroll
    for (int j = 0; j < LOADS; ++j) acc += v[j];
  }
  if (acc == never) out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void pages_write(float* a, unsigned segs_log2, float s) {
  const unsigned long long warps = ((unsigned long long)gridDim.x * blockDim.x) >> 5;
  const unsigned long long w = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const unsigned lane = threadIdx.x & 31;
  const unsigned long long per_pass = warps * LOADS;
  const unsigned long long passes = (1ull << segs_log2) / per_pass;
#pragma unroll 1
  for (unsigned long long p = 0; p < passes; ++p) {
#pragma unroll
    for (int j = 0; j < LOADS; ++j) a[placed(p * per_pass + j * warps + w, segs_log2) * 32 + lane] = s;
  }
}

// Latency with few loads in flight: one warp per SM reads GROUP lines, then
// adds them up, then the next GROUP (lesson 10's one-warp column sum has 16
// loads of rows 16 KB apart in flight). A group's lines are `apart` lines
// apart (1: one stretch of the array; 128: 16 KB apart, a DRAM page each);
// group g starts at line (g mod apart) + (g / apart) x apart x GROUP, so over
// `groups` <= 512 groups every line of the warp's own 1 MB is read once and
// every read misses the L2. The bench counts cycles per group: the latency
// of GROUP loads in flight together.
#ifndef GROUP
#define GROUP 16
#endif
extern "C" __global__ void pages_latency(const float* a, float* out, unsigned apart, int groups, float never) {
  const unsigned lane = threadIdx.x & 31;
  const unsigned long long lines = (1ull << 20) / 128;  // per warp
  const float* mine = a + (unsigned long long)blockIdx.x * lines * 32;
  float acc = 0.f;
#pragma unroll 1
  for (int g = 0; g < groups; ++g) {
    const unsigned long long at = (g % apart) + (unsigned long long)(g / apart) * apart * GROUP;
    float v[GROUP];
#pragma unroll
    for (int j = 0; j < GROUP; ++j) v[j] = mine[(at + (unsigned long long)j * apart) * 32 + lane];
#pragma unroll
    for (int j = 0; j < GROUP; ++j) acc += v[j];
  }
  if (acc == never) out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
