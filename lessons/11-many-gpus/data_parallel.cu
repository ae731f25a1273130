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
//      backward pass to the update, then is freed
//   3  weights sharded too, layer by layer: rank r keeps chunk r of each
//      layer; an all-gather rebuilds a layer's weights just before its
//      forward pass and they are freed after their last use, and each
//      layer's gradient is reduce-scattered as soon as the backward pass
//      has made it, then freed
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
  // ZeRO 3 works layer by layer: layer 1 is W1, b1 (parameters [0, w2)),
  // layer 2 is W2, b2 ([w2, P)); each has its own ring of N chunks, and rank
  // r keeps chunk r of each, side by side: its shard.
  Ring layer_ring[2];
  const long layer_begin[2] = {0, s.w2()};
  for (int l = 0; l < 2; ++l) {
    layer_ring[l].ranks = N;
    layer_ring[l].n = (l == 0 ? s.w2() : P) - layer_begin[l];
  }
  auto shard = [&](int r) { return layer_ring[0].chunk_size(r) + layer_ring[1].chunk_size(r); };
  std::vector<float> hp(P), hX(size_t(B) * D);
  std::vector<int> hy(B);
  lab::mlp::init_params(s, hp.data());

  // 1. Each GPU's memory. "memory rank R GROUP BYTES": cudaMemGetInfo's count.
  std::vector<Rank> rk(N);
  for (int r = 0; r < N; ++r) {
    CUDA_CHECK(cudaSetDevice(r));
    Rank& k = rk[r];
    const long own = zero == 3 ? shard(r) : ring.chunk_size(r);
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
    CUDA_CHECK(cudaEventCreate(&ring.sent[r]));  // on device r, where rank r records them (ring.h)
    CUDA_CHECK(cudaEventCreate(&ring.done[r]));
    for (Ring& lr : layer_ring) {  // a layer's chunks are smaller; the same scratch and events serve
      lr.scratch[r] = ring.scratch[r];
      lr.sent[r] = ring.sent[r];
      lr.done[r] = ring.done[r];
    }
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
    if (zero == 3) {
      const long a = layer_ring[0].chunk_size(r), b = layer_ring[1].chunk_size(r);
      CUDA_CHECK(cudaMemcpy(k.p, hp.data() + layer_ring[0].chunk_begin(r), a * sizeof(float), cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(k.p + a, hp.data() + layer_begin[1] + layer_ring[1].chunk_begin(r), b * sizeof(float),
                            cudaMemcpyHostToDevice));
    } else {
      CUDA_CHECK(cudaMemcpy(k.p, hp.data(), P * sizeof(float), cudaMemcpyHostToDevice));
    }
    CUDA_CHECK(cudaEventCreate(&k.start));
    CUDA_CHECK(cudaEventCreate(&k.stop));
  }

  // ZeRO 3: a layer's whole weights exist only while a pass needs them,
  // gathered from every rank's chunk; a layer's whole gradient only from the
  // backward pass to its reduce-scatter.
  std::vector<float*> gathered[2] = {std::vector<float*>(N), std::vector<float*>(N)};
  std::vector<float*> layer_grad[2] = {std::vector<float*>(N), std::vector<float*>(N)};
  int passes = 0;  // ring reduce-scatters and all-gathers, each over the whole model
  auto gather_layer = [&](int l) {
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      CUDA_CHECK(cudaMalloc(&gathered[l][r], layer_ring[l].n * sizeof(float)));
      const float* mine = rk[r].p + (l == 0 ? 0 : layer_ring[0].chunk_size(r));
      CUDA_CHECK(cudaMemcpy(gathered[l][r] + layer_ring[l].chunk_begin(r), mine,
                            layer_ring[l].chunk_size(r) * sizeof(float), cudaMemcpyDeviceToDevice));
    }
    ring_all_gather(layer_ring[l], gathered[l].data());
    if (l == 1) ++passes;  // both layers' gathers: one pass over the model
  };
  auto free_layer = [&](std::vector<float*>& bufs) {
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      CUDA_CHECK(cudaFree(bufs[r]));
    }
  };
  // Parameter i's weight and gradient on rank r: in its own arrays, or (ZeRO 3) in the layer's gathered ones.
  auto W = [&](int r, long i) -> const float* {
    if (zero != 3) return rk[r].p + i;
    const int l = i < layer_begin[1] ? 0 : 1;
    return gathered[l][r] + (i - layer_begin[l]);
  };
  auto G = [&](int r, long i) -> float* {
    if (zero != 3) return rk[r].g + i;
    const int l = i < layer_begin[1] ? 0 : 1;
    return layer_grad[l][r] + (i - layer_begin[l]);
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
    // 2. Each rank: its rows across PCIe, then the forward pass, layer by layer.
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      Rank& k = rk[r];
      CUDA_CHECK(cudaMemcpy(k.X, hX.data() + size_t(r) * Bl * D, size_t(Bl) * D * sizeof(float), cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(k.y, hy.data() + size_t(r) * Bl, size_t(Bl) * sizeof(int), cudaMemcpyHostToDevice));
    }
    if (zero == 3) gather_layer(0);
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      Rank& k = rk[r];
      launch_matmul(Bl, Hd, D, k.X, D, 1, W(r, s.w1()), Hd, 1, k.H);
      bias_relu<<<cdiv(long(Bl) * Hd, 256), 256>>>(Bl, Hd, k.H, W(r, s.b1()));
    }
    if (zero == 3) free_layer(gathered[0]), gather_layer(1);  // layer 1's weights are not needed again
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      Rank& k = rk[r];
      launch_matmul(Bl, C, Hd, k.H, Hd, 1, W(r, s.w2()), C, 1, k.L);
      // Divided by the global batch B, not the rank's Bl rows: the ranks'
      // gradients (and losses) then sum to the global batch's mean.
      softmax_xent<<<cdiv(Bl, 128), 128>>>(Bl, C, k.L, W(r, s.b2()), k.y, k.dL, k.row_loss, B);
      mean_loss<<<1, 256>>>(Bl, k.row_loss, k.loss, B, 0);
    }
    // 3. Backward: layer 2, then layer 1. ZeRO 2 makes the whole gradient
    // here and frees it after the update; ZeRO 3 one layer's at a time.
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      Rank& k = rk[r];
      if (zero == 2) CUDA_CHECK(cudaMalloc(&k.g, P * sizeof(float)));
      if (zero == 3) CUDA_CHECK(cudaMalloc(&layer_grad[1][r], layer_ring[1].n * sizeof(float)));
      launch_matmul(Hd, C, Bl, k.H, 1, Hd, k.dL, C, 1, G(r, s.w2()));
      col_sum<<<cdiv(C, 32), dim3(32, 32)>>>(Bl, C, k.dL, G(r, s.b2()), 0);
      launch_matmul(Bl, Hd, C, k.dL, C, 1, W(r, s.w2()), 1, C, k.dH);
    }
    if (zero == 3) free_layer(gathered[1]), ring_reduce_scatter(layer_ring[1], layer_grad[1].data());
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      Rank& k = rk[r];
      if (zero == 3) CUDA_CHECK(cudaMalloc(&layer_grad[0][r], layer_ring[0].n * sizeof(float)));
      grads[r] = k.g;
      relu_backward<<<cdiv(long(Bl) * Hd, 256), 256>>>(Bl * Hd, k.dH, k.H);
      launch_matmul(D, Hd, Bl, k.X, 1, D, k.dH, Hd, 1, G(r, s.w1()));
      col_sum<<<cdiv(Hd, 32), dim3(32, 32)>>>(Bl, Hd, k.dH, G(r, s.b1()), 0);
      CUDA_CHECK(cudaGetLastError());
    }
    if (zero == 3) ring_reduce_scatter(layer_ring[0], layer_grad[0].data()), ++passes;
    // 4. Sum the gradients across the GPUs (ZeRO 3 has, layer by layer):
    // chunk r of rank r's g is complete.
    if (zero != 3) {
      if (verify) host_sum();
      ring_reduce_scatter(ring, grads.data());
      ++passes;
    }
    // 5. AdamW. ZeRO 0: the gradients' all-gather, then every rank updates
    // every weight. ZeRO 1-3: rank r updates its chunk; 1 and 2 then gather
    // the updated weights, 3 keeps only its chunks.
    if (zero == 0) ring_all_gather(ring, grads.data()), ++passes;
    if (verify && zero != 3) std::printf("verify step %d max_error %.3g\n", step, max_error());
    for (int r = 0; r < N; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      Rank& k = rk[r];
      auto update = [&](float* p, const float* g, float* m, float* v, long n) {
        adamw<<<cdiv(n, 256), 256>>>(int(n), p, g, m, v, opt.lr, opt.beta1, opt.beta2, opt.eps, opt.weight_decay,
                                     opt.c1(step + 1), opt.c2(step + 1));
        CUDA_CHECK(cudaGetLastError());
      };
      if (zero == 3) {  // the shard: layer 1's chunk r, then layer 2's
        const long a = layer_ring[0].chunk_size(r), b = layer_ring[1].chunk_size(r);
        update(k.p, layer_grad[0][r] + layer_ring[0].chunk_begin(r), k.m, k.v, a);
        update(k.p + a, layer_grad[1][r] + layer_ring[1].chunk_begin(r), k.m + a, k.v + a, b);
        CUDA_CHECK(cudaFree(layer_grad[0][r]));
        CUDA_CHECK(cudaFree(layer_grad[1][r]));
        continue;
      }
      const long begin = zero == 0 ? 0 : ring.chunk_begin(r), n = zero == 0 ? P : ring.chunk_size(r);
      update(k.p + begin, k.g + begin, k.m, k.v, n);
      if (zero == 2) CUDA_CHECK(cudaFree(k.g));
    }
    if (zero == 1 || zero == 2) {
      std::vector<float*> weights(N);
      for (int r = 0; r < N; ++r) weights[r] = rk[r].p;
      ring_all_gather(ring, weights.data());
      ++passes;
    }
    // 6. The loss comes back from each rank; the step's time is the slowest GPU's.
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
