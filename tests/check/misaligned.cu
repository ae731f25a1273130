// expect: misaligned line 6
// run: --kernel misaligned --grid 1 --block 32 --arg u8[256] --arg i32=2
// A byte offset turned into a float pointer: the float stores are not 4-byte aligned.
extern "C" __global__ void misaligned(unsigned char* bytes, int offset) {
  float* f = reinterpret_cast<float*>(bytes + offset);
  f[threadIdx.x] = 1.0f;  // <- planted bug
}
