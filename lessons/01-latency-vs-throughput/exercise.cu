// Lesson 1 exercise: your first kernel, a vector add.
//
//   c[i] = a[i] + b[i] for i in 0..n-1
//   launched with 256 threads per block and ceil(n / 256) blocks.
//
// Every thread handles one element. As shipped, every block computes the
// same 256 elements, so most of c is never written: `gpulab check 01` says
// which element it found first. Fix the TODO.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  // TODO: the element of this thread across the WHOLE grid, not just its block.
  // And n need not be a multiple of 256: the last block has threads past the
  // end, which must not touch memory.
  int i = threadIdx.x;
  c[i] = a[i] + b[i];
}
