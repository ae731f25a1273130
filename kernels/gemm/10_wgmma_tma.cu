// 10_wgmma_tma: Hopper's asynchronous tensor-core path. TMA copies the tiles
// into shared memory, wgmma reads its operands from there, one warpgroup
// (128 threads) computes the block's 128 x 128 tile.
//
//   A, B: __half (row-major), C: float. Block tile 128 x 128, BK = 64,
//   128 threads (one warpgroup), grid (ceil(N/128), ceil(M/128)),
//   32 KiB dynamic shared (+1 KiB to align the tiles to 1024 bytes).
//   Needs sm_90a; the tensor maps are built by the host (gemm.toml `tma`).
//
// What changed since 09:
//  * TMA (cp.async.bulk.tensor, PTX ISA 9.7.9.25.5): one thread asks the
//    copy engine for a whole 2-D box of A (64 k x 128 rows) and of B
//    (2 boxes of 64 n x 64 k). No thread computes an address or moves a
//    byte; rows past the matrix's edge arrive as zeros. The engine writes
//    the box 128-byte swizzled (16-byte chunk c of row r lands at chunk
//    c ^ (r % 8)), the layout wgmma reads without bank conflicts.
//  * An mbarrier with a transaction count (mbarrier.arrive.expect_tx) tells
//    the warps when the box's bytes have all landed: the copy engine
//    counts them down; try_wait parks the warps until then.
//  * wgmma.mma_async (PTX ISA 9.7.15): the four warps of a warpgroup
//    compute a 64 x 128 x 16 product together from two shared-memory
//    matrix descriptors, with no ldmatrix and no fragments in registers for
//    A or B. Two per k-step (rows 0-63 and 64-127), 64 fp32 accumulators
//    each per thread.
//  * Nothing is pipelined yet: the warps wait for each k-tile's copy and
//    for their wgmmas (wait_group 0) before the next tile is requested.
//    11 overlaps them.
#include <cuda_fp16.h>

// The driver's CUtensorMap (cuda.h: 128 bytes, 64-byte aligned, opaque),
// declared here because NVRTC compiles without the host headers cuda.h needs.
struct __align__(64) CUtensorMap {
  unsigned long long opaque[16];
};

#define BM 128
#define BN 128
#define BK 64

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// The 64-bit shared-memory matrix descriptor (PTX ISA 9.7.15.5.1,
// "Matrix Descriptor Format"): start address >> 4 in bits 0-13, leading
// byte offset >> 4 in 16-29, stride byte offset >> 4 in 32-45, swizzle mode
// in 62-63 (1 = 128-byte swizzle).
__device__ __forceinline__ unsigned long long matrix_descriptor(const void* tile, unsigned lbo, unsigned sbo) {
  unsigned long long d = 0;
  d |= (unsigned long long)((smem_u32(tile) & 0x3FFFF) >> 4);
  d |= (unsigned long long)((lbo & 0x3FFFF) >> 4) << 16;
  d |= (unsigned long long)((sbo & 0x3FFFF) >> 4) << 32;
  d |= 1ull << 62;
  return d;
}

// D(64 x 128, f32) += A(64 x 16, K-major) * B(16 x 128, N-major: trans-b = 1).
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], unsigned long long a_desc,
                                                 unsigned long long b_desc) {
  asm volatile(
      "{\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, 1, 1, 1, 0, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(a_desc), "l"(b_desc));
}

__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int c0, int c1, unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
      ::"r"(smem_u32(dst)), "l"(map), "r"(c0), "r"(c1), "r"(smem_u32(bar))
      : "memory");
}

__device__ __forceinline__ void wait_phase(unsigned long long* bar, unsigned phase) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT_%=;\n"
      "}\n" ::"r"(smem_u32(bar)), "r"(phase)
      : "memory");
}

extern "C" __global__ void __launch_bounds__(128) gemm_10_wgmma_tma(int M, int N, int K, float alpha,
                                                                     const __half* A, const __half* B, float beta,
                                                                     float* C, const __grid_constant__ CUtensorMap tmA,
                                                                     const __grid_constant__ CUtensorMap tmB) {
  extern __shared__ unsigned char dyn_smem[];
  // TMA's 128-byte swizzle repeats every 1024 bytes and is taken from the
  // address bits, so the tiles start on a 1024-byte boundary.
  __half* As = reinterpret_cast<__half*>((reinterpret_cast<unsigned long long>(dyn_smem) + 1023) & ~1023ull);
  __half* Bs = As + BM * BK;  // two 64 x 64 boxes: n 0-63, then n 64-127
  __shared__ __align__(8) unsigned long long bar;

  const int tid = threadIdx.x;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_u32(&bar)));
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // the copy engine sees the initialised barrier
  }
  __syncthreads();

  float d[2][64];
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int i = 0; i < 64; ++i) d[h][i] = 0.f;

  unsigned phase = 0;
  for (int k0 = 0; k0 < K; k0 += BK) {
    if (tid == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(&bar)),
                   "r"((BM * BK + BK * BN) * 2)
                   : "memory");
      tma_load_2d(As, &tmA, k0, bm, &bar);            // box: 64 k x 128 rows of A
      tma_load_2d(Bs, &tmB, bn, k0, &bar);            // box: 64 n x 64 k of B
      tma_load_2d(Bs + 64 * BK, &tmB, bn + 64, k0, &bar);
    }
    wait_phase(&bar, phase);
    phase ^= 1;

    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      // A (K-major, 128-byte rows): the k-step moves 32 bytes along the
      // swizzled row; 8-row groups are 1024 bytes apart (stride offset).
      // B (N-major): k-step = 16 rows of 128 bytes = 2048 bytes; the second
      // 64-wide half of n is the next box, 8 KiB on (leading offset).
#pragma unroll
      for (int h = 0; h < 2; ++h)
        wgmma_m64n128k16(d[h], matrix_descriptor(As + h * 64 * BK + kk * 16, 16, 1024),
                         matrix_descriptor(Bs + kk * 16 * 64, 64 * BK * 2, 1024));
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    __syncthreads();  // every warp is done with the tiles before thread 0 overwrites them
  }

  // The accumulator fragment of m64nNk16 (PTX ISA 9.7.15.5.2, "Matrix
  // fragments for wgmma.m64nNk16", D): warp w of the warpgroup holds rows
  // 16w .. 16w+15; register i of lane l is row l/4 + 8 ((i/2) % 2), column
  // 8 (i/4) + 2 (l % 4) + i % 2.
  const int warp = tid / 32, lane = tid % 32;
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int i = 0; i < 64; ++i) {
      const int r = bm + h * 64 + warp * 16 + lane / 4 + 8 * ((i / 2) % 2);
      const int c = bn + 8 * (i / 4) + 2 * (lane % 4) + (i % 2);
      if (r < M && c < N) {
        float* out = &C[(long long)r * N + c];
        *out = beta == 0.f ? alpha * d[h][i] : alpha * d[h][i] + beta * *out;
      }
    }
}
