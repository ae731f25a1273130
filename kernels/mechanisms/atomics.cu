// kernels/mechanisms/atomics.cu: global atomicAdd to one address from every
// thread, against every thread to its own address (`spread` 1). The L2 applies
// one address's updates one at a time (Kepler GK110 whitepaper, 2012: same-
// address atomics at one per clock).
extern "C" __global__ void atomic_add(unsigned* counters, int spread, int reps) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* p = counters + (spread ? t : 0);
  for (int r = 0; r < reps; ++r) atomicAdd(p, 1u);
}
