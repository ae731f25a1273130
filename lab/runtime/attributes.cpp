// lab/runtime/attributes.cpp: the simulated device's attributes (attributes.h).
#include "lab/runtime/attributes.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

namespace lab::runtime {
namespace {

// What the lab's runtime serves decides the feature attributes (docs/run.md,
// "What the runtime serves"): a program that asks before it uses a feature
// then takes the path the lab can run.
constexpr int kManagedMemory = 1;        // cudaMallocManaged: lab memory the host maps too
constexpr int kHostRegister = 1;         // cudaHostRegister: accepted as pinned
constexpr int kMemoryPools = 1;          // cudaMallocAsync and the device's default pool
constexpr int kStreamPriorities = 1;     // accepted; every stream runs in order anyway
constexpr int kCooperativeLaunch = 1;    // cudaLaunchCooperativeKernel: the blocks take turns, grid.sync() works
constexpr int kClusterLaunch = 0;        // thread-block clusters are not modelled
constexpr int kMappedHostMemory = 0;     // kernels cannot read host memory (zero copy)

// The DRAM clock as CUDA reports it (kHz): deviceQuery and bandwidthTest take
// peak bandwidth = 2 (double data rate) x clock x bus width / 8, so the clock
// that gives the datasheet's bandwidth on the datasheet's bus width.
int memory_clock_khz(const sim::GpuModel& g) {
  if (g.memory_bus_bits <= 0) return 0;
  return int(std::lround(g.dram_bytes_per_s / (2.0 * g.memory_bus_bits / 8.0) / 1e3));
}

}  // namespace

std::optional<int> device_attribute(const sim::GpuModel& g, int device, cudaDeviceAttr attr) {
  switch (attr) {
    // ---- the model's limits and sizes (lab/sim/device.cpp) ----
    case cudaDevAttrMaxThreadsPerBlock: return g.max_threads_per_block;
    case cudaDevAttrMaxBlockDimX: return g.max_block_dim[0];
    case cudaDevAttrMaxBlockDimY: return g.max_block_dim[1];
    case cudaDevAttrMaxBlockDimZ: return g.max_block_dim[2];
    case cudaDevAttrMaxGridDimX: return int(g.max_grid_dim[0]);
    case cudaDevAttrMaxGridDimY: return int(g.max_grid_dim[1]);
    case cudaDevAttrMaxGridDimZ: return int(g.max_grid_dim[2]);
    case cudaDevAttrMaxSharedMemoryPerBlock: return g.shared_per_block;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: return g.shared_per_block_optin;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return g.shared_per_sm;
    case cudaDevAttrReservedSharedMemoryPerBlock: return g.reserved_shared_per_block;
    case cudaDevAttrWarpSize: return g.warp_size;
    case cudaDevAttrMaxRegistersPerBlock: return g.regs_per_block;
    case cudaDevAttrMaxRegistersPerMultiprocessor: return g.regs_per_sm;
    case cudaDevAttrClockRate: return int(std::lround(g.boost_clock_hz / 1e3));  // kHz
    case cudaDevAttrMultiProcessorCount: return g.sm_count;
    case cudaDevAttrMaxThreadsPerMultiProcessor: return g.max_threads_per_sm;
    case cudaDevAttrMaxBlocksPerMultiprocessor: return g.max_blocks_per_sm;
    case cudaDevAttrComputeCapabilityMajor: return g.cc_major;
    case cudaDevAttrComputeCapabilityMinor: return g.cc_minor;
    case cudaDevAttrL2CacheSize: return int(g.l2_bytes);
    case cudaDevAttrGlobalMemoryBusWidth: return g.memory_bus_bits;
    case cudaDevAttrMemoryClockRate: return memory_clock_khz(g);
    case cudaDevAttrSingleToDoublePrecisionPerfRatio:
      return g.fp64_flops > 0 ? int(std::lround(g.fp32_flops / g.fp64_flops)) : 0;
    // CUDA C++ Programming Guide, "Technical Specifications per Compute
    // Capability": 64 KB of constant memory on every compute capability.
    case cudaDevAttrTotalConstantMemory: return 64 * 1024;
    case cudaDevAttrMaxPitch: return 2147483647;  // what a GPU reports (memPitch: 2^31 - 1)
    case cudaDevAttrTextureAlignment: return 512;
    case cudaDevAttrTexturePitchAlignment: return 32;
    case cudaDevAttrSurfaceAlignment: return 512;

    // ---- how a program may use the device ----
    case cudaDevAttrComputeMode: return cudaComputeModeDefault;  // any number of host threads may use it
    case cudaDevAttrGpuOverlap: return 1;                         // copies beside kernels (asyncEngineCount)
    case cudaDevAttrAsyncEngineCount: return 2;
    case cudaDevAttrConcurrentKernels: return 1;
    case cudaDevAttrKernelExecTimeout: return 0;                  // no display watchdog
    case cudaDevAttrIntegrated: return 0;                         // discrete: its own memory
    case cudaDevAttrUnifiedAddressing: return 1;                  // one address space (devices.h)
    case cudaDevAttrGlobalL1CacheSupported: return 1;
    case cudaDevAttrLocalL1CacheSupported: return 1;
    case cudaDevAttrComputePreemptionSupported: return 1;
    case cudaDevAttrMemSyncDomainCount: return 1;
    case cudaDevAttrStreamPrioritiesSupported: return kStreamPriorities;
    case cudaDevAttrManagedMemory: return kManagedMemory;
    // The host must not touch managed memory while a kernel may run (what a
    // device without concurrent access requires: CUDA C++ Programming Guide,
    // "Unified Memory", coherency and concurrency); lab launches finish
    // before their call returns, so a program that synchronises is right.
    case cudaDevAttrConcurrentManagedAccess: return 0;
    case cudaDevAttrHostRegisterSupported: return kHostRegister;
    case cudaDevAttrMemoryPoolsSupported: return kMemoryPools;
    case cudaDevAttrCooperativeLaunch: return kCooperativeLaunch;
    case cudaDevAttrClusterLaunch: return kClusterLaunch;
    case cudaDevAttrCanMapHostMemory: return kMappedHostMemory;
    // Each simulated device on its own PCI bus number, so that tools that
    // print or compare bus ids (deviceQuery, peer samples) tell them apart.
    case cudaDevAttrPciBusId: return device + 1;
    case cudaDevAttrPciDeviceId: return 0;
    case cudaDevAttrPciDomainId: return 0;
    case cudaDevAttrIsMultiGpuBoard: return 0;
    case cudaDevAttrMultiGpuBoardGroupID: return device;
    case cudaDevAttrNumaId: return -1;
    case cudaDevAttrHostNumaId: return -1;

    // ---- features the lab does not have: the value of a device without them ----
    case cudaDevAttrMaxTexture1DWidth: case cudaDevAttrMaxTexture2DWidth: case cudaDevAttrMaxTexture2DHeight:
    case cudaDevAttrMaxTexture3DWidth: case cudaDevAttrMaxTexture3DHeight: case cudaDevAttrMaxTexture3DDepth:
    case cudaDevAttrMaxTexture2DLayeredWidth: case cudaDevAttrMaxTexture2DLayeredHeight:
    case cudaDevAttrMaxTexture2DLayeredLayers: case cudaDevAttrMaxTexture1DLayeredWidth:
    case cudaDevAttrMaxTexture1DLayeredLayers: case cudaDevAttrMaxTexture2DGatherWidth:
    case cudaDevAttrMaxTexture2DGatherHeight: case cudaDevAttrMaxTexture3DWidthAlt:
    case cudaDevAttrMaxTexture3DHeightAlt: case cudaDevAttrMaxTexture3DDepthAlt:
    case cudaDevAttrMaxTextureCubemapWidth: case cudaDevAttrMaxTextureCubemapLayeredWidth:
    case cudaDevAttrMaxTextureCubemapLayeredLayers: case cudaDevAttrMaxSurface1DWidth:
    case cudaDevAttrMaxSurface2DWidth: case cudaDevAttrMaxSurface2DHeight: case cudaDevAttrMaxSurface3DWidth:
    case cudaDevAttrMaxSurface3DHeight: case cudaDevAttrMaxSurface3DDepth: case cudaDevAttrMaxSurface1DLayeredWidth:
    case cudaDevAttrMaxSurface1DLayeredLayers: case cudaDevAttrMaxSurface2DLayeredWidth:
    case cudaDevAttrMaxSurface2DLayeredHeight: case cudaDevAttrMaxSurface2DLayeredLayers:
    case cudaDevAttrMaxSurfaceCubemapWidth: case cudaDevAttrMaxSurfaceCubemapLayeredWidth:
    case cudaDevAttrMaxSurfaceCubemapLayeredLayers: case cudaDevAttrMaxTexture1DLinearWidth:
    case cudaDevAttrMaxTexture2DLinearWidth: case cudaDevAttrMaxTexture2DLinearHeight:
    case cudaDevAttrMaxTexture2DLinearPitch: case cudaDevAttrMaxTexture2DMipmappedWidth:
    case cudaDevAttrMaxTexture2DMipmappedHeight: case cudaDevAttrMaxTexture1DMipmappedWidth:
      return 0;  // textures and surfaces are not served (docs/run.md)
    case cudaDevAttrEccEnabled:                    // the simulated memory has no ECC to report
    case cudaDevAttrTccDriver:
    case cudaDevAttrHostNativeAtomicSupported:
    case cudaDevAttrOnlyPartialHostNativeAtomicSupported:
    case cudaDevAttrPageableMemoryAccess:
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
    case cudaDevAttrDirectManagedMemAccessFromHost:
    case cudaDevAttrCanUseHostPointerForRegisteredMem:
    case cudaDevAttrCanFlushRemoteWrites:
    case cudaDevAttrMaxPersistingL2CacheSize:      // L2 persistence (access policy windows) is not modelled
    case cudaDevAttrMaxAccessPolicyWindowSize:
    case cudaDevAttrSparseCudaArraySupported:
    case cudaDevAttrHostRegisterReadOnlySupported:
    case cudaDevAttrTimelineSemaphoreInteropSupported:
    case cudaDevAttrGPUDirectRDMASupported:
    case cudaDevAttrGPUDirectRDMAFlushWritesOptions:
    case cudaDevAttrGPUDirectRDMAWritesOrdering:
    case cudaDevAttrMemoryPoolSupportedHandleTypes:  // no IPC handles
    case cudaDevAttrDeferredMappingCudaArraySupported:
    case cudaDevAttrIpcEventSupport:
    case cudaDevAttrNumaConfig:
    case cudaDevAttrMpsEnabled:
    case cudaDevAttrD3D12CigSupported:
    case cudaDevAttrVulkanCigSupported:
    case cudaDevAttrGpuPciDeviceId:
    case cudaDevAttrGpuPciSubsystemId:
    case cudaDevAttrHostNumaMemoryPoolsSupported:
    case cudaDevAttrHostNumaMultinodeIpcSupported:
    case cudaDevAttrHostMemoryPoolsSupported:
      return 0;
    default:
      return std::nullopt;  // reserved, or newer than this toolkit
  }
}

void device_properties(const sim::GpuModel& g, int device, cudaDeviceProp* prop) {
  auto a = [&](cudaDeviceAttr attr) { return device_attribute(g, device, attr).value_or(0); };
  std::memset(prop, 0, sizeof *prop);
  std::snprintf(prop->name, sizeof prop->name, "%s (simulated by GPU Lab)", std::string(g.full_name).c_str());
  // A stable UUID per model and device number: bytes of the name, then the ordinal.
  for (size_t i = 0; i < sizeof prop->uuid.bytes && i < g.name.size(); ++i) prop->uuid.bytes[i] = g.name[i];
  prop->uuid.bytes[15] = char(device);
  prop->totalGlobalMem = g.dram_bytes;
  prop->sharedMemPerBlock = size_t(a(cudaDevAttrMaxSharedMemoryPerBlock));
  prop->regsPerBlock = a(cudaDevAttrMaxRegistersPerBlock);
  prop->warpSize = a(cudaDevAttrWarpSize);
  prop->memPitch = size_t(a(cudaDevAttrMaxPitch));
  prop->maxThreadsPerBlock = a(cudaDevAttrMaxThreadsPerBlock);
  const cudaDeviceAttr block_dims[] = {cudaDevAttrMaxBlockDimX, cudaDevAttrMaxBlockDimY, cudaDevAttrMaxBlockDimZ};
  const cudaDeviceAttr grid_dims[] = {cudaDevAttrMaxGridDimX, cudaDevAttrMaxGridDimY, cudaDevAttrMaxGridDimZ};
  for (int i = 0; i < 3; ++i) prop->maxThreadsDim[i] = a(block_dims[i]), prop->maxGridSize[i] = a(grid_dims[i]);
  prop->totalConstMem = size_t(a(cudaDevAttrTotalConstantMemory));
  prop->major = a(cudaDevAttrComputeCapabilityMajor);
  prop->minor = a(cudaDevAttrComputeCapabilityMinor);
  prop->textureAlignment = size_t(a(cudaDevAttrTextureAlignment));
  prop->texturePitchAlignment = size_t(a(cudaDevAttrTexturePitchAlignment));
  prop->surfaceAlignment = size_t(a(cudaDevAttrSurfaceAlignment));
  prop->multiProcessorCount = a(cudaDevAttrMultiProcessorCount);
  prop->integrated = a(cudaDevAttrIntegrated);
  prop->canMapHostMemory = a(cudaDevAttrCanMapHostMemory);
  prop->concurrentKernels = a(cudaDevAttrConcurrentKernels);
  prop->ECCEnabled = a(cudaDevAttrEccEnabled);
  prop->pciBusID = a(cudaDevAttrPciBusId);
  prop->pciDeviceID = a(cudaDevAttrPciDeviceId);
  prop->pciDomainID = a(cudaDevAttrPciDomainId);
  prop->tccDriver = a(cudaDevAttrTccDriver);
  prop->asyncEngineCount = a(cudaDevAttrAsyncEngineCount);
  prop->unifiedAddressing = a(cudaDevAttrUnifiedAddressing);
  prop->memoryBusWidth = a(cudaDevAttrGlobalMemoryBusWidth);
  prop->l2CacheSize = a(cudaDevAttrL2CacheSize);
  prop->persistingL2CacheMaxSize = a(cudaDevAttrMaxPersistingL2CacheSize);
  prop->maxThreadsPerMultiProcessor = a(cudaDevAttrMaxThreadsPerMultiProcessor);
  prop->streamPrioritiesSupported = a(cudaDevAttrStreamPrioritiesSupported);
  prop->globalL1CacheSupported = a(cudaDevAttrGlobalL1CacheSupported);
  prop->localL1CacheSupported = a(cudaDevAttrLocalL1CacheSupported);
  prop->sharedMemPerMultiprocessor = size_t(a(cudaDevAttrMaxSharedMemoryPerMultiprocessor));
  prop->regsPerMultiprocessor = a(cudaDevAttrMaxRegistersPerMultiprocessor);
  prop->managedMemory = a(cudaDevAttrManagedMemory);
  prop->isMultiGpuBoard = a(cudaDevAttrIsMultiGpuBoard);
  prop->multiGpuBoardGroupID = a(cudaDevAttrMultiGpuBoardGroupID);
  prop->hostNativeAtomicSupported = a(cudaDevAttrHostNativeAtomicSupported);
  prop->pageableMemoryAccess = a(cudaDevAttrPageableMemoryAccess);
  prop->concurrentManagedAccess = a(cudaDevAttrConcurrentManagedAccess);
  prop->computePreemptionSupported = a(cudaDevAttrComputePreemptionSupported);
  prop->canUseHostPointerForRegisteredMem = a(cudaDevAttrCanUseHostPointerForRegisteredMem);
  prop->cooperativeLaunch = a(cudaDevAttrCooperativeLaunch);
  prop->sharedMemPerBlockOptin = size_t(a(cudaDevAttrMaxSharedMemoryPerBlockOptin));
  prop->pageableMemoryAccessUsesHostPageTables = a(cudaDevAttrPageableMemoryAccessUsesHostPageTables);
  prop->directManagedMemAccessFromHost = a(cudaDevAttrDirectManagedMemAccessFromHost);
  prop->maxBlocksPerMultiProcessor = a(cudaDevAttrMaxBlocksPerMultiprocessor);
  prop->accessPolicyMaxWindowSize = a(cudaDevAttrMaxAccessPolicyWindowSize);
  prop->reservedSharedMemPerBlock = size_t(a(cudaDevAttrReservedSharedMemoryPerBlock));
  prop->hostRegisterSupported = a(cudaDevAttrHostRegisterSupported);
  prop->memoryPoolsSupported = a(cudaDevAttrMemoryPoolsSupported);
  prop->clusterLaunch = a(cudaDevAttrClusterLaunch);
  prop->deviceNumaId = a(cudaDevAttrNumaId);
  prop->hostNumaId = a(cudaDevAttrHostNumaId);
}

}  // namespace lab::runtime
