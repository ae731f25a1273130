// Lesson 2 demo: the same work, split between two code paths in two ways.
//
// Both kernels square half of the elements' values through a slow path
// (a loop of 64 dependent FMAs) and pass the other half through a fast path.
// branch_by_lane splits by the lane's parity, so every warp takes both paths
// one after the other, with half its lanes idle each time. branch_by_warp
// splits by warp, so each warp takes exactly one path.
__device__ float slow_path(float x) {
  float acc = x;
  for (int k = 0; k < 64; ++k) acc = acc * 0.999f + 0.001f;
  return acc;
}

extern "C" __global__ void branch_by_lane(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (threadIdx.x % 2 == 0) y[i] = slow_path(x[i]);  // even lanes
  else y[i] = x[i];                                  // odd lanes wait, then run this
}

extern "C" __global__ void branch_by_warp(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if ((threadIdx.x / 32) % 2 == 0) y[i] = slow_path(x[i]);  // whole warps
  else y[i] = x[i];
}
