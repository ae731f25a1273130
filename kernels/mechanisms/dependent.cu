// kernels/mechanisms/dependent.cu: dependent-issue latency per instruction
// class. One warp runs a chain of 256 operations, each needing the result of
// the one before, so the time per operation is the pipe's latency (the
// method of Jia et al. 2018, "Dissecting the NVIDIA Volta GPU Architecture
// via Microbenchmarking", section 3). Nothing is loaded before the chain,
// so a memory latency does not add to it; the store after it does not wait.
// CHAIN links; the bench runs two lengths and takes the difference, so the
// launch and the chain's fixed part (set-up, the store, exit) cancel.
#ifndef CHAIN
#define CHAIN 256
#endif
extern "C" __global__ void chain_fp32(float* out, float a, float b) {
  float x = a * threadIdx.x;
#pragma unroll
  for (int k = 0; k < CHAIN; ++k) x = fmaf(x, a, b);
  out[threadIdx.x] = x;
}
extern "C" __global__ void chain_int(int* out, int a, int b) {
  int x = a * threadIdx.x;
#pragma unroll
  for (int k = 0; k < CHAIN; ++k) x = x * a + b;
  out[threadIdx.x] = x;
}
// Integer division by a value known only at run time: no instruction does
// it, ptxas emits a sequence (about 20 instructions).
extern "C" __global__ void chain_idiv(int* out, int a, int d) {
  int x = a * threadIdx.x + 1000000;
#pragma unroll
  for (int k = 0; k < CHAIN; ++k) x = x / d + a;
  out[threadIdx.x] = x;
}
extern "C" __global__ void chain_mufu(float* out) {
  float x = 1.f + threadIdx.x;
#pragma unroll
  for (int k = 0; k < CHAIN; ++k) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x));
  out[threadIdx.x] = x;
}
extern "C" __global__ void chain_fp64(double* out, double a, double b) {
  double x = a * threadIdx.x;
#pragma unroll
  for (int k = 0; k < CHAIN; ++k) x = fma(x, a, b);
  out[threadIdx.x] = x;
}
// mma.sync m16n8k16 (f16 in, f32 accumulate): each one accumulates into the
// last one's result.
extern "C" __global__ void chain_mma(float* out) {
  float c[4] = {0.f, 0.f, 0.f, 0.f};
  const unsigned a0 = 0x3c003c00u, a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0;  // halves of 1.0
#pragma unroll
  for (int k = 0; k < CHAIN; ++k)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  out[threadIdx.x] = c[0] + c[1] + c[2] + c[3];
}
