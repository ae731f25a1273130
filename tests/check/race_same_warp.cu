// expect: race line 7
// run: --kernel race_same_warp --grid 1 --block 32 --arg i32[1]
// Every lane of the warp stores its own id to the same word in one store:
// which value lands is undefined (PTX memory model: conflicting writes).
extern "C" __global__ void race_same_warp(int* out) {
  __shared__ int winner;
  winner = threadIdx.x;  // <- planted bug
  __syncthreads();
  if (threadIdx.x == 0) out[0] = winner;
}
