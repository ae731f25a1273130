// 11_wgmma_pipelined: warp specialisation and a pipeline of shared-memory
// stages, so the copy engine and the tensor cores never wait for each other.
//
//   A, B: __half (row-major), C: float. Block tile 128 x 256, BK = 64,
//   384 threads = 3 warpgroups: one producer, two consumers (64 rows each).
//   3 stages of 48 KiB (+1 KiB alignment) dynamic shared memory,
//   grid (ceil(N/256), ceil(M/128)). Needs sm_90a; tensor maps from the host.
//
// What changed since 10:
//  * Warp specialisation: warpgroup 0 only asks the copy engine for tiles
//    (one thread issues the TMA copies); warpgroups 1 and 2 only run wgmma.
//    setmaxnreg (PTX ISA 9.7.17.1) hands the producer's registers to the
//    consumers: 40 for the producer, 232 for each consumer, whose 64 x 256
//    accumulator tile is 128 registers a thread.
//  * A pipeline of 3 stages with two mbarriers each: `full` (the producer's
//    arrive.expect_tx, completed by the copies' bytes) and `empty` (one
//    arrival per consumer warpgroup when its wgmmas on the stage are done).
//    The producer runs up to 3 tiles ahead; a consumer waits only when the
//    copy engine is behind.
//  * A wider tile: 128 x 256 per block and m64n256k16 per wgmma, so every
//    byte of A and B in shared memory feeds twice the math of 10's.
#include <cuda_fp16.h>

#define BM 128
#define BN 256
#define BK 64
#define STAGES 3

// The driver's CUtensorMap (cuda.h: 128 bytes, 64-byte aligned, opaque),
// declared here because NVRTC compiles without the host headers cuda.h needs.
struct __align__(64) CUtensorMap {
  unsigned long long opaque[16];
};

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Shared-memory matrix descriptor, 128-byte swizzle (PTX ISA 9.7.15.5.1.2.2).
__device__ __forceinline__ unsigned long long matrix_descriptor(const void* tile, unsigned lbo, unsigned sbo) {
  return (unsigned long long)((smem_u32(tile) & 0x3FFFF) >> 4) |
         ((unsigned long long)((lbo & 0x3FFFF) >> 4) << 16) |
         ((unsigned long long)((sbo & 0x3FFFF) >> 4) << 32) | (1ull << 62);
}

// D(64 x 256, f32) += A(64 x 16, K-major) * B(16 x 256, N-major).
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], unsigned long long a, unsigned long long b) {
  asm volatile(
      "{\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
      "%128, %129, 1, 1, 1, 0, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(a), "l"(b));
}

__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int c0, int c1, unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
      ::"r"(smem_u32(dst)), "l"(map), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}

__device__ __forceinline__ void wait_phase(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT_%=;\n"
      "}\n" ::"r"(bar), "r"(parity)
      : "memory");
}

extern "C" __global__ void __launch_bounds__(384, 1) gemm_11_wgmma_pipelined(int M, int N, int K, float alpha,
                                                                           const __half* A, const __half* B,
                                                                           float beta, float* C,
                                                                           const __grid_constant__ CUtensorMap tmA,
                                                                           const __grid_constant__ CUtensorMap tmB) {
  extern __shared__ unsigned char dyn_smem[];
  // Stage s: A (64 k x 128 rows, 16 KiB) then B (four 64 n x 64 k boxes,
  // 32 KiB), each 1024-byte aligned for the 128-byte swizzle.
  __half* tiles = reinterpret_cast<__half*>((reinterpret_cast<unsigned long long>(dyn_smem) + 1023) & ~1023ull);
  constexpr int kStageHalves = BM * BK + BK * BN;
  __shared__ __align__(8) unsigned long long full[STAGES], empty[STAGES];

  const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  const int k_tiles = (K + BK - 1) / BK;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_u32(&full[s])));   // the producer's arrive
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;\n" ::"r"(smem_u32(&empty[s])));  // one per consumer
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {
    // Producer: a stage is refilled once both consumers released it. The
    // first round waits on parity 1 of a fresh barrier, which passes at once.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (tid == 0) {
      for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % STAGES;
        wait_phase(smem_u32(&empty[s]), ((kt / STAGES) & 1) ^ 1);
        __half* As = tiles + s * kStageHalves;
        __half* Bs = As + BM * BK;
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(&full[s])),
                     "r"(kStageHalves * 2)
                     : "memory");
        tma_load_2d(As, &tmA, kt * BK, bm, smem_u32(&full[s]));
        for (int j = 0; j < BN / 64; ++j) tma_load_2d(Bs + j * 64 * BK, &tmB, bn + j * 64, kt * BK, smem_u32(&full[s]));
      }
    }
    return;
  }

  // Consumers: warpgroup c computes rows 64 (c - 1) .. 64 c - 1 of the tile.
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  const int row0 = (wg - 1) * 64;
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int s = kt % STAGES;
    wait_phase(smem_u32(&full[s]), (kt / STAGES) & 1);
    const __half* As = tiles + s * kStageHalves + row0 * BK;
    const __half* Bs = tiles + s * kStageHalves + BM * BK;
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk)
      // A: K-major 128-byte rows, 8-row groups 1024 bytes apart; B: N-major,
      // 16 k rows per step (2048 bytes), 64-wide n boxes 8 KiB apart.
      wgmma_m64n256k16(d, matrix_descriptor(As + kk * 16, 16, 1024), matrix_descriptor(Bs + kk * 16 * 64, 64 * BK * 2, 1024));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    if (tid == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(&empty[s])) : "memory");
  }

  // The m64nNk16 accumulator fragment (as in 10): register i of lane l of
  // warp w holds row 16 w + l/4 + 8 ((i/2) % 2), column 8 (i/4) + 2 (l % 4) + i % 2.
  const int warp = tid / 32, lane = tid % 32;
#pragma unroll
  for (int i = 0; i < 128; ++i) {
    const int r = bm + row0 + warp * 16 + lane / 4 + 8 * ((i / 2) % 2);
    const int c = bn + 8 * (i / 4) + 2 * (lane % 4) + (i % 2);
    if (r < M && c < N) {
      float* out = &C[(long long)r * N + c];
      *out = beta == 0.f ? alpha * d[i] : alpha * d[i] + beta * *out;
    }
  }
}
