// Lesson 2 demo: the same work, split between two code paths in two ways.
//
// Both kernels square half of the elements' values through a slow path
// (a loop of 512 dependent FMAs: enough arithmetic per byte that a big launch
// is bound by issuing instructions, not by DRAM) and pass the other half
// through a fast path. branch_by_lane splits by the lane's parity, so every
// warp takes both paths one after the other, with half its lanes idle each
// time. branch_by_warp splits by warp, so each warp takes exactly one path.
__device__ float slow_path(float x) {
  float acc = x;
  for (int k = 0; k < 512; ++k) acc = acc * 0.999f + 0.001f;
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
  // Warps 0-3 of a 256-thread block take the slow path, warps 4-7 the fast
  // one. An SM's four schedulers each own the warps whose number mod 4 is
  // theirs, so each scheduler gets one warp of each kind; splitting even
  // warps from odd ones would hand two schedulers all the slow work.
  if (threadIdx.x / 32 < 4) y[i] = slow_path(x[i]);  // whole warps
  else y[i] = x[i];
}
