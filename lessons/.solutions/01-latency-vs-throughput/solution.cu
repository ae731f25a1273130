// Lesson 1 reference solution: one thread per element, guarded.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;  // global index: block offset + position in the block
  if (i < n) c[i] = a[i] + b[i];                   // the last block may run past n
}
