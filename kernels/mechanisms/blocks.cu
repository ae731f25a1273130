// kernels/mechanisms/blocks.cu: a block that does almost nothing (its first
// thread stores one word), so a grid of many of them is timed by how fast
// the GPU places, runs and retires blocks (bench mechanisms' blocks rows).
extern "C" __global__ void one_store(unsigned* out) {
  if (threadIdx.x == 0) out[blockIdx.x] = blockIdx.x;
}
