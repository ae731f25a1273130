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

  const bool half = v.precision == Precision::Fp16;
  const uint64_t elem = half ? 2 : 4;
  sim::GlobalMemory mem;
  mem.reserve((uint64_t(p.M) * p.K + uint64_t(p.K) * p.N) * elem + uint64_t(p.M) * p.N * 4 + 4 * 512);
  const uint64_t a = mem.allocate(uint64_t(p.M) * p.K * elem, "A");
  const uint64_t b = mem.allocate(uint64_t(p.K) * p.N * elem, "B");
  const uint64_t c = mem.allocate(uint64_t(p.M) * p.N * 4, "C");
  if (half) {
    mem.write(a, p.A16.data(), p.A16.size() * 2);
    mem.write(b, p.B16.data(), p.B16.size() * 2);
  } else {
    mem.write(a, p.A.data(), p.A.size() * 4);
    mem.write(b, p.B.data(), p.B.size() * 4);
  }
  mem.write(c, p.C0.data(), p.C0.size() * 4);  // NaN poison when beta == 0
  // TMA versions: the lab encodes the tensor maps, as cuTensorMapEncodeTiled would.
  std::vector<TensorMapBytes> maps;
  for (const GemmTensorMap& g : gemm_tensor_maps(v, p.M, p.N, p.K, a, b)) {
    alignas(64) TensorMapBytes m{};
    const uint32_t estride[2] = {1, 1};
    const std::string err = sim::encode_tensor_map_tiled(m.data(), sim::kTmFloat16, 2, g.address, g.dims,
                                                         &g.row_stride_bytes, g.box, estride, 0, sim::kTmSwizzle128B,
                                                         0, 0);
    if (!err.empty())
      throw std::runtime_error(fmt::format("{}: the tensor map for {}x{}x{}: {} (the sizes TMA needs: rows of a "
                                           "multiple of 8 halves)", v.name, p.M, p.N, p.K, err));
    maps.push_back(m);
  }
  auto params = pack_gemm_params(run.kernel(), p.M, p.N, p.K, p.alpha, a, b, p.beta, c, maps);
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
