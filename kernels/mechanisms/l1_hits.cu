// kernels/mechanisms/l1_hits.cu: global loads that hit in the L1, how many an
// SM serves per cycle against the warps it holds. Every warp reads a 16 KB
// buffer (4096 floats) that the first pass brings into each SM's L1 and that
// then stays there, LOADS independent loads a pass, each a line (128 bytes)
// apart, before it adds any of them up.
//
// MODE 0: coalesced, lane l reads word l of the line (one 128-byte line,
//         4 sectors, per warp load).
// MODE 1: broadcast, every lane reads the same word (one sector).
// MODE 2: the coalesced GEMM's inner loop: a broadcast load and a coalesced
//         load per step, multiplied and added (LOADS counts the pairs).
// MODE 3: float4, lane l reads words 4l..4l+3 (512 bytes, 4 lines).
//
// One warp per sub-partition, or fewer, shows whether a sub-partition can
// issue a load every cycle or the SM's L1 is the only limit (the whitepapers
// draw the load/store units per sub-partition); many warps show the L1's rate.
// The bench counts warp loads per SM per cycle (lab/bench/mechanisms.cpp).
#ifndef LOADS
#define LOADS 8
#endif
#ifndef MODE
#define MODE 0
#endif

// `never` is a value the sum never takes (the buffer holds non-negative
// numbers): the store keeps the loads alive without writing anything.
extern "C" __global__ void l1_hits(const float* buf, float* out, int reps, float never) {
  const unsigned lane = threadIdx.x & 31;
  const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
#if MODE == 3
  constexpr unsigned kStep = 128, kWords = 4096;  // float4 elements: 4 lines a warp load
  const float4* b4 = reinterpret_cast<const float4*>(buf);
#else
  constexpr unsigned kStep = 32, kWords = 4096;
#endif
  // Each warp starts at its own group of lines, so the warps of an SM do not
  // all ask for one line at once; a pass's LOADS lines never wrap.
  const unsigned span = LOADS * kStep;
  unsigned at = (warp * 3u * span) % kWords;
  float acc = 0.f;
#pragma unroll 1
  for (int r = 0; r < reps; ++r) {
#if MODE <= 1
    const float* p = buf + at + (MODE == 0 ? lane : 0u);  // MODE 1: every lane the same word
    float v[LOADS];
#pragma unroll
    for (int j = 0; j < LOADS; ++j) v[j] = p[j * kStep];
#pragma unroll
    for (int j = 0; j < LOADS; ++j) acc += v[j];
#elif MODE == 2
    // The broadcast operand from the other half of the buffer.
    const float* a = buf + ((at + kWords / 2) % kWords);
    const float* b = buf + at + lane;
    float x[LOADS], y[LOADS];
#pragma unroll
    for (int j = 0; j < LOADS; ++j) x[j] = a[j], y[j] = b[j * kStep];
#pragma unroll
    for (int j = 0; j < LOADS; ++j) acc += x[j] * y[j];
#else
    const float4* p = b4 + at / 4 + lane;
    float4 v[LOADS];
#pragma unroll
    for (int j = 0; j < LOADS; ++j) v[j] = p[j * (kStep / 4)];
#pragma unroll
    for (int j = 0; j < LOADS; ++j) acc += (v[j].x + v[j].y) + (v[j].z + v[j].w);
#endif
    at = (at + span) % kWords;
  }
  if (acc == never) out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
