// expect: race line 8
// run: --kernel race_global_neighbour --grid 2 --block 64 --arg f32[129]=iota
// An in-place shift: thread i reads a[i + 1], which thread i + 1 (another warp
// or block at the boundaries) may already have overwritten.
extern "C" __global__ void race_global_neighbour(float* a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float right = a[i + 1];
  a[i] = right;  // <- planted bug
}
