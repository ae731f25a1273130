// lab/runtime/cudart_control.cpp: the runtime calls that set up or steer the
// device rather than move data or run kernels: device flags and limits,
// stream priorities, host functions in stream order, PCI ids, the profiler
// markers. Thin wrappers like cudart.cpp's; docs/run.md lists them.
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "lab/runtime/attributes.h"
#include "lab/runtime/context.h"
#include "lab/runtime/graphs.h"

using lab::runtime::Context;

namespace {
Context& ctx() { return Context::get(); }

std::mutex control_mutex;
std::map<int, unsigned> device_flags;             // cudaSetDeviceFlags, per device
std::map<uintptr_t, std::pair<unsigned, int>> stream_info;  // flags, priority of created streams

// cudaDeviceSetLimit values, starting from what CUDA documents as each
// limit's default (CUDA Runtime API, cudaDeviceSetLimit). The lab keeps
// them so that a program reads back what it set; the interpreter's own
// limits (stack, printf buffer, heap) are not these numbers.
std::map<cudaLimit, size_t> limits = {
    {cudaLimitStackSize, 1024},            {cudaLimitPrintfFifoSize, 1 << 20},
    {cudaLimitMallocHeapSize, 8 << 20},    {cudaLimitDevRuntimeSyncDepth, 2},
    {cudaLimitDevRuntimePendingLaunchCount, 2048}, {cudaLimitMaxL2FetchGranularity, 32},
    {cudaLimitPersistingL2CacheSize, 0},
};

// Stream priorities: CUDA's range on current GPUs is 0 (least) to -5
// (greatest); lower numbers are higher priority. The lab runs every
// operation when it is called, so a priority orders nothing.
constexpr int kLeastPriority = 0, kGreatestPriority = -5;
}  // namespace

extern "C" {

// ---- the profiler's markers: no profiler runs under the lab ---------------------------------
cudaError_t CUDARTAPI cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t CUDARTAPI cudaProfilerStop(void) { return cudaSuccess; }

// ---- device flags and limits ---------------------------------------------------------------------
cudaError_t CUDARTAPI cudaSetDeviceFlags(unsigned int flags) {
  // Schedule (spin/yield/blocking sync) and cudaDeviceMapHost are the flags;
  // how the host waits does not matter to a run that has finished every
  // operation when its call returns.
  const unsigned known = cudaDeviceScheduleMask | cudaDeviceMapHost | cudaDeviceLmemResizeToMax;
  if (flags & ~known) return ctx().result(cudaErrorInvalidValue);
  std::lock_guard lock(control_mutex);
  device_flags[ctx().devices().current()] = flags;
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaGetDeviceFlags(unsigned int* flags) {
  if (!flags) return ctx().result(cudaErrorInvalidValue);
  std::lock_guard lock(control_mutex);
  auto it = device_flags.find(ctx().devices().current());
  *flags = it == device_flags.end() ? 0u : it->second;
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
  std::lock_guard lock(control_mutex);
  auto it = limits.find(limit);
  if (it == limits.end()) return ctx().result(cudaErrorUnsupportedLimit);
  // The persisting-L2 carve-out is at most what the device offers: none in
  // the lab (cudaDevAttrMaxPersistingL2CacheSize is 0).
  if (limit == cudaLimitPersistingL2CacheSize) value = 0;
  it->second = value;
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaDeviceGetLimit(size_t* value, enum cudaLimit limit) {
  if (!value) return ctx().result(cudaErrorInvalidValue);
  std::lock_guard lock(control_mutex);
  auto it = limits.find(limit);
  if (it == limits.end()) return ctx().result(cudaErrorUnsupportedLimit);
  *value = it->second;
  return cudaSuccess;
}

// ---- which device ----------------------------------------------------------------------------
cudaError_t CUDARTAPI cudaDeviceGetPCIBusId(char* bus_id, int len, int device) {
  if (!ctx().devices().valid(device)) return ctx().result(cudaErrorInvalidDevice);
  if (!bus_id || len <= 0) return ctx().result(cudaErrorInvalidValue);
  const lab::sim::GpuModel& g = ctx().gpu();
  std::snprintf(bus_id, size_t(len), "%04x:%02x:%02x.0",
                *lab::runtime::device_attribute(g, device, cudaDevAttrPciDomainId),
                *lab::runtime::device_attribute(g, device, cudaDevAttrPciBusId),
                *lab::runtime::device_attribute(g, device, cudaDevAttrPciDeviceId));
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaDeviceGetByPCIBusId(int* device, const char* bus_id) {
  if (!device || !bus_id) return ctx().result(cudaErrorInvalidValue);
  for (int d = 0; d < ctx().devices().count(); ++d) {
    char id[32];
    cudaDeviceGetPCIBusId(id, sizeof id, d);
    if (strcasecmp(id, bus_id) == 0) return *device = d, cudaSuccess;
  }
  return ctx().result(cudaErrorInvalidDevice);
}
cudaError_t CUDARTAPI cudaChooseDevice(int* device, const struct cudaDeviceProp*) {
  if (!device) return ctx().result(cudaErrorInvalidValue);
  *device = 0;  // every simulated device is the same model: the first matches as well as any
  return cudaSuccess;
}

// ---- stream priorities and flags ------------------------------------------------------------------
cudaError_t CUDARTAPI cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = kLeastPriority;
  if (greatest) *greatest = kGreatestPriority;
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
  if (!stream) return ctx().result(cudaErrorInvalidValue);
  *stream = ctx().create_stream();
  // Out of range is clamped, as CUDA does.
  priority = std::min(kLeastPriority, std::max(kGreatestPriority, priority));
  std::lock_guard lock(control_mutex);
  stream_info[reinterpret_cast<uintptr_t>(*stream)] = {flags, priority};
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  if (!ctx().valid_stream(stream) || !priority) return ctx().result(cudaErrorInvalidResourceHandle);
  std::lock_guard lock(control_mutex);
  auto it = stream_info.find(reinterpret_cast<uintptr_t>(stream));
  *priority = it == stream_info.end() ? 0 : it->second.second;
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
  if (!ctx().valid_stream(stream) || !flags) return ctx().result(cudaErrorInvalidResourceHandle);
  std::lock_guard lock(control_mutex);
  auto it = stream_info.find(reinterpret_cast<uintptr_t>(stream));
  *flags = it == stream_info.end() ? 0u : it->second.first;
  return cudaSuccess;
}

// ---- host work in stream order ----------------------------------------------------------------
// The stream's earlier work has finished when the call is made (context.h),
// so the host function runs now, on the calling thread, before the call
// returns: the order CUDA promises, without the worker thread.
cudaError_t CUDARTAPI cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
  if (!ctx().valid_stream(stream)) return ctx().result(cudaErrorInvalidResourceHandle);
  if (!fn) return ctx().result(cudaErrorInvalidValue);
  if (lab::runtime::graphs::capturing(stream)) return lab::runtime::graphs::capture_host(stream, fn, user_data);
  fn(user_data);
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* user_data,
                                            unsigned int flags) {
  if (!ctx().valid_stream(stream)) return ctx().result(cudaErrorInvalidResourceHandle);
  if (!callback || flags != 0) return ctx().result(cudaErrorInvalidValue);  // flags are reserved: must be 0
  // Not allowed in a capture (CUDA Runtime API: use cudaLaunchHostFunc).
  if (lab::runtime::graphs::capturing(stream)) return ctx().result(cudaErrorStreamCaptureUnsupported);
  // The callback learns the stream's status: an earlier fault's error, or success.
  callback(stream, ctx().sticky(), user_data);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int) {
  return cudaEventRecord(event, stream);  // cudaEventRecordExternal matters only inside graphs' external events
}

}  // extern "C"
