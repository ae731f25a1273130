// lab/runtime/graphs.cpp: CUDA graphs (graphs.h): the graph objects, stream
// capture, the explicit node API, instantiation and replay.
#include "lab/runtime/graphs.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "lab/runtime/context.h"

using lab::runtime::Context;

// The opaque handle types of cuda_runtime_api.h are pointers to these.
struct CUgraphNode_st {
  enum class Kind { Kernel, Memcpy, Memset, Host, Empty } kind = Kind::Empty;
  // Kernel: the host stub, configuration and a copy of each argument's bytes.
  const void* func = nullptr;
  dim3 grid, block;
  size_t shared = 0;
  std::vector<std::vector<uint8_t>> args;
  // Memcpy / Memset.
  void* dst = nullptr;
  const void* src = nullptr;
  size_t bytes = 0;
  cudaMemcpyKind dir = cudaMemcpyDefault;
  int value = 0;
  // Host.
  cudaHostFn_t fn = nullptr;
  void* user_data = nullptr;
  std::vector<CUgraphNode_st*> deps;  // nodes of the same graph that run before this one
};
struct CUgraph_st {
  std::vector<std::unique_ptr<CUgraphNode_st>> nodes;  // in the order they were added
};
struct CUgraphExec_st {
  std::vector<CUgraphNode_st> order;  // a copy of the nodes, in an order that respects every dependency
};

namespace lab::runtime::graphs {
namespace {
Context& ctx() { return Context::get(); }

std::mutex graph_mutex;
std::set<cudaGraph_t> live_graphs;
std::set<cudaGraphExec_t> live_execs;

// One capture at a time per origin stream; the streams that joined it.
struct Capture {
  cudaGraph_t graph = nullptr;
  cudaStream_t origin = nullptr;
  CUgraphNode_st* last = nullptr;  // the most recent node: the next one depends on it
};
std::map<cudaStream_t, std::shared_ptr<Capture>> capture_of;   // every stream in a capture
std::map<cudaEvent_t, std::shared_ptr<Capture>> captured_event; // events recorded inside a capture

bool is_legacy(cudaStream_t s) {
  return s == nullptr || s == cudaStreamLegacy;
}

CUgraphNode_st* add_captured(cudaStream_t stream, std::unique_ptr<CUgraphNode_st> node) {
  std::shared_ptr<Capture> c = capture_of.at(stream);
  if (c->last) node->deps.push_back(c->last);
  c->graph->nodes.push_back(std::move(node));
  c->last = c->graph->nodes.back().get();
  return c->last;
}

// The node's operation, through the calls a program's own work takes.
cudaError_t run_node(const CUgraphNode_st& n, cudaStream_t stream) {
  switch (n.kind) {
    case CUgraphNode_st::Kind::Kernel: {
      std::vector<void*> argv;
      for (const std::vector<uint8_t>& a : n.args) argv.push_back(const_cast<uint8_t*>(a.data()));
      return ctx().launch(n.func, n.grid, n.block, argv.data(), n.shared, stream);
    }
    case CUgraphNode_st::Kind::Memcpy: return ctx().memcpy(n.dst, n.src, n.bytes, n.dir, false);
    case CUgraphNode_st::Kind::Memset: return ctx().memset(n.dst, n.value, n.bytes);
    case CUgraphNode_st::Kind::Host: n.fn(n.user_data); return cudaSuccess;
    case CUgraphNode_st::Kind::Empty: return cudaSuccess;
  }
  return cudaSuccess;
}

std::unique_ptr<CUgraphNode_st> kernel_node(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                                            cudaError_t* err) {
  std::vector<size_t> sizes;
  if ((*err = ctx().kernel_param_sizes(func, &sizes)) != cudaSuccess) return nullptr;
  auto n = std::make_unique<CUgraphNode_st>();
  n->kind = CUgraphNode_st::Kind::Kernel;
  n->func = func, n->grid = grid, n->block = block, n->shared = shared;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!args || !args[i]) {
      *err = ctx().result(cudaErrorInvalidValue);
      return nullptr;
    }
    const uint8_t* p = static_cast<const uint8_t*>(args[i]);
    n->args.emplace_back(p, p + sizes[i]);  // by value, as CUDA copies a node's arguments
  }
  return n;
}
}  // namespace

// ---- capture -------------------------------------------------------------------------------
bool capturing(cudaStream_t stream) {
  std::lock_guard lock(graph_mutex);
  return capture_of.count(stream);
}

cudaError_t capture_kernel(cudaStream_t stream, const void* func, dim3 grid, dim3 block, void** args, size_t shared) {
  cudaError_t err = cudaSuccess;
  std::unique_ptr<CUgraphNode_st> n = kernel_node(func, grid, block, args, shared, &err);
  if (!n) return err;
  std::lock_guard lock(graph_mutex);
  add_captured(stream, std::move(n));
  return cudaSuccess;
}

cudaError_t capture_memcpy(cudaStream_t stream, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  auto n = std::make_unique<CUgraphNode_st>();
  n->kind = CUgraphNode_st::Kind::Memcpy;
  n->dst = dst, n->src = src, n->bytes = bytes, n->dir = kind;
  std::lock_guard lock(graph_mutex);
  add_captured(stream, std::move(n));
  return cudaSuccess;
}

cudaError_t capture_memset(cudaStream_t stream, void* dst, int value, size_t bytes) {
  auto n = std::make_unique<CUgraphNode_st>();
  n->kind = CUgraphNode_st::Kind::Memset;
  n->dst = dst, n->value = value, n->bytes = bytes;
  std::lock_guard lock(graph_mutex);
  add_captured(stream, std::move(n));
  return cudaSuccess;
}

cudaError_t capture_host(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
  auto n = std::make_unique<CUgraphNode_st>();
  n->kind = CUgraphNode_st::Kind::Host;
  n->fn = fn, n->user_data = user_data;
  std::lock_guard lock(graph_mutex);
  add_captured(stream, std::move(n));
  return cudaSuccess;
}

bool capture_event_record(cudaEvent_t event, cudaStream_t stream) {
  std::lock_guard lock(graph_mutex);
  auto it = capture_of.find(stream);
  if (it == capture_of.end()) {
    captured_event.erase(event);  // recorded outside a capture again
    return false;
  }
  captured_event[event] = it->second;
  return true;
}

bool capture_wait_event(cudaStream_t stream, cudaEvent_t event) {
  std::lock_guard lock(graph_mutex);
  auto it = captured_event.find(event);
  if (it == captured_event.end()) return false;
  if (!live_graphs.count(it->second->graph) || (it->second->origin != stream && capture_of.count(stream) &&
                                                capture_of[stream] != it->second))
    return false;
  capture_of[stream] = it->second;  // fork (or join back): this stream's work is captured too
  return true;
}

}  // namespace lab::runtime::graphs

using namespace lab::runtime::graphs;

extern "C" {

cudaError_t CUDARTAPI cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode) {
  if (!Context::get().valid_stream(stream)) return Context::get().result(cudaErrorInvalidResourceHandle);
  // The legacy default stream synchronises with every stream: it cannot be
  // captured (CUDA Runtime API, cudaStreamBeginCapture).
  if (is_legacy(stream)) {
    std::fprintf(stderr, "gpulab: cudaStreamBeginCapture: the legacy default stream cannot be captured; capture a "
                         "stream made with cudaStreamCreate\n");
    return Context::get().result(cudaErrorStreamCaptureUnsupported);
  }
  std::lock_guard lock(graph_mutex);
  if (capture_of.count(stream)) return Context::get().result(cudaErrorIllegalState);
  auto c = std::make_shared<Capture>();
  c->graph = new CUgraph_st;
  c->origin = stream;
  live_graphs.insert(c->graph);
  capture_of[stream] = c;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  std::lock_guard lock(graph_mutex);
  auto it = capture_of.find(stream);
  if (it == capture_of.end() || it->second->origin != stream) return Context::get().result(cudaErrorIllegalState);
  std::shared_ptr<Capture> c = it->second;
  for (auto i = capture_of.begin(); i != capture_of.end();) i = i->second == c ? capture_of.erase(i) : std::next(i);
  for (auto i = captured_event.begin(); i != captured_event.end();)
    i = i->second == c ? captured_event.erase(i) : std::next(i);
  *graph = c->graph;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus* status) {
  if (!status) return Context::get().result(cudaErrorInvalidValue);
  *status = capturing(stream) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

// ---- the explicit node API ---------------------------------------------------------------------
cudaError_t CUDARTAPI cudaGraphCreate(cudaGraph_t* graph, unsigned int flags) {
  if (!graph || flags) return Context::get().result(cudaErrorInvalidValue);
  std::lock_guard lock(graph_mutex);
  *graph = new CUgraph_st;
  live_graphs.insert(*graph);
  return cudaSuccess;
}

static cudaError_t add_node(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* deps, size_t ndeps,
                            std::unique_ptr<CUgraphNode_st> n) {
  std::lock_guard lock(graph_mutex);
  if (!out || !live_graphs.count(graph)) return Context::get().result(cudaErrorInvalidValue);
  for (size_t i = 0; i < ndeps; ++i) {
    bool mine = std::any_of(graph->nodes.begin(), graph->nodes.end(), [&](auto& p) { return p.get() == deps[i]; });
    if (!mine) return Context::get().result(cudaErrorInvalidValue);  // a dependency must be a node of this graph
    n->deps.push_back(deps[i]);
  }
  graph->nodes.push_back(std::move(n));
  *out = graph->nodes.back().get();
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGraphAddKernelNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                             size_t ndeps, const struct cudaKernelNodeParams* p) {
  if (!p) return Context::get().result(cudaErrorInvalidValue);
  if (p->extra) {
    std::fprintf(stderr, "gpulab: cudaGraphAddKernelNode: arguments through 'extra' are not served; pass kernelParams\n");
    return Context::get().result(cudaErrorNotSupported);
  }
  cudaError_t err = cudaSuccess;
  auto n = kernel_node(p->func, p->gridDim, p->blockDim, p->kernelParams, p->sharedMemBytes, &err);
  if (!n) return err;
  return add_node(node, graph, deps, ndeps, std::move(n));
}

cudaError_t CUDARTAPI cudaGraphAddMemcpyNode1D(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                               size_t ndeps, void* dst, const void* src, size_t count,
                                               enum cudaMemcpyKind kind) {
  auto n = std::make_unique<CUgraphNode_st>();
  n->kind = CUgraphNode_st::Kind::Memcpy;
  n->dst = dst, n->src = src, n->bytes = count, n->dir = kind;
  return add_node(node, graph, deps, ndeps, std::move(n));
}

cudaError_t CUDARTAPI cudaGraphAddMemsetNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                             size_t ndeps, const struct cudaMemsetParams* p) {
  if (!p) return Context::get().result(cudaErrorInvalidValue);
  // One row of bytes (elementSize 1, height 1) is what the lab's memset
  // does; other shapes name themselves.
  if (p->elementSize != 1 || p->height > 1) {
    std::fprintf(stderr, "gpulab: cudaGraphAddMemsetNode: only elementSize 1 and height 1 are served (got %u, %zu)\n",
                 p->elementSize, p->height);
    return Context::get().result(cudaErrorNotSupported);
  }
  auto n = std::make_unique<CUgraphNode_st>();
  n->kind = CUgraphNode_st::Kind::Memset;
  n->dst = p->dst, n->value = int(p->value), n->bytes = p->width;
  return add_node(node, graph, deps, ndeps, std::move(n));
}

cudaError_t CUDARTAPI cudaGraphAddHostNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                           size_t ndeps, const struct cudaHostNodeParams* p) {
  if (!p || !p->fn) return Context::get().result(cudaErrorInvalidValue);
  auto n = std::make_unique<CUgraphNode_st>();
  n->kind = CUgraphNode_st::Kind::Host;
  n->fn = p->fn, n->user_data = p->userData;
  return add_node(node, graph, deps, ndeps, std::move(n));
}

cudaError_t CUDARTAPI cudaGraphAddEmptyNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                            size_t ndeps) {
  return add_node(node, graph, deps, ndeps, std::make_unique<CUgraphNode_st>());
}

cudaError_t CUDARTAPI cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
  std::lock_guard lock(graph_mutex);
  if (!count || !live_graphs.count(graph)) return Context::get().result(cudaErrorInvalidValue);
  if (nodes)
    for (size_t i = 0; i < std::min(*count, graph->nodes.size()); ++i) nodes[i] = graph->nodes[i].get();
  *count = graph->nodes.size();
  return cudaSuccess;
}

// ---- instantiate, launch, destroy ---------------------------------------------------------------
cudaError_t CUDARTAPI cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
  std::lock_guard lock(graph_mutex);
  if (!exec || !live_graphs.count(graph)) return Context::get().result(cudaErrorInvalidValue);
  // Kahn's algorithm, taking ready nodes in the order they were added.
  std::map<const CUgraphNode_st*, size_t> waiting;
  for (auto& n : graph->nodes) waiting[n.get()] = n->deps.size();
  auto e = std::make_unique<CUgraphExec_st>();
  std::vector<bool> done(graph->nodes.size(), false);
  for (size_t placed = 0; placed < graph->nodes.size();) {
    bool progress = false;
    for (size_t i = 0; i < graph->nodes.size(); ++i) {
      const CUgraphNode_st* n = graph->nodes[i].get();
      if (done[i] || waiting[n]) continue;
      done[i] = true, ++placed, progress = true;
      e->order.push_back(*n);
      for (auto& m : graph->nodes)
        waiting[m.get()] -= size_t(std::count(m->deps.begin(), m->deps.end(), n));
    }
    if (!progress) return Context::get().result(cudaErrorInvalidValue);  // a cycle
  }
  *exec = e.release();
  live_execs.insert(*exec);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph,
                                                    unsigned long long flags) {
  return cudaGraphInstantiate(exec, graph, flags);
}

cudaError_t CUDARTAPI cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream) {
  std::lock_guard lock(graph_mutex);
  if (!live_execs.count(exec) || !Context::get().valid_stream(stream)) return Context::get().result(cudaErrorInvalidValue);
  return cudaSuccess;  // nothing to stage: the replay reads the nodes where they are
}

cudaError_t CUDARTAPI cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  {
    std::lock_guard lock(graph_mutex);
    if (!live_execs.count(exec)) return Context::get().result(cudaErrorInvalidValue);
  }
  if (!Context::get().valid_stream(stream)) return Context::get().result(cudaErrorInvalidResourceHandle);
  for (const CUgraphNode_st& n : exec->order)
    if (cudaError_t e = run_node(n, stream)) return e;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGraphExecDestroy(cudaGraphExec_t exec) {
  std::lock_guard lock(graph_mutex);
  if (!live_execs.erase(exec)) return Context::get().result(cudaErrorInvalidValue);
  delete exec;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGraphDestroy(cudaGraph_t graph) {
  std::lock_guard lock(graph_mutex);
  if (!live_graphs.erase(graph)) return Context::get().result(cudaErrorInvalidValue);
  delete graph;
  return cudaSuccess;
}

}  // extern "C"
