// expect: out-of-bounds line 12
// run: --kernel oob_shared_next_array --grid 1 --block 32 --arg f32[32]=iota --arg f32[32]
// A neighbour read past the end of one shared array lands in the next one: it
// stays inside shared memory, so a GPU would silently read the wrong data.
extern "C" __global__ void oob_shared_next_array(const float* in, float* out) {
  __shared__ float a[32];
  __shared__ float b[32];
  int t = threadIdx.x;
  a[t] = in[t];
  b[t] = -in[t];
  __syncthreads();
  out[t] = a[t] + a[t + 1] + b[t];  // <- planted bug (lane 31 reads b[0])
}
