// Lesson 10: one training step, end to end, as an ordinary CUDA program.
//
//   gpulab run lessons/10-training-step/train.cu -- [BATCH] [HIDDEN] [STEPS] [fp32|bf16|fp16]
//                                                    [LAYERS] [ACCUMULATE] [EVERY]   (defaults 64 128 5 fp32 1 1 0)
//   gpulab train [--precision bf16] [--adamw exercise] [--col-sum exercise] [--layers L] [--checkpoint]
//                [--accumulate K]   (this program beside the CPU step, compared)
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
// time goes.
//
// "Will it fit?" (the lesson's second half) adds three knobs, scheduled by
// lab/cpu/mlp_task.h's Plan, the same for the CPU step: LAYERS hidden layers
// (hidden -> hidden, ReLU) instead of one; ACCUMULATE = K micro-batches of
// BATCH / K rows, their gradients added up (the GEMMs' and col_sum's
// `accumulate` flag), then one AdamW step; EVERY = k > 0 keeps the hidden
// activations only at every k-th layer (checkpoints) and recomputes the
// layers between in backward.
//
// Lines printed: "memory GROUP BYTES" once per group of allocations, then
// per step "step S loss L", "copy h2d BYTES", "copy d2h BYTES" and the model
// clock's time ("step S predicted_ms T", a prediction).
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
#include "lab/cpu/mlp_task.h"  // found through the -I gpulab run passes (the lab's source folder)
#endif
// The AdamW kernel: yours (the exercise) unless built with -D ADAMW_REFERENCE=1,
// which `gpulab train` does unless told `--adamw exercise`.
#if ADAMW_REFERENCE
#include "../.solutions/10-training-step/solution_adamw.cu"
#else
#include "exercise_adamw.cu"
#endif
// The bias gradients' column sum, db (+)= the rows' sum of dY: likewise
// yours (exercise_col_sum.cu) unless built with -D COL_SUM_REFERENCE=1.
// Launched with 32 x 32 threads per block, one block per 32 columns.
#if COL_SUM_REFERENCE
#include "../.solutions/10-training-step/solution_col_sum.cu"
#else
#include "exercise_col_sum.cu"
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
// copying them. 16 x 16 tiles through shared memory (lesson 4). `accumulate`:
// C += A * B instead (a micro-batch's gradient added to the ones before it).
extern "C" __global__ void matmul(int M, int N, int K, const float* A, int a_row, int a_col, const float* B, int b_row,
                                  int b_col, float* C, int accumulate) {
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
  if (r < M && c < N) C[long(r) * N + c] = accumulate ? C[long(r) * N + c] + acc : acc;
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
                              int b_col, float* C, int accumulate) {
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
    if (r < M && c < N) C[long(r) * N + c] = accumulate ? C[long(r) * N + c] + Cs[warp][e] : Cs[warp][e];
  }
}
extern "C" __global__ void matmul_bf16(int M, int N, int K, const float* A, int a_row, int a_col, const float* B,
                                       int b_row, int b_col, float* C, int accumulate) {
  // bf16 WMMA needs sm_80 (PTX ISA, wmma.mma: .bf16 requires sm_80); main()
  // refuses bf16 on an older GPU model, so this empty body never runs there.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  matmul_tensor<__nv_bfloat16>(M, N, K, A, a_row, a_col, B, b_row, b_col, C, accumulate);
#endif
}
extern "C" __global__ void matmul_fp16(int M, int N, int K, const float* A, int a_row, int a_col, const float* B,
                                       int b_row, int b_col, float* C, int accumulate) {
  matmul_tensor<__half>(M, N, K, A, a_row, a_col, B, b_row, b_col, C, accumulate);
}

// H[M][N] = relu(H + b), in place.
extern "C" __global__ void bias_relu(int M, int N, float* H, const float* b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M * N) H[i] = fmaxf(0.f, H[i] + b[i % N]);
}

// One thread per row: the row's loss, and dlogits = (softmax - onehot) / N,
// N the whole batch's rows (M, a micro-batch's, when accumulating).
extern "C" __global__ void softmax_xent(int M, int C, const float* logits, const float* b, const int* y,
                                        float* dlogits, float* row_loss, int N) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= M) return;
  const float* l = logits + long(r) * C;
  float mx = -INFINITY;
  for (int c = 0; c < C; ++c) mx = fmaxf(mx, l[c] + b[c]);
  float sum = 0.f;
  for (int c = 0; c < C; ++c) sum += expf(l[c] + b[c] - mx);
  row_loss[r] = logf(sum) - (l[y[r]] + b[y[r]] - mx);
  for (int c = 0; c < C; ++c)
    dlogits[long(r) * C + c] = (expf(l[c] + b[c] - mx) / sum - (c == y[r] ? 1.f : 0.f)) / float(N);
}

// loss = sum of row_loss / N (the batch's rows): one block, a shared-memory
// tree (lesson 9). `accumulate`: added to the micro-batches' before it.
extern "C" __global__ void mean_loss(int M, const float* row_loss, float* loss, int N, int accumulate) {
  __shared__ float s[256];
  float acc = 0.f;
  for (int i = threadIdx.x; i < M; i += blockDim.x) acc += row_loss[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) *loss = (accumulate ? *loss : 0.f) + s[0] / float(N);
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
                          int b_col, float* C, int accumulate = 0) {
  dim3 tc_grid(cdiv(N, kTcTile), cdiv(M, kTcTile));
  const dim3 grid(cdiv(N, kTile), cdiv(M, kTile)), block(kTile, kTile);
  if (precision == Precision::bf16)
    matmul_bf16<<<tc_grid, 128>>>(M, N, K, A, a_row, a_col, B, b_row, b_col, C, accumulate);
  else if (precision == Precision::fp16)
    matmul_fp16<<<tc_grid, 128>>>(M, N, K, A, a_row, a_col, B, b_row, b_col, C, accumulate);
  else
    matmul<<<grid, block>>>(M, N, K, A, a_row, a_col, B, b_row, b_col, C, accumulate);
  CUDA_CHECK(cudaGetLastError());
}

// accumulate.cu (the accumulation exercise's program) takes the kernels above
// and brings its own main.
#ifndef TRAIN_KERNELS_ONLY
int main(int argc, char** argv) {
  lab::mlp::Shape s;
  lab::mlp::Plan plan;
  if (argc > 1) s.batch = std::atoi(argv[1]);
  if (argc > 2) s.hidden = std::atoi(argv[2]);
  int steps = argc > 3 ? std::atoi(argv[3]) : 5;
  const char* prec = argc > 4 ? argv[4] : "fp32";
  if (argc > 5) s.layers = std::atoi(argv[5]);
  if (argc > 6) plan.accumulate = std::atoi(argv[6]);
  if (argc > 7) plan.every = std::atoi(argv[7]);
  if (!std::strcmp(prec, "bf16")) precision = Precision::bf16;
  else if (!std::strcmp(prec, "fp16")) precision = Precision::fp16;
  if (s.batch < 1 || s.hidden < 1 || steps < 1 || (precision == Precision::fp32 && std::strcmp(prec, "fp32")) ||
      s.layers < 1 || plan.accumulate < 1 || s.batch % plan.accumulate || plan.every < 0) {
    std::fprintf(stderr, "usage: train [BATCH >= 1] [HIDDEN >= 1] [STEPS >= 1] [fp32|bf16|fp16] [LAYERS >= 1] "
                         "[ACCUMULATE dividing BATCH] [EVERY >= 0]\n");
    return 2;
  }
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (precision == Precision::bf16 && prop.major < 8) {
    std::fprintf(stderr, "train: bf16 tensor cores need compute capability 8.0; the %s is %d.%d (use fp16 or fp32)\n",
                 prop.name, prop.major, prop.minor);
    return 2;
  }
  const int B = s.batch, D = s.in, Hd = s.hidden, C = s.classes, NL = s.layers;
  const int Bm = B / plan.accumulate;  // rows of one micro-batch
  const long P = s.params();
  const lab::mlp::AdamW opt;
  std::printf("shape batch %d in %d hidden %d classes %d layers %d params %ld precision %s accumulate %d every %d\n",
              B, D, Hd, C, NL, P, prec, plan.accumulate, plan.every);

  // 1. Device memory first, so that a step that does not fit is refused
  // before the host allocates anything big. Parameters, gradients and
  // AdamW's moments share one layout. Each group's bytes are what
  // cudaMemGetInfo says it took: the runtime's count, printed as "memory
  // GROUP BYTES". Activations and the batch are for one micro-batch: the
  // hidden layers' outputs (all of them, or only the checkpoints and one
  // segment's), dH (two buffers with more than one hidden layer: each
  // layer's comes from the one above), logits, dlogits, the rows' losses.
  float *p, *g, *m, *v, *X, *Hs, *Lg, *dL, *dHs, *row_loss, *loss;
  int* y;
  const int dh_buffers = NL > 1 ? 2 : 1;
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
  CUDA_CHECK(cudaMalloc(&Hs, size_t(plan.slots(NL)) * Bm * Hd * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dHs, size_t(dh_buffers) * Bm * Hd * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&Lg, size_t(Bm) * C * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dL, size_t(Bm) * C * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&row_loss, size_t(Bm) * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&loss, sizeof(float)));
  group("activations");
  CUDA_CHECK(cudaMalloc(&X, size_t(Bm) * D * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&y, size_t(Bm) * sizeof(int)));
  group("batch");

  // 2. Host data: starting weights, one batch at a time.
  std::vector<float> hp(P), hX(size_t(B) * D);
  std::vector<int> hy(B);
  lab::mlp::init_params(s, hp.data());
  CUDA_CHECK(cudaMemcpy(p, hp.data(), P * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(m, 0, P * sizeof(float)));
  CUDA_CHECK(cudaMemset(v, 0, P * sizeof(float)));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));

  // H_l, the output of hidden layer l (H_0 is the micro-batch X), and one
  // layer's forward: H_l = relu(H_{l-1} W_l + b_l).
  auto act = [&](int l) { return l == 0 ? X : Hs + size_t(plan.slot(l, NL)) * Bm * Hd; };
  auto forward = [&](int l) {
    const int fan_in = l == 1 ? D : Hd;
    launch_matmul(Bm, Hd, fan_in, act(l - 1), fan_in, 1, p + s.w(l), Hd, 1, act(l));
    bias_relu<<<cdiv(long(Bm) * Hd, 256), 256>>>(Bm, Hd, act(l), p + s.b(l));
  };

  for (int step = 0; step < steps; ++step) {
    lab::mlp::make_batch(s, step, hX.data(), hy.data());
    CUDA_CHECK(cudaEventRecord(start));
    for (int u = 0; u < plan.accumulate; ++u) {
      const int acc = u > 0;  // the micro-batches after the first add to the gradients
      // 3. The (micro-)batch crosses PCIe.
      CUDA_CHECK(cudaMemcpy(X, hX.data() + size_t(u) * Bm * D, size_t(Bm) * D * sizeof(float), cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(y, hy.data() + size_t(u) * Bm, size_t(Bm) * sizeof(int), cudaMemcpyHostToDevice));
      // 4. Forward.
      for (int l = 1; l <= NL; ++l) forward(l);
      launch_matmul(Bm, C, Hd, act(NL), Hd, 1, p + s.w2(), C, 1, Lg);
      // 5. Loss and its gradient.
      softmax_xent<<<cdiv(Bm, 128), 128>>>(Bm, C, Lg, p + s.b2(), y, dL, row_loss, B);
      mean_loss<<<1, 256>>>(Bm, row_loss, loss, B, acc);
      // 6. Backward: H^T and W^T and X^T through strides.
      launch_matmul(Hd, C, Bm, act(NL), 1, Hd, dL, C, 1, g + s.w2(), acc);
      col_sum<<<cdiv(C, 32), dim3(32, 32)>>>(Bm, C, dL, g + s.b2(), acc);
      float* dH = dHs;
      launch_matmul(Bm, Hd, C, dL, C, 1, p + s.w2(), 1, C, dH);
      for (int l = NL; l >= 1; --l) {
        // Checkpointing: the segment below this checkpoint, recomputed from
        // the checkpoint before it, just before backward needs it.
        if (plan.recompute_at(l, NL))
          for (int r = l - plan.every + 1; r < l; ++r) forward(r);
        relu_backward<<<cdiv(long(Bm) * Hd, 256), 256>>>(Bm * Hd, dH, act(l));
        const int fan_in = l == 1 ? D : Hd;
        launch_matmul(fan_in, Hd, Bm, act(l - 1), 1, fan_in, dH, Hd, 1, g + s.w(l), acc);
        col_sum<<<cdiv(Hd, 32), dim3(32, 32)>>>(Bm, Hd, dH, g + s.b(l), acc);
        if (l > 1) {  // dH_{l-1} = dH_l W_l^T, into the other buffer
          float* below = dH == dHs ? dHs + size_t(Bm) * Hd : dHs;
          launch_matmul(Bm, Hd, Hd, dH, Hd, 1, p + s.w(l), 1, Hd, below);
          dH = below;
        }
      }
    }
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
    // %.9g: every float's exact value, so runs can be compared bit for bit (checkpointing must not move a loss).
    std::printf("step %d loss %.9g\nstep %d predicted_ms %.6f\n", step, h_loss, step, ms);
  }
  for (float* b : {p, g, m, v, X, Hs, Lg, dL, dHs, row_loss, loss}) CUDA_CHECK(cudaFree(b));
  CUDA_CHECK(cudaFree(y));
  return 0;
}
#endif  // TRAIN_KERNELS_ONLY
