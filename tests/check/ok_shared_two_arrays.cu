// expect: clean
// run: --kernel ok_shared_two_arrays --grid 1 --block 32 --arg f32[32]=iota --arg f32[32]
// The same neighbour sum with the index wrapped inside its array.
extern "C" __global__ void ok_shared_two_arrays(const float* in, float* out) {
  __shared__ float a[32];
  __shared__ float b[32];
  int t = threadIdx.x;
  a[t] = in[t];
  b[t] = -in[t];
  __syncthreads();
  out[t] = a[t] + a[(t + 1) % 32] + b[t];
}
