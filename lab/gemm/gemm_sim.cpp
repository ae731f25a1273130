#include "lab/gemm/gemm_sim.h"

#include <cassert>
#include <cstring>

#include <fmt/format.h>

#include "lab/ptx/parser.h"
#include "lab/sim/limits.h"
#include "lab/sim/run.h"

namespace lab::gemm {

std::vector<uint8_t> pack_gemm_params(const ptx::Kernel& kernel, int M, int N, int K, float alpha, uint64_t A,
                                      uint64_t B, float beta, uint64_t C, const std::vector<TensorMapBytes>& maps) {
  if (kernel.params.size() != 8 + maps.size())
    throw std::runtime_error(fmt::format(
        "kernel {} has {} parameters; a GEMM version must take (int M, int N, int K, float alpha, const T* A, "
        "const T* B, float beta, float* C){}",
        kernel.name, kernel.params.size(),
        maps.empty() ? "" : ", then const __grid_constant__ CUtensorMap for A and for B"));
  std::vector<uint8_t> buf(kernel.param_bytes);
  auto put = [&](size_t i, const void* v, uint32_t bytes) {
    assert(kernel.params[i].size == bytes);
    std::memcpy(buf.data() + kernel.params[i].offset, v, bytes);
  };
  put(0, &M, 4); put(1, &N, 4); put(2, &K, 4); put(3, &alpha, 4);
  put(4, &A, 8); put(5, &B, 8); put(6, &beta, 4); put(7, &C, 8);
  for (size_t i = 0; i < maps.size(); ++i) put(8 + i, maps[i].data(), sim::kTensorMapBytes);
  return buf;
}

GemmBuffers place_gemm_operands(const GemmVersion& v, const GemmProblem& p, sim::GlobalMemory& mem) {
  const bool half = v.precision == Precision::Fp16;
  GemmBuffers g;
  g.elem = half ? 2 : 4;
  mem.reserve((uint64_t(p.M) * p.K + uint64_t(p.K) * p.N) * g.elem + uint64_t(p.M) * p.N * 4, 3);
  g.a = mem.allocate(uint64_t(p.M) * p.K * g.elem, "A");
  g.b = mem.allocate(uint64_t(p.K) * p.N * g.elem, "B");
  g.c = mem.allocate(uint64_t(p.M) * p.N * 4, "C");
  if (half) {
    mem.write(g.a, p.A16.data(), p.A16.size() * 2);
    mem.write(g.b, p.B16.data(), p.B16.size() * 2);
  } else {
    mem.write(g.a, p.A.data(), p.A.size() * 4);
    mem.write(g.b, p.B.data(), p.B.size() * 4);
  }
  mem.write(g.c, p.C0.data(), p.C0.size() * 4);  // NaN poison when beta == 0
  return g;
}

std::vector<uint8_t> gemm_params(const GemmVersion& v, const ptx::Kernel& kernel, const GemmProblem& p,
                                 const GemmBuffers& g) {
  // TMA versions: the lab encodes the tensor maps, as cuTensorMapEncodeTiled would.
  std::vector<TensorMapBytes> maps;
  for (const GemmTensorMap& t : gemm_tensor_maps(v, p.M, p.N, p.K, g.a, g.b)) {
    alignas(64) TensorMapBytes m{};
    const uint32_t estride[2] = {1, 1};
    const std::string err = sim::encode_tensor_map_tiled(m.data(), sim::kTmFloat16, 2, t.address, t.dims,
                                                         &t.row_stride_bytes, t.box, estride, 0, sim::kTmSwizzle128B,
                                                         0, 0);
    if (!err.empty())
      throw std::runtime_error(fmt::format("{}: the tensor map for {}x{}x{}: {}", v.name, p.M, p.N, p.K, err));
    maps.push_back(m);
  }
  return pack_gemm_params(kernel, p.M, p.N, p.K, p.alpha, g.a, g.b, p.beta, g.c, maps);
}

SimGemmRun simulate_gemm(const GemmVersion& v, GemmProblem& p, const sim::SimOptions& options) {
  SimGemmRun run;
  const sim::GpuModel& gpu = options.gpu ? *options.gpu : sim::default_gpu();
  try {
    run.compiled = sim::compile_kernel({v.file, v.kernel, {}, {}}, gpu);
  } catch (const ptx::ParseError& e) {
    // The parser names instructions it does not decode yet; that is the
    // simulator's gap, not the kernel's fault.
    if (std::string(e.what()).find("unsupported") != std::string::npos) {
      run.unsupported = true;
      run.unsupported_reason = e.what();
      return run;
    }
    throw;
  }
  run.launch = v.launch_config(p.M, p.N, p.K);
  sim::check_launch_limits(run.kernel(), run.launch, gpu, run.compiled.resources());

  sim::GlobalMemory mem;
  const GemmBuffers buf = place_gemm_operands(v, p, mem);
  const uint64_t c = buf.c;
  auto params = gemm_params(v, run.kernel(), p, buf);
  run.result = sim::launch(run.compiled, run.launch, params, mem, options);
  for (const auto& e : run.result.errors)
    if (e.kind == "unsupported") {
      run.unsupported = true;
      run.unsupported_reason = e.message;
    }
  run.C.resize(size_t(p.M) * p.N);
  mem.read(c, run.C.data(), run.C.size() * 4);
  return run;
}

}  // namespace lab::gemm
