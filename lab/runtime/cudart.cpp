// lab/runtime/cudart.cpp: the CUDA runtime API as a program built by nvcc
// calls it, served by the lab (libgpulab_cudart.so). Each function is a thin
// wrapper over lab::runtime::Context; the declarations come from the
// toolkit's own cuda_runtime_api.h, so the signatures (and the symbols'
// names, e.g. cudaGetDeviceProperties_v2) are the ones nvcc's code links to.
//
// A runtime function not defined here is not served: `gpulab run` turns the
// linker's "undefined reference" into an error naming it (docs/run.md lists
// what is served). exports.map keeps everything else in this library hidden.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "lab/runtime/attributes.h"
#include "lab/runtime/context.h"
#include "lab/runtime/graphs.h"

using lab::runtime::Context;
namespace graphs = lab::runtime::graphs;

namespace {
Context& ctx() { return Context::get(); }

// <<<...>>> pushes its configuration, the launch stub pops it.
struct CallConfig {
  dim3 grid, block;
  size_t shared = 0;
  cudaStream_t stream = nullptr;
};
thread_local std::vector<CallConfig> call_configs;

std::mutex host_mutex;
std::set<void*> host_allocations;  // cudaMallocHost / cudaHostAlloc

// Every simulated device is the same GPU model (`gpulab run --gpus N`, devices.h).
cudaError_t not_device(int device) {
  if (ctx().devices().valid(device)) return cudaSuccess;
  std::fprintf(stderr, "gpulab: device %d does not exist: the run simulates %d GPU%s (`gpulab run --gpus N` gives "
               "more)\n", device, ctx().devices().count(), ctx().devices().count() == 1 ? "" : "s");
  return ctx().result(cudaErrorInvalidDevice);
}
}  // namespace

namespace lab::runtime {
bool is_pinned_host(const void* p) {
  std::lock_guard lock(host_mutex);
  return host_allocations.count(const_cast<void*>(p));  // the start of a block (its size is not kept)
}
}  // namespace lab::runtime

namespace {
uintptr_t caller(void* return_address) { return reinterpret_cast<uintptr_t>(return_address); }

// Every launch entry point: run it, or record it when its stream is being captured (graphs.h).
cudaError_t launch_or_capture(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                              cudaStream_t stream, bool cooperative = false) {
  if (graphs::capturing(stream)) {
    if (cooperative) {  // a graph's kernel nodes here carry no launch attributes
      std::fprintf(stderr, "gpulab: a cooperative launch captured into a graph is not served; launch it outside "
                           "the capture\n");
      return ctx().result(cudaErrorStreamCaptureUnsupported);
    }
    return graphs::capture_kernel(stream, func, grid, block, args, shared);
  }
  return ctx().launch(func, grid, block, args, shared, stream, cooperative);
}
}  // namespace

extern "C" {

// ---- nvcc's registration and launch ABI (crt/host_runtime.h) ------------------------
void** CUDARTAPI __cudaRegisterFatBinary(void* fat_cubin) { return ctx().register_fatbin(fat_cubin); }
void CUDARTAPI __cudaRegisterFatBinaryEnd(void**) {}
void CUDARTAPI __cudaUnregisterFatBinary(void**) { ctx().flush_printf(); }
char CUDARTAPI __cudaInitModule(void**) { return 1; }

void CUDARTAPI __cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun, const char* device_name,
                                      int, uint3*, uint3*, dim3*, dim3*, int*) {
  ctx().register_function(handle, host_fun, device_name ? device_name : device_fun);
}

void CUDARTAPI __cudaRegisterVar(void** handle, char* host_var, char* device_address, const char* device_name, int,
                                 size_t size, int, int) {
  ctx().register_var(handle, host_var, device_name ? device_name : device_address, size);
}

unsigned CUDARTAPI __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, struct CUstream_st* stream) {
  call_configs.push_back({grid, block, shared, stream});
  return 0;
}

cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  if (call_configs.empty()) return cudaErrorMissingConfiguration;
  const CallConfig& c = call_configs.back();
  *grid = c.grid;
  *block = c.block;
  *shared = c.shared;
  *static_cast<cudaStream_t*>(stream) = c.stream;
  call_configs.pop_back();
  return cudaSuccess;
}

// CUDA 12.x+ stubs look the kernel up once and launch the handle; the lab's
// handle is the host stub's address itself.
cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t* kernel, const void* fun) {
  *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(fun));
  return cudaSuccess;
}

cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared,
                                         cudaStream_t stream) {
  return launch_or_capture(reinterpret_cast<const void*>(kernel), grid, block, args, shared, stream);
}

cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared,
                                              cudaStream_t stream) {
  return launch_or_capture(reinterpret_cast<const void*>(kernel), grid, block, args, shared, stream);
}

cudaError_t CUDARTAPI cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                                       cudaStream_t stream) {
  return launch_or_capture(func, grid, block, args, shared, stream);
}

// Every block of the grid resident at once, so that grid.sync() can wait for
// them all (lab/sim/launch.cpp runs the blocks in turns).
cudaError_t CUDARTAPI cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args,
                                                  size_t shared, cudaStream_t stream) {
  return launch_or_capture(func, grid, block, args, shared, stream, true);
}

// cudaLaunchKernelEx (the C++ template in cuda_runtime.h calls this): a
// launch with attributes. Those that change nothing in a run that finishes
// each launch before the next (priority, programmatic serialisation, memory
// sync domains, cache hints the model does not have) are accepted, and a
// cooperative grid runs as cudaLaunchCooperativeKernel; those whose meaning
// the lab cannot give (clusters, launch completion events) are refused by name.
cudaError_t CUDARTAPI cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  if (!config) return ctx().result(cudaErrorInvalidValue);
  bool cooperative = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const cudaLaunchAttribute& a = config->attrs[i];
    switch (a.id) {
      case cudaLaunchAttributeIgnore:
      case cudaLaunchAttributePriority:
      case cudaLaunchAttributeProgrammaticStreamSerialization:
      case cudaLaunchAttributeMemSyncDomain:
      case cudaLaunchAttributeMemSyncDomainMap:
      case cudaLaunchAttributeAccessPolicyWindow:       // L2 persistence is not modelled (attributes.cpp)
      case cudaLaunchAttributePreferredSharedMemoryCarveout:
        break;
      case cudaLaunchAttributeCooperative:
        cooperative = a.val.cooperative != 0;
        break;
      case cudaLaunchAttributeClusterDimension:
      case cudaLaunchAttributePreferredClusterDimension:
        if (a.val.clusterDim.x * a.val.clusterDim.y * a.val.clusterDim.z <= 1) break;
        [[fallthrough]];
      default:
        std::fprintf(stderr, "gpulab: cudaLaunchKernelEx with launch attribute %d (driver_types.h, enum "
                     "cudaLaunchAttributeID): thread-block clusters and launch events are not "
                     "served; launch without it\n", int(a.id));
        return ctx().result(cudaErrorNotSupported);
    }
  }
  return launch_or_capture(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream,
                           cooperative);
}

// ---- device management ----------------------------------------------------------------
cudaError_t CUDARTAPI cudaGetDeviceCount(int* count) {
  *count = ctx().devices().count();
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaGetDevice(int* device) {
  *device = ctx().devices().current();
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaSetDevice(int device) { return ctx().set_device(device); }

// ---- several devices: peer access and peer copies (devices.h has the link model) ----------
cudaError_t CUDARTAPI cudaDeviceCanAccessPeer(int* can, int device, int peer) {
  if (cudaError_t e = not_device(device)) return e;
  if (cudaError_t e = not_device(peer)) return e;
  *can = device != peer;  // over NVLink or PCIe peer to peer, as the run's --link says
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
  if (cudaError_t e = not_device(peer)) return e;
  const int self = ctx().devices().current();
  if (flags != 0 || peer == self) return ctx().result(cudaErrorInvalidValue);
  std::vector<bool>& enabled = ctx().devices().state(self).peer_enabled;
  if (enabled[size_t(peer)]) return ctx().result(cudaErrorPeerAccessAlreadyEnabled);
  enabled[size_t(peer)] = true;
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaDeviceDisablePeerAccess(int peer) {
  if (cudaError_t e = not_device(peer)) return e;
  std::vector<bool>& enabled = ctx().devices().state(ctx().devices().current()).peer_enabled;
  if (!enabled[size_t(peer)]) return ctx().result(cudaErrorPeerAccessNotEnabled);
  enabled[size_t(peer)] = false;
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, size_t count) {
  return ctx().memcpy_peer(dst, dst_device, src, src_device, count, caller(__builtin_return_address(0)));
}
cudaError_t CUDARTAPI cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t count,
                                          cudaStream_t stream) {
  if (!ctx().valid_stream(stream)) return ctx().result(cudaErrorInvalidResourceHandle);
  return ctx().memcpy_peer(dst, dst_device, src, src_device, count, caller(__builtin_return_address(0)), true);
}
cudaError_t CUDARTAPI cudaDeviceSynchronize(void) { return ctx().synchronize(); }
cudaError_t CUDARTAPI cudaDeviceReset(void) {
  // Ends the context's error state; memory is kept (the lab's arena does not shrink).
  ctx().flush_printf();
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaDriverGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaRuntimeGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  if (cudaError_t e = not_device(device)) return e;
  if (!prop) return ctx().result(cudaErrorInvalidValue);
  lab::runtime::device_properties(ctx().gpu(), device, prop);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  if (cudaError_t e = not_device(device)) return e;
  if (!value) return ctx().result(cudaErrorInvalidValue);
  std::optional<int> v = lab::runtime::device_attribute(ctx().gpu(), device, attr);
  if (!v) {
    std::fprintf(stderr, "gpulab: cudaDeviceGetAttribute(%d): not an attribute CUDA %d.%d defines for a device "
                 "(driver_types.h, enum cudaDeviceAttr)\n", int(attr), CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    return ctx().result(cudaErrorInvalidValue);
  }
  *value = *v;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  if (!free_bytes || !total) return cudaErrorInvalidValue;
  *total = ctx().gpu().dram_bytes;
  *free_bytes = *total - ctx().device_live_bytes();  // the current device's
  return cudaSuccess;
}

// ---- errors ------------------------------------------------------------------------------
cudaError_t CUDARTAPI cudaGetLastError(void) { return ctx().take_last_error(); }
cudaError_t CUDARTAPI cudaPeekAtLastError(void) { return ctx().peek_last_error(); }

const char* CUDARTAPI cudaGetErrorName(cudaError_t error) {
  switch (error) {
#define LAB_ERR(name) case name: return #name;
    LAB_ERR(cudaSuccess) LAB_ERR(cudaErrorInvalidValue) LAB_ERR(cudaErrorMemoryAllocation)
    LAB_ERR(cudaErrorInitializationError) LAB_ERR(cudaErrorInvalidConfiguration) LAB_ERR(cudaErrorInvalidSymbol)
    LAB_ERR(cudaErrorInvalidDevice) LAB_ERR(cudaErrorInvalidDeviceFunction) LAB_ERR(cudaErrorMissingConfiguration)
    LAB_ERR(cudaErrorInvalidResourceHandle) LAB_ERR(cudaErrorInvalidPtx) LAB_ERR(cudaErrorNotReady)
    LAB_ERR(cudaErrorIllegalAddress) LAB_ERR(cudaErrorLaunchOutOfResources) LAB_ERR(cudaErrorLaunchTimeout)
    LAB_ERR(cudaErrorAssert) LAB_ERR(cudaErrorMisalignedAddress) LAB_ERR(cudaErrorLaunchFailure)
    LAB_ERR(cudaErrorNotSupported) LAB_ERR(cudaErrorUnknown) LAB_ERR(cudaErrorPeerAccessAlreadyEnabled)
    LAB_ERR(cudaErrorPeerAccessNotEnabled) LAB_ERR(cudaErrorCooperativeLaunchTooLarge)
    LAB_ERR(cudaErrorStreamCaptureUnsupported)
#undef LAB_ERR
    default: return "cudaErrorUnknown";
  }
}

const char* CUDARTAPI cudaGetErrorString(cudaError_t error) {
  // In the lab's words; the meaning is CUDA's (CUDA Runtime API, "Data types": cudaError).
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorMissingConfiguration: return "__global__ function call is not configured";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorInvalidPtx: return "a PTX JIT compilation failed";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorMisalignedAddress: return "misaligned address";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorPeerAccessAlreadyEnabled: return "peer access is already enabled";
    case cudaErrorPeerAccessNotEnabled: return "peer access has not been enabled";
    case cudaErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
    case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
    default: return "unknown error";
  }
}

// ---- memory ------------------------------------------------------------------------------
cudaError_t CUDARTAPI cudaMalloc(void** ptr, size_t size) { return ctx().malloc_device(ptr, size); }
cudaError_t CUDARTAPI cudaFree(void* ptr) { return ctx().free_device(ptr); }

cudaError_t CUDARTAPI cudaMallocHost(void** ptr, size_t size) {
  // Pinned memory is ordinary memory here: the model's copies run at the PCIe rate either way.
  *ptr = std::aligned_alloc(256, (size + 255) / 256 * 256 + 256);
  if (!*ptr) return ctx().result(cudaErrorMemoryAllocation);
  std::lock_guard lock(host_mutex);
  host_allocations.insert(*ptr);
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaHostAlloc(void** ptr, size_t size, unsigned int) { return cudaMallocHost(ptr, size); }
cudaError_t CUDARTAPI cudaFreeHost(void* ptr) {
  std::lock_guard lock(host_mutex);
  if (!host_allocations.erase(ptr)) return ctx().result(cudaErrorInvalidValue);
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  ctx().devices().call_site = caller(__builtin_return_address(0));
  return ctx().memcpy(dst, src, count, kind, true);
}
cudaError_t CUDARTAPI cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                                      cudaStream_t stream) {
  if (!ctx().valid_stream(stream)) return ctx().result(cudaErrorInvalidResourceHandle);
  if (graphs::capturing(stream)) return graphs::capture_memcpy(stream, dst, src, count, kind);
  ctx().devices().call_site = caller(__builtin_return_address(0));
  return ctx().memcpy(dst, src, count, kind, false);
}
cudaError_t CUDARTAPI cudaMemset(void* dst, int value, size_t count) { return ctx().memset(dst, value, count); }
cudaError_t CUDARTAPI cudaMemsetAsync(void* dst, int value, size_t count, cudaStream_t stream) {
  if (!ctx().valid_stream(stream)) return ctx().result(cudaErrorInvalidResourceHandle);
  if (graphs::capturing(stream)) return graphs::capture_memset(stream, dst, value, count);
  return ctx().memset(dst, value, count);
}

cudaError_t CUDARTAPI cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                                         enum cudaMemcpyKind) {
  return ctx().symbol_copy(symbol, const_cast<void*>(src), count, offset, true);
}
cudaError_t CUDARTAPI cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                           enum cudaMemcpyKind) {
  return ctx().symbol_copy(symbol, dst, count, offset, false);
}
cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                              enum cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                                enum cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
cudaError_t CUDARTAPI cudaGetSymbolAddress(void** ptr, const void* symbol) { return ctx().symbol_address(ptr, symbol); }
cudaError_t CUDARTAPI cudaGetSymbolSize(size_t* size, const void* symbol) { return ctx().symbol_size(size, symbol); }

// ---- streams and events: everything has already happened when it is called -----------------
cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t* stream) {
  *stream = ctx().create_stream();
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  return cudaStreamCreateWithPriority(stream, flags, 0);  // cudart_control.cpp keeps the flags
}
cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream) { return ctx().destroy_stream(stream); }
cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream) {
  if (!ctx().valid_stream(stream)) return ctx().result(cudaErrorInvalidResourceHandle);
  if (graphs::capturing(stream)) return ctx().result(cudaErrorStreamCaptureUnsupported);  // nothing has run yet
  return ctx().synchronize();
}
cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t stream) {
  if (!ctx().valid_stream(stream)) return ctx().result(cudaErrorInvalidResourceHandle);
  return ctx().sticky() ? ctx().result(ctx().sticky()) : cudaSuccess;
}
cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  if (!ctx().valid_stream(stream) || !ctx().valid_event(event)) return ctx().result(cudaErrorInvalidResourceHandle);
  if (graphs::capture_wait_event(stream, event)) return cudaSuccess;  // a fork or join inside a capture
  return ctx().wait_event(event);
}

cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t* event) {
  *event = ctx().create_event();
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) { return cudaEventCreate(event); }
cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t event) { return ctx().destroy_event(event); }
cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (!ctx().valid_stream(stream)) return ctx().result(cudaErrorInvalidResourceHandle);
  if (graphs::capture_event_record(event, stream)) return cudaSuccess;  // marks a point in the captured work
  return ctx().record_event(event);
}
cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t event) {
  if (!ctx().valid_event(event)) return ctx().result(cudaErrorInvalidResourceHandle);
  return ctx().event_synchronize(event);
}
cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t event) {
  if (!ctx().valid_event(event)) return ctx().result(cudaErrorInvalidResourceHandle);
  return ctx().sticky() ? ctx().result(ctx().sticky()) : cudaSuccess;
}
cudaError_t CUDARTAPI cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  return ctx().elapsed(ms, start, end);
}

// ---- kernels: attributes and occupancy ------------------------------------------------------
cudaError_t CUDARTAPI cudaFuncSetAttribute(const void* func, enum cudaFuncAttribute attr, int value) {
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) return ctx().set_max_dynamic_shared(func, value);
  if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) return cudaSuccess;  // the model uses the largest carveout
  std::fprintf(stderr, "gpulab: cudaFuncSetAttribute(%d) is not served (only MaxDynamicSharedMemorySize and "
                       "PreferredSharedMemoryCarveout)\n", int(attr));
  return ctx().result(cudaErrorNotSupported);
}
cudaError_t CUDARTAPI cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func) {
  return ctx().func_attributes(attr, func);
}
cudaError_t CUDARTAPI cudaFuncSetCacheConfig(const void*, enum cudaFuncCache) { return cudaSuccess; }
cudaError_t CUDARTAPI cudaDeviceSetCacheConfig(enum cudaFuncCache) { return cudaSuccess; }

cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* func, int block_size,
                                                                    size_t dynamic_shared) {
  return ctx().occupancy_blocks(blocks, func, block_size, dynamic_shared);
}
cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* func,
                                                                             int block_size, size_t dynamic_shared,
                                                                             unsigned int) {
  return ctx().occupancy_blocks(blocks, func, block_size, dynamic_shared);
}

}  // extern "C"
