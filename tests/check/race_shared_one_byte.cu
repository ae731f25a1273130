// expect: race line 15
// run: --kernel race_shared_one_byte --grid 1 --block 64 --arg i32[32]
// A word whose bytes have different histories: warp 1 writes each word
// whole; after the barrier warp 0 writes one byte of it (byte 2) and warp 1
// reads the word whole, with no barrier between. Bytes 0, 1 and 3 are
// ordered by the barrier, byte 2 races: the checker may judge the bytes of
// one access together only where their histories are alike (sanitize.cpp),
// and must find the race on the third byte of the read.
extern "C" __global__ void race_shared_one_byte(int* out) {
  __shared__ int word[32];
  const int t = threadIdx.x;
  if (t >= 32) word[t - 32] = t;
  __syncthreads();
  if (t < 32) reinterpret_cast<unsigned char*>(&word[t])[2] = 7;
  if (t >= 32) out[t - 32] = word[t - 32];  // <- planted bug
}
