// tests/test_ptx_nvrtc.cpp: the parser on real compiler output. CUDA C++ is
// compiled with NVRTC (lab::compile) for several architectures and every
// kernel must parse, with the instruction families we expect present, every
// branch resolved and every branch given a reconvergence point.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "lab/compile/nvrtc.h"
#include "lab/ptx/cfg.h"
#include "lab/ptx/parser.h"

using namespace lab::ptx;
namespace fs = std::filesystem;

namespace {

// CUDA 13 dropped sm_70 (Volta) from NVRTC; compute_75 is the oldest target it accepts.
const char* kArchs[] = {"compute_75", "compute_80", "compute_90"};

int arch_number(const std::string& arch) { return std::stoi(arch.substr(arch.find('_') + 1)); }

Module compile_and_parse(const std::string& src, const std::string& name, const std::string& arch) {
  lab::compile::CompileOptions opt;
  opt.arch = arch;
  std::string ptx = lab::compile::compile_to_ptx(src, name, opt);
  return parse(ptx, name + ".ptx");
}

bool has_op(const Kernel& k, Op op) {
  return std::any_of(k.code.begin(), k.code.end(), [&](const Instr& in) { return in.op == op; });
}

// Structural checks every decoded kernel must satisfy.
void check_kernel_sane(const Kernel& k) {
  INFO("kernel " << k.name);
  REQUIRE(!k.code.empty());
  CHECK(k.labels.size() == k.code.size());
  std::vector<int32_t> ipdom = ipdom_targets(k);
  REQUIRE(ipdom.size() == k.code.size());
  for (size_t i = 0; i < k.code.size(); ++i) {
    const Instr& in = k.code[i];
    CHECK(in.op != Op::Invalid);
    CHECK(in.loc < k.locs.size());
    for (int o = 0; o < in.num_ops; ++o) {
      const Operand& op = in.ops[o];
      if (op.kind == OperandKind::Reg) CHECK((op.reg < k.num_slots || op.reg == kSinkReg));
      if (op.kind == OperandKind::Addr) CHECK((op.reg < k.num_slots || op.reg == kNoReg));
      if (op.kind == OperandKind::Vec) {
        REQUIRE(op.reg + op.vec_len <= k.vec_slots.size());
        for (int e = 0; e < op.vec_len; ++e)
          CHECK((k.vec_slots[op.reg + e] < k.num_slots || k.vec_slots[op.reg + e] == kSinkReg));
      }
    }
    if (in.op == Op::Bra) {
      CHECK(in.target >= 0);
      CHECK(in.target <= static_cast<int32_t>(k.code.size()));
      CHECK(ipdom[i] >= 0);
      CHECK(ipdom[i] <= static_cast<int32_t>(k.code.size()));
    } else {
      CHECK(ipdom[i] == -1);
    }
  }
}

// Lines the kernels' instructions map back to, in the main file (1).
bool maps_to_line(const Kernel& k, uint32_t line) {
  return std::any_of(k.locs.begin(), k.locs.end(), [&](const SourceLoc& l) { return l.line == line; });
}

const char* kTiledGemm = R"(
#define TILE 16
extern "C" __global__ void sgemm_tiled(int M, int N, int K, const float* A, const float* B, float* C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE + 1];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.f;
    Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
)";

const char* kReduce = R"(
__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  return v;
}
__device__ unsigned int counter;
extern "C" __global__ void reduce(const float* x, float* out, int n) {
  extern __shared__ float partial[];
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += x[i];
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0;
    v = warp_sum(v);
    if (threadIdx.x == 0) { atomicAdd(out, v); atomicInc(&counter, 1000u); }
  }
  __syncwarp();
  int lane = threadIdx.x & 31;
  unsigned ballot = __ballot_sync(0xffffffffu, v > 0.f);
  if (__all_sync(0xffffffffu, n > 0) && __any_sync(ballot, lane == 3)) out[1 + lane] = __shfl_xor_sync(0xffffffffu, v, 1) + __shfl_sync(0xffffffffu, v, 0) + __shfl_up_sync(0xffffffffu, v, 2);
  atomicMax((int*)out + 40, n); atomicCAS((int*)out + 41, 0, n); atomicExch((int*)out + 42, n);
  atomicMin((unsigned long long*)out + 44, 5ull); atomicAdd((double*)out + 46, 1.0);
}
)";

const char* kLocalArray = R"(
extern "C" __global__ void local_array(int* out, int n, int seed) {
  int hist[24];
  for (int i = 0; i < 24; ++i) hist[i] = i * seed;
  for (int i = 0; i < n; ++i) hist[(i * 7 + threadIdx.x) % 24] += i;   // data-dependent trip count
  int s = 0;
  int j = threadIdx.x;
  while (j < n * 3) { s += hist[j % 24]; j += 5 + (s & 3); }            // data-dependent loop
  out[threadIdx.x] = s;
}
)";

const char* kHalf = R"(
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void convert(const __half* h, const __nv_bfloat16* b, float* out, __half* ho, __nv_bfloat16* bo, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float f = __half2float(h[i]) + __bfloat162float(b[i]);
  __half2 p = __floats2half2_rn(f, 2.f * f);
  p = __hmul2(p, p);
  ho[i] = __float2half_rz(f) + __low2half(p);
  bo[i] = __float2bfloat16(f * 3.f);
  out[i] = f + __half2float(__high2half(p)) + __int2float_rn(i) + (float)(double)i + rsqrtf(f) + __expf(f) + __sinf(f) + sqrtf(f) + fmaxf(f, 1.f) + __fdividef(f, 3.f) + tanhf(f);
  out[n + i] = __saturatef(f) + (float)__float2int_rz(f) + (float)__float2uint_rn(f) + (float)__float2ll_rd(f) + __popc(i) + __clz(i) + __ffs(i) + __brev(i) + __byte_perm(i, n, 0x5410) + __funnelshift_l(i, n, 3) + __mulhi(i, n) + __umul24(i, n) + __sad(i, n, 1);
}
)";

const char* kWmma = R"(
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void wmma_gemm(const half* a, const half* b, float* c, int ld) {
  __shared__ half tile[16 * 16];
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.f);
  for (int i = threadIdx.x; i < 256; i += blockDim.x) tile[i] = a[i];
  __syncthreads();
  wmma::load_matrix_sync(fa, tile, 16);
  wmma::load_matrix_sync(fb, b, ld);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, ld, wmma::mem_row_major);
}
)";

// Inline PTX as hand-optimised kernels use it (sm_80+: mma.sync m16n8k16,
// ldmatrix, cp.async with src-size).
const char* kInlineAsm = R"(
#include <cuda_fp16.h>
extern "C" __global__ void asm_mma(const half* a, float* d, int valid) {
#if __CUDA_ARCH__ >= 800
  __shared__ __align__(16) half sa[16 * 16];
  unsigned saddr = (unsigned)__cvta_generic_to_shared(sa + threadIdx.x * 8);
  int bytes = valid > 0 ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(saddr), "l"(a + threadIdx.x * 8), "r"(bytes));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" :: "r"(saddr), "l"(a));
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 0;\n" ::);
  asm volatile("cp.async.wait_all;\n" ::);
  __syncthreads();
  unsigned r0, r1, r2, r3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(saddr));
  unsigned t0, t1;
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n" : "=r"(t0), "=r"(t1) : "r"(saddr));
  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(r0), "r"(r1), "r"(r2), "r"(r3), "r"(t0), "r"(t1));
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
               : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(r0), "r"(r1), "r"(t0));
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(r0), "r"(r1), "r"(r2), "r"(r3), "r"(t0), "r"(t1));
  unsigned lut;
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(lut) : "r"(r0), "r"(r1), "r"(r2));
  unsigned red;
  asm volatile("redux.sync.max.u32 %0, %1, 0xffffffff;" : "=r"(red) : "r"(r0));
  unsigned lanemask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lanemask));
  asm volatile("nanosleep.u32 10;");
  d[threadIdx.x * 4 + 0] = c0 + lut + red + lanemask;
  d[threadIdx.x * 4 + 1] = c1;
  d[threadIdx.x * 4 + 2] = c2;
  d[threadIdx.x * 4 + 3] = c3;
#endif
}
)";

// Double-precision sin/pow call libdevice helpers that stay .func: inlined.
const char* kDoubleMath = R"(
extern "C" __global__ void dmath(double* d, const float* in, int n) {
  int i = threadIdx.x;
  double x = in[i];
  d[i] = sin(x) + cos(x) + pow(x, 3.1) + exp(x) + log(x) + sqrt(x) + (double)(long long)(x * n) / n;
  float f = in[i];
  d[n + i] = sinf(f) + expf(f) + powf(f, 2.3f) + erff(f) + tanf(f) + f / (float)n;
}
)";

}  // namespace

TEST_CASE("real kernels compiled by NVRTC parse for compute_75/80/90") {
  for (const char* arch_c : kArchs) {
    std::string arch = arch_c;
    INFO("arch " << arch);
    int sm = arch_number(arch);
    {
      Module m = compile_and_parse(kTiledGemm, "gemm.cu", arch);
      const Kernel* k = m.find_kernel("sgemm_tiled");
      REQUIRE(k);
      check_kernel_sane(*k);
      CHECK(k->shared_vars.size() == 2);
      CHECK(k->static_shared_bytes == 16 * 16 * 4 + 16 * 17 * 4);
      CHECK(has_op(*k, Op::BarSync));
      CHECK(has_op(*k, Op::Fma));
      CHECK(k->params.size() == 6);
      CHECK(k->params[3].is_pointer_hint);
      CHECK(maps_to_line(*k, 13));  // the inner product line
      CHECK(m.files.size() >= 2);
      CHECK(m.files[1].ends_with("gemm.cu"));
    }
    {
      Module m = compile_and_parse(kReduce, "reduce.cu", arch);
      const Kernel* k = m.find_kernel("reduce");
      REQUIRE(k);
      check_kernel_sane(*k);
      CHECK(has_op(*k, Op::ShflSync));
      CHECK(has_op(*k, Op::Atom));
      CHECK(has_op(*k, Op::VoteSync));
      CHECK(has_op(*k, Op::BarWarpSync));
      REQUIRE(k->shared_vars.size() == 1);
      CHECK(k->shared_vars[0].is_extern);
      CHECK(k->shared_vars[0].offset == k->dynamic_shared_offset);
      REQUIRE(m.globals.size() >= 1);
      // The inlined warp_sum maps back to the kernel's call lines (11, 16).
      CHECK(maps_to_line(*k, 11));
      CHECK(maps_to_line(*k, 16));
      for (const SourceLoc& l : k->locs) CHECK(l.file <= 1);
    }
    {
      Module m = compile_and_parse(kLocalArray, "local.cu", arch);
      const Kernel* k = m.find_kernel("local_array");
      REQUIRE(k);
      check_kernel_sane(*k);
      CHECK(k->local_bytes >= 24 * 4);
      CHECK(!k->local_vars.empty());
    }
    {
      Module m = compile_and_parse(kHalf, "half.cu", arch);
      const Kernel* k = m.find_kernel("convert");
      REQUIRE(k);
      check_kernel_sane(*k);
      CHECK(has_op(*k, Op::Cvt));
    }
    {
      Module m = compile_and_parse(kWmma, "wmma.cu", arch);
      const Kernel* k = m.find_kernel("wmma_gemm");
      REQUIRE(k);
      check_kernel_sane(*k);
      CHECK(has_op(*k, Op::WmmaLoadA));
      CHECK(has_op(*k, Op::WmmaLoadB));
      CHECK(has_op(*k, Op::WmmaMma));
      CHECK(has_op(*k, Op::WmmaStoreD));
      for (const Instr& in : k->code)
        if (in.op == Op::WmmaMma) {
          CHECK(in.shape_m == 16);
          CHECK(in.shape_k == 16);
          CHECK(in.layout_a == 0);
          CHECK(in.layout_b == 1);
          CHECK(in.type == Type::F32);
          CHECK(in.type2 == Type::F16);
          CHECK(in.ops[0].vec_len == 8);
        }
    }
    {
      Module m = compile_and_parse(kDoubleMath, "dmath.cu", arch);
      const Kernel* k = m.find_kernel("dmath");
      REQUIRE(k);
      check_kernel_sane(*k);
      CHECK(k->local_bytes > 0);  // call arguments and the trig reduction's scratch
      for (const SourceLoc& l : k->locs) CHECK(l.file <= 1);  // inlined helpers keep the call's line
    }
    if (sm >= 80) {
      Module m = compile_and_parse(kInlineAsm, "asm.cu", arch);
      const Kernel* k = m.find_kernel("asm_mma");
      REQUIRE(k);
      check_kernel_sane(*k);
      CHECK(has_op(*k, Op::CpAsync));
      CHECK(has_op(*k, Op::CpAsyncCommitGroup));
      CHECK(has_op(*k, Op::CpAsyncWaitGroup));
      CHECK(has_op(*k, Op::CpAsyncWaitAll));
      CHECK(has_op(*k, Op::Ldmatrix));
      CHECK(has_op(*k, Op::Mma));
      CHECK(has_op(*k, Op::Lop3));
      CHECK(has_op(*k, Op::ReduxSync));
      int mmas = 0;
      for (const Instr& in : k->code) {
        if (in.op == Op::Mma && in.shape_k == 16) {
          ++mmas;
          CHECK(in.shape_n == 8);
          CHECK(in.type == Type::F32);
          CHECK(in.type2 == Type::F16);
          CHECK(in.type3 == Type::F32);
          CHECK(in.ops[1].vec_len == 4);
          CHECK(in.ops[2].vec_len == 2);
        }
        if (in.op == Op::Ldmatrix && in.vec == 2) CHECK((in.flags & kFlagTrans));
        if (in.op == Op::CpAsync && in.ops[2].imm == 16) CHECK(in.ops[3].kind == OperandKind::Reg);
      }
      CHECK(mmas == 1);
    }
  }
}

TEST_CASE("every .cu under kernels/ and lessons/ parses for compute_80 and compute_90a") {
#ifdef GPULAB_SOURCE_DIR
  fs::path root = GPULAB_SOURCE_DIR;
#else
  fs::path root = fs::path(__FILE__).parent_path().parent_path();
#endif
  std::vector<fs::path> files;
  for (const char* dir : {"kernels", "lessons"}) {
    std::error_code ec;
    if (!fs::is_directory(root / dir, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(root / dir, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (it->is_regular_file(ec) && it->path().extension() == ".cu") files.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end());
  MESSAGE(files.size() << " .cu files found under " << root.string());
  for (const fs::path& f : files) {
    for (std::string arch : {"compute_80", "compute_90a"}) {
      INFO(f.string() << " for " << arch);
      lab::compile::CompileOptions opt;
      opt.arch = arch;
      std::string ptx;
      try {
        ptx = lab::compile::compile_file_to_ptx(f.string(), opt);
      } catch (const lab::compile::CompileError& e) {
        // Not the parser's business (an exercise may be unfinished); say so.
        MESSAGE("skipped (does not compile): " << f.string() << "\n" << e.log);
        continue;
      }
      Module m;
      try {
        m = parse(ptx, f.filename().string() + ".ptx");
      } catch (const ParseError& e) {
        // Hopper-only instructions (wgmma in 10 and 11) in sm_80 PTX: refused
        // by name, as ptxas refuses them.
        if (arch == "compute_80" && std::string(e.what()).find("needs .target sm_90") != std::string::npos) continue;
        FAIL_CHECK(e.what());
        continue;
      }
      for (const Kernel& k : m.kernels) check_kernel_sane(k);
    }
  }
}

TEST_CASE("a 5000-line PTX with 500 back edges parses completely") {
  std::string body = ".reg .pred %p<4>;\n.reg .b32 %r<100>;\n.reg .f32 %f<100>;\n.reg .b64 %rd<10>;\n";
  for (int i = 0; i < 5000; ++i) {
    body += "$L__BB0_" + std::to_string(i) + ":\n";
    body += "\tfma.rn.f32 \t%f" + std::to_string(i % 97 + 1) + ", %f2, %f3, %f" + std::to_string(i % 89 + 1) + ";\n";
    if (i % 10 == 9) body += "\t@%p1 bra \t$L__BB0_" + std::to_string(i - 5) + ";\n";
  }
  body += "ret;\n";
  std::string text = ".version 9.0\n.target sm_80\n.address_size 64\n.visible .entry big()\n{\n" + body + "}\n";
  // The time is printed for information; speed targets live in benches, not tests.
  auto t0 = std::chrono::steady_clock::now();
  Module m = parse(text, "big.ptx");
  std::vector<int32_t> ipdom = ipdom_targets(m.kernels[0]);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE("parsed " << m.kernels[0].code.size() << " instructions + IPDOM in " << ms << " ms");
  CHECK(m.kernels[0].code.size() == 5000 + 500 + 1);
  // Every back edge is a branch with a reconvergence point after it.
  int branches = 0;
  for (size_t i = 0; i < ipdom.size(); ++i)
    if (ipdom[i] >= 0) { ++branches; CHECK(ipdom[i] == int32_t(i + 1)); }  // loops exit by falling through
  CHECK(branches == 500);
}
