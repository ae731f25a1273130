// kernels/mechanisms/hopper_latency.cu: the latency of Hopper's two
// asynchronous units, each a chain of one-at-a-time operations (the
// dependent-issue method of dependent.cu). Needs sm_90a.
//
// chain_wgmma_n128 / _n256: one warpgroup issues wgmma.mma_async m64nNk16
// (f16 in, f32 accumulate, both operands in shared memory), commits it and
// waits for it (wait_group 0) before the next: the time per link is the
// wgmma's issue-to-result latency, as a non-pipelined GEMM loop pays it.
//
// chain_bulk_copy: one thread copies BYTES from global to shared memory with
// cp.async.bulk (the copy engine TMA drives; a tensor copy of a box moves
// its bytes the same way) and waits on the mbarrier before the next. The
// source walks `span` bytes, so once the first pass has brought them into
// L2 every copy is an L2 hit: the time per link is the copy engine's
// L2-to-shared latency for BYTES.
#ifndef CHAIN
#define CHAIN 256
#endif
#ifndef BYTES
#define BYTES 1024
#endif
#include "wgmma_ops.cuh"

// Zeroed K-major tiles for A (64 x 16) and B (N x 16), f16.
__device__ __forceinline__ void zero_tiles(unsigned char* tiles, int bytes) {
  for (int i = threadIdx.x; i < bytes; i += blockDim.x) tiles[i] = 0;
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
}

// The chain for m64nNk16: N floats of D per thread / 2.
template <int N>
__device__ __forceinline__ void wgmma_chain(float* out) {
  __shared__ __align__(128) unsigned char tiles[64 * 16 * 2 + N * 16 * 2];
  zero_tiles(tiles, sizeof(tiles));
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(tiles));
  const unsigned long long a = wgmma_descriptor(base), b = wgmma_descriptor(base + 64 * 16 * 2);
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
#pragma unroll 8
  for (int k = 0; k < CHAIN; ++k) {
    wgmma_fence();
    if constexpr (N == 128) wgmma_m64n128k16(d, a, b);
    else wgmma_m64n256k16(d, a, b);
    wgmma_commit();
    wgmma_wait_all();
  }
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) s += d[i];
  out[threadIdx.x] = s;
}

extern "C" __global__ void __launch_bounds__(128) chain_wgmma_n128(float* out) { wgmma_chain<128>(out); }
extern "C" __global__ void __launch_bounds__(128) chain_wgmma_n256(float* out) { wgmma_chain<256>(out); }

// One warp; lane 0 issues each copy, every lane waits for the phase.
extern "C" __global__ void chain_bulk_copy(const unsigned char* src, float* out, unsigned span) {
  __shared__ __align__(128) unsigned char buf[BYTES];
  __shared__ __align__(8) unsigned long long bar;
  const unsigned bar_addr = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  const unsigned buf_addr = static_cast<unsigned>(__cvta_generic_to_shared(buf));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar_addr) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  unsigned offset = 0, phase = 0;
#pragma unroll 1
  for (int k = 0; k < CHAIN; ++k) {
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar_addr), "r"(BYTES) : "memory");
      asm volatile(
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(buf_addr),
          "l"(src + offset), "r"(BYTES), "r"(bar_addr)
          : "memory");
    }
    unsigned done = 0;
    while (!done)
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }\n"
          : "=r"(done)
          : "r"(bar_addr), "r"(phase)
          : "memory");
    phase ^= 1;
    offset += BYTES;
    if (offset >= span) offset = 0;
  }
  out[threadIdx.x] = float(buf[threadIdx.x]);
}
