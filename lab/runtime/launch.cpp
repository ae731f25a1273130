// lab/runtime/launch.cpp: a <<<grid, block, shared, stream>>> launch of the
// program, simulated to the end by the same engine as `gpulab sim`
// (lab::sim::launch), then reported: errors on stderr naming the launch, one
// JSON line per launch for `gpulab run --report/--json`, the predicted time
// on the model clock that cudaEventElapsedTime reads.
#include <cxxabi.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lab/runtime/context.h"
#include "lab/sim/launch_progress.h"
#include "lab/sim/occupancy.h"
#include "lab/sim/report.h"

namespace lab::runtime {
namespace {

// "vadd" for _Z4vaddPKfS0_Pfi; templates keep their arguments.
std::string short_name(const std::string& mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string s = status == 0 && d ? d : mangled;
  std::free(d);
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    else if (s[i] == '>') --depth;
    else if (s[i] == '(' && depth == 0) return s.substr(0, i);
  }
  return s;
}

// A fault a GPU would report, and the error CUDA reports it with; the
// kernel checks' other findings (races, uninitialised reads) leave a GPU
// running and only the lab reports them.
cudaError_t cuda_error_for(const std::string& kind) {
  if (kind == "assert") return cudaErrorAssert;
  if (kind == "out-of-bounds" || kind == "fault") return cudaErrorIllegalAddress;
  if (kind == "misaligned") return cudaErrorMisalignedAddress;
  if (kind == "hang" || kind == "barrier-divergence") return cudaErrorLaunchTimeout;
  if (kind == "unsupported" || kind == "trap") return cudaErrorLaunchFailure;
  return cudaSuccess;
}

nlohmann::json dim_json(const sim::Dim3& d) { return {d.x, d.y, d.z}; }

}  // namespace

const KernelEntry* Context::kernel_of(const void* host_fun, const ptx::Kernel** kernel, cudaError_t* err) {
  auto it = kernels_.find(host_fun);
  if (it == kernels_.end()) {
    std::fprintf(stderr, "gpulab: %p is not a __global__ function of this program\n", host_fun);
    *err = cudaErrorInvalidDeviceFunction;
    return nullptr;
  }
  ModuleEntry* m = load_module(it->second.module);
  if (!m) {
    *err = cudaErrorInvalidPtx;
    return nullptr;
  }
  *kernel = m->module.find_kernel(it->second.device_name);
  if (!*kernel) {
    std::fprintf(stderr, "gpulab: the kernel '%s' is not in the program's PTX\n", it->second.device_name.c_str());
    *err = cudaErrorInvalidDeviceFunction;
    return nullptr;
  }
  KernelEntry& k = it->second;
  if (!k.compiled) {
    size_t index = size_t(*kernel - m->module.kernels.data());
    k.compiled = sim::make_compiled("(the program's PTX)", m->ptx, m->module, index, *gpu_);
  }
  *kernel = &k.compiled->kernel();
  return &k;
}

cudaError_t Context::kernel_param_sizes(const void* host_fun, std::vector<size_t>* sizes) {
  std::lock_guard lock(mutex_);
  const ptx::Kernel* kernel = nullptr;
  cudaError_t err = cudaSuccess;
  if (!kernel_of(host_fun, &kernel, &err)) return result(err);
  sizes->clear();
  for (const ptx::Param& p : kernel->params) sizes->push_back(p.size);
  return cudaSuccess;
}

cudaError_t Context::launch(const void* host_fun, dim3 grid, dim3 block, void** args, size_t shared,
                            cudaStream_t stream, bool cooperative) {
  std::lock_guard lock(mutex_);
  if (sticky_) return result(sticky_);
  flush_printf();  // a launch flushes the previous launches' printf output (CUDA guide, "Formatted Output")
  if (!valid_stream(stream)) return result(cudaErrorInvalidResourceHandle);
  const ptx::Kernel* kernel = nullptr;
  cudaError_t err = cudaSuccess;
  const KernelEntry* k = kernel_of(host_fun, &kernel, &err);
  if (!k) return result(err);
  return launch_entry(*k, kernel, short_name(k->device_name), grid, block, args, shared, stream, cooperative);
}

cudaError_t Context::launch_entry(const KernelEntry& entry, const ptx::Kernel* kernel, const std::string& name,
                                  dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t stream,
                                  bool cooperative) {
  const KernelEntry* k = &entry;
  const size_t number = ++launches_;
  sim::LaunchConfig cfg{{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, uint32_t(shared), cooperative};
  auto refuse = [&](cudaError_t e, const std::string& why) {
    std::fprintf(stderr, "gpulab: launch #%zu %s<<<(%u,%u,%u), (%u,%u,%u), %zu>>> refused (%s): %s\n", number,
                 name.c_str(), grid.x, grid.y, grid.z, block.x, block.y, block.z, shared, cudaGetErrorName(e),
                 why.c_str());
    return result(e);
  };
  // Above 48 KB per block a kernel must opt in (CUDA C++ Programming Guide,
  // "Shared Memory": cudaFuncAttributeMaxDynamicSharedMemorySize).
  if (kernel->static_shared_bytes + shared > uint64_t(gpu_->shared_per_block) && int64_t(shared) > k->max_dynamic_shared)
    return refuse(cudaErrorInvalidValue,
                  fmt::format("{} bytes of dynamic shared memory need cudaFuncSetAttribute({}, "
                              "cudaFuncAttributeMaxDynamicSharedMemorySize, {}) first (above {} bytes per block)",
                              shared, name, shared, gpu_->shared_per_block));
  std::vector<uint8_t> params(kernel->param_bytes, 0);
  for (size_t i = 0; i < kernel->params.size(); ++i) {
    const ptx::Param& p = kernel->params[i];
    if (!args || !args[i]) return refuse(cudaErrorInvalidValue, fmt::format("argument {} is missing", i));
    std::memcpy(params.data() + p.offset, args[i], p.size);
    // A pointer into another simulated GPU's memory: without peer access
    // (cudaDeviceEnablePeerAccess) a GPU refuses it; with it, the kernel's
    // loads and stores there cross the link and are charged to it below.
    if (p.size == 8 && devices_.count() > 1) {
      uint64_t v = 0;
      std::memcpy(&v, args[i], 8);
      const int owner = devices_.owner(v);
      const std::vector<bool>& peers = devices_.now().peer_enabled;
      const bool peer = owner >= 0 && size_t(owner) < peers.size() && peers[size_t(owner)];
      if (owner >= 0 && owner != devices_.current() && !peer)
        return refuse(cudaErrorInvalidValue,
                      fmt::format("argument {} points into device {}'s memory, and the kernel runs on device {} "
                                  "without peer access to it: call cudaDeviceEnablePeerAccess({}, 0) on device {} "
                                  "first (the kernel's accesses then cross the link and are counted there), or copy "
                                  "the data with cudaMemcpyPeer (docs/run.md)",
                                  i, owner, devices_.current(), owner, devices_.current()));
    }
  }
  activate_module(k->module);
  sim::SimOptions opts;
  opts.check = options_.check;
  // For the stream-order check below, and for what crosses a peer link.
  const bool peer_access = devices_.count() > 1 && devices_.has_peer_access();
  opts.record_global_ranges = options_.check || peer_access;
  if (devices_.count() > 1) opts.foreign_global = devices_.allocations_not_on(devices_.current());
  opts.max_steps = options_.max_steps;
  // A launch that takes the simulator a while says how long it has left
  // (the program's own output does not move meanwhile).
  sim::LaunchProgress progress;
  progress.who = fmt::format("gpulab: launch #{} {}", number, name);
  progress.tty = isatty(STDERR_FILENO);
  opts.progress = std::ref(progress);
  sim::LaunchResult r;
  try {
    r = sim::launch(*k->compiled, cfg, params, memory_, opts);  // the GPU's limits first (limits.h)
  } catch (const sim::LaunchError& e) {
    // CUDA's words: too many registers is "too many resources requested for launch".
    const std::string why = e.what();
    if (cooperative && why.find("cooperative launch") != std::string::npos)
      return refuse(cudaErrorCooperativeLaunchTooLarge, why);
    const bool resources = why.find("register") != std::string::npos;
    return refuse(resources ? cudaErrorLaunchOutOfResources : cudaErrorInvalidConfiguration, why);
  }
  if (peer_access)
    for (const sim::GlobalRange& g : r.global_ranges) devices_.charge_peer_access(g.lo, g.hi, g.write, 0);  // no host line: a kernel's own access
  if (options_.check) {
    std::vector<StreamOrder::Span> spans;
    for (const sim::GlobalRange& g : r.global_ranges) spans.push_back({g.lo, g.hi, g.write});
    ordered_operation(devices_.current(), spans, fmt::format("kernel {} (launch #{})", name, number));
  }
  pending_printf_ += r.printf_output;
  if (r.printf_dropped)
    note(fmt::format("printf output past the {} bytes of CUDA's printf buffer was dropped, as on a GPU",
                     sim::LaunchResult::kPrintfLimitBytes));
  report_launch(number, *k, name, *kernel, cfg, reinterpret_cast<uintptr_t>(stream), r);
  for (const sim::KernelError& e : r.errors)
    if (cudaError_t fault = cuda_error_for(e.kind); fault && !sticky_) sticky_ = fault;
  return cudaSuccess;  // a fault surfaces at the next call, as a GPU's does
}

void Context::report_launch(size_t number, const KernelEntry& k, const std::string& name, const ptx::Kernel& kernel,
                            const sim::LaunchConfig& cfg, uintptr_t stream, const sim::LaunchResult& r) {
  const std::string launch = fmt::format("launch #{} {}<<<({},{},{}), ({},{},{})>>>", number, name, cfg.grid.x,
                                         cfg.grid.y, cfg.grid.z, cfg.block.x, cfg.block.y, cfg.block.z);
  nlohmann::json errors = nlohmann::json::array();
  for (const sim::KernelError& e : r.errors) {
    // nvcc records absolute paths; show them as the user would type them.
    std::string file = e.file;
    std::error_code ec;
    std::string cwd = std::filesystem::current_path(ec).string() + "/";
    if (!ec && file.rfind(cwd, 0) == 0) file = file.substr(cwd.size());
    std::string where = e.line ? fmt::format("{}:{}: ", file, e.line) : std::string();
    std::fprintf(stderr, "gpulab: %s: %s%s: %s (block %u,%u,%u thread %u,%u,%u%s)\n", launch.c_str(), where.c_str(),
                 e.kind.c_str(), e.message.c_str(), e.block.x, e.block.y, e.block.z, e.thread.x, e.thread.y,
                 e.thread.z, e.count > 1 ? fmt::format("; {} times", e.count).c_str() : "");
    nlohmann::json j = {{"kind", e.kind}, {"message", e.message}, {"count", e.count},
                        {"block", dim_json(e.block)}, {"thread", dim_json(e.thread)}};
    if (!file.empty()) j["file"] = file;
    if (e.line) j["line"] = e.line;
    errors.push_back(j);
  }
  nlohmann::json rec = {{"launch", number}, {"kernel", name}, {"name", k.device_name},
                        {"grid", dim_json(cfg.grid)}, {"block", dim_json(cfg.block)},
                        {"dynamic_shared_bytes", cfg.dynamic_shared_bytes}, {"stream", stream},
                        {"ok", r.ok}, {"errors", errors}, {"sim_seconds", r.metrics.sim_seconds},
                        {"device", devices_.current()}, {"device_live_bytes", devices_.now().live_bytes},
                        {"device_peak_bytes", devices_.now().peak_bytes}};
  devices_.now().launches += 1;
  try {
    const sim::KernelReport kr = sim::build_report(*k.compiled, cfg, r.metrics);
    advance_clock(kr.predicted.time_s, "kernel", name);
    rec["metrics"] = kr.to_metrics_json();
    rec["predicted"] = kr.to_predicted_json();
    const uint64_t requests = kr.global_load.requests + kr.global_store.requests;
    const uint64_t sectors = kr.global_load.sectors + kr.global_store.sectors;
    rec["sectors_per_request"] = requests ? double(sectors) / double(requests) : 0.0;
    rec["bank_conflicts"] = kr.shared_load.bank_conflicts() + kr.shared_store.bank_conflicts();
  } catch (const std::exception& e) {
    rec["predicted"] = {{"error", e.what()}};
  }
  if (report_) {
    std::fputs((rec.dump() + "\n").c_str(), report_);
    std::fflush(report_);  // the program may end in abort() or _exit()
  }
}

cudaError_t Context::set_max_dynamic_shared(const void* host_fun, int bytes) {
  std::lock_guard lock(mutex_);
  auto it = kernels_.find(host_fun);
  if (it == kernels_.end()) return result(cudaErrorInvalidDeviceFunction);
  if (bytes < 0 || bytes > gpu_->shared_per_block_optin) {
    std::fprintf(stderr, "gpulab: cudaFuncSetAttribute: %d bytes of dynamic shared memory exceed the %s's %d\n", bytes,
                 std::string(gpu_->name).c_str(), gpu_->shared_per_block_optin);
    return result(cudaErrorInvalidValue);
  }
  it->second.max_dynamic_shared = bytes;
  return cudaSuccess;
}

cudaError_t Context::func_attributes(cudaFuncAttributes* attr, const void* host_fun) {
  std::lock_guard lock(mutex_);
  const ptx::Kernel* kernel = nullptr;
  cudaError_t err = cudaSuccess;
  const KernelEntry* k = kernel_of(host_fun, &kernel, &err);
  if (!k) return result(err);
  std::memset(attr, 0, sizeof *attr);
  const compile::ResourceUsage* usage = k->compiled->resources();
  attr->sharedSizeBytes = usage ? size_t(usage->static_shared_bytes) : kernel->static_shared_bytes;
  attr->localSizeBytes = usage ? size_t(usage->local_bytes) : kernel->local_bytes;
  attr->numRegs = usage ? usage->registers : 32;
  attr->maxThreadsPerBlock = gpu_->max_threads_per_block;
  if (kernel->max_ntid[0])
    attr->maxThreadsPerBlock = int(kernel->max_ntid[0] * std::max(1u, kernel->max_ntid[1]) * std::max(1u, kernel->max_ntid[2]));
  attr->ptxVersion = gpu_->cc_major * 10 + gpu_->cc_minor;
  attr->binaryVersion = attr->ptxVersion;
  attr->maxDynamicSharedSizeBytes =
      k->max_dynamic_shared ? k->max_dynamic_shared : gpu_->shared_per_block - int(attr->sharedSizeBytes);
  return cudaSuccess;
}

cudaError_t Context::occupancy_blocks(int* blocks, const void* host_fun, int block_size, size_t dynamic_shared) {
  std::lock_guard lock(mutex_);
  const ptx::Kernel* kernel = nullptr;
  cudaError_t err = cudaSuccess;
  const KernelEntry* k = kernel_of(host_fun, &kernel, &err);
  if (!k) return result(err);
  if (!blocks || block_size <= 0) return result(cudaErrorInvalidValue);
  sim::OccupancyInput in;
  in.block_threads = block_size;
  const compile::ResourceUsage* usage = k->compiled->resources();
  in.regs_per_thread = usage ? usage->registers : 32;
  in.static_shared_bytes = usage ? usage->static_shared_bytes : int(kernel->static_shared_bytes);
  in.dynamic_shared_bytes = int(dynamic_shared);
  *blocks = sim::occupancy_blocks_per_sm(*gpu_, in);
  return cudaSuccess;
}

}  // namespace lab::runtime
