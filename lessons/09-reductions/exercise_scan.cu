// Lesson 9, exercise scan: Y[row][j] = X[row][0] + ... + X[row][j] (an
// inclusive prefix sum), one block of 256 threads per row of N <= 256 floats.
//
// This version is correct, and serialised: thread 0 walks the row, one
// addition after another, while 255 threads wait. Make all 256 work:
//
// TODO 1: each thread t loads X[row][t] (0 past N) into a shared array s.
// TODO 2: Hillis-Steele: for k = 1, 2, 4, ..., 128 every thread adds
//         s[t - k] (when t >= k) into s[t]. Read the neighbour into a
//         register, __syncthreads(), then add and __syncthreads() again:
//         otherwise a thread may read a value already updated in this step.
// TODO 3: each thread t < N writes s[t] to Y[row][t].
#define BLOCK 256

extern "C" __global__ void scan_rows(const float* X, float* Y, int M, int N) {
  size_t row = (size_t)blockIdx.x * N;
  if (threadIdx.x == 0) {
    float run = 0.f;
    for (int j = 0; j < N; ++j) {
      run += X[row + j];
      Y[row + j] = run;
    }
  }
}
