// expect: clean
// run: --kernel ok_shared_same_flag --grid 2 --block 128 --arg f32[256]=iota --arg i32[2]
// Every warp that finds a negative value sets one shared flag to 1: several
// warps store the same value in the same barrier interval, which no reader
// can tell apart (the README: same-value stores are not reported).
extern "C" __global__ void ok_shared_same_flag(const float* in, int* any_negative) {
  __shared__ int flag;
  int t = threadIdx.x;
  if (t == 0) flag = 0;
  __syncthreads();
  if (in[blockIdx.x * blockDim.x + t] - 100.0f < 0.0f) flag = 1;
  __syncthreads();
  if (t == 0) any_negative[blockIdx.x] = flag;
}
