// kernels/mechanisms/stride.cu: global access stride. Thread i copies word
// i * stride: a warp's 32 four-byte loads touch min(32, 4 * stride) 32-byte
// sectors (Nsight Compute's sector, 32 bytes), so the bytes moved per useful
// byte grow with the stride until every lane has a sector of its own
// (CUDA C++ Best Practices Guide, "Strided Accesses").
extern "C" __global__ void strided_copy(const float* in, float* out, int stride) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i * stride];
}
