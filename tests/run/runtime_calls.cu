// runtime_calls.cu: the runtime calls cuda-samples and other published
// programs make beyond the basics, each checked for what CUDA says it does
// (docs/run.md, "What the runtime serves"): device attributes, managed
// memory, stream-ordered allocation and pools, registered host memory,
// device flags and limits, stream priorities, host functions and callbacks
// in stream order, pitched 2D memory, pointer attributes, PCI ids.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

static int failures = 0;
#define CHECK(cond, what)                                      \
  do {                                                         \
    if (cond) std::printf("ok: %s\n", what);                   \
    else std::printf("FAIL: %s (line %d)\n", what, __LINE__), ++failures; \
  } while (0)

__global__ void add_one(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}
__global__ void fill_rows(float* m, size_t pitch, int width, int height) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
  if (c < width && r < height) reinterpret_cast<float*>(reinterpret_cast<char*>(m) + r * pitch)[c] = r * 1000.f + c;
}

static std::vector<int> order;
static void CUDART_CB host_step(void* p) { order.push_back(*static_cast<int*>(p)); }
static void CUDART_CB stream_callback(cudaStream_t, cudaError_t status, void* p) {
  order.push_back(status == cudaSuccess ? *static_cast<int*>(p) : -1);
}

int main() {
  // ---- attributes: every one CUDA defines is answered, and the properties agree ----
  int v = -1;
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, 0) == cudaSuccess && v == cudaComputeModeDefault,
        "compute mode: default (cuda-samples' findCudaDevice needs it)");
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrGpuOverlap, 0) == cudaSuccess && v == 1, "GPU overlap");
  int bus = 0, clock_khz = 0;
  cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0);
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0);
  const double peak_gbs = 2.0 * clock_khz * 1e3 * (bus / 8) / 1e9;  // bandwidthTest's formula
  std::printf("memory: %d-bit bus, %d kHz, peak %.0f GB/s\n", bus, clock_khz, peak_gbs);
  CHECK(bus == 5120 && peak_gbs > 3340 && peak_gbs < 3360, "H100's bus width and clock give its 3.35 TB/s");
  int answered = 0, refused = 0;
  for (int a = 1; a <= 147; ++a) {
    cudaError_t e = cudaDeviceGetAttribute(&v, cudaDeviceAttr(a), 0);
    if (e == cudaSuccess) ++answered;
    else if (e == cudaErrorInvalidValue) ++refused;
  }
  cudaGetLastError();
  std::printf("attributes answered %d, refused %d\n", answered, refused);
  CHECK(answered + refused == 147 && answered >= 120, "every attribute number gets an answer or InvalidValue");
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  int sms = 0, l2 = 0, managed = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
  cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, 0);
  CHECK(prop.multiProcessorCount == sms && prop.l2CacheSize == l2 && prop.memoryBusWidth == bus &&
            prop.managedMemory == managed && managed == 1,
        "properties equal the attributes");

  // ---- managed memory: one pointer for host and kernel ----
  int* m = nullptr;
  CHECK(cudaMallocManaged(&m, 1000 * sizeof(int)) == cudaSuccess, "cudaMallocManaged");
  for (int i = 0; i < 1000; ++i) m[i] = i;  // the host writes it directly
  add_one<<<4, 256>>>(m, 1000);
  cudaDeviceSynchronize();
  bool all = true;
  for (int i = 0; i < 1000; ++i) all &= m[i] == i + 1;  // and reads the kernel's result directly
  CHECK(all, "a kernel's writes to managed memory are seen by the host");
  int back[4];
  CHECK(cudaMemcpy(back, m, sizeof back, cudaMemcpyDeviceToHost) == cudaSuccess && back[3] == 4,
        "cudaMemcpy from managed memory");
  cudaPointerAttributes pa;
  CHECK(cudaPointerGetAttributes(&pa, m) == cudaSuccess && pa.type == cudaMemoryTypeManaged && pa.hostPointer == m,
        "pointer attributes: managed");
  cudaMemLocation loc{};
  loc.type = cudaMemLocationTypeDevice;
  CHECK(cudaMemPrefetchAsync(m, 1000 * sizeof(int), loc, 0, 0) == cudaSuccess, "cudaMemPrefetchAsync");
  CHECK(cudaStreamAttachMemAsync(0, m, 0, cudaMemAttachGlobal) == cudaSuccess, "cudaStreamAttachMemAsync");

  // ---- cudaLaunchKernelEx: attributes that change nothing run, clusters are refused ----
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributePriority;
  attr[0].val.priority = 0;
  cfg.gridDim = dim3(4), cfg.blockDim = dim3(256), cfg.attrs = attr, cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, add_one, m, 1000) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess &&
            m[999] == 1001,
        "cudaLaunchKernelEx with a priority runs the kernel");
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 2, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
  CHECK(cudaLaunchKernelEx(&cfg, add_one, m, 1000) == cudaErrorNotSupported && m[999] == 1001,
        "a cluster launch is refused, nothing runs");
  cudaGetLastError();
  CHECK(cudaFree(m) == cudaSuccess, "cudaFree of managed memory");

  // ---- stream-ordered allocation and the default pool ----
  cudaStream_t s;
  cudaStreamCreate(&s);
  int* a = nullptr;
  CHECK(cudaMallocAsync(&a, 4096, s) == cudaSuccess && a, "cudaMallocAsync");
  CHECK(cudaMemsetAsync(a, 0, 4096, s) == cudaSuccess, "memset in stream order");
  CHECK(cudaPointerGetAttributes(&pa, a) == cudaSuccess && pa.type == cudaMemoryTypeDevice && pa.device == 0,
        "pointer attributes: device");
  CHECK(cudaFreeAsync(a, s) == cudaSuccess, "cudaFreeAsync");
  cudaMemPool_t pool;
  CHECK(cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess, "default memory pool");
  uint64_t threshold = UINT64_MAX, got = 0;
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got);
  CHECK(got == UINT64_MAX, "pool release threshold reads back");
  CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&a), 256, pool, s) == cudaSuccess && cudaFreeAsync(a, s) == cudaSuccess,
        "cudaMallocFromPoolAsync");

  // ---- registered host memory ----
  std::vector<float> host(256, 2.f);
  unsigned flags = 99;
  CHECK(cudaHostRegister(host.data(), host.size() * sizeof(float), cudaHostRegisterDefault) == cudaSuccess,
        "cudaHostRegister");
  CHECK(cudaHostGetFlags(&flags, host.data()) == cudaSuccess && flags == cudaHostRegisterDefault, "cudaHostGetFlags");
  CHECK(cudaPointerGetAttributes(&pa, host.data() + 10) == cudaSuccess && pa.type == cudaMemoryTypeHost,
        "pointer attributes: registered host");
  CHECK(cudaHostRegister(host.data(), 16, 0) == cudaErrorHostMemoryAlreadyRegistered, "registering twice is refused");
  CHECK(cudaHostUnregister(host.data()) == cudaSuccess && cudaHostUnregister(host.data()) == cudaErrorHostMemoryNotRegistered,
        "cudaHostUnregister, once");
  cudaGetLastError();

  // ---- device flags, limits, profiler, PCI ids ----
  CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) == cudaSuccess && cudaGetDeviceFlags(&flags) == cudaSuccess &&
            flags == cudaDeviceScheduleBlockingSync,
        "device flags read back");
  size_t limit = 0;
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 << 20) == cudaSuccess &&
            cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize) == cudaSuccess && limit == (64u << 20),
        "heap limit reads back");
  CHECK(cudaDeviceGetLimit(&limit, cudaLimitStackSize) == cudaSuccess && limit == 1024, "default stack limit");
  CHECK(cudaProfilerStart() == cudaSuccess && cudaProfilerStop() == cudaSuccess, "profiler markers");
  char pci[32];
  int found = -1;
  CHECK(cudaDeviceGetPCIBusId(pci, sizeof pci, 0) == cudaSuccess && cudaDeviceGetByPCIBusId(&found, pci) == cudaSuccess &&
            found == 0,
        "PCI bus id round trip");

  // ---- stream priorities, host functions and callbacks in order ----
  int least = 1, greatest = 1, prio = 1;
  cudaDeviceGetStreamPriorityRange(&least, &greatest);
  cudaStream_t hi;
  CHECK(cudaStreamCreateWithPriority(&hi, cudaStreamNonBlocking, greatest) == cudaSuccess &&
            cudaStreamGetPriority(hi, &prio) == cudaSuccess && prio == greatest && greatest < least,
        "stream priority");
  CHECK(cudaStreamGetFlags(hi, &flags) == cudaSuccess && flags == cudaStreamNonBlocking, "stream flags");
  int one = 1, two = 2, three = 3;
  cudaLaunchHostFunc(hi, host_step, &one);
  cudaStreamAddCallback(hi, stream_callback, &two, 0);
  cudaLaunchHostFunc(hi, host_step, &three);
  cudaStreamSynchronize(hi);
  CHECK(order == std::vector<int>({1, 2, 3}), "host functions and callbacks run in stream order");

  // ---- pitched 2D memory ----
  const int width = 100, height = 7;
  float* d2 = nullptr;
  size_t pitch = 0;
  CHECK(cudaMallocPitch(reinterpret_cast<void**>(&d2), &pitch, width * sizeof(float), height) == cudaSuccess &&
            pitch >= width * sizeof(float) && pitch % 256 == 0,
        "cudaMallocPitch: aligned rows");
  CHECK(cudaMemset2D(d2, pitch, 0, width * sizeof(float), height) == cudaSuccess, "cudaMemset2D");
  fill_rows<<<dim3(1, height), 128>>>(d2, pitch, width, height);
  std::vector<float> h2(width * height);
  CHECK(cudaMemcpy2D(h2.data(), width * sizeof(float), d2, pitch, width * sizeof(float), height,
                     cudaMemcpyDeviceToHost) == cudaSuccess && h2[3 * width + 42] == 3042.f && h2[6 * width + 99] == 6099.f,
        "cudaMemcpy2D reads the rows at the pitch");

  cudaDeviceSynchronize();
  std::printf(failures ? "FAILED (%d)\n" : "PASSED\n", failures);
  return failures ? 1 : 0;
}
