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
#define R8(b) "+f"(d[b]), "+f"(d[b + 1]), "+f"(d[b + 2]), "+f"(d[b + 3]), "+f"(d[b + 4]), "+f"(d[b + 5]), "+f"(d[b + 6]), "+f"(d[b + 7])
#define R32(b) R8(b), R8(b + 8), R8(b + 16), R8(b + 24)
#define O32(b) "%" #b ",%" #b "+1"

__device__ __forceinline__ unsigned long long wgmma_descriptor(unsigned addr) {
  // start >> 4, LBO 128 bytes (the next 8 k), SBO 256 bytes (the next 8 rows), no swizzle.
  return (unsigned long long)((addr & 0x3FFFF) >> 4) | (8ull << 16) | (16ull << 32);
}

// Zeroed K-major tiles for A (64 x 16) and B (N x 16), f16.
__device__ __forceinline__ void zero_tiles(unsigned char* tiles, int bytes) {
  for (int i = threadIdx.x; i < bytes; i += blockDim.x) tiles[i] = 0;
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
}

extern "C" __global__ void __launch_bounds__(128) chain_wgmma_n128(float* out) {
  __shared__ __align__(128) unsigned char tiles[64 * 16 * 2 + 128 * 16 * 2];
  zero_tiles(tiles, sizeof(tiles));
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(tiles));
  const unsigned long long a = wgmma_descriptor(base), b = wgmma_descriptor(base + 64 * 16 * 2);
  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.f;
#pragma unroll 8
  for (int k = 0; k < CHAIN; ++k) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
        "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
        "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, "
        "%64, %65, 1, 1, 1, 0, 0;\n"
        : R32(0), R32(32)
        : "l"(a), "l"(b));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  }
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += d[i];
  out[threadIdx.x] = s;
}

extern "C" __global__ void __launch_bounds__(128) chain_wgmma_n256(float* out) {
  __shared__ __align__(128) unsigned char tiles[64 * 16 * 2 + 256 * 16 * 2];
  zero_tiles(tiles, sizeof(tiles));
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(tiles));
  const unsigned long long a = wgmma_descriptor(base), b = wgmma_descriptor(base + 64 * 16 * 2);
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
#pragma unroll 8
  for (int k = 0; k < CHAIN; ++k) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
        "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
        "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
        "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"
        "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, "
        "%128, %129, 1, 1, 1, 0, 0;\n"
        : R32(0), R32(32), R32(64), R32(96)
        : "l"(a), "l"(b));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  }
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 128; ++i) s += d[i];
  out[threadIdx.x] = s;
}

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
