// lab/runtime/context.h: the CUDA context the lab's runtime library stands
// in for. One device (the --gpu model), one GlobalMemory, the program's
// modules (one per registered fat binary), its kernels and __device__
// variables, streams, events, and CUDA's error state.
//
// Every operation runs when it is called: a launch is simulated to the end
// before cudaLaunchKernel returns, a cudaMemcpyAsync copies at once. A
// program correct under CUDA's asynchronous rules is correct under these
// stricter ones; what it cannot show is overlap between streams (the model
// clock serialises them, docs/run.md).
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lab/compile/nvrtc.h"
#include "lab/runtime/devices.h"
#include "lab/runtime/stream_order.h"
#include "lab/ptx/module.h"
#include "lab/sim/compiled.h"
#include "lab/sim/device.h"
#include "lab/sim/launch.h"

namespace lab::runtime {

// What `gpulab run` passes through the environment (docs/run.md). A program
// started directly runs with the defaults: H100, no checks, no report file.
struct RunOptions {
  std::string gpu = "H100";         // GPULAB_RUN_GPU
  bool check = false;               // GPULAB_RUN_CHECK=1
  uint64_t max_steps = 0;           // GPULAB_RUN_MAX_STEPS
  std::string report_path;          // GPULAB_RUN_REPORT: one JSON object per line per launch
  int gpus = 1;                     // GPULAB_RUN_GPUS: simulated devices (devices.h)
  std::string link = "nvlink";      // GPULAB_RUN_LINK: nvlink | pcie, between them
};
RunOptions options_from_env();

// Host memory cudaMallocHost/cudaHostAlloc gave or cudaHostRegister
// registered (cudart.cpp, cudart_memory_more.cpp): "host" memory to
// cudaPointerGetAttributes.
bool is_pinned_host(const void* p);

struct ModuleEntry {
  const void* wrapper = nullptr;    // what __cudaRegisterFatBinary was given
  bool loaded = false;              // PTX extracted and parsed (lazily, on first use)
  std::string load_error;           // why it could not be loaded
  std::string ptx;
  ptx::Module module;
  std::vector<uint8_t> segment;     // its __device__ variables while another module is active
  bool segment_saved = false;
};

struct KernelEntry {
  size_t module = 0;
  std::string device_name;          // mangled, as in the PTX
  int max_dynamic_shared = 0;       // cudaFuncAttributeMaxDynamicSharedMemorySize
  // The kernel on the one run path (sim/compiled.h): made at its first use,
  // it carries the GPU model and ptxas's resources (asked once).
  std::optional<sim::CompiledKernel> compiled;
};

struct SymbolEntry {
  size_t module = 0;
  std::string device_name;
  size_t bytes = 0;
};

struct EventEntry {
  bool recorded = false;
  double model_seconds = 0;         // the model clock when it was recorded
  int device = 0;                   // whose clock
};

class Context {
 public:
  static Context& get();            // the one context, made on first use
  ~Context();

  // ---- registration (nvcc's start-up code) ------------------------------------
  void** register_fatbin(const void* wrapper);
  void register_function(void** handle, const void* host_fun, const char* device_name);
  void register_var(void** handle, const void* host_var, const char* device_name, size_t bytes);

  // ---- errors ----------------------------------------------------------------
  // Every API call ends through `result`: a failure becomes the last error.
  cudaError_t result(cudaError_t e);
  cudaError_t sticky() const { return sticky_; }   // a fault ends the context, as on a GPU
  cudaError_t take_last_error();
  cudaError_t peek_last_error() const;
  // Says on stderr, once per call name, what the lab does not do.
  void note(const std::string& what);

  // ---- memory ------------------------------------------------------------------
  cudaError_t malloc_device(void** ptr, size_t bytes);
  cudaError_t free_device(void* ptr);
  // cudaMallocManaged: device memory the host also dereferences at the same
  // address (GlobalMemory::allocate_host_visible); counted like cudaMalloc.
  cudaError_t malloc_managed(void** ptr, size_t bytes);
  bool is_managed(const void* p) const;
  int device_of(const void* p) const;  // the device whose memory holds p; -1 when none
  cudaError_t memcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, bool blocking);
  cudaError_t memset(void* dst, int value, size_t bytes);
  cudaError_t symbol_copy(const void* symbol, void* host, size_t bytes, size_t offset, bool to_device);
  cudaError_t symbol_address(void** ptr, const void* symbol);
  cudaError_t symbol_size(size_t* bytes, const void* symbol);
  bool is_device_range(const void* p, size_t bytes) const;

  // ---- kernels -----------------------------------------------------------------
  // `cooperative`: cudaLaunchCooperativeKernel (every block resident at once; grid.sync() works).
  cudaError_t launch(const void* host_fun, dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t stream,
                     bool cooperative = false);
  // The byte size of each of the kernel's parameters, in order: what a graph
  // copies out of a launch's argument pointers to replay it later.
  cudaError_t kernel_param_sizes(const void* host_fun, std::vector<size_t>* sizes);
  cudaError_t set_max_dynamic_shared(const void* host_fun, int bytes);
  cudaError_t func_attributes(cudaFuncAttributes* attr, const void* host_fun);
  cudaError_t occupancy_blocks(int* blocks, const void* host_fun, int block_size, size_t dynamic_shared);

  // ---- the lab's own kernels (libgpulab_cublas: lab/cublas) --------------------------
  // A library the lab stands in for (cuBLAS) does its work as kernel
  // launches of its own, through the same launch path as the program's: the
  // cycle model predicts each one, it is a line of --report/--json and
  // --check applies. compile_lab_module compiles a CUDA C++ file with NVRTC
  // for this GPU model's virtual architecture (lab/compile/nvrtc.h, cached
  // on disk) and registers its PTX as a module beside the program's; the
  // returned index names it to launch_lab_kernel, which launches one of its
  // kernels by (extern "C") name. `report_name` is what the launch is called
  // in reports and messages ("cublasSgemm (lab GEMM: gemm_07_warptile)").
  cudaError_t compile_lab_module(const std::string& cuda_path, const std::vector<std::string>& defines,
                                 size_t* module);
  cudaError_t load_lab_ptx(std::string ptx, const std::string& name, size_t* module);
  cudaError_t launch_lab_kernel(size_t module, const std::string& kernel, const std::string& report_name, dim3 grid,
                                dim3 block, void** args, size_t shared, cudaStream_t stream);

  // ---- synchronisation, streams, events -----------------------------------------
  // CUDA prints device printf output at these points (CUDA C++ Programming
  // Guide, "Formatted Output": kernel launch, synchronisation, blocking
  // memcpy, context destruction).
  void flush_printf();
  cudaError_t synchronize();
  cudaStream_t create_stream();
  cudaError_t destroy_stream(cudaStream_t s);
  cudaEvent_t create_event();
  cudaError_t destroy_event(cudaEvent_t e);
  cudaError_t record_event(cudaEvent_t e);
  cudaError_t wait_event(cudaEvent_t e);          // cudaStreamWaitEvent on the current device's stream
  cudaError_t event_synchronize(cudaEvent_t e);
  cudaError_t elapsed(float* ms, cudaEvent_t start, cudaEvent_t end);
  bool valid_stream(cudaStream_t s) const;
  bool valid_event(cudaEvent_t e) const;

  const sim::GpuModel& gpu() const { return *gpu_; }
  const RunOptions& options() const { return options_; }

  // ---- several devices (devices.h) -------------------------------------------------
  Devices& devices() { return devices_; }
  // Bytes of the current device's live cudaMalloc allocations, as asked for
  // (cudaMemGetInfo's "used"; a GPU also rounds each up to its page size and
  // keeps some for its context, which the lab does not model).
  uint64_t device_live_bytes();
  cudaError_t set_device(int device);
  // cudaMemcpyPeer: `site` is the caller's return address, for the link report.
  cudaError_t memcpy_peer(void* dst, int dst_device, const void* src, int src_device, size_t bytes, uintptr_t site,
                          bool async = false);
  void write_device_summary();      // one JSON line in the report file, at exit
  void note_host_time();            // at exit: the host time the run took beside the predicted GPU time

 private:
  Context();
  // Whether `bytes` more fit in the current device's memory; says why not
  // (naming `call`) and returns cudaErrorMemoryAllocation when they do not.
  cudaError_t fits(size_t bytes, const char* call);
  ModuleEntry* load_module(size_t index);       // nullptr when it cannot be loaded (error printed)
  void activate_module(size_t index);           // its __device__ variables in the memory's segment
  const KernelEntry* kernel_of(const void* host_fun, const ptx::Kernel** kernel, cudaError_t* err);
  // The launch itself, for the program's kernels and the lab's alike; the caller holds mutex_.
  cudaError_t launch_entry(const KernelEntry& k, const ptx::Kernel* kernel, const std::string& name, dim3 grid,
                           dim3 block, void** args, size_t shared, cudaStream_t stream, bool cooperative = false);
  void report_launch(size_t number, const KernelEntry& k, const std::string& name, const ptx::Kernel& kernel,
                     const sim::LaunchConfig& cfg, uintptr_t stream, const sim::LaunchResult& r);
  void advance_clock(double seconds, const char* kind = "other", std::string name = "", uint64_t bytes = 0) {
    devices_.advance(seconds, kind, std::move(name), bytes);
  }

  std::mutex mutex_;  // the API is called from one host thread in the programs the lab runs; this keeps it safe
  RunOptions options_;
  const sim::GpuModel* gpu_ = nullptr;
  sim::GlobalMemory memory_;
  std::vector<std::unique_ptr<ModuleEntry>> modules_;
  std::map<const void*, KernelEntry> kernels_;       // by host stub address
  std::map<const void*, SymbolEntry> symbols_;       // by host shadow variable address
  // The lab's own kernels (launch_lab_kernel), by module index and name.
  std::map<std::pair<size_t, std::string>, KernelEntry> lab_kernels_;
  std::map<std::string, size_t> lab_modules_;        // compile_lab_module's, by file and defines
  std::set<uint64_t> live_allocations_;
  std::set<uint64_t> managed_allocations_;          // the live ones cudaMallocManaged made
  std::string host_view_error_;                      // why managed memory cannot be served, if it cannot
  // Live and peak cudaMalloc bytes are counted per device in devices_ (the
  // peak, the most bytes live at once, is what "will it fit?" asks of a run;
  // every launch's report carries both: device_live_bytes, device_peak_bytes).
  size_t active_module_ = SIZE_MAX;
  uint64_t allocations_ = 0;
  std::set<uintptr_t> streams_;
  std::map<uintptr_t, EventEntry> events_;
  uintptr_t next_handle_ = 1;
  Devices devices_;                  // the devices' predicted timelines, memory and links
  // --check: which copies and kernels CUDA orders before which across devices
  // (stream_order.h), and the races found, for the run's summary.
  StreamOrder order_;
  std::vector<std::string> order_findings_;  // the first 100
  uint64_t order_race_count_ = 0;
  void ordered_operation(int device, const std::vector<StreamOrder::Span>& spans, const std::string& what);
  size_t launches_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::string pending_printf_;
  cudaError_t last_error_ = cudaSuccess;
  cudaError_t sticky_ = cudaSuccess;
  std::set<std::string> noted_;
  FILE* report_ = nullptr;
};

}  // namespace lab::runtime
