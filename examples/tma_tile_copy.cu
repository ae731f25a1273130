// tma_tile_copy.cu: Hopper's copy engine (TMA) from a whole program. The host
// describes a row-major fp16 matrix to the copy engine once, with
// cuTensorMapEncodeTiled; each block then asks for one 32 x 64 box of it with
// a single cp.async.bulk.tensor, waits on an mbarrier until the box's bytes
// have landed in shared memory, and writes the box out. Boxes that overhang
// the matrix's edge arrive zero-filled; the copy of the matrix is checked
// against the original.
//
//   gpulab run examples/tma_tile_copy.cu -l cuda             (100 x 136)
//   gpulab run examples/tma_tile_copy.cu -l cuda -- 300 520
// Needs sm_90a (H100, H200): the lab's H100 model compiles for it.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                                      \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,              \
                   cudaGetErrorString(err_));                                                 \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

constexpr int BOX_COLS = 64, BOX_ROWS = 32;

__global__ void copy_boxes(__half* out, int rows, int cols, const __grid_constant__ CUtensorMap map) {
  __shared__ __align__(128) __half box[BOX_ROWS * BOX_COLS];
  __shared__ __align__(8) unsigned long long bar;
  const unsigned sbar = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  const int c0 = blockIdx.x * BOX_COLS, r0 = blockIdx.y * BOX_ROWS;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(sbar));
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // the copy engine sees the barrier
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    // The bytes to wait for, then the copy: coordinates innermost first (column, row).
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(sbar),
                 "r"(int(sizeof(box))) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
        ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(box))), "l"(&map), "r"(c0), "r"(r0), "r"(sbar)
        : "memory");
  }
  // Every thread waits for phase 0 of the barrier: the box is in.
  asm volatile(
      "{\n.reg .pred done;\nWAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
      "@!done bra WAIT;\n}\n" ::"r"(sbar) : "memory");
  for (int i = threadIdx.x; i < BOX_ROWS * BOX_COLS; i += blockDim.x) {
    const int r = r0 + i / BOX_COLS, c = c0 + i % BOX_COLS;
    if (r < rows && c < cols) out[size_t(r) * cols + c] = box[i];
  }
}

int main(int argc, char** argv) {
  const int rows = argc > 1 ? std::atoi(argv[1]) : 100, cols = argc > 2 ? std::atoi(argv[2]) : 136;
  if (rows < 1 || cols < 8 || cols % 8) {
    std::fprintf(stderr, "usage: tma_tile_copy [rows] [cols]: cols a multiple of 8 (TMA rows are multiples of 16 bytes)\n");
    return 2;
  }
  std::vector<__half> host(size_t(rows) * cols), back(host.size());
  for (size_t i = 0; i < host.size(); ++i) host[i] = __float2half(float(i % 1024));
  __half *in = nullptr, *out = nullptr;
  CUDA_CHECK(cudaMalloc(&in, host.size() * sizeof(__half)));
  CUDA_CHECK(cudaMalloc(&out, host.size() * sizeof(__half)));
  CUDA_CHECK(cudaMemcpy(in, host.data(), host.size() * sizeof(__half), cudaMemcpyHostToDevice));

  // The matrix as the copy engine sees it: dimensions innermost first, the
  // row stride in bytes, the box one copy moves, no swizzle, zero fill.
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(cols) * sizeof(__half)};
  const cuuint32_t box[2] = {BOX_COLS, BOX_ROWS}, element_strides[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, in, dims, strides, box,
                                      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed (%d)\n", int(r));
    return 1;
  }
  dim3 grid((cols + BOX_COLS - 1) / BOX_COLS, (rows + BOX_ROWS - 1) / BOX_ROWS);
  copy_boxes<<<grid, 128>>>(out, rows, cols, map);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(back.data(), out, back.size() * sizeof(__half), cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (size_t i = 0; i < host.size(); ++i) bad += __half2float(back[i]) != __half2float(host[i]);
  std::printf("%d x %d fp16 matrix copied box by box through TMA: %zu wrong elements: %s\n", rows, cols, bad,
              bad ? "FAILED" : "PASSED");
  CUDA_CHECK(cudaFree(in));
  CUDA_CHECK(cudaFree(out));
  return bad ? 1 : 0;
}
