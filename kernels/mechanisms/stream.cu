// kernels/mechanisms/stream.cu: McCalpin's STREAM kernels (copy, scale, add,
// triad), one float4 per thread, as BabelStream runs them on GPUs.
extern "C" __global__ void stream_copy(const float4* a, float4* c) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  c[i] = a[i];
}
extern "C" __global__ void stream_scale(const float4* c, float4* b, float s) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const float4 v = c[i];
  b[i] = make_float4(s * v.x, s * v.y, s * v.z, s * v.w);
}
extern "C" __global__ void stream_add(const float4* a, const float4* b, float4* c) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const float4 x = a[i], y = b[i];
  c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}
extern "C" __global__ void stream_triad(float4* a, const float4* b, const float4* c, float s) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const float4 x = b[i], y = c[i];
  a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
}
