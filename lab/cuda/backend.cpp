// lab/cuda/backend.cpp: driver API and cuBLAS through dlopen.
//
// cuda.h and cublas_api.h are included for their types only; every function
// is looked up with dlsym under its ABI name (the _v2 names the headers' macros
// map to), so nothing here links against libcuda or libcublas.
#include "lab/cuda/backend.h"

#include <cuda.h>
#include <cublas_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <cassert>
#include <mutex>

#include <fmt/format.h>

namespace lab::cuda {

namespace {

// [DRIVER] function pointer types, as declared in cuda.h (CUDA driver API reference).
struct Driver {
  void* lib = nullptr;
  CUresult (*Init)(unsigned) = nullptr;
  CUresult (*DeviceGetCount)(int*) = nullptr;
  CUresult (*DeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*DeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*DeviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*DevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*DevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*CtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*CtxSynchronize)() = nullptr;
  CUresult (*MemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*MemFree)(CUdeviceptr) = nullptr;
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*MemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  CUresult (*ModuleLoadDataEx)(CUmodule*, const void*, unsigned, CUjit_option*, void**) = nullptr;
  CUresult (*ModuleUnload)(CUmodule) = nullptr;
  CUresult (*ModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*FuncGetAttribute)(int*, CUfunction_attribute, CUfunction) = nullptr;
  CUresult (*FuncSetAttribute)(CUfunction, CUfunction_attribute, int) = nullptr;
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           CUstream, void**, void**) = nullptr;
  CUresult (*EventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*EventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*EventSynchronize)(CUevent) = nullptr;
  CUresult (*EventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  CUresult (*EventDestroy)(CUevent) = nullptr;
  CUresult (*GetErrorName)(CUresult, const char**) = nullptr;
  // Optional (CUDA 12 drivers and later): TMA versions need it.
  CUresult (*TensorMapEncodeTiled)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                   const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                   CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill) = nullptr;
  std::string error;  // why the driver is unusable; empty when usable
  int devices = 0;
};

template <class F>
bool bind(void* lib, F& fp, const char* name, std::string& error) {
  fp = reinterpret_cast<F>(dlsym(lib, name));
  if (!fp && error.empty()) error = fmt::format("libcuda.so.1 has no symbol {} (driver too old?)", name);
  return fp != nullptr;
}

std::string result_name(const Driver& d, CUresult r) {
  const char* s = nullptr;
  if (d.GetErrorName && d.GetErrorName(r, &s) == CUDA_SUCCESS && s) return fmt::format("{} ({})", s, int(r));
  return fmt::format("CUresult {}", int(r));
}

// Loaded once per process; cuInit runs once.
Driver& driver() {
  static Driver d;
  static std::once_flag once;
  std::call_once(once, [] {
    d.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!d.lib) {
      const char* e = dlerror();
      d.error = fmt::format(
          "no NVIDIA driver: libcuda.so.1 could not be loaded ({}). Use --backend sim, or install the "
          "NVIDIA driver on a machine with an NVIDIA GPU",
          e ? e : "not found");
      return;
    }
    std::string& e = d.error;
    bind(d.lib, d.Init, "cuInit", e);
    bind(d.lib, d.DeviceGetCount, "cuDeviceGetCount", e);
    bind(d.lib, d.DeviceGet, "cuDeviceGet", e);
    bind(d.lib, d.DeviceGetName, "cuDeviceGetName", e);
    bind(d.lib, d.DeviceGetAttribute, "cuDeviceGetAttribute", e);
    bind(d.lib, d.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", e);
    bind(d.lib, d.DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", e);
    bind(d.lib, d.CtxSetCurrent, "cuCtxSetCurrent", e);
    bind(d.lib, d.CtxSynchronize, "cuCtxSynchronize", e);
    bind(d.lib, d.MemAlloc, "cuMemAlloc_v2", e);
    bind(d.lib, d.MemFree, "cuMemFree_v2", e);
    bind(d.lib, d.MemcpyHtoD, "cuMemcpyHtoD_v2", e);
    bind(d.lib, d.MemcpyDtoH, "cuMemcpyDtoH_v2", e);
    bind(d.lib, d.MemsetD8, "cuMemsetD8_v2", e);
    bind(d.lib, d.ModuleLoadDataEx, "cuModuleLoadDataEx", e);
    bind(d.lib, d.ModuleUnload, "cuModuleUnload", e);
    bind(d.lib, d.ModuleGetFunction, "cuModuleGetFunction", e);
    bind(d.lib, d.FuncGetAttribute, "cuFuncGetAttribute", e);
    bind(d.lib, d.FuncSetAttribute, "cuFuncSetAttribute", e);
    bind(d.lib, d.LaunchKernel, "cuLaunchKernel", e);
    bind(d.lib, d.EventCreate, "cuEventCreate", e);
    bind(d.lib, d.EventRecord, "cuEventRecord", e);
    bind(d.lib, d.EventSynchronize, "cuEventSynchronize", e);
    bind(d.lib, d.EventElapsedTime, "cuEventElapsedTime", e);
    bind(d.lib, d.EventDestroy, "cuEventDestroy_v2", e);
    bind(d.lib, d.GetErrorName, "cuGetErrorName", e);
    d.TensorMapEncodeTiled = reinterpret_cast<decltype(d.TensorMapEncodeTiled)>(dlsym(d.lib, "cuTensorMapEncodeTiled"));
    if (!e.empty()) return;
    if (CUresult r = d.Init(0); r != CUDA_SUCCESS) {
      e = fmt::format("the NVIDIA driver is installed but cuInit failed: {}. Use --backend sim", result_name(d, r));
      return;
    }
    if (CUresult r = d.DeviceGetCount(&d.devices); r != CUDA_SUCCESS || d.devices == 0) {
      e = "the NVIDIA driver found no CUDA device. Use --backend sim";
      return;
    }
  });
  return d;
}

void check(CUresult r, const char* call) {
  if (r != CUDA_SUCCESS) throw CudaError(fmt::format("{} failed: {}", call, result_name(driver(), r)));
}
#define GPULAB_CU(call) check(d.call, #call)

// [CUBLAS] cublas_api.h signatures (cuBLAS library reference).
struct Cublas {
  void* lib = nullptr;
  cublasStatus_t (*Create)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*Destroy)(cublasHandle_t) = nullptr;
  cublasStatus_t (*Sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float*,
                          const float*, int, const float*, int, const float*, float*, int) = nullptr;
  cublasStatus_t (*GemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                           const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                           cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  cublasHandle_t handle = nullptr;
  std::string error;
};

}  // namespace

bool cuda_available(std::string* why) {
  const Driver& d = driver();
  if (why) *why = d.error;
  return d.error.empty();
}

struct Gpu::Impl {
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::vector<CUmodule> modules;
  uint64_t flush = 0, flush_bytes = 0;
  CUevent start = nullptr, stop = nullptr;
  Cublas blas;
  bool blas_tried = false;
};

Gpu::Gpu(int ordinal) : impl_(std::make_unique<Impl>()) {
  std::string why;
  if (!cuda_available(&why)) throw CudaError(why);
  Driver& d = driver();
  if (ordinal < 0 || ordinal >= d.devices)
    throw CudaError(fmt::format("no CUDA device {} (this machine has {})", ordinal, d.devices));
  GPULAB_CU(DeviceGet(&impl_->device, ordinal));
  GPULAB_CU(DevicePrimaryCtxRetain(&impl_->context, impl_->device));
  GPULAB_CU(CtxSetCurrent(impl_->context));
  GPULAB_CU(EventCreate(&impl_->start, CU_EVENT_DEFAULT));
  GPULAB_CU(EventCreate(&impl_->stop, CU_EVENT_DEFAULT));
  // Twice the L2 so that a flush evicts everything a previous run left.
  impl_->flush_bytes = std::max<uint64_t>(2 * l2_bytes(), 8u << 20);
  impl_->flush = alloc(impl_->flush_bytes);
}

Gpu::~Gpu() {
  Driver& d = driver();
  if (impl_->blas.handle) impl_->blas.Destroy(impl_->blas.handle);
  if (impl_->flush) d.MemFree(impl_->flush);
  if (impl_->start) d.EventDestroy(impl_->start);
  if (impl_->stop) d.EventDestroy(impl_->stop);
  for (CUmodule m : impl_->modules) d.ModuleUnload(m);
  if (impl_->context) d.DevicePrimaryCtxRelease(impl_->device);
}

std::string Gpu::name() const {
  char buf[256] = {};
  driver().DeviceGetName(buf, sizeof buf, impl_->device);
  return buf;
}

int Gpu::compute_capability() const {
  Driver& d = driver();
  int major = 0, minor = 0;
  GPULAB_CU(DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, impl_->device));
  GPULAB_CU(DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, impl_->device));
  return major * 10 + minor;
}

std::string Gpu::ptx_target() const {
  const int cc = compute_capability();
  return cc == 90 ? std::string("compute_90a") : "compute_" + std::to_string(std::min(cc, 90));
}

uint64_t Gpu::l2_bytes() const {
  Driver& d = driver();
  int bytes = 0;
  GPULAB_CU(DeviceGetAttribute(&bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, impl_->device));
  return uint64_t(bytes);
}

uint64_t Gpu::alloc(uint64_t bytes) {
  Driver& d = driver();
  CUdeviceptr p = 0;
  GPULAB_CU(MemAlloc(&p, std::max<uint64_t>(bytes, 1)));
  return p;
}
void Gpu::free(uint64_t address) {
  Driver& d = driver();
  GPULAB_CU(MemFree(CUdeviceptr(address)));
}
void Gpu::upload(uint64_t dst, const void* src, uint64_t bytes) {
  Driver& d = driver();
  GPULAB_CU(MemcpyHtoD(CUdeviceptr(dst), src, bytes));
}
void Gpu::download(void* dst, uint64_t src, uint64_t bytes) {
  Driver& d = driver();
  GPULAB_CU(MemcpyDtoH(dst, CUdeviceptr(src), bytes));
}

void* Gpu::load_kernel(const std::string& ptx, const std::string& kernel_name) {
  Driver& d = driver();
  char log[8192] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[] = {log, reinterpret_cast<void*>(uintptr_t(sizeof log))};
  CUmodule m = nullptr;
  if (CUresult r = d.ModuleLoadDataEx(&m, ptx.c_str(), 2, opts, vals); r != CUDA_SUCCESS)
    throw CudaError(fmt::format("the driver could not load the PTX of {}: {}\n{}", kernel_name, result_name(d, r), log));
  impl_->modules.push_back(m);
  CUfunction f = nullptr;
  if (CUresult r = d.ModuleGetFunction(&f, m, kernel_name.c_str()); r != CUDA_SUCCESS)
    throw CudaError(fmt::format("kernel {} not found in its PTX: {} (is it extern \"C\"?)", kernel_name,
                                result_name(d, r)));
  return f;
}

int Gpu::kernel_attribute_registers(void* fn) const {
  Driver& d = driver();
  int regs = 0;
  GPULAB_CU(FuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, CUfunction(fn)));
  return regs;
}

void Gpu::launch(void* fn, const uint32_t grid[3], const uint32_t block[3], uint32_t dynamic_shared_bytes,
                 std::vector<void*> args) {
  Driver& d = driver();
  // Above 48 KiB of dynamic shared memory a kernel must opt in (CUDA C
  // Programming Guide, "Shared Memory" in the compute capability sections).
  if (dynamic_shared_bytes > 48 * 1024)
    GPULAB_CU(FuncSetAttribute(CUfunction(fn), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               int(dynamic_shared_bytes)));
  GPULAB_CU(LaunchKernel(CUfunction(fn), grid[0], grid[1], grid[2], block[0], block[1], block[2],
                         dynamic_shared_bytes, nullptr, args.data(), nullptr));
}

void Gpu::encode_tensor_map_2d_f16(void* out, uint64_t address, const uint64_t dims[2], uint64_t row_stride_bytes,
                                   const uint32_t box[2]) {
  Driver& d = driver();
  if (!d.TensorMapEncodeTiled) throw CudaError("the driver has no cuTensorMapEncodeTiled (CUDA 12 or later is needed for TMA)");
  const cuuint64_t gdim[2] = {dims[0], dims[1]}, gstride[1] = {row_stride_bytes};
  const cuuint32_t bdim[2] = {box[0], box[1]}, estride[2] = {1, 1};
  GPULAB_CU(TensorMapEncodeTiled(static_cast<CUtensorMap*>(out), CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
                                 reinterpret_cast<void*>(address), gdim, gstride, bdim, estride,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                 CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
}

void Gpu::synchronize() {
  Driver& d = driver();
  GPULAB_CU(CtxSynchronize());
}

GpuTiming Gpu::time(const std::function<void()>& work, const TimingPolicy& policy) {
  Driver& d = driver();
  for (int i = 0; i < policy.warmup; ++i) work();
  GPULAB_CU(CtxSynchronize());
  std::vector<double> ms;
  for (int i = 0; i < std::max(1, policy.repeats); ++i) {
    if (policy.flush_l2) GPULAB_CU(MemsetD8(CUdeviceptr(impl_->flush), uint8_t(i), impl_->flush_bytes));
    GPULAB_CU(EventRecord(impl_->start, nullptr));
    work();
    GPULAB_CU(EventRecord(impl_->stop, nullptr));
    GPULAB_CU(EventSynchronize(impl_->stop));
    float t = 0;
    GPULAB_CU(EventElapsedTime(&t, impl_->start, impl_->stop));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  GpuTiming r;
  r.repeats = int(ms.size());
  r.min_ms = ms.front();
  r.median_ms = ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
  return r;
}

bool Gpu::cublas_available(std::string* why) {
  Cublas& b = impl_->blas;
  if (!impl_->blas_tried) {
    impl_->blas_tried = true;
    for (const char* n : {"libcublas.so", "libcublas.so.13", "libcublas.so.12"})
      if ((b.lib = dlopen(n, RTLD_NOW | RTLD_LOCAL))) break;
    if (!b.lib) {
      b.error = "cuBLAS could not be loaded (libcublas.so not found: add the CUDA toolkit's lib64 to LD_LIBRARY_PATH)";
    } else {
      b.Create = reinterpret_cast<decltype(b.Create)>(dlsym(b.lib, "cublasCreate_v2"));
      b.Destroy = reinterpret_cast<decltype(b.Destroy)>(dlsym(b.lib, "cublasDestroy_v2"));
      b.Sgemm = reinterpret_cast<decltype(b.Sgemm)>(dlsym(b.lib, "cublasSgemm_v2"));
      b.GemmEx = reinterpret_cast<decltype(b.GemmEx)>(dlsym(b.lib, "cublasGemmEx"));
      if (!b.Create || !b.Destroy || !b.Sgemm || !b.GemmEx)
        b.error = "libcublas lacks cublasCreate_v2/cublasSgemm_v2/cublasGemmEx";
      else if (cublasStatus_t s = b.Create(&b.handle); s != CUBLAS_STATUS_SUCCESS)
        b.error = fmt::format("cublasCreate failed with status {}", int(s));
    }
  }
  if (why) *why = b.error;
  return b.error.empty();
}

// Row-major C = A*B is column-major C^T = B^T * A^T: swap the operands and
// M/N, no transposes (the usual trick; cuBLAS is column-major).
void Gpu::sgemm(int M, int N, int K, float alpha, uint64_t A, uint64_t B, float beta, uint64_t C) {
  std::string why;
  if (!cublas_available(&why)) throw CudaError(why);
  Cublas& b = impl_->blas;
  cublasStatus_t s = b.Sgemm(b.handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, reinterpret_cast<const float*>(B), N,
                             reinterpret_cast<const float*>(A), K, &beta, reinterpret_cast<float*>(C), N);
  if (s != CUBLAS_STATUS_SUCCESS) throw CudaError(fmt::format("cublasSgemm failed with status {}", int(s)));
}

void Gpu::gemm_f16_f32(int M, int N, int K, float alpha, uint64_t A, uint64_t B, float beta, uint64_t C) {
  std::string why;
  if (!cublas_available(&why)) throw CudaError(why);
  Cublas& b = impl_->blas;
  cublasStatus_t s = b.GemmEx(b.handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, reinterpret_cast<const void*>(B),
                              CUDA_R_16F, N, reinterpret_cast<const void*>(A), CUDA_R_16F, K, &beta,
                              reinterpret_cast<void*>(C), CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS) throw CudaError(fmt::format("cublasGemmEx failed with status {}", int(s)));
}

}  // namespace lab::cuda
