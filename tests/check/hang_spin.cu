// expect: hang line 6
// run: --kernel hang_spin --grid 1 --block 32 --arg i32[1] --max-steps 20000
// Waits for a flag that nothing ever sets.
extern "C" __global__ void hang_spin(int* flag) {
  volatile int* f = flag;
  while (f[0] == 0) {  // <- planted bug
  }
}
