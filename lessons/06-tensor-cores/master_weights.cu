// lessons/06-tensor-cores/master_weights.cu: why training keeps fp32 master weights.
//
// Every thread holds one weight, starting at 1.0, and applies `steps` SGD
// updates of the same small size to it, three ways: kept in fp32 (the master
// copy), kept in bf16, and kept in fp16 (each update rounded back to the
// narrow type, as a framework without master weights would store it). The
// update sizes span the range an optimizer produces relative to a weight.
// `gpulab run lessons/06-tensor-cores/master_weights.cu` prints what each
// weight ends at beside the exact answer.
#include <cstdio>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

__global__ void apply_updates(const float* update, int steps, float* w32, float* w16b, float* w16h) {
  const int i = threadIdx.x;
  float m = 1.0f;
  __nv_bfloat16 b = __float2bfloat16(1.0f);
  __half h = __float2half(1.0f);
  for (int s = 0; s < steps; ++s) {
    m = m + update[i];
    b = __float2bfloat16(__bfloat162float(b) + update[i]);
    h = __float2half(__half2float(h) + update[i]);
  }
  w32[i] = m;
  w16b[i] = __bfloat162float(b);
  w16h[i] = __half2float(h);
}

int main() {
  const int n = 4, steps = 1000;
  const float update[n] = {1e-2f, 1e-3f, 1e-4f, 1e-5f};
  float *d_update, *d32, *db, *dh;
  cudaMalloc(&d_update, n * sizeof(float));
  cudaMalloc(&d32, n * sizeof(float));
  cudaMalloc(&db, n * sizeof(float));
  cudaMalloc(&dh, n * sizeof(float));
  cudaMemcpy(d_update, update, sizeof update, cudaMemcpyHostToDevice);
  apply_updates<<<1, n>>>(d_update, steps, d32, db, dh);
  float w32[n], wb[n], wh[n];
  cudaMemcpy(w32, d32, sizeof w32, cudaMemcpyDeviceToHost);
  cudaMemcpy(wb, db, sizeof wb, cudaMemcpyDeviceToHost);
  cudaMemcpy(wh, dh, sizeof wh, cudaMemcpyDeviceToHost);
  std::printf("A weight of 1.0 after %d updates of +u, stored three ways:\n", steps);
  std::printf("  %8s %10s %12s %12s %12s\n", "u", "exact", "fp32 master", "bf16", "fp16");
  for (int i = 0; i < n; ++i)
    std::printf("  %8.0e %10.4f %12.4f %12.4f %12.4f\n", update[i], 1.0 + steps * double(update[i]), w32[i], wb[i], wh[i]);
  std::printf("bf16 keeps 8 bits of mantissa (spacing 2^-7 = 7.8e-3 near 1), fp16 11 (2^-10 = 9.8e-4):\n"
              "an update below half the spacing rounds away, every step.\n");
  cudaFree(d_update);
  cudaFree(d32);
  cudaFree(db);
  cudaFree(dh);
  return 0;
}
