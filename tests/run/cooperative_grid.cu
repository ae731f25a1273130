// cooperative_grid.cu: cudaLaunchCooperativeKernel and grid.sync(). A
// three-phase kernel where every phase reads what other blocks wrote in the
// phase before (a whole-grid sum, then a prefix over the blocks' partial
// sums, then a scale by the total), which is only right when every block
// waits at each grid.sync() for all the others. Also: the same grid through
// cudaLaunchKernelEx's cooperative attribute, the grid size the occupancy
// calculator allows, one block too many refused, the device attribute, and
// grid_group::is_valid() false in an ordinary launch.
//
// With an argument "deadlock", only even blocks call grid.sync(): the run
// must end with the lab's report of a grid that cannot go on, not hang.
// With "plain", the three-phase kernel is launched with <<<>>>: grid.sync()
// aborts (trap) as it does on a GPU, and the error surfaces.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace cg = cooperative_groups;

static int failures = 0;
#define CHECK(cond, what)                                                  \
  do {                                                                     \
    if (cond) std::printf("ok: %s\n", what);                               \
    else std::printf("FAIL: %s (line %d)\n", what, __LINE__), ++failures; \
  } while (0)

// out[i] = in[i] * total + prefix[block of i], where prefix is the sum of
// the blocks before this one and total the whole grid's sum.
__global__ void three_phases(const int* in, int* partial, int* out, int n) {
  cg::grid_group grid = cg::this_grid();
  __shared__ int s[256];
  int sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  s[threadIdx.x] = sum;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
  grid.sync();  // phase 2 reads every block's partial sum
  int prefix = 0, total = 0;
  for (int b = 0; b < int(gridDim.x); ++b) {
    if (b < int(blockIdx.x)) prefix += partial[b];
    total += partial[b];
  }
  grid.sync();  // nobody overwrites partial[] before everyone read it
  if (threadIdx.x == 0) partial[blockIdx.x] = prefix;
  grid.sync();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i] * total + partial[blockIdx.x];
}

__global__ void sync_even_blocks_only(int* flag) {
  if (blockIdx.x % 2 == 0) cg::this_grid().sync();
  if (threadIdx.x == 0) atomicAdd(flag, 1);
}

__global__ void is_valid(int* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *out = cg::this_grid().is_valid() ? 1 : 0;
}

int main(int argc, char** argv) {
  int dev = 0, coop = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  CHECK(coop == 1, "cudaDevAttrCooperativeLaunch is 1");

  if (argc > 1 && std::strcmp(argv[1], "deadlock") == 0) {
    int* flag;
    cudaMalloc(&flag, sizeof(int));
    void* args[] = {&flag};
    cudaError_t e = cudaLaunchCooperativeKernel((void*)sync_even_blocks_only, dim3(4), dim3(32), args, 0, 0);
    std::printf("launch: %s\n", cudaGetErrorName(e));
    std::printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
  }

  const int threads = 256;
  if (argc > 1 && std::strcmp(argv[1], "plain") == 0) {
    int* buf;
    cudaMalloc(&buf, 1024 * sizeof(int));
    three_phases<<<2, threads>>>(buf, buf + 256, buf + 512, 256);
    std::printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
  }
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, three_phases, threads, 0);
  const int blocks = per_sm * sms;
  const int n = 100000;
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 7) % 13 - 6;
  long long total = 0;
  for (int v : in) total += v;
  int *d_in, *d_partial, *d_out;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_partial, (blocks + 1) * sizeof(int));
  cudaMalloc(&d_out, n * sizeof(int));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);

  // The expected result, block by block as the kernel strides.
  auto expect = [&](int grid) {
    std::vector<long long> part(grid, 0);
    for (int i = 0; i < n; ++i) part[(i / threads) % grid] += in[i];
    std::vector<int> want(n);
    for (int i = 0; i < n; ++i) {
      int b = (i / threads) % grid;
      long long prefix = 0;
      for (int k = 0; k < b; ++k) prefix += part[k];
      want[i] = int(in[i] * total + prefix);
    }
    return want;
  };

  void* args[] = {&d_in, &d_partial, &d_out, (void*)&n};
  cudaError_t e = cudaLaunchCooperativeKernel((void*)three_phases, dim3(blocks), dim3(threads), args, 0, 0);
  CHECK(e == cudaSuccess, "cudaLaunchCooperativeKernel at the occupancy calculator's grid");
  cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
  CHECK(out == expect(blocks), "three phases across grid.sync(): every element right");
  std::printf("grid: %d blocks (%d per SM x %d SMs)\n", blocks, per_sm, sms);

  // The same through cudaLaunchKernelEx, on a smaller grid.
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(7);
  config.blockDim = dim3(threads);
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeCooperative;
  attr.val.cooperative = 1;
  config.attrs = &attr;
  config.numAttrs = 1;
  cudaMemset(d_out, 0, n * sizeof(int));
  e = cudaLaunchKernelEx(&config, three_phases, (const int*)d_in, d_partial, d_out, n);
  CHECK(e == cudaSuccess, "cudaLaunchKernelEx with cudaLaunchAttributeCooperative");
  cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
  CHECK(out == expect(7), "7 blocks through cudaLaunchKernelEx: every element right");

  // One block more than can be resident is refused, as CUDA refuses it.
  e = cudaLaunchCooperativeKernel((void*)three_phases, dim3(blocks + 1), dim3(threads), args, 0, 0);
  CHECK(e == cudaErrorCooperativeLaunchTooLarge, "one block too many: cudaErrorCooperativeLaunchTooLarge");
  cudaGetLastError();

  // An ordinary launch has no grid workspace: is_valid() is false there.
  int* d_valid;
  cudaMalloc(&d_valid, sizeof(int));
  is_valid<<<1, 32>>>(d_valid);
  int valid = -1;
  cudaMemcpy(&valid, d_valid, sizeof(int), cudaMemcpyDeviceToHost);
  CHECK(valid == 0, "grid_group::is_valid() is false in a <<<>>> launch");
  void* vargs[] = {&d_valid};
  cudaLaunchCooperativeKernel((void*)is_valid, dim3(1), dim3(32), vargs, 0, 0);
  cudaMemcpy(&valid, d_valid, sizeof(int), cudaMemcpyDeviceToHost);
  CHECK(valid == 1, "grid_group::is_valid() is true in a cooperative launch");

  CHECK(cudaDeviceSynchronize() == cudaSuccess, "no error left");
  std::printf(failures ? "FAILED\n" : "PASSED\n");
  return failures ? 1 : 0;
}
