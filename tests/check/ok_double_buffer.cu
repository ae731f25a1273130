// expect: clean
// run: --kernel ok_double_buffer --grid 1 --block 64 --arg f32[512]=iota --arg f32[64] --arg i32=8
// Double-buffered tiles: load step s+1 into the other buffer while step s is
// read; one barrier per step suffices because a buffer is rewritten only
// after the barrier that follows its last read.
extern "C" __global__ void ok_double_buffer(const float* in, float* out, int steps) {
  __shared__ float tile[2][64];
  int t = threadIdx.x;
  float acc = 0.0f;
  tile[0][t] = in[t];
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    int cur = s & 1;
    if (s + 1 < steps) tile[cur ^ 1][t] = in[(s + 1) * 64 + t];
    acc += tile[cur][63 - t];
    __syncthreads();
  }
  out[t] = acc;
}
