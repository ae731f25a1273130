// expect: clean
// run: --kernel ok_its_spin_lock --grid 1 --block 32 --arg i32[1] --arg i32[1]
// Every lane of one warp takes a spin lock in turn. Since Volta each thread
// is scheduled independently (CUDA Programming Guide, "Independent Thread
// Scheduling"), so the lane holding the lock makes progress while its warp's
// other lanes spin; before Volta this deadlocked.
extern "C" __global__ void ok_its_spin_lock(int* lock, int* count) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
  volatile int* c = count;
  *c = *c + 1;
  __threadfence();
  atomicExch(lock, 0);
}
