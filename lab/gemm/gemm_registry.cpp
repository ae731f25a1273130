#include "lab/gemm/gemm_registry.h"

#include <filesystem>

#include <fmt/format.h>
#include <toml++/toml.h>

namespace lab::gemm {

const char* precision_name(Precision p) { return p == Precision::Fp16 ? "fp16" : "fp32"; }

sim::LaunchConfig GemmVersion::launch_config(int M, int N, int K) const {
  auto extent = [&](char d) { return uint32_t(d == 'M' ? M : N); };
  sim::LaunchConfig cfg;
  cfg.block = {block[0], block[1], 1};
  cfg.grid = {(extent(grid_x) + tile[0] - 1) / tile[0], (extent(grid_y) + tile[1] - 1) / tile[1], 1};
  cfg.dynamic_shared_bytes = dynamic_shared_bytes;
  return cfg;
}

std::string GemmVersion::size_limit(int M, int N, int K) const {
  (void)M;
  if (uses_tma() && (K % 8 || N % 8))
    return fmt::format("needs K and N multiples of 8 (TMA copies rows of a multiple of 16 bytes); {}x{}x{} is not", M, N, K);
  return {};
}

std::vector<GemmTensorMap> gemm_tensor_maps(const GemmVersion& v, int M, int N, int K, uint64_t A, uint64_t B) {
  if (!v.uses_tma()) return {};
  GemmTensorMap a, b;
  a.address = A;
  a.dims[0] = uint64_t(K), a.dims[1] = uint64_t(M);
  a.row_stride_bytes = uint64_t(K) * 2;
  a.box[0] = v.tma_box_a[0], a.box[1] = v.tma_box_a[1];
  b.address = B;
  b.dims[0] = uint64_t(N), b.dims[1] = uint64_t(K);
  b.row_stride_bytes = uint64_t(N) * 2;
  b.box[0] = v.tma_box_b[0], b.box[1] = v.tma_box_b[1];
  return {a, b};
}

std::string default_gemm_manifest() { return std::string(GPULAB_SOURCE_DIR) + "/kernels/gemm/gemm.toml"; }

std::vector<GemmVersion> load_gemm_versions(const std::string& manifest_path) {
  namespace fs = std::filesystem;
  toml::table doc;
  try {
    doc = toml::parse_file(manifest_path);
  } catch (const toml::parse_error& e) {
    throw ManifestError(fmt::format("{}:{}: {} (fix the TOML syntax)", manifest_path,
                                    e.source().begin.line, e.description()));
  }
  const toml::array* list = doc["version"].as_array();
  if (!list || list->empty())
    throw ManifestError(fmt::format("{}: no [[version]] entries (each GEMM version needs one)", manifest_path));
  const fs::path dir = fs::absolute(manifest_path).parent_path();
  std::vector<GemmVersion> out;
  for (const auto& node : *list) {
    const toml::table* t = node.as_table();
    const int line = int(node.source().begin.line);
    auto need_str = [&](const char* key) {
      auto v = t ? (*t)[key].value<std::string>() : std::nullopt;
      if (!v) throw ManifestError(fmt::format("{}:{}: [[version]] needs a string '{}'", manifest_path, line, key));
      return *v;
    };
    auto pair = [&](const char* key, uint32_t (&dst)[2]) {
      const toml::array* a = (*t)[key].as_array();
      if (!a || a->size() != 2 || !(*a)[0].value<int64_t>() || !(*a)[1].value<int64_t>() ||
          *(*a)[0].value<int64_t>() < 1 || *(*a)[1].value<int64_t>() < 1)
        throw ManifestError(fmt::format("{}:{}: '{}' must be two positive integers, e.g. [32, 32]", manifest_path, line, key));
      dst[0] = uint32_t(*(*a)[0].value<int64_t>());
      dst[1] = uint32_t(*(*a)[1].value<int64_t>());
    };
    auto dim = [&](const char* key) {
      std::string s = need_str(key);
      if (s != "M" && s != "N")
        throw ManifestError(fmt::format("{}:{}: '{}' must be \"M\" or \"N\", not \"{}\"", manifest_path, line, key, s));
      return s[0];
    };
    GemmVersion v;
    v.name = need_str("name");
    v.file = (dir / need_str("file")).string();
    v.kernel = need_str("kernel");
    const std::string prec = need_str("precision");
    if (prec == "fp32") v.precision = Precision::Fp32;
    else if (prec == "fp16") v.precision = Precision::Fp16;
    else throw ManifestError(fmt::format("{}:{}: precision must be \"fp32\" or \"fp16\", not \"{}\"", manifest_path, line, prec));
    pair("block", v.block);
    pair("tile", v.tile);
    v.grid_x = dim("grid_x");
    v.grid_y = dim("grid_y");
    v.dynamic_shared_bytes = uint32_t((*t)["dynamic_shared"].value_or(int64_t(0)));
    v.min_arch = int((*t)["min_arch"].value_or(int64_t(50)));
    if (t->contains("tma_box_a") || t->contains("tma_box_b")) {
      pair("tma_box_a", v.tma_box_a);
      pair("tma_box_b", v.tma_box_b);
      if (v.precision != Precision::Fp16)
        throw ManifestError(fmt::format("{}:{}: a TMA version copies fp16 tiles: precision must be \"fp16\"", manifest_path, line));
    }
    if (const toml::table* pub = (*t)["published"].as_table()) {
      GemmVersion::Published pb;
      pb.tflops = (*pub)["tflops"].value_or(0.0);
      pb.size = int((*pub)["size"].value_or(int64_t(0)));
      pb.gpu = (*pub)["gpu"].value_or(std::string());
      pb.what = (*pub)["what"].value_or(std::string());
      if (pb.tflops <= 0 || pb.size <= 0 || pb.gpu.empty() || pb.what.empty())
        throw ManifestError(fmt::format("{}:{}: [version.published] needs tflops, size, gpu and what", manifest_path, line));
      v.published = pb;
    }
    if (!fs::exists(v.file))
      throw ManifestError(fmt::format("{}:{}: kernel file {} does not exist", manifest_path, line, v.file));
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace lab::gemm
