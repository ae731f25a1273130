// expect: race line 11
// run: --kernel race_shared_flag_values --grid 1 --block 128 --arg i32[1]
// The twin of ok_shared_same_flag: each warp stores a different value to the
// one shared word in the same barrier interval, so which lands is a race.
extern "C" __global__ void race_shared_flag_values(int* out) {
  __shared__ int last;
  int t = threadIdx.x;
  if (t == 0) last = -1;
  __syncthreads();
  if ((t & 31) == 0)
    last = t;  // <- planted bug
  __syncthreads();
  if (t == 0) out[0] = last;
}
