// kernels/mechanisms/blocks.cu: blocks that live a moment, so a grid of many
// of them is timed by how fast the GPU places, runs and retires blocks
// (bench mechanisms' blocks rows).
#ifndef LOADS
#define LOADS 1
#endif

// A block that does almost nothing: its first thread stores one word.
extern "C" __global__ void one_store(unsigned* out) {
  if (threadIdx.x == 0) out[blockIdx.x] = blockIdx.x;
}

// A block that reads LOADS floats per thread (a block's width apart, each
// warp's loads whole lines) and ends: the shape of a reduction's first pass
// or a streaming read with one element per thread, where a block lives about
// one DRAM latency. `never` is a value no sum takes (the array holds
// non-negative numbers), so the store keeps the loads alive and writes nothing.
extern "C" __global__ void short_read(const float* a, float* out, float never) {
  const long long base = (long long)blockIdx.x * blockDim.x * LOADS + threadIdx.x;
  float acc = 0.0f;
#pragma unroll
  for (int j = 0; j < LOADS; ++j) acc += a[base + (long long)j * blockDim.x];
  if (acc == never) out[threadIdx.x] = acc;
}
