// expect: out-of-bounds line 10
// run: --kernel oob_device_variable --grid 1 --block 12 --arg i32=12
// A __device__ table of 8 ints indexed by 12 threads: threads 8-11 write
// past its end into the next __device__ variable, still inside global
// memory, where a GPU raises nothing and the neighbour is silently changed.
__device__ int table[8];
__device__ int after[8];
extern "C" __global__ void oob_device_variable(int n) {
  int t = threadIdx.x;
  if (t < n) table[t] = t;  // <- planted bug
  if (t < 8) atomicAdd(&after[t], 1);
}
