// kernels/mechanisms/atomics.cu: global atomicAdd to one address from every
// thread, against every thread to its own address (`spread` 1). The L2 applies
// one address's updates one at a time (Kepler GK110 whitepaper, 2012: same-
// address atomics at one per clock).
extern "C" __global__ void atomic_add(unsigned* counters, int spread, int reps) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* p = counters + (spread ? t : 0);
  for (int r = 0; r < reps; ++r) atomicAdd(p, 1u);
}

// The same with floating-point adds (REDG.E.ADD.F32 in the sm_90 SASS, where
// the integer add is REDG.E.ADD): the L2 applies them to one address at its
// own rate.
extern "C" __global__ void atomic_add_f32(float* counters, int spread, int reps) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float* p = counters + (spread ? t : 0);
  for (int r = 0; r < reps; ++r) atomicAdd(p, 1.0f);
}
