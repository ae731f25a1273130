// lab/runtime/cudart_memory_more.cpp: the runtime's memory calls beyond
// cudaMalloc and cudaMemcpy (cudart.cpp): managed memory, stream-ordered
// allocation and memory pools, registered host memory, pitched 2D memory,
// and pointer attributes. Each is a thin wrapper over lab::runtime::Context,
// like cudart.cpp's; docs/run.md says what each does in the lab.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <algorithm>
#include <iterator>
#include <map>
#include <mutex>

#include "lab/runtime/context.h"
#include "lab/runtime/graphs.h"

using lab::runtime::Context;

namespace {
Context& ctx() { return Context::get(); }

std::mutex registry_mutex;
std::map<const void*, std::pair<size_t, unsigned>> registered_host;  // cudaHostRegister: bytes, flags

// Memory pools: the lab has one memory per device and allocates from it
// directly, so a pool is a handle with attributes a program can set and
// read back. Handle = index + 1 into `pools`.
struct Pool {
  int device = 0;
  uint64_t release_threshold = 0;
};
std::mutex pool_mutex;
std::map<uintptr_t, Pool> pools;
uintptr_t next_pool = 1;
std::map<int, uintptr_t> default_pool;  // per device
std::map<int, uintptr_t> current_pool;  // cudaDeviceSetMemPool

uintptr_t default_pool_of(int device) {
  std::lock_guard lock(pool_mutex);
  auto it = default_pool.find(device);
  if (it != default_pool.end()) return it->second;
  uintptr_t h = next_pool++;
  pools[h] = Pool{device, 0};
  return default_pool[device] = h;
}
bool valid_pool(cudaMemPool_t p) {
  std::lock_guard lock(pool_mutex);
  return pools.count(reinterpret_cast<uintptr_t>(p));
}
}  // namespace

extern "C" {

// ---- managed memory: one pointer for host and kernels (Context::malloc_managed) ----------------
cudaError_t CUDARTAPI cudaMallocManaged(void** ptr, size_t size, unsigned int) {
  return ctx().malloc_managed(ptr, size);
}
// The lab has one memory: there is nowhere to migrate to, and nothing to advise.
cudaError_t CUDARTAPI cudaMemPrefetchAsync(const void* ptr, size_t count, struct cudaMemLocation, unsigned int,
                                           cudaStream_t stream) {
  if (!ctx().valid_stream(stream)) return ctx().result(cudaErrorInvalidResourceHandle);
  if (!ctx().is_managed(ptr) || !ctx().is_device_range(ptr, count)) return ctx().result(cudaErrorInvalidValue);
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaMemAdvise(const void* ptr, size_t count, enum cudaMemoryAdvise, struct cudaMemLocation) {
  if (!ctx().is_managed(ptr) || !ctx().is_device_range(ptr, count)) return ctx().result(cudaErrorInvalidValue);
  return cudaSuccess;
}

// Attaching managed memory to a stream limits which stream's kernels may use
// it while the host touches the rest; with every launch finished when its
// call returns there is nothing to limit.
cudaError_t CUDARTAPI cudaStreamAttachMemAsync(cudaStream_t stream, void* ptr, size_t length, unsigned int) {
  if (!ctx().valid_stream(stream)) return ctx().result(cudaErrorInvalidResourceHandle);
  if (!ctx().is_managed(ptr) || !ctx().is_device_range(ptr, length ? length : 1)) return ctx().result(cudaErrorInvalidValue);
  return cudaSuccess;
}

// ---- stream-ordered allocation and pools ----------------------------------------------------
// Every operation runs when it is called (context.h), so an allocation in
// stream order is an allocation now, and a free in stream order a free now.
cudaError_t CUDARTAPI cudaMallocAsync(void** ptr, size_t size, cudaStream_t stream) {
  if (!ctx().valid_stream(stream)) return ctx().result(cudaErrorInvalidResourceHandle);
  return ctx().malloc_device(ptr, size);
}
cudaError_t CUDARTAPI cudaFreeAsync(void* ptr, cudaStream_t stream) {
  if (!ctx().valid_stream(stream)) return ctx().result(cudaErrorInvalidResourceHandle);
  return ctx().free_device(ptr);
}
cudaError_t CUDARTAPI cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream) {
  if (!valid_pool(pool)) return ctx().result(cudaErrorInvalidValue);
  return cudaMallocAsync(ptr, size, stream);
}
cudaError_t CUDARTAPI cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
  if (!ctx().devices().valid(device)) return ctx().result(cudaErrorInvalidDevice);
  *pool = reinterpret_cast<cudaMemPool_t>(default_pool_of(device));
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) {
  if (!ctx().devices().valid(device)) return ctx().result(cudaErrorInvalidDevice);
  uintptr_t fallback = default_pool_of(device);
  std::lock_guard lock(pool_mutex);
  auto it = current_pool.find(device);
  *pool = reinterpret_cast<cudaMemPool_t>(it == current_pool.end() ? fallback : it->second);
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
  if (!ctx().devices().valid(device)) return ctx().result(cudaErrorInvalidDevice);
  if (!valid_pool(pool)) return ctx().result(cudaErrorInvalidValue);
  std::lock_guard lock(pool_mutex);
  current_pool[device] = reinterpret_cast<uintptr_t>(pool);
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaMemPoolCreate(cudaMemPool_t* pool, const struct cudaMemPoolProps* props) {
  if (!pool || !props) return ctx().result(cudaErrorInvalidValue);
  if (props->location.type != cudaMemLocationTypeDevice || !ctx().devices().valid(props->location.id)) {
    std::fprintf(stderr, "gpulab: cudaMemPoolCreate: only pools of device memory are served (location type "
                         "cudaMemLocationTypeDevice and a device of the run)\n");
    return ctx().result(cudaErrorNotSupported);
  }
  std::lock_guard lock(pool_mutex);
  uintptr_t h = next_pool++;
  pools[h] = Pool{props->location.id, 0};
  *pool = reinterpret_cast<cudaMemPool_t>(h);
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaMemPoolDestroy(cudaMemPool_t pool) {
  std::lock_guard lock(pool_mutex);
  uintptr_t h = reinterpret_cast<uintptr_t>(pool);
  for (auto& [device, d] : default_pool)
    if (d == h) return ctx().result(cudaErrorInvalidValue);  // a device's default pool cannot be destroyed
  if (!pools.erase(h)) return ctx().result(cudaErrorInvalidValue);
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaMemPoolTrimTo(cudaMemPool_t pool, size_t) {
  return valid_pool(pool) ? cudaSuccess : ctx().result(cudaErrorInvalidValue);
}
cudaError_t CUDARTAPI cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void* value) {
  if (!valid_pool(pool) || !value) return ctx().result(cudaErrorInvalidValue);
  std::lock_guard lock(pool_mutex);
  Pool& p = pools[reinterpret_cast<uintptr_t>(pool)];
  switch (attr) {
    case cudaMemPoolAttrReleaseThreshold: p.release_threshold = *static_cast<uint64_t*>(value); return cudaSuccess;
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
      return cudaSuccess;  // reuse policies: the lab does not reuse pool memory
    default:
      return ctx().result(cudaErrorInvalidValue);  // the others are read-only
  }
}
cudaError_t CUDARTAPI cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void* value) {
  if (!valid_pool(pool) || !value) return ctx().result(cudaErrorInvalidValue);
  std::lock_guard lock(pool_mutex);
  const Pool& p = pools[reinterpret_cast<uintptr_t>(pool)];
  switch (attr) {
    case cudaMemPoolAttrReleaseThreshold: *static_cast<uint64_t*>(value) = p.release_threshold; return cudaSuccess;
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
      *static_cast<int*>(value) = 1;
      return cudaSuccess;
    default:
      // Reserved/used bytes: the lab does not keep pool memory apart from
      // the device's (cudaMemGetInfo counts it).
      *static_cast<uint64_t*>(value) = 0;
      return cudaSuccess;
  }
}

// Which devices may access a pool's memory: every simulated device shares
// one address space (devices.h), so access is read-write; a setting is kept
// so that it reads back.
cudaError_t CUDARTAPI cudaMemPoolSetAccess(cudaMemPool_t pool, const struct cudaMemAccessDesc* descs, size_t count) {
  if (!valid_pool(pool) || (count && !descs)) return ctx().result(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i)
    if (descs[i].location.type != cudaMemLocationTypeDevice || !ctx().devices().valid(descs[i].location.id))
      return ctx().result(cudaErrorInvalidDevice);
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaMemPoolGetAccess(enum cudaMemAccessFlags* flags, cudaMemPool_t pool,
                                           struct cudaMemLocation* location) {
  if (!flags || !location || !valid_pool(pool)) return ctx().result(cudaErrorInvalidValue);
  *flags = cudaMemAccessFlagsProtReadWrite;
  return cudaSuccess;
}

// ---- registered host memory: pinned, which host memory already is in the lab ------------------
cudaError_t CUDARTAPI cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  if (!ptr || size == 0) return ctx().result(cudaErrorInvalidValue);
  if (flags & cudaHostRegisterMapped) {
    std::fprintf(stderr, "gpulab: cudaHostRegister with cudaHostRegisterMapped: kernels cannot read host memory in "
                         "the lab (cudaDevAttrCanMapHostMemory is 0); register without it and copy with cudaMemcpy\n");
    return ctx().result(cudaErrorNotSupported);
  }
  std::lock_guard lock(registry_mutex);
  if (!registered_host.emplace(ptr, std::make_pair(size, flags)).second)
    return ctx().result(cudaErrorHostMemoryAlreadyRegistered);
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaHostUnregister(void* ptr) {
  std::lock_guard lock(registry_mutex);
  if (!registered_host.erase(ptr)) return ctx().result(cudaErrorHostMemoryNotRegistered);
  return cudaSuccess;
}
// Mapped (zero-copy) host memory: kernels that read host memory over PCIe
// are not modelled (cudaDevAttrCanMapHostMemory is 0), so there is no
// device pointer to give.
cudaError_t CUDARTAPI cudaHostGetDevicePointer(void** device_ptr, void*, unsigned int) {
  if (device_ptr) *device_ptr = nullptr;
  std::fprintf(stderr, "gpulab: cudaHostGetDevicePointer: kernels cannot read host memory in the lab (zero copy is "
                       "not modelled; cudaDevAttrCanMapHostMemory is 0); copy with cudaMemcpy instead\n");
  return ctx().result(cudaErrorNotSupported);
}
cudaError_t CUDARTAPI cudaHostGetFlags(unsigned int* flags, void* ptr) {
  std::lock_guard lock(registry_mutex);
  auto it = registered_host.find(ptr);
  if (it == registered_host.end()) return ctx().result(cudaErrorInvalidValue);
  *flags = it->second.second;
  return cudaSuccess;
}

// ---- pitched 2D memory ------------------------------------------------------------------------
// Rows at a pitch that keeps every row 512-byte aligned (cudaDevAttrTextureAlignment),
// the alignment cudaMallocPitch gives for coalesced row starts.
cudaError_t CUDARTAPI cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  if (!pitch) return ctx().result(cudaErrorInvalidValue);
  *pitch = (width + 511) / 512 * 512;
  return ctx().malloc_device(ptr, *pitch * height);
}
static cudaError_t copy_rows(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                             cudaMemcpyKind kind, bool blocking, cudaStream_t stream = nullptr) {
  if (width > dpitch || width > spitch) return ctx().result(cudaErrorInvalidPitchValue);
  const bool capture = !blocking && lab::runtime::graphs::capturing(stream);
  auto copy = [&](void* d, const void* s, size_t n) {
    return capture ? lab::runtime::graphs::capture_memcpy(stream, d, s, n, kind) : ctx().memcpy(d, s, n, kind, blocking);
  };
  if (dpitch == width && spitch == width) return copy(dst, src, width * height);  // contiguous: one copy
  for (size_t r = 0; r < height; ++r)
    if (cudaError_t e = copy(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width))
      return e;
  return cudaSuccess;
}
cudaError_t CUDARTAPI cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, enum cudaMemcpyKind kind) {
  return copy_rows(dst, dpitch, src, spitch, width, height, kind, true);
}
cudaError_t CUDARTAPI cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                        size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
  if (!ctx().valid_stream(stream)) return ctx().result(cudaErrorInvalidResourceHandle);
  return copy_rows(dst, dpitch, src, spitch, width, height, kind, false, stream);
}
cudaError_t CUDARTAPI cudaMemset2D(void* ptr, size_t pitch, int value, size_t width, size_t height) {
  if (width > pitch) return ctx().result(cudaErrorInvalidPitchValue);
  for (size_t r = 0; r < height; ++r)
    if (cudaError_t e = ctx().memset(static_cast<char*>(ptr) + r * pitch, value, width)) return e;
  return cudaSuccess;
}

// ---- what a pointer is ---------------------------------------------------------------------------
cudaError_t CUDARTAPI cudaPointerGetAttributes(struct cudaPointerAttributes* attr, const void* ptr) {
  if (!attr) return ctx().result(cudaErrorInvalidValue);
  *attr = cudaPointerAttributes{};
  attr->device = -2;  // what CUDA reports for memory no device owns
  if (ctx().is_device_range(ptr, 1)) {
    const bool managed = ctx().is_managed(ptr);
    attr->type = managed ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
    attr->device = std::max(0, ctx().device_of(ptr));
    attr->devicePointer = const_cast<void*>(ptr);
    attr->hostPointer = managed ? const_cast<void*>(ptr) : nullptr;
    return cudaSuccess;
  }
  // Host memory: registered or cudaMallocHost'd is "host" to CUDA; any other
  // is unregistered (CUDA 11+ returns cudaMemoryTypeUnregistered, no error).
  bool registered;
  {
    std::lock_guard lock(registry_mutex);
    auto it = registered_host.upper_bound(ptr);
    registered = it != registered_host.begin() &&
                 static_cast<const char*>(ptr) < static_cast<const char*>(std::prev(it)->first) + std::prev(it)->second.first;
  }
  attr->type = registered || lab::runtime::is_pinned_host(ptr) ? cudaMemoryTypeHost : cudaMemoryTypeUnregistered;
  attr->hostPointer = const_cast<void*>(ptr);
  return cudaSuccess;
}

}  // extern "C"
