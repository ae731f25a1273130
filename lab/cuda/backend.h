// lab/cuda/backend.h: the real-GPU backend.
//
// The CUDA driver API (libcuda.so.1) and cuBLAS (libcublas.so) are opened with
// dlopen at run time, never linked, so the lab builds and runs on a machine
// with no NVIDIA driver; there `cuda_available` says why the GPU cannot be
// used and every caller falls back to the simulator (or, for
// `--backend cuda`, stops with that reason). The same PTX the simulator runs
// is loaded with cuModuleLoadData.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab::cuda {

// True when libcuda loads, cuInit succeeds and a device exists. Otherwise
// false, with `why` (if given) set to a sentence a user can act on.
bool cuda_available(std::string* why = nullptr);

// A driver or cuBLAS call failed: the message names the call and the error.
struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct GpuTiming {
  double median_ms = 0, min_ms = 0;
  int repeats = 0;
};

struct TimingPolicy {
  int warmup = 2;
  int repeats = 10;
  bool flush_l2 = true;  // overwrite a buffer larger than L2 before every timed run
};

// One device, its primary context, loaded modules and cuBLAS. Not thread-safe.
class Gpu {
 public:
  // Throws CudaError (with cuda_available's reason) when no GPU can be used.
  explicit Gpu(int ordinal = 0);
  ~Gpu();
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  std::string name() const;           // "NVIDIA H100 80GB HBM3"
  int compute_capability() const;     // 90 for sm_90
  // The NVRTC target the lab compiles for this GPU: its own architecture,
  // capped at the newest the lab's kernels are written for, and on Hopper the
  // architecture-specific compute_90a (wgmma and setmaxnreg exist only there).
  std::string ptx_target() const;
  uint64_t l2_bytes() const;

  // Device memory: addresses are CUdeviceptr values.
  uint64_t alloc(uint64_t bytes);
  void free(uint64_t address);
  void upload(uint64_t dst, const void* src, uint64_t bytes);
  void download(void* dst, uint64_t src, uint64_t bytes);

  // Loads PTX text (JIT-compiled by the driver) and finds a kernel in it.
  // Returns an opaque function handle valid for the Gpu's lifetime.
  void* load_kernel(const std::string& ptx, const std::string& kernel_name);
  // Registers per thread and static shared bytes as the driver compiled them.
  int kernel_attribute_registers(void* fn) const;
  // Launches with the given argument pointers (each points at the argument value).
  void launch(void* fn, const uint32_t grid[3], const uint32_t block[3], uint32_t dynamic_shared_bytes,
              std::vector<void*> args);
  void synchronize();
  // cuTensorMapEncodeTiled for a row-major 2-D fp16 matrix (dims inner
  // first), 128-byte swizzle, zero fill: what the TMA GEMM versions take.
  // `out` is 128 bytes, 64-byte aligned.
  void encode_tensor_map_2d_f16(void* out, uint64_t address, const uint64_t dims[2], uint64_t row_stride_bytes,
                                const uint32_t box[2]);

  // Times `work` (which enqueues GPU work) with events: warm-up, repeats,
  // median, L2 flushed before each timed run (the flush is not timed).
  GpuTiming time(const std::function<void()>& work, const TimingPolicy& policy = {});

  // cuBLAS references on device buffers, row-major C = alpha*A*B + beta*C.
  // Throws CudaError when cuBLAS cannot be loaded.
  bool cublas_available(std::string* why = nullptr);
  void sgemm(int M, int N, int K, float alpha, uint64_t A, uint64_t B, float beta, uint64_t C);
  // fp16 A and B, fp32 C and accumulation (cublasGemmEx, CUBLAS_COMPUTE_32F).
  void gemm_f16_f32(int M, int N, int K, float alpha, uint64_t A, uint64_t B, float beta, uint64_t C);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lab::cuda
