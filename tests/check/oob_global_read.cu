// expect: out-of-bounds line 7
// run: --kernel oob_global_read --grid 2 --block 64 --arg f32[128]=iota --arg f32[128] --arg i32=128
// A forward difference that reads a[i + 1] even for the last element.
extern "C" __global__ void oob_global_read(const float* a, float* d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float next = a[i + 1];  // <- planted bug
    d[i] = next - a[i];
  }
}
