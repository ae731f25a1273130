// Lesson 11: lesson 10's MLP trained data-parallel over N GPUs, as an
// ordinary CUDA program.
//
//   gpulab run lessons/11-many-gpus/data_parallel.cu lessons/11-many-gpus/exercise_ring.cu \
//       --gpus N [--link nvlink|pcie] -- [BATCH] [HIDDEN] [STEPS] [ZERO] [verify]   (defaults 64 128 5 0)
//
// Every GPU (rank r = device r) holds the model, takes rows [r B/N, (r+1) B/N)
// of each global batch of B, and runs lesson 10's forward and backward on
// them. The gradients are then summed across GPUs by a ring (exercise_ring.cu:
// reduce-scatter, then all-gather, each N - 1 steps of peer copies and adds)
// and every GPU applies the same AdamW update, so the weights stay identical
// and the loss is the single-GPU loss of the same global batch.
//
// ZERO picks how much of the training state each GPU keeps (Rajbhandari et
// al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
// Models", SC 2020, section 5):
//   0  everything on every GPU: weights, gradients, AdamW's m and v
//   1  m and v sharded: rank r keeps chunk r, updates only weights chunk r,
//      and an all-gather of the weights replaces the gradients' all-gather
//   2  gradients sharded too: the full gradient lives only from the
//      backward to its reduce-scatter, then is freed
//   3  weights sharded too: before the forward and again before the
//      backward an all-gather rebuilds the full weights, freed after use
//
// Lines printed: "shape ...", per rank "memory rank R GROUP BYTES" (what
// cudaMemGetInfo says each group took), per step "step S loss L" (the sum
// over ranks of their rows' losses divided by B: the global batch's loss) and "step S
// predicted_ms T" (the slowest GPU's time for the step, a prediction of the
// machine model), per rank "memory rank R between_steps BYTES", and "ring
// passes K floats n": how many reduce-scatters and all-gathers ran, over
// buffers of n floats. With "verify" (what `gpulab check` passes) each step
// also compares the summed gradients with a sum on the host: "verify step S
// max_error E" (the copies it takes add to the predicted time).
// `gpulab run --gpus N` then prints each GPU's timeline and peak bytes and each
// link's bytes, counted by the runtime.
//
// On a machine with several NVIDIA GPUs the same file runs with NVIDIA's
// runtime (`gpulab run ... --backend cuda`): the copies then cross the real
// NVLink or PCIe. A production program would call NCCL's ncclAllReduce /
// ncclReduceScatter / ncclAllGather instead of exercise_ring.cu (README).

// Lesson 10's kernels (matmul, bias_relu, softmax_xent, mean_loss, col_sum,
// relu_backward) and its reference AdamW and column sum, with its main()
// renamed away: one copy of each kernel in the lab.
#define ADAMW_REFERENCE 1
#define COL_SUM_REFERENCE 1
#define main lesson10_train_main
#include "../10-training-step/train.cu"
#undef main
#include "ring.h"

#include <algorithm>
#include <cmath>

__global__ void add_into(long n, float* dst, const float* src) {
  long i = blockIdx.x * long(blockDim.x) + threadIdx.x;
  if (i < n) dst[i] += src[i];
}

struct Rank {
  float *p = nullptr, *g = nullptr, *m = nullptr, *v = nullptr;  // ZeRO decides which are whole and which a chunk
  float *X = nullptr, *H = nullptr, *L = nullptr, *dL = nullptr, *dH = nullptr, *row_loss = nullptr, *loss = nullptr;
  int* y = nullptr;
  cudaEvent_t start, stop;
};

int main(int argc, char** argv) {
  lab::mlp::Shape s;
  if (argc > 1) s.batch = std::atoi(argv[1]);
  if (argc > 2) s.hidden = std::atoi(argv[2]);
  const int steps = argc > 3 ? std::atoi(argv[3]) : 5;
  const int zero = argc > 4 ? std::atoi(argv[4]) : 0;
  const bool verify = argc > 5 && !std::strcmp(argv[5], "verify");
  int N = 0;
  CUDA_CHECK(cudaGetDeviceCount(&N));
  if (s.batch < 1 || s.hidden < 1 || steps < 1 || zero < 0 || zero > 3 || N > kMaxRanks || s.batch % N) {
    std::fprintf(stderr, "usage: data_parallel [BATCH, a multiple of the GPUs] [HIDDEN] [STEPS] [ZERO 0-3]; "
                 "at most %d GPUs (%d here)\n", kMaxRanks, N);
    return 2;
  }
  const int B = s.batch, Bl = B / N, D = s.in, Hd = s.hidden, C = s.classes;
  const long P = s.params();
  const lab::mlp::AdamW opt;
  std::printf("shape batch %d in %d hidden %d classes %d params %ld gpus %d zero %d\n", B, D, Hd, C, P, N, zero);

  Ring ring;
  ring.ranks = N;
  ring.n = P;
  std::vector<float> hp(P), hX(size_t(B) * D);
  std::vector<int> hy(B);
  lab::mlp::init_params(s, hp.data());

  // 1. Each GPU's memory. "memory rank R GROUP BYTES": cudaMemGetInfo's count.
  std::vector<Rank> rk(N);
  for (int r = 0; r < N; ++r) {
    CUDA_CHECK(cudaSetDevice(r));
    Rank& k = rk[r];
    const long own = ring.chunk_size(r), begin = ring.chunk_begin(r);
    size_t free0 = 0, total = 0, used = 0;
    CUDA_CHECK(cudaMemGetInfo(&free0, &total));
    used = total - free0;
    auto group = [&](const char* name) {
      size_t f = 0, t = 0;
      CUDA_CHECK(cudaMemGetInfo(&f, &t));
      std::printf("memory rank %d %s %zu\n", r, name, (t - f) - used);
      used = t - f;
    };
    CUDA_CHECK(cudaMalloc(&k.p, (zero == 3 ? own : P) * sizeof(float)));
    group("weights");
    if (zero <= 1) CUDA_CHECK(cudaMalloc(&k.g, P * sizeof(float)));
    group("gradients");
    CUDA_CHECK(cudaMalloc(&k.m, (zero >= 1 ? own : P) * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&k.v, (zero >= 1 ? own : P) * sizeof(float)));
    group("optimizer");
    if (N > 1) CUDA_CHECK(cudaMalloc(&ring.scratch[r], (P + N - 1) / N * sizeof(float)));  // the largest chunk
    group("ring");
    CUDA_CHECK(cudaMalloc(&k.H, size_t(Bl) * Hd * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&k.dH, size_t(Bl) * Hd * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&k.L, size_t(Bl) * C * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&k.dL, size_t(Bl) * C * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&k.row_loss, size_t(Bl) * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&k.loss, sizeof(float)));
    group("activations");
    CUDA_CHECK(cudaMalloc(&k.X, size_t(Bl) * D * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&k.y, size_t(Bl) * sizeof(int)));
    group("batch");
    const float* init = hp.data() + (zero == 3 ? begin : 0);
    CUDA_CHECK(cudaMemcpy(k.p, init, (zero == 3 ? own : P) * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaEventCreate(&k.start));
    CUDA_CHECK(cudaEventCreate(&k.stop));
  }

  // The full weights of a ZeRO-3 rank exist only while a pass needs them:
  // gathered from every rank's chunk, then freed.
  std::vector<float*> full(N, nullptr);
  int passes = 0;  // ring reduce-scatters and all-gathers
  auto gather_weights = [&] {
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      CUDA_CHECK(cudaMalloc(&full[r], P * sizeof(float)));
      CUDA_CHECK(cudaMemcpy(full[r] + ring.chunk_begin(r), rk[r].p, ring.chunk_size(r) * sizeof(float),
                            cudaMemcpyDeviceToDevice));
    }
    ring_all_gather(ring, full.data());
    ++passes;
  };
  auto free_weights = [&] {
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      CUDA_CHECK(cudaFree(full[r]));
    }
  };
  std::vector<float*> grads(N);
  // verify: every rank's gradient before the ring, summed on the host in double.
  std::vector<double> expect(P);
  auto host_sum = [&] {
    std::fill(expect.begin(), expect.end(), 0.0);
    std::vector<float> h(P);
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      CUDA_CHECK(cudaMemcpy(h.data(), grads[r], P * sizeof(float), cudaMemcpyDeviceToHost));
      for (long i = 0; i < P; ++i) expect[i] += h[i];
    }
  };
  // ... then what each rank must hold: every element (ZeRO 0), or its chunk.
  auto max_error = [&] {
    double worst = 0;
    std::vector<float> h(P);
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      CUDA_CHECK(cudaMemcpy(h.data(), grads[r], P * sizeof(float), cudaMemcpyDeviceToHost));
      const long lo = zero == 0 ? 0 : ring.chunk_begin(r), hi = zero == 0 ? P : ring.chunk_begin(r + 1);
      for (long i = lo; i < hi; ++i) worst = std::max(worst, std::fabs(h[i] - expect[i]) / std::max(1.0, std::fabs(expect[i])));
    }
    return worst;
  };

  for (int step = 0; step < steps; ++step) {
    lab::mlp::make_batch(s, step, hX.data(), hy.data());
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      CUDA_CHECK(cudaEventRecord(rk[r].start));
    }
    // 2. Each rank: its rows across PCIe, forward, loss, backward.
    if (zero == 3) gather_weights();
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      Rank& k = rk[r];
      const float* w = zero == 3 ? full[r] : k.p;
      CUDA_CHECK(cudaMemcpy(k.X, hX.data() + size_t(r) * Bl * D, size_t(Bl) * D * sizeof(float), cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(k.y, hy.data() + size_t(r) * Bl, size_t(Bl) * sizeof(int), cudaMemcpyHostToDevice));
      launch_matmul(Bl, Hd, D, k.X, D, 1, w + s.w1(), Hd, 1, k.H);
      bias_relu<<<cdiv(long(Bl) * Hd, 256), 256>>>(Bl, Hd, k.H, w + s.b1());
      launch_matmul(Bl, C, Hd, k.H, Hd, 1, w + s.w2(), C, 1, k.L);
      // Divided by the global batch B, not the rank's Bl rows: the ranks'
      // gradients (and losses) then sum to the global batch's mean.
      softmax_xent<<<cdiv(Bl, 128), 128>>>(Bl, C, k.L, w + s.b2(), k.y, k.dL, k.row_loss, B);
      mean_loss<<<1, 256>>>(Bl, k.row_loss, k.loss, B, 0);
    }
    if (zero == 3) free_weights(), gather_weights();  // ZeRO-3: the backward gathers the weights again
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      Rank& k = rk[r];
      const float* w = zero == 3 ? full[r] : k.p;
      if (zero >= 2) CUDA_CHECK(cudaMalloc(&k.g, P * sizeof(float)));  // lives until the reduce-scatter is done
      grads[r] = k.g;
      launch_matmul(Hd, C, Bl, k.H, 1, Hd, k.dL, C, 1, k.g + s.w2());
      col_sum<<<cdiv(C, 32), dim3(32, 32)>>>(Bl, C, k.dL, k.g + s.b2(), 0);
      launch_matmul(Bl, Hd, C, k.dL, C, 1, w + s.w2(), 1, C, k.dH);
      relu_backward<<<cdiv(long(Bl) * Hd, 256), 256>>>(Bl * Hd, k.dH, k.H);
      launch_matmul(D, Hd, Bl, k.X, 1, D, k.dH, Hd, 1, k.g + s.w1());
      col_sum<<<cdiv(Hd, 32), dim3(32, 32)>>>(Bl, Hd, k.dH, k.g + s.b1(), 0);
      CUDA_CHECK(cudaGetLastError());
    }
    if (zero == 3) free_weights();
    // 3. Sum the gradients across the GPUs: chunk r of rank r's g is complete.
    if (verify) host_sum();
    ring_reduce_scatter(ring, grads.data());
    ++passes;
    // 4. AdamW. ZeRO 0: the gradients' all-gather, then every rank updates
    // every weight. ZeRO 1-3: rank r updates its chunk; 1 and 2 then gather
    // the updated weights, 3 keeps only its chunk.
    if (zero == 0) ring_all_gather(ring, grads.data()), ++passes;
    if (verify) std::printf("verify step %d max_error %.3g\n", step, max_error());
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      Rank& k = rk[r];
      const long begin = zero == 0 ? 0 : ring.chunk_begin(r), n = zero == 0 ? P : ring.chunk_size(r);
      float* p = zero == 3 ? k.p : k.p + begin;
      adamw<<<cdiv(n, 256), 256>>>(int(n), p, k.g + begin, k.m, k.v, opt.lr, opt.beta1, opt.beta2, opt.eps,
                                   opt.weight_decay, opt.c1(step + 1), opt.c2(step + 1));
      CUDA_CHECK(cudaGetLastError());
      if (zero >= 2) CUDA_CHECK(cudaFree(k.g));
    }
    if (zero == 1 || zero == 2) {
      std::vector<float*> weights(N);
      for (int r = 0; r < N; ++r) weights[r] = rk[r].p;
      ring_all_gather(ring, weights.data());
      ++passes;
    }
    // 5. The loss comes back from each rank; the step's time is the slowest GPU's.
    float loss = 0.f, worst_ms = 0.f;
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      float l = 0.f, ms = 0.f;
      CUDA_CHECK(cudaMemcpy(&l, rk[r].loss, sizeof(float), cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaEventRecord(rk[r].stop));
      CUDA_CHECK(cudaEventSynchronize(rk[r].stop));
      CUDA_CHECK(cudaEventElapsedTime(&ms, rk[r].start, rk[r].stop));
      loss += l;  // each rank's row losses over B: the sum is the global batch's mean
      worst_ms = std::max(worst_ms, ms);
    }
    std::printf("step %d loss %.6f\nstep %d predicted_ms %.6f\n", step, loss, step, worst_ms);
  }
  std::printf("ring passes %d floats %ld\n", passes, P);
  for (int r = 0; r < N; ++r) {
    CUDA_CHECK(cudaSetDevice(r));
    size_t f = 0, t = 0;
    CUDA_CHECK(cudaMemGetInfo(&f, &t));
    std::printf("memory rank %d between_steps %zu\n", r, t - f);
  }
  return 0;
}
