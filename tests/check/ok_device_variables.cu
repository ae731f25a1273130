// expect: clean
// run: --kernel ok_device_variables --grid 1 --block 12 --arg i32=8
// The twin of oob_device_variable: the bound matches the table's size.
__device__ int table[8];
__device__ int after[8];
extern "C" __global__ void ok_device_variables(int n) {
  int t = threadIdx.x;
  if (t < n) table[t] = t;
  if (t < 8) atomicAdd(&after[t], 1);
}
