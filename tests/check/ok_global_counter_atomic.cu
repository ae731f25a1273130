// expect: clean
// run: --kernel ok_global_counter_atomic --grid 4 --block 64 --arg i32[1]
// The same count with atomicAdd: atomics never race with each other.
extern "C" __global__ void ok_global_counter_atomic(int* counter) {
  atomicAdd(counter, 1);
}
