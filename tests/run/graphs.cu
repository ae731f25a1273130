// graphs.cu: CUDA graphs made by stream capture (with a fork and a join
// across two streams) and by the explicit node API, each launched several
// times; the results say every node ran, in an order that respects its
// dependencies, once per launch.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

static int failures = 0;
#define CHECK(cond, what)                                      \
  do {                                                         \
    if (cond) std::printf("ok: %s\n", what);                   \
    else std::printf("FAIL: %s (line %d)\n", what, __LINE__), ++failures; \
  } while (0)

__global__ void scale(float* x, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= f;
}
__global__ void add(float* x, const float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += y[i];
}

static int host_calls = 0;
static void CUDART_CB count_call(void*) { ++host_calls; }

int main() {
  const int n = 512;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  std::vector<float> ones(n, 1.f), out(n);

  // ---- capture: x = 1; fork: y = 0 then y = x*... on stream b; join; x = (x*3) + y ----
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  cudaEvent_t fork, join;
  cudaEventCreate(&fork);
  cudaEventCreate(&join);
  cudaGraph_t graph;
  CHECK(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal) == cudaSuccess, "begin capture");
  cudaStreamCaptureStatus status;
  CHECK(cudaStreamIsCapturing(a, &status) == cudaSuccess && status == cudaStreamCaptureStatusActive, "capturing");
  cudaMemcpyAsync(x, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice, a);
  cudaEventRecord(fork, a);
  cudaStreamWaitEvent(b, fork, 0);              // b joins the capture
  cudaMemsetAsync(y, 0, n * sizeof(float), b);
  add<<<n / 128, 128, 0, b>>>(y, x, n);         // y = x = 1
  cudaEventRecord(join, b);
  scale<<<n / 128, 128, 0, a>>>(x, 3.f, n);     // x = 3
  cudaStreamWaitEvent(a, join, 0);              // b joins back
  add<<<n / 128, 128, 0, a>>>(x, y, n);         // x = 4
  cudaLaunchHostFunc(a, count_call, nullptr);
  CHECK(cudaStreamEndCapture(a, &graph) == cudaSuccess, "end capture");
  CHECK(host_calls == 0, "nothing ran during the capture");
  cudaMemcpy(out.data(), x, sizeof(float), cudaMemcpyDeviceToHost);
  CHECK(out[0] == 0.f, "x untouched by the capture");
  size_t count = 0;
  cudaGraphGetNodes(graph, nullptr, &count);
  CHECK(count == 6, "the captured graph has 6 nodes (copy, memset, add, scale, add, host)");
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess, "instantiate");
  for (int rep = 0; rep < 3; ++rep) cudaGraphLaunch(exec, a);
  cudaStreamSynchronize(a);
  cudaMemcpy(out.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost);
  CHECK(out[0] == 4.f && out[n - 1] == 4.f, "each launch recomputes x = 3*1 + 1");
  CHECK(host_calls == 3, "the host node ran once per launch");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);

  // ---- explicit nodes: x = 1 then x *= 5; y = 0; then y = x after both chains ----
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaGraphNode_t set, mul, copy;
  cudaMemsetParams mp{};
  mp.dst = y, mp.value = 0, mp.elementSize = 1, mp.width = n * sizeof(float), mp.height = 1;
  CHECK(cudaGraphAddMemcpyNode1D(&copy, g, nullptr, 0, x, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice) ==
            cudaSuccess,
        "memcpy node");
  float f = 5.f;
  int nn = n;
  void* args[] = {&x, &f, &nn};
  cudaKernelNodeParams kp{};
  kp.func = reinterpret_cast<void*>(scale), kp.gridDim = dim3(n / 128), kp.blockDim = dim3(128), kp.kernelParams = args;
  CHECK(cudaGraphAddKernelNode(&mul, g, &copy, 1, &kp) == cudaSuccess, "kernel node after the copy");
  f = 100.f;  // the node keeps the value it was given
  CHECK(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &mp) == cudaSuccess, "memset node, no dependencies");
  cudaGraphNode_t both[] = {set, mul}, last;
  CHECK(cudaGraphAddMemcpyNode1D(&last, g, both, 2, y, x, n * sizeof(float), cudaMemcpyDeviceToDevice) == cudaSuccess,
        "a copy after the memset and the kernel");
  CHECK(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess, "instantiate the explicit graph");
  cudaGraphLaunch(exec, a);
  cudaStreamSynchronize(a);
  cudaMemcpy(out.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  CHECK(out[7] == 5.f, "y = x = 1 * 5: the kernel node kept its argument, and each node ran after its dependencies");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  CHECK(cudaGraphDestroy(g) == cudaErrorInvalidValue, "a graph destroyed twice is refused");
  cudaGetLastError();

  std::printf(failures ? "FAILED (%d)\n" : "PASSED\n", failures);
  return failures ? 1 : 0;
}
