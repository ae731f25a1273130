// expect: clean
// run: --kernel ok_block_reduce --grid 2 --block 256 --arg f32[512]=rand --arg f32[2]
// The classic shared-memory tree reduction with a barrier per step.
extern "C" __global__ void ok_block_reduce(const float* in, float* out) {
  __shared__ float s[256];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
