// kernels/mechanisms/wgmma_peak.cu: the tensor cores' rate through Hopper's
// warpgroup MMA (wgmma.mma_async.m64n256k16, f16 in, f32 accumulate), both
// operands in shared memory (no-swizzle K-major tiles of zeros), one
// accumulator chained `reps` times: back-to-back wgmmas pipeline on the
// tensor core. One warpgroup (128 threads) per block. Needs sm_90a.
#define R8(b) "+f"(d[b]), "+f"(d[b + 1]), "+f"(d[b + 2]), "+f"(d[b + 3]), "+f"(d[b + 4]), "+f"(d[b + 5]), "+f"(d[b + 6]), "+f"(d[b + 7])
#define R32(b) R8(b), R8(b + 8), R8(b + 16), R8(b + 24)

__device__ __forceinline__ unsigned long long descriptor(unsigned addr) {
  // start >> 4, LBO 128 bytes (the next 8 k), SBO 256 bytes (the next 8 rows), no swizzle.
  return (unsigned long long)((addr & 0x3FFFF) >> 4) | (8ull << 16) | (16ull << 32);
}

extern "C" __global__ void __launch_bounds__(128) wgmma_peak(float* out, int reps) {
  __shared__ __align__(128) unsigned char tiles[64 * 16 * 2 + 256 * 16 * 2];
  for (int i = threadIdx.x; i < int(sizeof(tiles)); i += blockDim.x) tiles[i] = 0;
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(tiles));
  const unsigned long long a = descriptor(base), b = descriptor(base + 64 * 16 * 2);
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  for (int r = 0; r < reps; ++r)
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
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 128; ++i) s += d[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
