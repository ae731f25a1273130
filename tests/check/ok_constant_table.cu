// expect: clean
// run: --kernel scale_by_table --grid 1 --block 32 --arg f32[32]=rand --arg f32[32]
// The correct twin: a __constant__ table read with ld.const (every lane a
// different entry), beside ordinary global loads.
__constant__ float table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
extern "C" __global__ void scale_by_table(const float* in, float* out) {
  out[threadIdx.x] = in[threadIdx.x] * table[threadIdx.x % 8];
}
