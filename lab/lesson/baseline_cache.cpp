#include "lab/lesson/baseline_cache.h"

#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lab/compile/cache_file.h"
#include "lab/compile/nvrtc.h"

namespace lab::lesson {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Every field of KernelFigures, both ways. A field added there and not here
// would come back as its default: the sizes below stop the build until it is
// added here and to tests/test_baseline_cache.cpp's field-by-field check.
static_assert(sizeof(void*) != 8 || (sizeof(KernelFigures) == 256 && sizeof(InstrCounters) == 96),
              "KernelFigures or InstrCounters changed: store the new field in to_json/from_json");
json to_json(const KernelFigures& f) {
  json mem = json::array();
  for (const InstrCounters& m : f.mem)
    mem.push_back({m.file, m.line, m.pc, m.global, m.local, m.shared, m.reads, m.writes, m.requests, m.sectors,
                   m.wavefronts, m.ideal_wavefronts, m.bytes, m.param});
  return {{"mem", mem},
          {"global_load", {f.global_load_requests, f.global_load_sectors}},
          {"global_store", {f.global_store_requests, f.global_store_sectors}},
          {"local_sectors", f.local_sectors},
          {"shared", {f.shared_load_requests, f.shared_store_requests, f.shared_wavefronts, f.shared_ideal_wavefronts}},
          {"warp", {f.warp_insts, f.active_lanes, f.fma_warp_insts, f.shuffle_warp_insts}},
          {"macs", {f.tensor_macs, f.other_macs}},
          {"dram_bytes", f.dram_bytes},
          {"warp_insts_by_warp", f.warp_insts_by_warp},
          {"global_requests_by_warp", f.global_requests_by_warp},
          {"occupancy", f.occupancy},
          {"predicted_seconds", f.predicted_seconds},
          {"predicted_unavailable", f.predicted_unavailable},
          {"resources", {f.registers, f.shared_bytes}}};
}

KernelFigures from_json(const json& j) {
  KernelFigures f;
  for (const json& m : j.at("mem")) {
    InstrCounters c;
    m.at(0).get_to(c.file), m.at(1).get_to(c.line), m.at(2).get_to(c.pc);
    m.at(3).get_to(c.global), m.at(4).get_to(c.local), m.at(5).get_to(c.shared);
    m.at(6).get_to(c.reads), m.at(7).get_to(c.writes), m.at(8).get_to(c.requests), m.at(9).get_to(c.sectors);
    m.at(10).get_to(c.wavefronts), m.at(11).get_to(c.ideal_wavefronts), m.at(12).get_to(c.bytes);
    m.at(13).get_to(c.param);
    f.mem.push_back(std::move(c));
  }
  j.at("global_load").at(0).get_to(f.global_load_requests), j.at("global_load").at(1).get_to(f.global_load_sectors);
  j.at("global_store").at(0).get_to(f.global_store_requests), j.at("global_store").at(1).get_to(f.global_store_sectors);
  j.at("local_sectors").get_to(f.local_sectors);
  const json& sh = j.at("shared");
  sh.at(0).get_to(f.shared_load_requests), sh.at(1).get_to(f.shared_store_requests);
  sh.at(2).get_to(f.shared_wavefronts), sh.at(3).get_to(f.shared_ideal_wavefronts);
  const json& w = j.at("warp");
  w.at(0).get_to(f.warp_insts), w.at(1).get_to(f.active_lanes), w.at(2).get_to(f.fma_warp_insts);
  w.at(3).get_to(f.shuffle_warp_insts);
  j.at("macs").at(0).get_to(f.tensor_macs), j.at("macs").at(1).get_to(f.other_macs);
  j.at("dram_bytes").get_to(f.dram_bytes);
  j.at("warp_insts_by_warp").get_to(f.warp_insts_by_warp);
  j.at("global_requests_by_warp").get_to(f.global_requests_by_warp);
  j.at("occupancy").get_to(f.occupancy);
  j.at("predicted_seconds").get_to(f.predicted_seconds);
  j.at("predicted_unavailable").get_to(f.predicted_unavailable);
  j.at("resources").at(0).get_to(f.registers), j.at("resources").at(1).get_to(f.shared_bytes);
  return f;
}

// The file holds the whole key beside the figures: a hash collision, or a
// file of another build, is read as a miss.
fs::path path_of(const std::string& full_key) {
  return fs::path(compile::cache_dir()) / "baselines" / fmt::format("{:016x}.json", compile::fnv1a(full_key));
}

std::string full_key(const std::string& key) { return compile::build_identity() + "\n" + key; }

}  // namespace

std::optional<KernelFigures> cached_baseline(const std::string& key) {
  const std::string k = full_key(key);
  const std::optional<std::string> text = compile::read_cache_file(path_of(k));
  if (!text) return std::nullopt;
  try {
    const json j = json::parse(*text);
    if (j.at("key").get<std::string>() != k) return std::nullopt;
    return from_json(j.at("figures"));
  } catch (const std::exception&) {
    return std::nullopt;  // torn or foreign: computed again and rewritten
  }
}

void store_baseline(const std::string& key, const KernelFigures& figures) {
  const std::string k = full_key(key);
  compile::write_cache_file(path_of(k), json{{"key", k}, {"figures", to_json(figures)}}.dump());
}

}  // namespace lab::lesson
