// kernels/mechanisms/peak.cu: peak arithmetic rates. Every warp keeps 8
// independent chains, enough to cover the pipe latency with a few warps per
// scheduler; the grid fills every SM. Time per operation is then the pipe's
// issue rate: FP32 lanes per SM (whitepapers) or the tensor cores' rate.
// The loops are unrolled 8 times, as peak benchmarks are, so the loop's own
// counter and branch take few of the issue slots.
extern "C" __global__ void fp32_peak(float* out, float a, float b, int reps) {
  float x[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) x[j] = out[blockIdx.x * blockDim.x + threadIdx.x] + j;
#pragma unroll 8
  for (int r = 0; r < reps; ++r)
#pragma unroll
    for (int j = 0; j < 8; ++j) x[j] = fmaf(x[j], a, b);
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += x[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
// mma.sync m16n8k16, f16 in, f32 accumulate: 4 independent accumulators.
extern "C" __global__ void mma_peak(float* out, int reps) {
  float c[4][4] = {};
  const unsigned h = 0x3c003c00u;
#pragma unroll 8
  for (int r = 0; r < reps; ++r)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3])
                   : "r"(h), "r"(h), "r"(h), "r"(h), "r"(h), "r"(h));
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < 4; ++j) s += c[j][0] + c[j][1] + c[j][2] + c[j][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
