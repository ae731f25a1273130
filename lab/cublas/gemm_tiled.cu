// lab/cublas/gemm_tiled.cu: the general GEMM of the lab's cuBLAS stand-in
// (libgpulab_cublas, lab/cublas/gemm.cpp): every transpose combination, any
// leading dimension, strided batches, fp32 / fp16 / bf16 inputs, fp32
// accumulation. The lab's GEMM progression (kernels/gemm/) is row-major and
// packed; this kernel serves what it cannot.
//
// Semantics, as the cuBLAS documentation gives them (cuBLAS Library User
// Guide, "cublas<t>gemm()" and "cublas<t>gemmStridedBatched()"):
//   C[b] = alpha * op(A[b]) * op(B[b]) + beta * C[b],  b < batch
// column-major: element (i, j) of a matrix X with leading dimension ldX is
// X[i + j * ldX]; op(A) is m x k (A itself is m x k for N, k x m for T),
// op(B) is k x n, C is m x n; A[b] = A + b * strideA (likewise B, C). With
// beta == 0 C is not read ("if beta == 0 then C does not have to be a valid
// input"), so NaNs in an uninitialised C do not reach the result.
//
// Compiled by the stand-in with NVRTC once per variant (-D below) and launched
// with block (256), grid (ceil(m/64), ceil(n/64), min(batch * splits, 65535)).
//   TRANS_A, TRANS_B   0 = CUBLAS_OP_N, 1 = CUBLAS_OP_T (C: conjugate = T for reals)
//   AB_TYPE            float | __half | __nv_bfloat16   (A and B)
//   C_TYPE             float | __half | __nv_bfloat16
//   SPLIT_K            1: slices of k add into C with atomicAdd (fp32 C; below)
//   HAS_BIAS, GELU     cuBLASLt's epilogues (lab/cublas/lt.cpp): + bias[row]; GELU 1 = gelu (its
//                      input to aux when given), 2 = times gelu'(aux) (DGELU)
// Run it alone: gpulab sim lab/cublas/gemm_tiled.cu --kernel gemm_tiled ... (the
// defaults are the fp32 TN variant, llm.c's matmul_forward).
//
// How it is blocked: a 256-thread block owns a 64 x 64 tile of C and walks k
// in steps of 16. Each step stages op(A)'s 64 x 16 and op(B)'s 16 x 64 slab in
// shared memory (k-major, so the inner loop reads both with one 16-byte load
// each), and every thread accumulates a 4 x 4 register tile: per k, 2 shared
// loads for 16 FMAs. The global loads walk the stored matrix's contiguous
// dimension with consecutive threads, which is the other dimension for a
// transposed operand: that choice is what the TRANS_* variants compile. An
// operand contiguous in k is read 8 k at a time (one sector) for 4 rows per
// warp, so its transposed shared stores do not conflict (row stride 68).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#ifndef TRANS_A
#define TRANS_A 1
#endif
#ifndef TRANS_B
#define TRANS_B 0
#endif
#ifndef AB_TYPE
#define AB_TYPE float
#endif
#ifndef C_TYPE
#define C_TYPE float
#endif
#ifndef SPLIT_K
#define SPLIT_K 0
#endif
#ifndef HAS_BIAS
#define HAS_BIAS 0
#endif
#ifndef GELU
#define GELU 0
#endif

#define BM 64
#define BN 64
#define BK 16
#define THREADS 256
#define S_LD (BM + 4)  // a row of 68 floats keeps 16-byte alignment and spreads a transposed store over banks

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }

// Split-K (splits > 1): a C of few tiles with a long k (llm.c's lm-head
// gradient: 128 x 128 outputs over k = 50304) would give a handful of blocks
// each walking all of k while the other SMs idle. Slice s of `splits` walks
// its own k range and adds alpha * (its partial product) into C with
// atomicAdd, after gemm_scale_c has applied beta to C; fp32 C only (the
// stand-in chooses it, lab/cublas/gemm.cpp). The sum's order then varies
// with the blocks' order, as cuBLAS's split-K reductions may.
// __launch_bounds__(256, 4): at most 64 registers, so four blocks (1024
// threads) fit an SM's 64K registers; at 65-85 registers only three do and
// the cycle model predicts 17% more time for llm.c's 128 x 50304 x 128 shape.
// cuBLASLt's GELU epilogues: the tanh approximation (Hendrycks and Gimpel,
// the form GPT-2 and llm.c use), and its derivative for DGELU.
__device__ __forceinline__ float gelu(float x) {
  const float s = 0.7978845608f;  // sqrt(2 / pi)
  return 0.5f * x * (1.f + tanhf(s * (x + 0.044715f * x * x * x)));
}
__device__ __forceinline__ float gelu_grad(float x) {
  const float s = 0.7978845608f, u = s * (x + 0.044715f * x * x * x), t = tanhf(u);
  return 0.5f * (1.f + t) + 0.5f * x * (1.f - t * t) * s * (1.f + 3.f * 0.044715f * x * x);
}

extern "C" __global__ void __launch_bounds__(THREADS, 4)
gemm_tiled(int m, int n, int k, float alpha, const AB_TYPE* A, int lda, long long strideA, const AB_TYPE* B, int ldb,
           long long strideB, float beta, C_TYPE* C, int ldc, long long strideC, int batch, int splits,
           const C_TYPE* Cin, const C_TYPE* bias, C_TYPE* aux, long long ldaux) {
  __shared__ __align__(16) float As[BK * S_LD];  // As[p][i] = op(A)(bm + i, k0 + p)
  __shared__ __align__(16) float Bs[BK * S_LD];  // Bs[p][j] = op(B)(k0 + p, bn + j)
  const int tid = threadIdx.x;
  const int tm = tid % 16, tn = tid / 16;          // this thread's C rows tm*4.., columns tn*4..
  const int bm = blockIdx.x * BM, bn = blockIdx.y * BN;

  // grid.z walks (batch, k slice) pairs; more than gridDim.z (65535 at most) loop.
  const int chunk = ((k + splits - 1) / splits + BK - 1) / BK * BK;  // k per slice, whole BK steps
  for (int z = blockIdx.z; z < batch * splits; z += gridDim.z) {
    const int b = z / splits, slice = z % splits;
    const int kb = slice * chunk, ke = min(k, kb + chunk);
    const AB_TYPE* a = A + b * strideA;
    const AB_TYPE* bb = B + b * strideB;
    C_TYPE* c = C + b * strideC;
    const C_TYPE* cin = Cin + b * strideC;  // cuBLASLt's C beside its D; Cin == C for cuBLAS
    float acc[4][4] = {{0.f}};
    for (int k0 = kb; k0 < ke; k0 += BK) {
      // Four elements of each slab per thread; e = tid + 256 r walks the
      // stored matrix's contiguous dimension first (coalesced), zero outside.
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int e = tid + THREADS * r;
#if TRANS_A
        // A is k x m: A(k0+p, bm+i) = a[(k0+p) + (bm+i)*lda], contiguous in p.
        // A warp takes 8 p (a 32-byte sector of fp32) of 4 consecutive i:
        // its shared stores land on banks 4p + i, all 32 distinct.
        const int p = (e / (8 * BM)) * 8 + e % 8, i = (e / 8) % BM;
        const bool in = bm + i < m && k0 + p < ke;
        As[p * S_LD + i] = in ? to_float(a[(k0 + p) + (long long)(bm + i) * lda]) : 0.f;
#else
        const int i = e % BM, p = e / BM;  // A is m x k: A(bm+i, k0+p) = a[(bm+i) + (k0+p)*lda]
        const bool in = bm + i < m && k0 + p < ke;
        As[p * S_LD + i] = in ? to_float(a[(bm + i) + (long long)(k0 + p) * lda]) : 0.f;
#endif
#if TRANS_B
        const int j = e % BN, q = e / BN;  // B is n x k: B(bn+j, k0+q) = bb[(bn+j) + (k0+q)*ldb]
        const bool inb = bn + j < n && k0 + q < ke;
        Bs[q * S_LD + j] = inb ? to_float(bb[(bn + j) + (long long)(k0 + q) * ldb]) : 0.f;
#else
        // B is k x n: B(k0+q, bn+j) = bb[(k0+q) + (bn+j)*ldb], contiguous in q: as A above.
        const int q = (e / (8 * BN)) * 8 + e % 8, j = (e / 8) % BN;
        const bool inb = bn + j < n && k0 + q < ke;
        Bs[q * S_LD + j] = inb ? to_float(bb[(k0 + q) + (long long)(bn + j) * ldb]) : 0.f;
#endif
      }
      __syncthreads();
#pragma unroll
      for (int p = 0; p < BK; ++p) {
        const float4 av = *reinterpret_cast<const float4*>(&As[p * S_LD + tm * 4]);
        const float4 bv = *reinterpret_cast<const float4*>(&Bs[p * S_LD + tn * 4]);
        const float ar[4] = {av.x, av.y, av.z, av.w}, br[4] = {bv.x, bv.y, bv.z, bv.w};
#pragma unroll
        for (int x = 0; x < 4; ++x)
#pragma unroll
          for (int y = 0; y < 4; ++y) acc[x][y] += ar[x] * br[y];
      }
      __syncthreads();
    }
#pragma unroll
    for (int y = 0; y < 4; ++y) {
      const int col = bn + tn * 4 + y;
      if (col >= n) continue;
#pragma unroll
      for (int x = 0; x < 4; ++x) {
        const int row = bm + tm * 4 + x;
        if (row >= m) continue;
        C_TYPE* out = &c[row + (long long)col * ldc];
        float v = alpha * acc[x][y];
#if SPLIT_K
        atomicAdd(out, v);  // beta was applied by gemm_scale_c
#else
        if (beta != 0.f) v += beta * to_float(cin[row + (long long)col * ldc]);  // beta == 0: C is not read (cuBLAS docs)
#if HAS_BIAS
        v += to_float(bias[row]);  // CUBLASLT_EPILOGUE_*BIAS: one bias per row of D
#endif
#if GELU == 1
        if (aux) store(&aux[row + (long long)col * ldaux], v);  // *_AUX: GELU's input, for the backward pass
        v = gelu(v);
#elif GELU == 2
        v *= gelu_grad(to_float(aux[row + (long long)col * ldaux]));  // CUBLASLT_EPILOGUE_DGELU
#endif
        store(out, v);
#endif
      }
    }
  }
}

// Before a split-K gemm_tiled: C = beta * C, and with beta == 0 C = 0 without
// reading it (cuBLAS's rule for beta == 0). One thread per element of C.
extern "C" __global__ void gemm_scale_c(int m, int n, float beta, C_TYPE* C, int ldc, long long strideC, int batch) {
  const long long per = (long long)m * n;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < per * batch;
       e += (long long)gridDim.x * blockDim.x) {
    const long long b = e / per, in = e % per;
    C_TYPE* out = &C[b * strideC + in % m + (in / m) * ldc];
    store(out, beta == 0.f ? 0.f : beta * to_float(*out));
  }
}

// cuBLASLt's BGRADA / BGRADB epilogues: the bias gradient, a sum over k of
// op(A)'s rows or op(B)'s columns (cublasLt.h, cublasLtEpilogue_t). Element
// p of vector r is X[r * step_r + p * step_k]; one block per vector, its
// threads striding over k, then a shared-memory tree.
extern "C" __global__ void __launch_bounds__(256) gemm_bias_grad(int count, int k, const AB_TYPE* X,
                                                                   long long step_r, long long step_k, C_TYPE* out) {
  __shared__ float partial[256];
  for (int r = blockIdx.x; r < count; r += gridDim.x) {
    float sum = 0.f;
    for (int p = threadIdx.x; p < k; p += blockDim.x) sum += to_float(X[r * step_r + p * step_k]);
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
      __syncthreads();
    }
    if (threadIdx.x == 0) store(&out[r], partial[0]);
    __syncthreads();
  }
}
