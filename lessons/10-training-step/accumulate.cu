// Lesson 10, "Will it fit?": the gradient-accumulation exercise's program.
//
//   gpulab run lessons/10-training-step/accumulate.cu lessons/10-training-step/exercise_accumulate.cu \
//       -- [BATCH] [HIDDEN] [STEPS] [K]   (defaults 64 128 3 4)
//
// train.cu's kernels and task (one hidden layer, fp32, the reference AdamW
// and col_sum: build with -D ADAMW_REFERENCE=1 -D COL_SUM_REFERENCE=1, as
// the exercise's manifest does), with the step's micro-batch loop left to
// train_step in your file (accumulate.h says what it may call).
//
// Lines printed: "memory GROUP BYTES" for the parameters, gradients and
// optimizer state; "reserve rows R bytes N" when the activations are
// (re)allocated; per step "step S loss L" and "step S adamw_steps N".
#define TRAIN_KERNELS_ONLY 1
#include "train.cu"
#include "accumulate.h"

namespace {
lab::mlp::Shape s;
const lab::mlp::AdamW opt;
float *p, *g, *m, *v, *loss;
int step_count = 0, adamw_calls = 0;
std::vector<float> hX;
std::vector<int> hy;
// One micro-batch's device buffers, for `reserved` rows.
int reserved = 0;
float *X, *H, *Lg, *dL, *dH, *row_loss;
int* y;
}  // namespace

int batch_rows() { return s.batch; }

void reserve_rows(int rows) {
  if (rows < 1 || rows > s.batch) {
    std::fprintf(stderr, "reserve_rows(%d): rows must be 1 to the batch's %d\n", rows, s.batch);
    std::exit(1);
  }
  if (rows == reserved) return;
  if (reserved)
    for (void* b : {(void*)X, (void*)H, (void*)Lg, (void*)dL, (void*)dH, (void*)row_loss, (void*)y})
      CUDA_CHECK(cudaFree(b));
  const size_t before = device_used();
  CUDA_CHECK(cudaMalloc(&X, size_t(rows) * s.in * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&y, size_t(rows) * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&H, size_t(rows) * s.hidden * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dH, size_t(rows) * s.hidden * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&Lg, size_t(rows) * s.classes * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dL, size_t(rows) * s.classes * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&row_loss, size_t(rows) * sizeof(float)));
  reserved = rows;
  std::printf("reserve rows %d bytes %zu\n", rows, device_used() - before);
}

void micro_batch(int first, int rows, int accumulate) {
  const int B = s.batch, D = s.in, Hd = s.hidden, C = s.classes;
  if (first < 0 || rows < 1 || first + rows > B || rows > reserved) {
    std::fprintf(stderr, "micro_batch(%d, %d): rows %d..%d of a batch of %d, with room for %d (reserve_rows)\n", first,
                 rows, first, first + rows - 1, B, reserved);
    std::exit(1);
  }
  const int acc = accumulate != 0;
  CUDA_CHECK(cudaMemcpy(X, hX.data() + size_t(first) * D, size_t(rows) * D * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(y, hy.data() + first, size_t(rows) * sizeof(int), cudaMemcpyHostToDevice));
  // Forward: H = relu(X W1 + b1); logits = H W2.
  launch_matmul(rows, Hd, D, X, D, 1, p + s.w(1), Hd, 1, H);
  bias_relu<<<cdiv(long(rows) * Hd, 256), 256>>>(rows, Hd, H, p + s.b(1));
  launch_matmul(rows, C, Hd, H, Hd, 1, p + s.w2(), C, 1, Lg);
  // The loss and dlogits, both divided by the whole batch's rows B.
  softmax_xent<<<cdiv(rows, 128), 128>>>(rows, C, Lg, p + s.b2(), y, dL, row_loss, B);
  mean_loss<<<1, 256>>>(rows, row_loss, loss, B, acc);
  // Backward, into the gradients (added to them when accumulating).
  launch_matmul(Hd, C, rows, H, 1, Hd, dL, C, 1, g + s.w2(), acc);
  col_sum<<<cdiv(C, 32), dim3(32, 32)>>>(rows, C, dL, g + s.b2(), acc);
  launch_matmul(rows, Hd, C, dL, C, 1, p + s.w2(), 1, C, dH);
  relu_backward<<<cdiv(long(rows) * Hd, 256), 256>>>(rows * Hd, dH, H);
  launch_matmul(D, Hd, rows, X, 1, D, dH, Hd, 1, g + s.w(1), acc);
  col_sum<<<cdiv(Hd, 32), dim3(32, 32)>>>(rows, Hd, dH, g + s.b(1), acc);
  CUDA_CHECK(cudaGetLastError());
}

void adamw_step() {
  ++adamw_calls;
  const long P = s.params();
  // Adam's bias corrections count optimizer steps, as a real optimizer does.
  const int t = ++step_count;
  adamw<<<cdiv(P, 256), 256>>>(int(P), p, g, m, v, opt.lr, opt.beta1, opt.beta2, opt.eps, opt.weight_decay, opt.c1(t),
                               opt.c2(t));
  CUDA_CHECK(cudaGetLastError());
}

int main(int argc, char** argv) {
  s.batch = argc > 1 ? std::atoi(argv[1]) : 64;
  s.hidden = argc > 2 ? std::atoi(argv[2]) : 128;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 3, K = argc > 4 ? std::atoi(argv[4]) : 4;
  s.layers = 1;
  if (s.batch < 1 || s.hidden < 1 || steps < 1 || K < 1 || s.batch % K) {
    std::fprintf(stderr, "usage: accumulate [BATCH >= 1] [HIDDEN >= 1] [STEPS >= 1] [K dividing BATCH]\n");
    return 2;
  }
  const long P = s.params();
  std::printf("shape batch %d in %d hidden %d classes %d params %ld micro_batches %d\n", s.batch, s.in, s.hidden,
              s.classes, P, K);
  size_t used = device_used();
  auto group = [&](const char* name) {
    const size_t now = device_used();
    std::printf("memory %s %zu\n", name, now - used);
    used = now;
  };
  CUDA_CHECK(cudaMalloc(&p, P * sizeof(float)));
  group("weights");
  CUDA_CHECK(cudaMalloc(&g, P * sizeof(float)));
  group("gradients");
  CUDA_CHECK(cudaMalloc(&m, P * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&v, P * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&loss, sizeof(float)));
  group("optimizer");
  std::vector<float> hp(P);
  lab::mlp::init_params(s, hp.data());
  CUDA_CHECK(cudaMemcpy(p, hp.data(), P * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(m, 0, P * sizeof(float)));
  CUDA_CHECK(cudaMemset(v, 0, P * sizeof(float)));
  CUDA_CHECK(cudaMemset(loss, 0, sizeof(float)));
  hX.resize(size_t(s.batch) * s.in);
  hy.resize(s.batch);
  for (int step = 0; step < steps; ++step) {
    lab::mlp::make_batch(s, step, hX.data(), hy.data());
    adamw_calls = 0;
    train_step(K);
    float h_loss = 0.f;
    CUDA_CHECK(cudaMemcpy(&h_loss, loss, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("step %d loss %.9g\nstep %d adamw_steps %d\n", step, h_loss, step, adamw_calls);
  }
  if (reserved)
    for (void* b : {(void*)X, (void*)H, (void*)Lg, (void*)dL, (void*)dH, (void*)row_loss, (void*)y})
      CUDA_CHECK(cudaFree(b));
  for (float* b : {p, g, m, v, loss}) CUDA_CHECK(cudaFree(b));
  return 0;
}
