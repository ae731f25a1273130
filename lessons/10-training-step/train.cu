// Lesson 10: one training step, end to end, as an ordinary CUDA program.
//
//   gpulab run lessons/10-training-step/train.cu -- [BATCH] [HIDDEN] [STEPS] [fp32|bf16|fp16]   (defaults 64 128 5 fp32)
//   gpulab train [--precision bf16] [--adamw exercise]  (this program beside the CPU step, compared)
//
// A 2-layer MLP (64 inputs -> HIDDEN, ReLU -> 16 classes) trained with
// AdamW on lab/cpu/mlp_task.h's synthetic task, the same task, weights and
// batches as the CPU step (lab/cpu/mlp_step.cpp). Each step:
//
//   copy     the batch X and its labels, host to device (PCIe)
//   forward  matmul X W1 -> H; bias_relu; matmul H W2 -> logits
//   loss     softmax_xent (softmax, cross-entropy, dlogits); mean_loss
//   backward matmul H^T dlogits -> dW2; col_sum -> db2; matmul dlogits W2^T -> dH;
//            relu_backward; matmul X^T dH -> dW1; col_sum -> db1
//   update   adamw over every parameter at once (flat buffer)
//   copy     the loss, device to host
//
// Mixed precision (bf16 or fp16): the five GEMMs run on the tensor cores
// (matmul_bf16 / matmul_fp16: operands rounded to 16 bits as they are staged
// in shared memory, products accumulated in fp32); the weights stay in fp32
// (the master copy AdamW updates) and so does everything else.
//
// Twelve launches and two copies a step: the lesson's point is where their
// time goes. Lines printed: "memory GROUP BYTES" once per group of
// allocations, then per step "step S loss L", "copy h2d BYTES", "copy d2h
// BYTES" and the model clock's time ("step S predicted_ms T", a prediction).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// The task, shared with the CPU step. `gpulab train` names the lab's copy
// with -D MLP_TASK_HEADER, so a copied lessons folder builds too.
#ifdef MLP_TASK_HEADER
#include MLP_TASK_HEADER
#else
#include "../../lab/cpu/mlp_task.h"
#endif
// The AdamW kernel: yours (the exercise) unless built with -D ADAMW_REFERENCE=1,
// which `gpulab train` does unless told `--adamw exercise`.
#if ADAMW_REFERENCE
#include "../.solutions/10-training-step/solution_adamw.cu"
#else
#include "exercise_adamw.cu"
#endif

#define CUDA_CHECK(call)                                                                          \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

constexpr int kTile = 16;

// C[M][N] = A * B with A(i, k) = A[i * a_row + k * a_col] and B(k, j) =
// B[k * b_row + j * b_col]: strides let one kernel read X, H^T, W2^T without
// copying them. 16 x 16 tiles through shared memory (lesson 4).
extern "C" __global__ void matmul(int M, int N, int K, const float* A, int a_row, int a_col, const float* B, int b_row,
                                  int b_col, float* C) {
  __shared__ float As[kTile][kTile], Bs[kTile][kTile];  // a warp is two tile rows: 32 banks, no conflict
  int r = blockIdx.y * kTile + threadIdx.y, c = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = r < M && ka < K ? A[long(r) * a_row + long(ka) * a_col] : 0.f;
    int bc = blockIdx.x * kTile + threadIdx.x;
    Bs[threadIdx.y][threadIdx.x] = kb < K && bc < N ? B[long(kb) * b_row + long(bc) * b_col] : 0.f;
    __syncthreads();
    for (int k = 0; k < kTile; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (r < M && c < N) C[long(r) * N + c] = acc;
}

// The same product on the tensor cores (lesson 6): a block of 4 warps
// computes a 32 x 32 tile of C, each warp a 16 x 16 quarter. A and B are
// read in fp32 (the master weights, the activations) 32 values of k at a
// time, rounded to Low (bf16 or fp16) into shared memory, and multiplied in
// two WMMA 16 x 16 x 16 steps per barrier, accumulating in fp32.
constexpr int kTcTile = 32, kTcK = 32;
constexpr int kTcLd = 40;  // shared rows padded from 32 to 40 values: fragment rows 80 bytes apart spread over the banks
template <typename Low>
__device__ void matmul_tensor(int M, int N, int K, const float* A, int a_row, int a_col, const float* B, int b_row,
                              int b_col, float* C) {
  using namespace nvcuda;
  __shared__ __align__(32) Low As[kTcTile * kTcLd];  // 32 rows x 32 k
  __shared__ __align__(32) Low Bs[kTcK * kTcLd];     // 32 k x 32 columns
  __shared__ __align__(32) float Cs[4][kTile * kTile];
  const int row0 = blockIdx.y * kTcTile, col0 = blockIdx.x * kTcTile, warp = threadIdx.x / 32;
  const int wr = (warp / 2) * kTile, wc = (warp % 2) * kTile;  // this warp's quarter of the tile
  wmma::fragment<wmma::accumulator, kTile, kTile, kTile, float> acc;
  wmma::fill_fragment(acc, 0.f);
  for (int k0 = 0; k0 < K; k0 += kTcK) {
    for (int e = threadIdx.x; e < kTcTile * kTcK; e += blockDim.x) {
      int r = e / kTcK, c = e % kTcK;  // A: row r, k c
      As[r * kTcLd + c] = Low(row0 + r < M && k0 + c < K ? A[long(row0 + r) * a_row + long(k0 + c) * a_col] : 0.f);
      int kr = e / kTcTile, bc = e % kTcTile;  // B: k kr, column bc
      Bs[kr * kTcLd + bc] = Low(k0 + kr < K && col0 + bc < N ? B[long(k0 + kr) * b_row + long(col0 + bc) * b_col] : 0.f);
    }
    __syncthreads();
    for (int kk = 0; kk < kTcK; kk += kTile) {
      wmma::fragment<wmma::matrix_a, kTile, kTile, kTile, Low, wmma::row_major> fa;
      wmma::fragment<wmma::matrix_b, kTile, kTile, kTile, Low, wmma::row_major> fb;
      wmma::load_matrix_sync(fa, As + wr * kTcLd + kk, kTcLd);
      wmma::load_matrix_sync(fb, Bs + kk * kTcLd + wc, kTcLd);
      wmma::mma_sync(acc, fa, fb, acc);
    }
    __syncthreads();
  }
  wmma::store_matrix_sync(Cs[warp], acc, kTile, wmma::mem_row_major);
  __syncwarp();
  for (int e = threadIdx.x % 32; e < kTile * kTile; e += 32) {
    int r = row0 + wr + e / kTile, c = col0 + wc + e % kTile;
    if (r < M && c < N) C[long(r) * N + c] = Cs[warp][e];
  }
}
extern "C" __global__ void matmul_bf16(int M, int N, int K, const float* A, int a_row, int a_col, const float* B,
                                       int b_row, int b_col, float* C) {
  matmul_tensor<__nv_bfloat16>(M, N, K, A, a_row, a_col, B, b_row, b_col, C);
}
extern "C" __global__ void matmul_fp16(int M, int N, int K, const float* A, int a_row, int a_col, const float* B,
                                       int b_row, int b_col, float* C) {
  matmul_tensor<__half>(M, N, K, A, a_row, a_col, B, b_row, b_col, C);
}

// H[M][N] = relu(H + b), in place.
extern "C" __global__ void bias_relu(int M, int N, float* H, const float* b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M * N) H[i] = fmaxf(0.f, H[i] + b[i % N]);
}

// One thread per row: the row's loss, and dlogits = (softmax - onehot) / M.
extern "C" __global__ void softmax_xent(int M, int C, const float* logits, const float* b, const int* y,
                                        float* dlogits, float* row_loss) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= M) return;
  const float* l = logits + long(r) * C;
  float mx = -INFINITY;
  for (int c = 0; c < C; ++c) mx = fmaxf(mx, l[c] + b[c]);
  float sum = 0.f;
  for (int c = 0; c < C; ++c) sum += expf(l[c] + b[c] - mx);
  row_loss[r] = logf(sum) - (l[y[r]] + b[y[r]] - mx);
  for (int c = 0; c < C; ++c)
    dlogits[long(r) * C + c] = (expf(l[c] + b[c] - mx) / sum - (c == y[r] ? 1.f : 0.f)) / float(M);
}

// loss = mean of row_loss: one block, a shared-memory tree (lesson 9).
extern "C" __global__ void mean_loss(int M, const float* row_loss, float* loss) {
  __shared__ float s[256];
  float acc = 0.f;
  for (int i = threadIdx.x; i < M; i += blockDim.x) acc += row_loss[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) *loss = s[0] / float(M);
}

// db[j] = sum over rows of dY[i][j]: one thread per column, walking the rows.
extern "C" __global__ void col_sum(int M, int N, const float* dY, float* db) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= N) return;
  float acc = 0.f;
  for (int i = 0; i < M; ++i) acc += dY[long(i) * N + j];
  db[j] = acc;
}

// dH = dH where the forward's H > 0, else 0 (ReLU's derivative).
extern "C" __global__ void relu_backward(int n, float* dH, const float* H) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && !(H[i] > 0.f)) dH[i] = 0.f;
}

// Bytes the device has handed out: total - free, from cudaMemGetInfo.
static size_t device_used() {
  size_t free_bytes = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return total - free_bytes;
}

static unsigned cdiv(long a, long b) { return unsigned((a + b - 1) / b); }

enum class Precision { fp32, bf16, fp16 };
static Precision precision = Precision::fp32;

static void launch_matmul(int M, int N, int K, const float* A, int a_row, int a_col, const float* B, int b_row,
                          int b_col, float* C) {
  dim3 tc_grid(cdiv(N, kTcTile), cdiv(M, kTcTile));
  if (precision == Precision::bf16) matmul_bf16<<<tc_grid, 128>>>(M, N, K, A, a_row, a_col, B, b_row, b_col, C);
  else if (precision == Precision::fp16) matmul_fp16<<<tc_grid, 128>>>(M, N, K, A, a_row, a_col, B, b_row, b_col, C);
  else matmul<<<dim3(cdiv(N, kTile), cdiv(M, kTile)), dim3(kTile, kTile)>>>(M, N, K, A, a_row, a_col, B, b_row, b_col, C);
  CUDA_CHECK(cudaGetLastError());
}

int main(int argc, char** argv) {
  lab::mlp::Shape s;
  if (argc > 1) s.batch = std::atoi(argv[1]);
  if (argc > 2) s.hidden = std::atoi(argv[2]);
  int steps = argc > 3 ? std::atoi(argv[3]) : 5;
  const char* prec = argc > 4 ? argv[4] : "fp32";
  if (!std::strcmp(prec, "bf16")) precision = Precision::bf16;
  else if (!std::strcmp(prec, "fp16")) precision = Precision::fp16;
  if (s.batch < 1 || s.hidden < 1 || steps < 1 || (precision == Precision::fp32 && std::strcmp(prec, "fp32"))) {
    std::fprintf(stderr, "usage: train [BATCH >= 1] [HIDDEN >= 1] [STEPS >= 1] [fp32|bf16|fp16]\n");
    return 2;
  }
  const int B = s.batch, D = s.in, Hd = s.hidden, C = s.classes;
  const long P = s.params();
  const lab::mlp::AdamW opt;
  std::printf("shape batch %d in %d hidden %d classes %d params %ld precision %s\n", B, D, Hd, C, P, prec);

  // 1. Host data: starting weights, one batch at a time.
  std::vector<float> hp(P), hX(size_t(B) * D);
  std::vector<int> hy(B);
  lab::mlp::init_params(s, hp.data());

  // 2. Device memory: parameters, gradients and AdamW's moments share one
  // layout. Each group's bytes are what cudaMemGetInfo says it took: the
  // runtime's count, printed as "memory GROUP BYTES".
  float *p, *g, *m, *v, *X, *H, *L, *dL, *dH, *row_loss, *loss;
  int* y;
  size_t used = device_used();
  auto group = [&](const char* name) {
    size_t now = device_used();
    std::printf("memory %s %zu\n", name, now - used);
    used = now;
  };
  CUDA_CHECK(cudaMalloc(&p, P * sizeof(float)));
  group("weights");
  CUDA_CHECK(cudaMalloc(&g, P * sizeof(float)));
  group("gradients");
  CUDA_CHECK(cudaMalloc(&m, P * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&v, P * sizeof(float)));
  group("optimizer");
  CUDA_CHECK(cudaMalloc(&H, size_t(B) * Hd * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dH, size_t(B) * Hd * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&L, size_t(B) * C * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dL, size_t(B) * C * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&row_loss, size_t(B) * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&loss, sizeof(float)));
  group("activations");
  CUDA_CHECK(cudaMalloc(&X, size_t(B) * D * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&y, size_t(B) * sizeof(int)));
  group("batch");
  CUDA_CHECK(cudaMemcpy(p, hp.data(), P * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(m, 0, P * sizeof(float)));
  CUDA_CHECK(cudaMemset(v, 0, P * sizeof(float)));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));

  for (int step = 0; step < steps; ++step) {
    lab::mlp::make_batch(s, step, hX.data(), hy.data());
    CUDA_CHECK(cudaEventRecord(start));
    // 3. The batch crosses PCIe.
    CUDA_CHECK(cudaMemcpy(X, hX.data(), hX.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(y, hy.data(), hy.size() * sizeof(int), cudaMemcpyHostToDevice));
    // 4. Forward.
    launch_matmul(B, Hd, D, X, D, 1, p + s.w1(), Hd, 1, H);
    bias_relu<<<cdiv(long(B) * Hd, 256), 256>>>(B, Hd, H, p + s.b1());
    launch_matmul(B, C, Hd, H, Hd, 1, p + s.w2(), C, 1, L);
    // 5. Loss and its gradient.
    softmax_xent<<<cdiv(B, 128), 128>>>(B, C, L, p + s.b2(), y, dL, row_loss);
    mean_loss<<<1, 256>>>(B, row_loss, loss);
    // 6. Backward: H^T and W2^T and X^T through strides.
    launch_matmul(Hd, C, B, H, 1, Hd, dL, C, 1, g + s.w2());
    col_sum<<<cdiv(C, 128), 128>>>(B, C, dL, g + s.b2());
    launch_matmul(B, Hd, C, dL, C, 1, p + s.w2(), 1, C, dH);
    relu_backward<<<cdiv(long(B) * Hd, 256), 256>>>(B * Hd, dH, H);
    launch_matmul(D, Hd, B, X, 1, D, dH, Hd, 1, g + s.w1());
    col_sum<<<cdiv(Hd, 128), 128>>>(B, Hd, dH, g + s.b1());
    // 7. AdamW over every parameter (lesson exercise: exercise_adamw.cu).
    adamw<<<cdiv(P, 256), 256>>>(int(P), p, g, m, v, opt.lr, opt.beta1, opt.beta2, opt.eps, opt.weight_decay,
                                 opt.c1(step + 1), opt.c2(step + 1));
    CUDA_CHECK(cudaGetLastError());
    // 8. The loss comes back (this copy also waits for the step to finish).
    float h_loss = 0.f;
    CUDA_CHECK(cudaMemcpy(&h_loss, loss, sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("copy h2d %zu\ncopy d2h %zu\n", hX.size() * sizeof(float) + hy.size() * sizeof(int), sizeof(float));
    std::printf("step %d loss %.6f\nstep %d predicted_ms %.6f\n", step, h_loss, step, ms);
  }
  for (float* b : {p, g, m, v, X, H, L, dL, dH, row_loss, loss}) CUDA_CHECK(cudaFree(b));
  CUDA_CHECK(cudaFree(y));
  return 0;
}
