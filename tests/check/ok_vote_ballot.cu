// expect: clean
// run: --kernel ok_vote_ballot --grid 1 --block 64 --arg i32[64]=iota --arg u32[4] --arg i32=50
// Votes with a full warp, then a shuffle among exactly the lanes a ballot named.
extern "C" __global__ void ok_vote_ballot(const int* in, unsigned* out, int n) {
  int t = threadIdx.x;
  int v = t < n ? in[t] : 0;
  unsigned mask = __ballot_sync(0xffffffffu, t < n);
  int any_odd = __any_sync(0xffffffffu, v & 1);
  if (t < n) {
    int first = __shfl_sync(mask, v, __ffs(mask) - 1);
    v += first;
  }
  if ((t & 31) == 0) { out[t / 32] = mask; out[2 + t / 32] = unsigned(any_odd + v); }
}
