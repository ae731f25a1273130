// lab/gemm/gemm_registry.h: the GPU GEMM versions as kernels/gemm/gemm.toml
// lists them, with each one's launch geometry as a function of M, N, K, so
// the bench, lessons and views can launch any version without knowing it.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab/sim/launch.h"

namespace lab::gemm {

enum class Precision { Fp32, Fp16 };  // fp16: __half A and B, fp32 accumulate and C
const char* precision_name(Precision p);  // "fp32" / "fp16"

struct GemmVersion {
  std::string name;        // "03_smem_tiled"
  std::string file;        // absolute path of the .cu
  std::string kernel;      // "gemm_03_smem_tiled" (extern "C")
  Precision precision = Precision::Fp32;
  uint32_t block[2] = {1, 1};
  char grid_x = 'N', grid_y = 'M';  // the problem dimension each grid axis walks
  uint32_t tile[2] = {1, 1};        // outputs per block along grid x, y
  uint32_t dynamic_shared_bytes = 0;
  int min_arch = 50;                // lowest compute capability (x10) the kernel compiles for
  // TMA versions (gemm.toml tma_box_a / tma_box_b): the kernel takes two
  // tensor maps after its 8 parameters, A's and B's, each copying a box of
  // the row-major fp16 matrix (inner dimension first: A's [k, rows], B's
  // [n, k]) with the 128-byte swizzle.
  uint32_t tma_box_a[2] = {0, 0}, tma_box_b[2] = {0, 0};
  bool uses_tma() const { return tma_box_a[0] != 0; }
  // A published measurement of a kernel of the same design (gemm.toml
  // [version.published]), which `gpulab bench gemm` prints beside the
  // prediction for that GPU model and size.
  struct Published {
    double tflops = 0;
    int size = 0;            // M = N = K
    std::string gpu;         // the lab's model of the GPU it was measured on
    std::string what;        // the kernel, its precision, and where the figure is published
  };
  std::optional<Published> published;
  // Why the version cannot run M x N x K ("" when it can): a TMA version's
  // tensor maps need rows of a multiple of 16 bytes (cuTensorMapEncodeTiled).
  std::string size_limit(int M, int N, int K) const;

  sim::LaunchConfig launch_config(int M, int N, int K) const;
};

// One tensor map of a TMA version, as cuTensorMapEncodeTiled takes it: a
// row-major 2-D fp16 matrix (dims inner first) and the box one copy moves.
struct GemmTensorMap {
  uint64_t address = 0;
  uint64_t dims[2] = {0, 0};       // [columns, rows]
  uint64_t row_stride_bytes = 0;
  uint32_t box[2] = {0, 0};
};
// A's and B's maps for a TMA version (empty for the others).
std::vector<GemmTensorMap> gemm_tensor_maps(const GemmVersion& v, int M, int N, int K, uint64_t A, uint64_t B);

// A manifest the lab cannot use: message names the file and what to fix.
struct ManifestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// kernels/gemm/gemm.toml in the source tree.
std::string default_gemm_manifest();
// Parses a manifest; `file` entries are resolved beside it. Throws ManifestError.
std::vector<GemmVersion> load_gemm_versions(const std::string& manifest_path = default_gemm_manifest());

}  // namespace lab::gemm
