// expect: clean
// run: --kernel ok_scan --grid 1 --block 128 --arg i32[128]=iota --arg i32[128]
// Hillis-Steele inclusive scan: read, barrier, write, barrier.
extern "C" __global__ void ok_scan(const int* in, int* out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  for (int o = 1; o < blockDim.x; o *= 2) {
    int add = t >= o ? s[t - o] : 0;
    __syncthreads();
    s[t] += add;
    __syncthreads();
  }
  out[t] = s[t];
}
