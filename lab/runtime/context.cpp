// lab/runtime/context.cpp: the context's state: registration, memory, the
// error rules, streams and events on the model clock. Launches are in
// launch.cpp.
#include "lab/runtime/context.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "lab/runtime/fatbin.h"
#include "lab/ptx/parser.h"

namespace lab::runtime {

RunOptions options_from_env() {
  RunOptions o;
  if (const char* g = std::getenv("GPULAB_RUN_GPU"); g && *g) o.gpu = g;
  if (const char* c = std::getenv("GPULAB_RUN_CHECK"); c && *c == '1') o.check = true;
  if (const char* m = std::getenv("GPULAB_RUN_MAX_STEPS"); m && *m) o.max_steps = std::strtoull(m, nullptr, 10);
  if (const char* r = std::getenv("GPULAB_RUN_REPORT"); r && *r) o.report_path = r;
  if (const char* n = std::getenv("GPULAB_RUN_GPUS"); n && *n) o.gpus = std::max(1, std::atoi(n));
  if (const char* l = std::getenv("GPULAB_RUN_LINK"); l && *l) o.link = l;
  return o;
}

Context& Context::get() {
  // Never destroyed: nvcc's exit handlers call into the runtime after main.
  static Context* context = [] {
    auto* c = new Context();
    std::atexit([] {
      Context::get().flush_printf();  // context destruction flushes printf
      Context::get().write_device_summary();
      Context::get().note_host_time();
    });
    return c;
  }();
  return *context;
}

Context::Context() {
  options_ = options_from_env();
  try {
    gpu_ = &sim::gpu_model(options_.gpu);
  } catch (const sim::UnknownGpu& e) {
    std::fprintf(stderr, "gpulab: %s; simulating the %s\n", e.what(), std::string(sim::default_gpu().name).c_str());
    gpu_ = &sim::default_gpu();
  }
  options_.gpu = std::string(gpu_->name);
  if (options_.link != "nvlink" && options_.link != "pcie") {
    std::fprintf(stderr, "gpulab: GPULAB_RUN_LINK=%s: give nvlink or pcie; using nvlink\n", options_.link.c_str());
    options_.link = "nvlink";
  }
  devices_.configure(options_.gpus, options_.link == "pcie" ? LinkKind::PCIe : LinkKind::NVLink, *gpu_);
  order_.resize(devices_.count());
  // Managed memory needs the device addresses to be host addresses too;
  // only the pages of managed allocations open to the host (arena.h).
  if (!memory_.share_with_host(&host_view_error_) && host_view_error_.empty()) host_view_error_ = "unknown";
  if (!options_.report_path.empty()) report_ = std::fopen(options_.report_path.c_str(), "a");
}

void Context::note_host_time() {
  std::lock_guard lock(mutex_);
  if (launches_ == 0) return;
  // A program that times itself with host clocks (clock_gettime,
  // std::chrono, cuda-samples' sdkTimer, llm.c's "ms" and "tok/s") measures
  // the simulator here, thousands of times slower than the GPU it models:
  // said once, with the figure that stands for the GPU's time.
  const double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  double predicted_s = 0;
  for (int d = 0; d < devices_.count(); ++d) predicted_s = std::max(predicted_s, devices_.state(d).clock);
  std::fprintf(stderr,
               "gpulab: the run took %.1f s of host time to simulate %zu launch%s; the %s's PREDICTED timeline "
               "(kernels and copies) is %.4f ms: times the program takes with host clocks measure the simulator, "
               "not a GPU (events and --report give the predictions)\n",
               host_s, launches_, launches_ == 1 ? "" : "es", std::string(gpu_->name).c_str(), predicted_s * 1e3);
}

Context::~Context() {
  if (report_) std::fclose(report_);
}

// ---- registration ------------------------------------------------------------------
void** Context::register_fatbin(const void* wrapper) {
  std::lock_guard lock(mutex_);
  auto m = std::make_unique<ModuleEntry>();
  m->wrapper = wrapper;
  modules_.push_back(std::move(m));
  // The handle nvcc keeps is our module index (+1, so it is never null).
  return reinterpret_cast<void**>(uintptr_t(modules_.size()));
}

void Context::register_function(void** handle, const void* host_fun, const char* device_name) {
  std::lock_guard lock(mutex_);
  KernelEntry k;
  k.module = size_t(reinterpret_cast<uintptr_t>(handle)) - 1;
  k.device_name = device_name;
  kernels_[host_fun] = std::move(k);
}

void Context::register_var(void** handle, const void* host_var, const char* device_name, size_t bytes) {
  std::lock_guard lock(mutex_);
  symbols_[host_var] = SymbolEntry{size_t(reinterpret_cast<uintptr_t>(handle)) - 1, device_name, bytes};
}

ModuleEntry* Context::load_module(size_t index) {
  if (index >= modules_.size()) return nullptr;
  ModuleEntry& m = *modules_[index];
  if (!m.loaded && m.load_error.empty()) {
    try {
      std::vector<FatbinPtx> entries = fatbin_ptx(m.wrapper);
      if (entries.empty())
        throw FatbinError("the program's fat binary holds no PTX; build it with -gencode arch=compute_XX,code=compute_XX "
                          "(gpulab run does)");
      m.ptx = entries.front().ptx;
      m.module = ptx::parse(m.ptx, "(the program's PTX)");
      m.loaded = true;
    } catch (const std::exception& e) {
      m.load_error = e.what();
      std::fprintf(stderr, "gpulab: cannot load the program's device code: %s\n", m.load_error.c_str());
    }
  }
  return m.loaded ? &m : nullptr;
}

void Context::activate_module(size_t index) {
  if (index == active_module_) return;
  if (active_module_ != SIZE_MAX) {
    ModuleEntry& old = *modules_[active_module_];
    old.segment.assign(memory_.module_segment(), memory_.module_segment() + memory_.module_segment_bytes());
    old.segment_saved = true;
  }
  ModuleEntry& m = *modules_[index];
  memory_.reload_module_globals(m.module);  // fresh initialisers, or the saved values below
  if (m.segment_saved && m.segment.size() == memory_.module_segment_bytes())
    std::memcpy(memory_.module_segment(), m.segment.data(), m.segment.size());
  active_module_ = index;
}

// ---- errors ------------------------------------------------------------------------
cudaError_t Context::result(cudaError_t e) {
  if (e != cudaSuccess) last_error_ = e;
  return e;
}

cudaError_t Context::take_last_error() {
  std::lock_guard lock(mutex_);
  if (sticky_) return sticky_;  // a sticky error is never cleared (CUDA Runtime API, "Error Handling")
  cudaError_t e = last_error_;
  last_error_ = cudaSuccess;
  return e;
}

cudaError_t Context::peek_last_error() const { return sticky_ ? sticky_ : last_error_; }

void Context::note(const std::string& what) {
  if (noted_.insert(what).second) std::fprintf(stderr, "gpulab: %s\n", what.c_str());
}

// ---- memory --------------------------------------------------------------------------
static uint64_t addr_of(const void* p) { return uint64_t(reinterpret_cast<uintptr_t>(p)); }

bool Context::is_device_range(const void* p, size_t bytes) const {
  uint64_t a = addr_of(p);
  if (const sim::Buffer* b = memory_.find(a)) return live_allocations_.count(b->address) && a + bytes <= b->address + b->bytes;
  // __device__ variables (cudaGetSymbolAddress) live in the module segment.
  return a >= ptx::kGlobalBase && a + bytes <= ptx::kGlobalBase + const_cast<sim::GlobalMemory&>(memory_).module_segment_bytes();
}

cudaError_t Context::malloc_device(void** ptr, size_t bytes) {
  std::lock_guard lock(mutex_);
  if (sticky_) return result(sticky_);
  if (!ptr) return result(cudaErrorInvalidValue);
  if (cudaError_t e = fits(bytes, "cudaMalloc")) return *ptr = nullptr, e;
  // Zeroed (a GPU gives whatever was there; zero keeps runs reproducible).
  uint64_t a = memory_.allocate(bytes, fmt::format("cudaMalloc #{} ({} bytes)", ++allocations_, bytes), true);
  live_allocations_.insert(a);
  devices_.on_malloc(a, bytes);
  *ptr = reinterpret_cast<void*>(uintptr_t(a));
  return cudaSuccess;
}

cudaError_t Context::malloc_managed(void** ptr, size_t bytes) {
  std::lock_guard lock(mutex_);
  if (sticky_) return result(sticky_);
  if (!ptr || bytes == 0) return result(cudaErrorInvalidValue);
  if (!host_view_error_.empty()) {
    std::fprintf(stderr, "gpulab: cudaMallocManaged: the lab could not map device memory into the program (%s); "
                 "allocate with cudaMalloc and copy with cudaMemcpy instead\n", host_view_error_.c_str());
    *ptr = nullptr;
    return result(cudaErrorNotSupported);
  }
  if (cudaError_t e = fits(bytes, "cudaMallocManaged")) return *ptr = nullptr, e;
  uint64_t a = memory_.allocate_host_visible(bytes, fmt::format("cudaMallocManaged #{} ({} bytes)", ++allocations_, bytes));
  if (!a) {
    *ptr = nullptr;
    return result(cudaErrorMemoryAllocation);
  }
  live_allocations_.insert(a);
  managed_allocations_.insert(a);
  devices_.on_malloc(a, bytes);
  *ptr = reinterpret_cast<void*>(uintptr_t(a));
  return cudaSuccess;
}

bool Context::is_managed(const void* p) const {
  const sim::Buffer* b = memory_.find(addr_of(p));
  return b && managed_allocations_.count(b->address);
}

int Context::device_of(const void* p) const {
  const sim::Buffer* b = memory_.find(addr_of(p));
  return b ? devices_.owner(b->address) : -1;
}

cudaError_t Context::fits(size_t bytes, const char* call) {
  // Refused against the model's capacity before any host memory backs it
  // (the caller allocates after), so asking for 100 GB costs nothing: a GPU
  // answers cudaErrorMemoryAllocation ("out of memory") the same way. The
  // lab counts the bytes asked for; a GPU also rounds each allocation up and
  // keeps some memory for its context, so a real run fits a little less.
  // Each simulated GPU has its own memory: the current one's bytes count
  // (devices.h keeps them, live and peak).
  const uint64_t live = devices_.now().live_bytes;
  if (bytes > gpu_->dram_bytes || live + bytes > gpu_->dram_bytes) {
    const std::string gpu = std::string(gpu_->name);
    std::fprintf(stderr,
                 "gpulab: %s of %zu bytes (%.2f GB) refused, out of memory: %llu bytes (%.2f GB) are live "
                 "and the %s holds %llu bytes (%.0f GB), that is %llu bytes over.\n"
                 "gpulab: to fit: allocate less (a smaller batch; in training, gradient checkpointing or gradient "
                 "accumulation over micro-batches), free what is no longer needed, or simulate a GPU model with more "
                 "memory (--gpu; `gpulab run --help` lists them)\n",
                 call, bytes, double(bytes) / 1e9, (unsigned long long)live, double(live) / 1e9, gpu.c_str(),
                 (unsigned long long)gpu_->dram_bytes, double(gpu_->dram_bytes) / 1e9,
                 (unsigned long long)(live + bytes - gpu_->dram_bytes));
    return result(cudaErrorMemoryAllocation);
  }
  return cudaSuccess;
}

cudaError_t Context::free_device(void* ptr) {
  std::lock_guard lock(mutex_);
  if (sticky_) return result(sticky_);
  if (!ptr) return cudaSuccess;
  // The arena does not reuse memory; freeing only ends the allocation's life.
  devices_.on_free(addr_of(ptr));
  // A freed managed allocation is no longer the host's to touch: its pages
  // close, so a host use after cudaFree crashes as it does on a GPU.
  if (managed_allocations_.erase(addr_of(ptr)))
    if (const sim::Buffer* b = memory_.find(addr_of(ptr))) memory_.hide_from_host(b->address, std::max<uint64_t>(b->bytes, 1));
  if (!live_allocations_.erase(addr_of(ptr))) {
    std::fprintf(stderr, "gpulab: cudaFree(%p): not a pointer cudaMalloc returned, or freed twice\n", ptr);
    return result(cudaErrorInvalidValue);
  }
  memory_.mark_freed(addr_of(ptr));  // a kernel's later access is a use after free (with --check)
  return cudaSuccess;
}

cudaError_t Context::memcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, bool blocking) {
  std::lock_guard lock(mutex_);
  if (sticky_) return result(sticky_);
  if (blocking) flush_printf();
  if (bytes == 0) return cudaSuccess;
  bool dst_dev = is_device_range(dst, bytes), src_dev = is_device_range(src, bytes);
  if (kind == cudaMemcpyDefault)
    kind = dst_dev ? (src_dev ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                   : (src_dev ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  const bool want_dst = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool want_src = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  // Managed memory is either side's (with unified addressing a GPU accepts
  // it under any direction): it is copied as the direction says.
  if (dst_dev != want_dst && is_managed(dst)) dst_dev = want_dst;
  if (src_dev != want_src && is_managed(src)) src_dev = want_src;
  if (want_dst != dst_dev || want_src != src_dev) {
    auto side = [&](bool dev, bool want, const void* p, const char* which) -> std::string {
      if (dev == want) return "";
      return fmt::format(" the {} {} is {}device memory{};", which, p, dev ? "" : "not ",
                         want ? fmt::format(" (or {} bytes run past its allocation)", bytes) : "");
    };
    static const char* kNames[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost",
                                   "cudaMemcpyDeviceToDevice"};
    std::fprintf(stderr, "gpulab: cudaMemcpy of %zu bytes with %s:%s%s check the pointers, the size and the direction\n",
                 bytes, kNames[int(kind) & 3], side(dst_dev, want_dst, dst, "destination").c_str(),
                 side(src_dev, want_src, src, "source").c_str());
    return result(cudaErrorInvalidValue);
  }
  if (options_.check) {
    std::vector<StreamOrder::Span> spans;
    if (dst_dev) spans.push_back({addr_of(dst), addr_of(dst) + bytes, true});
    if (src_dev) spans.push_back({addr_of(src), addr_of(src) + bytes, false});
    if (!spans.empty())
      ordered_operation(devices_.current(), spans,
                        fmt::format("cudaMemcpy{} of {} bytes", blocking ? "" : "Async", bytes));
    if (blocking) order_.host_waits_for(devices_.current());
  }
  switch (kind) {
    case cudaMemcpyHostToDevice:
      memory_.write(addr_of(dst), src, bytes);
      advance_clock(double(bytes) / gpu_->host_bytes_per_s, "h2d", "H2D", bytes);
      break;
    case cudaMemcpyDeviceToHost:
      memory_.read(addr_of(src), dst, bytes);
      advance_clock(double(bytes) / gpu_->host_bytes_per_s, "d2h", "D2H", bytes);
      break;
    case cudaMemcpyDeviceToDevice: {
      std::vector<uint8_t> tmp(bytes);
      memory_.read(addr_of(src), tmp.data(), bytes);
      memory_.write(addr_of(dst), tmp.data(), bytes);
      const int from = devices_.owner(addr_of(src)), to = devices_.owner(addr_of(dst));
      if (from >= 0 && to >= 0 && from != to) devices_.peer_copy(to, addr_of(dst), from, addr_of(src), bytes, devices_.call_site);  // across a link
      else advance_clock(2.0 * double(bytes) / gpu_->dram_bytes_per_s, "d2d", "D2D", bytes);  // read and write in DRAM
      break;
    }
    default:
      std::memmove(dst, src, bytes);
  }
  return cudaSuccess;
}

cudaError_t Context::memset(void* dst, int value, size_t bytes) {
  std::lock_guard lock(mutex_);
  if (sticky_) return result(sticky_);
  if (bytes == 0) return cudaSuccess;
  if (!is_device_range(dst, bytes)) {
    std::fprintf(stderr, "gpulab: cudaMemset of %zu bytes at %p: not (all) device memory\n", bytes, dst);
    return result(cudaErrorInvalidValue);
  }
  std::memset(memory_.host(addr_of(dst), bytes), value & 0xff, bytes);
  advance_clock(double(bytes) / gpu_->dram_bytes_per_s, "memset", "memset", bytes);
  return cudaSuccess;
}

// __device__ / __constant__ variables: the host passes its shadow variable's address.
static const ptx::VarDecl* find_global(const ptx::Module& m, const std::string& name) {
  for (const auto& g : m.globals)
    if (g.name == name) return &g;
  return nullptr;
}

cudaError_t Context::symbol_address(void** ptr, const void* symbol) {
  std::lock_guard lock(mutex_);
  if (sticky_) return result(sticky_);
  auto it = symbols_.find(symbol);
  ModuleEntry* m = it == symbols_.end() ? nullptr : load_module(it->second.module);
  const ptx::VarDecl* v = m ? find_global(m->module, it->second.device_name) : nullptr;
  if (!v) return result(cudaErrorInvalidSymbol);
  activate_module(it->second.module);
  uint64_t off = v->offset >= ptx::kGlobalBase ? v->offset - ptx::kGlobalBase : v->offset;
  *ptr = reinterpret_cast<void*>(uintptr_t(ptx::kGlobalBase + off));
  return cudaSuccess;
}

cudaError_t Context::symbol_size(size_t* bytes, const void* symbol) {
  std::lock_guard lock(mutex_);
  auto it = symbols_.find(symbol);
  if (it == symbols_.end()) return result(cudaErrorInvalidSymbol);
  *bytes = it->second.bytes;
  return cudaSuccess;
}

cudaError_t Context::symbol_copy(const void* symbol, void* host, size_t bytes, size_t offset, bool to_device) {
  void* base = nullptr;
  if (cudaError_t e = symbol_address(&base, symbol)) return e;
  std::lock_guard lock(mutex_);
  if (offset + bytes > symbols_[symbol].bytes) {
    std::fprintf(stderr, "gpulab: cudaMemcpy%sSymbol of %zu bytes at offset %zu: the variable '%s' has %zu bytes\n",
                 to_device ? "To" : "From", bytes, offset, symbols_[symbol].device_name.c_str(), symbols_[symbol].bytes);
    return result(cudaErrorInvalidValue);
  }
  uint64_t a = addr_of(base) + offset;
  if (to_device) memory_.write(a, host, bytes);
  else memory_.read(a, host, bytes);
  return cudaSuccess;
}

// ---- synchronisation, streams, events -------------------------------------------------
void Context::flush_printf() {
  if (pending_printf_.empty()) return;
  std::fflush(stdout);  // the host's own output first, as it was written first
  std::fwrite(pending_printf_.data(), 1, pending_printf_.size(), stdout);
  std::fflush(stdout);
  pending_printf_.clear();
}

void Context::ordered_operation(int device, const std::vector<StreamOrder::Span>& spans, const std::string& what) {
  for (std::string& f : order_.operation(device, spans, what)) {
    // The first few in full; a loop repeats the same race every iteration.
    if (++order_race_count_ <= 8) std::fprintf(stderr, "gpulab: stream-order race: %s\n", f.c_str());
    else if (order_race_count_ == 9) std::fprintf(stderr, "gpulab: further stream-order races are counted, not printed\n");
    if (order_findings_.size() < 100) order_findings_.push_back(std::move(f));
  }
}

cudaError_t Context::synchronize() {
  std::lock_guard lock(mutex_);
  flush_printf();
  order_.host_waits_for(devices_.current());
  return sticky_ ? result(sticky_) : cudaSuccess;
}

// Stream and event handles are small integers dressed as pointers.
cudaStream_t Context::create_stream() {
  std::lock_guard lock(mutex_);
  uintptr_t h = (next_handle_++) << 4;
  streams_.insert(h);
  return reinterpret_cast<cudaStream_t>(h);
}

bool Context::valid_stream(cudaStream_t s) const {
  uintptr_t h = reinterpret_cast<uintptr_t>(s);
  return h == 0 || h == 1 || h == 2 || streams_.count(h);  // 0 legacy, 1/2 cudaStreamLegacy/PerThread
}

cudaError_t Context::destroy_stream(cudaStream_t s) {
  std::lock_guard lock(mutex_);
  return streams_.erase(reinterpret_cast<uintptr_t>(s)) ? cudaSuccess : result(cudaErrorInvalidResourceHandle);
}

cudaEvent_t Context::create_event() {
  std::lock_guard lock(mutex_);
  uintptr_t h = (next_handle_++) << 4;
  events_[h] = EventEntry{};
  return reinterpret_cast<cudaEvent_t>(h);
}

bool Context::valid_event(cudaEvent_t e) const { return events_.count(reinterpret_cast<uintptr_t>(e)) != 0; }

cudaError_t Context::destroy_event(cudaEvent_t e) {
  std::lock_guard lock(mutex_);
  return events_.erase(reinterpret_cast<uintptr_t>(e)) ? cudaSuccess : result(cudaErrorInvalidResourceHandle);
}

cudaError_t Context::record_event(cudaEvent_t e) {
  std::lock_guard lock(mutex_);
  if (sticky_) return result(sticky_);
  auto it = events_.find(reinterpret_cast<uintptr_t>(e));
  if (it == events_.end()) return result(cudaErrorInvalidResourceHandle);
  it->second.recorded = true;
  devices_.settle();  // copies into the device have landed before its event
  it->second.model_seconds = devices_.now().clock;
  it->second.device = devices_.current();
  order_.record_event(reinterpret_cast<uintptr_t>(e), devices_.current());
  return cudaSuccess;
}

cudaError_t Context::wait_event(cudaEvent_t e) {
  std::lock_guard lock(mutex_);
  if (!events_.count(reinterpret_cast<uintptr_t>(e))) return result(cudaErrorInvalidResourceHandle);
  order_.wait_event(devices_.current(), reinterpret_cast<uintptr_t>(e));
  return cudaSuccess;
}

cudaError_t Context::event_synchronize(cudaEvent_t e) {
  {
    std::lock_guard lock(mutex_);
    if (!events_.count(reinterpret_cast<uintptr_t>(e))) return result(cudaErrorInvalidResourceHandle);
    order_.host_waits_for_event(reinterpret_cast<uintptr_t>(e));
  }
  return synchronize();
}

cudaError_t Context::elapsed(float* ms, cudaEvent_t start, cudaEvent_t end) {
  std::lock_guard lock(mutex_);
  if (sticky_) return result(sticky_);
  auto a = events_.find(reinterpret_cast<uintptr_t>(start)), b = events_.find(reinterpret_cast<uintptr_t>(end));
  if (!ms || a == events_.end() || b == events_.end()) return result(cudaErrorInvalidResourceHandle);
  if (!a->second.recorded || !b->second.recorded) return result(cudaErrorInvalidResourceHandle);
  if (a->second.device != b->second.device) {
    std::fprintf(stderr, "gpulab: cudaEventElapsedTime: the events were recorded on devices %d and %d; each device "
                 "has its own timeline: time each device apart\n", a->second.device, b->second.device);
    return result(cudaErrorInvalidResourceHandle);
  }
  note(fmt::format("cudaEventElapsedTime returns the machine model's PREDICTED time on the {} (kernels from the "
                   "timing model, copies at the PCIe/DRAM/GPU-link rates), not a measurement",
                   std::string(gpu_->name)));
  *ms = float((b->second.model_seconds - a->second.model_seconds) * 1e3);
  return cudaSuccess;
}

}  // namespace lab::runtime
