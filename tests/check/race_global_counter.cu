// expect: race line 7
// run: --kernel race_global_counter --grid 4 --block 64 --arg i32[1]
// Every thread adds one to a global counter with a plain load and store: the
// increments of other warps and blocks are lost (the result is far below 256).
extern "C" __global__ void race_global_counter(int* counter) {
  int* c = counter;
  *c = *c + 1;  // <- planted bug
}
