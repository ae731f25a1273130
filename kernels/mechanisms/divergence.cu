// kernels/mechanisms/divergence.cu: two paths of equal work. `split` 1: the
// lanes of every warp split by parity, so each warp runs both paths one after
// the other (CUDA C++ Programming Guide, "SIMT Architecture": a warp executes
// each taken path in turn, disabling the lanes not on it). `split` 0: the
// choice is by warp, every warp runs one path.
extern "C" __global__ void two_paths(float* out, int split, float a, float b, int reps) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const bool odd = split ? (threadIdx.x & 1) : ((threadIdx.x >> 5) & 1);
  float x = out[t], y = x + 1.f, z = x + 2.f, w = x + 3.f;
  if (odd) {
    for (int r = 0; r < reps; ++r) { x = fmaf(x, a, b); y = fmaf(y, a, b); z = fmaf(z, a, b); w = fmaf(w, a, b); }
  } else {
    for (int r = 0; r < reps; ++r) { x = fmaf(x, b, a); y = fmaf(y, b, a); z = fmaf(z, b, a); w = fmaf(w, b, a); }
  }
  out[t] = x + y + z + w;
}
