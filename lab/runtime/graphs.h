// lab/runtime/graphs.h: CUDA graphs, by stream capture and by the explicit
// node API. A graph is a list of operations with their dependencies; a
// launch of its executable replays them in a dependency order through the
// same Context calls a program's own launches and copies take, so each
// replayed kernel is simulated, timed and reported like any launch.
//
// Capture (CUDA Runtime API, "Stream Capture"): between
// cudaStreamBeginCapture and cudaStreamEndCapture, work issued to the
// capturing stream is recorded instead of run; a stream that waits on an
// event recorded in a capturing stream joins the capture (fork), and the
// origin stream waiting on an event of a joined stream joins it back. The
// lab records the captured work in issue order, which respects every
// dependency the streams and events express.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace lab::runtime::graphs {

// Whether work issued to `stream` is being captured (then record, not run).
bool capturing(cudaStream_t stream);

// Recorders for the capturing stream's work; each returns cudaSuccess or why not.
cudaError_t capture_kernel(cudaStream_t stream, const void* func, dim3 grid, dim3 block, void** args, size_t shared);
cudaError_t capture_memcpy(cudaStream_t stream, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t capture_memset(cudaStream_t stream, void* dst, int value, size_t bytes);
cudaError_t capture_host(cudaStream_t stream, cudaHostFn_t fn, void* user_data);

// cudaEventRecord / cudaStreamWaitEvent during a capture: true when the
// call was part of the capture (and so must not also run now).
bool capture_event_record(cudaEvent_t event, cudaStream_t stream);
bool capture_wait_event(cudaStream_t stream, cudaEvent_t event);

}  // namespace lab::runtime::graphs
