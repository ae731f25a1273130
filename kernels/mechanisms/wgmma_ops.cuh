// kernels/mechanisms/wgmma_ops.cuh: the warpgroup MMAs the mechanism kernels
// issue (wgmma.mma_async m64nNk16, f16 in, f32 accumulate, both operands in
// shared memory through no-swizzle K-major descriptors). Needs sm_90a.
#pragma once

#define WG_R8(b) "+f"(d[b]), "+f"(d[b + 1]), "+f"(d[b + 2]), "+f"(d[b + 3]), "+f"(d[b + 4]), "+f"(d[b + 5]), "+f"(d[b + 6]), "+f"(d[b + 7])
#define WG_R32(b) WG_R8(b), WG_R8(b + 8), WG_R8(b + 16), WG_R8(b + 24)

// start >> 4, LBO 128 bytes (the next 8 k), SBO 256 bytes (the next 8 rows), no swizzle.
__device__ __forceinline__ unsigned long long wgmma_descriptor(unsigned addr) {
  return (unsigned long long)((addr & 0x3FFFF) >> 4) | (8ull << 16) | (16ull << 32);
}

// D += A B on a 64 x 128 tile (each thread holds 64 of D's floats).
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], unsigned long long a, unsigned long long b) {
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
      "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
      "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, "
      "%64, %65, 1, 1, 1, 0, 0;\n"
      : WG_R32(0), WG_R32(32)
      : "l"(a), "l"(b));
}

// D += A B on a 64 x 256 tile (each thread holds 128 of D's floats).
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], unsigned long long a, unsigned long long b) {
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
      "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
      "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
      "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"
      "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, "
      "%128, %129, 1, 1, 1, 0, 0;\n"
      : WG_R32(0), WG_R32(32), WG_R32(64), WG_R32(96)
      : "l"(a), "l"(b));
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_wait_all() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
