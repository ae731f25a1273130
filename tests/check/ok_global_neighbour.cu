// expect: clean
// run: --kernel ok_global_neighbour --grid 2 --block 64 --arg f32[129]=iota --arg f32[128]
// The same shift out of place: every element has one writer, and nobody writes what others read.
extern "C" __global__ void ok_global_neighbour(const float* a, float* b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  b[i] = a[i + 1];
}
