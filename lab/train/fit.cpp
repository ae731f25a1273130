// lab/train/fit.cpp: "Will it fit?" for `gpulab train` (see fit.h).
#include "lab/train/fit.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <unistd.h>

#include <fmt/format.h>

#include "lab/train/schedule.h"

namespace lab::train {
namespace {
using nlohmann::json;

constexpr double kGB = 1e9;  // the GPU models' capacities are decimal GB (lab/sim/device.cpp)

// A transformer the size the popular claim names: the shape of Llama 2 7B
// (Touvron et al., "Llama 2", 2023, table of model sizes: hidden 4096, 32
// layers, 32 heads, 4096-token context), with the round 7e9 parameters.
struct Transformer {
  double hidden = 4096, layers = 32, heads = 32, seq = 4096;
};

}  // namespace

std::string memory_text(const MemoryGroups& counted, uint64_t peak, const mlp::Shape& shape, const mlp::Plan& plan,
                        const sim::GpuModel& gpu, bool& ok) {
  const StepBytes formula = step_bytes(shape, plan);
  std::map<std::string, uint64_t> want;
  for (auto& [k, v] : formula.groups()) want[k] = v;
  uint64_t total = 0;
  for (auto& [k, v] : counted) total += v;
  std::string t = "\nMemory on the GPU (bytes the lab's runtime counted, cudaMemGetInfo around each group; "
                  "the formula is lab/train/schedule.cpp's):\n";
  t += fmt::format("  {:<12} {:>14} {:>7} {:>14}\n", "group", "counted", "", "formula");
  bool same = counted.size() == want.size();
  for (auto& [k, v] : counted) {
    t += fmt::format("  {:<12} {:>14} {:>6.1f}% {:>14}\n", k, v, 100.0 * double(v) / double(total), want[k]);
    same = same && want[k] == v;
  }
  t += fmt::format("  {:<12} {:>14} {:>7} {:>14}\n", "total", total, "", formula.total());
  t += fmt::format("  peak of live bytes, as the runtime tracked it: {} ({:.4f}% of the {}'s {:.0f} GB){}\n", peak,
                   100.0 * double(peak) / double(gpu.dram_bytes), gpu.name, double(gpu.dram_bytes) / kGB,
                   peak == total ? "; every buffer lives the whole run, so it is the groups' sum" : "");
  if (!same) t += "  THE COUNTED BYTES DIFFER FROM THE FORMULA: train.cu and lab/train/schedule.cpp disagree\n";
  ok = same && peak >= total;
  std::map<std::string, uint64_t> m(counted.begin(), counted.end());
  const double per_param = double(m["weights"] + m["gradients"] + m["optimizer"]) / double(shape.params());
  const int rows = shape.batch / plan.accumulate;
  t += fmt::format("  per parameter: {:.1f} bytes (fp32 weights, gradients, Adam's m and v); activations: {:.0f} "
                   "bytes per {}row ({} buffers of {} floats for the hidden layers)\n",
                   per_param, double(m["activations"]) / rows, plan.accumulate > 1 ? "micro-batch " : "",
                   plan.slots(shape.layers) + (shape.layers > 1 ? 2 : 1), shape.hidden);
  const double p7 = 7e9;
  t += fmt::format("  scaled to 7e9 parameters: {:.0f} GB of weights + gradients + optimizer state (fp16 weights "
                   "alone would be {:.0f} GB), against the {}'s {:.0f} GB: {} (`gpulab train --fit`: every GPU model)\n",
                   per_param * p7 / kGB, 2 * p7 / kGB, gpu.name, double(gpu.dram_bytes) / kGB,
                   per_param * p7 > double(gpu.dram_bytes) ? "it does not fit, before a single activation"
                                                          : "it fits, activations permitting");
  return t;
}

std::string trade_text(const json& run, const json& base, const mlp::Plan& plan, json& out, bool& ok) {
  auto mem = [](const json& j, const char* group) {
    for (const auto& g : j["gpu"]["memory_bytes"])
      if (g[0] == group) return g[1].get<uint64_t>();
    return uint64_t(0);
  };
  auto recompute_ms = [](const json& j) {
    double s = 0;
    for (const auto& k : j["gpu"]["kernels"]) s += k["part"] == "recompute" ? k["predicted_ms"].get<double>() : 0;
    return s;
  };
  const auto &lr = run["gpu"]["losses"], &lb = base["gpu"]["losses"];
  double diff = 0;
  for (size_t i = 0; i < lr.size() && i < lb.size(); ++i)
    diff = std::max(diff, std::fabs(lr[i].get<double>() - lb[i].get<double>()));
  // Checkpointing recomputes the same kernels on the same inputs: the same
  // bits, so the same losses exactly. Accumulation sums each gradient in K
  // pieces, a different order of float additions: equal to float rounding.
  const double tolerance = plan.accumulate > 1 ? 1e-5 : 0.0;
  const bool equal = lr.size() == lb.size() && diff <= tolerance;
  ok = ok && equal;
  const uint64_t act = mem(run, "activations"), act0 = mem(base, "activations");
  const uint64_t peak = run["gpu"]["peak_bytes"], peak0 = base["gpu"]["peak_bytes"];
  const double g = run["gpu"]["step_ms"], g0 = base["gpu"]["step_ms"];
  const double c = run["cpu"]["step_ms"], c0 = base["cpu"]["step_ms"];
  const double cr = run["cpu"]["part_ms"].value("recompute", 0.0), gr = recompute_ms(run);
  const double act_share = double(act) / double(act0), peak_share = double(peak) / double(peak0);
  out = {{"activation_bytes", act},        {"activation_bytes_baseline", act0}, {"peak_bytes", peak},
         {"peak_bytes_baseline", peak0},   {"losses_equal", equal},             {"loss_max_abs_diff", diff},
         {"loss_tolerance", tolerance},    {"gpu_step_ms", g},                  {"gpu_step_ms_baseline", g0},
         {"gpu_recompute_ms", gr},         {"cpu_step_ms", c},                  {"cpu_step_ms_baseline", c0},
         {"cpu_recompute_ms", cr},         {"launches_per_step", run["gpu"]["launches_per_step"]},
         {"launches_per_step_baseline", base["gpu"]["launches_per_step"]},
         {"activation_change", act_share - 1}, {"peak_change", peak_share - 1}, {"gpu_step_change", g / g0 - 1}};
  std::string what;
  if (plan.checkpointed())
    what += fmt::format("gradient checkpointing (one hidden layer's output in every {} kept, of {} layers; the rest "
                        "recomputed in backward)",
                        plan.every, run["shape"]["layers"].get<int>());
  if (plan.accumulate > 1)
    what += fmt::format("{}gradient accumulation ({} micro-batches of {} rows, gradients summed, one AdamW step)",
                        what.empty() ? "" : " and ", plan.accumulate,
                        run["shape"]["batch"].get<int>() / plan.accumulate);
  std::string t = fmt::format("\nWill it fit? This run uses {}; the same step without it ran beside it:\n", what);
  t += fmt::format("  {:<38} {:>14} {:>14} {:>9}\n", "", "without", "with", "change");
  auto row = [&](const std::string& name, double a, double b, const std::string& f) {
    t += fmt::format("  {:<38} {:>14} {:>14} {:>+8.1f}%\n", name, fmt::format(fmt::runtime(f), a),
                     fmt::format(fmt::runtime(f), b), 100 * (b - a) / a);
  };
  row("activation bytes (counted)", double(act0), double(act), "{:.0f}");
  row("batch bytes on the device (counted)", double(mem(base, "batch")), double(mem(run, "batch")), "{:.0f}");
  row("peak device bytes (runtime)", double(peak0), double(peak), "{:.0f}");
  row("launches a step", base["gpu"]["launches_per_step"].get<double>(), run["gpu"]["launches_per_step"].get<double>(),
      "{:.0f}");
  row("GPU step, ms (PREDICTED)", g0, g, "{:.4f}");
  row("CPU step, ms (MEASURED)", c0, c, "{:.4f}");
  if (plan.checkpointed() && plan.every == 1)
    t += "  every layer is a checkpoint (k = 1): nothing is dropped and nothing recomputed; with more hidden layers "
         "(--layers 16) k = ceil(sqrt(layers)) keeps about 2 sqrt(layers) of them\n";
  if (plan.checkpointed()) {
    mlp::Shape shape;
    shape.batch = run["shape"]["batch"], shape.in = run["shape"]["in"], shape.hidden = run["shape"]["hidden"];
    shape.classes = run["shape"]["classes"], shape.layers = run["shape"]["layers"];
    const double extra = recompute_gemm_flops(shape, plan), all = shape.gemm_flops();
    int relaunched = 0;
    for (const auto& k : run["gpu"]["kernels"]) relaunched += k["part"] == "recompute" ? k["launches"].get<int>() : 0;
    const double launch_ms = run["gpu"]["launch_overhead_ms"].get<double>() / run["gpu"]["launches_per_step"].get<double>();
    out["recompute_gemm_flops"] = extra;
    out["gemm_flops"] = all;
    out["recompute_launches"] = relaunched;
    out["recompute_flops_share"] = extra / all;
    t += fmt::format("  the recompute, a second forward of every segment but the last: {:.0f} GEMM FLOP more "
                     "(+{:.1f}% of the step's {:.0f}), {} launches;\n    {:.4f} ms of kernels + {:.4f} ms of launch "
                     "overhead on the GPU (PREDICTED), {:.4f} ms of the CPU step (MEASURED)\n",
                     extra, 100 * extra / all, all, relaunched, gr, relaunched * launch_ms, cr);
  }
  t += fmt::format("  losses {} (max |diff| {:.2e}; {})\n", equal ? "equal" : "DIFFER", diff,
                   tolerance == 0 ? "checkpointing recomputes the same bits, so exactly"
                                  : "accumulation adds each gradient in pieces: float rounding, tolerance 1e-5");
  return t;
}

json fit_table(double params) {
  const Transformer m;
  const double s = m.seq, h = m.hidden, L = m.layers, a = m.heads;
  // Training state per parameter with mixed precision and Adam (Rajbhandari
  // et al., "ZeRO", SC 2020, sec. 3.1): fp16 weights and gradients, and an
  // fp32 master copy with Adam's two fp32 moments: 2 + 2 + 12 = 16 bytes,
  // the same 16 as fp32 training (4 + 4 + 8, the lab's counted runs).
  const json per_param = json::array({{{"what", "fp16 weights"}, {"bytes", 2}},
                                      {{"what", "fp16 gradients"}, {"bytes", 2}},
                                      {{"what", "fp32 master weights"}, {"bytes", 4}},
                                      {{"what", "Adam m (fp32)"}, {"bytes", 4}},
                                      {{"what", "Adam v (fp32)"}, {"bytes", 4}}});
  double bpp = 0;
  for (const auto& e : per_param) bpp += e["bytes"].get<double>();
  // Activations a layer keeps for backward, per sequence, in 16 bits
  // (Korthikanti et al., "Reducing Activation Recomputation in Large
  // Transformer Models", 2022, sec. 4: s b h (34 + 5 a s / h) bytes).
  // The 5 a s^2 term is the attention scores; a fused (FlashAttention)
  // kernel never stores them, so the table leaves them out and says so.
  const double layer = 34 * s * h, scores = 5 * a * s * s;
  // Checkpointing every layer keeps only each layer's 16-bit input (2 s h)
  // and, during backward, one layer's full activations at a time.
  const double none = L * layer, every_layer = L * 2 * s * h + layer;
  json j = {{"params", params},
            {"shape", {{"hidden", h}, {"layers", L}, {"heads", a}, {"sequence", s}}},
            {"bytes_per_param", per_param},
            {"bytes_per_param_total", bpp},
            {"weights_fp16_bytes", 2 * params},
            {"state_bytes", bpp * params},
            {"activation_bytes_per_layer", layer},
            {"attention_scores_bytes_per_layer_unfused", scores},
            {"activation_bytes_per_sequence", none},
            {"activation_bytes_per_sequence_checkpointed", every_layer},
            // The same in GB (1e9 bytes, as the GPU models' capacities), as the lesson cites them.
            {"gb", {{"state", bpp * params / kGB}, {"weights_fp16", 2 * params / kGB},
                    {"activations_per_layer", layer / kGB}, {"activations_per_sequence", none / kGB},
                    {"activations_per_sequence_checkpointed", every_layer / kGB}}},
            {"gpus", json::array()}};
  for (const sim::GpuModel& g : sim::all_gpu_models()) {
    const double cap = double(g.dram_bytes), room = cap - bpp * params;
    j["gpus"].push_back({{"name", std::string(g.name)},
                         {"capacity_bytes", cap},
                         {"weights_fit", 2 * params <= cap},
                         {"state_fits", room >= 0},
                         {"sequences", room > 0 ? std::floor(room / none) : 0},
                         {"sequences_checkpointed", room > 0 ? std::floor(room / every_layer) : 0}});
  }
  return j;
}

std::string fit_text(const json& j) {
  const double P = j["params"];
  std::string t = fmt::format("Will it fit? Training a {:.0f}B-parameter transformer (hidden {}, {} layers, {} heads, "
                              "{}-token sequences), by the formula the lab's runs count:\n\n",
                              P / 1e9, j["shape"]["hidden"].get<double>(), j["shape"]["layers"].get<double>(),
                              j["shape"]["heads"].get<double>(), j["shape"]["sequence"].get<double>());
  for (const auto& e : j["bytes_per_param"])
    t += fmt::format("  {:<22} {:>2} bytes/param  {:>6.0f} GB\n", e["what"].get<std::string>(), e["bytes"].get<int>(),
                     e["bytes"].get<double>() * P / kGB);
  t += fmt::format("  {:<22} {:>2} bytes/param  {:>6.0f} GB  before a single activation (fp32 training: 4 + 4 + 8, "
                   "the same 16)\n",
                   "training state", j["bytes_per_param_total"].get<int>(), j["state_bytes"].get<double>() / kGB);
  t += fmt::format("\n  activations per {}-token sequence: {:.2f} GB a layer x {} layers = {:.1f} GB; with "
                   "checkpointing (each layer's input kept, one layer recomputed at a time) {:.2f} GB.\n"
                   "  Unfused attention would also keep {:.2f} GB of scores a layer; a fused (Flash) kernel keeps "
                   "none, as assumed here.\n",
                   j["shape"]["sequence"].get<double>(), j["activation_bytes_per_layer"].get<double>() / kGB,
                   j["shape"]["layers"].get<double>(), j["activation_bytes_per_sequence"].get<double>() / kGB,
                   j["activation_bytes_per_sequence_checkpointed"].get<double>() / kGB,
                   j["attention_scores_bytes_per_layer_unfused"].get<double>() / kGB);
  t += fmt::format("\n  {:<10} {:>9} {:>14} {:>16} {:>22} {:>22}\n", "GPU model", "memory", "fp16 weights",
                   "training state", "sequences a step", "with checkpointing");
  for (const auto& g : j["gpus"])
    t += fmt::format("  {:<10} {:>6.0f} GB {:>14} {:>16} {:>22} {:>22}\n", g["name"].get<std::string>(),
                     g["capacity_bytes"].get<double>() / kGB, g["weights_fit"].get<bool>() ? "fit" : "do not fit",
                     g["state_fits"].get<bool>() ? "fits" : "does not fit", g["sequences"].get<double>(),
                     g["sequences_checkpointed"].get<double>());
  t += "\n  Where the state does not fit, no batch size helps: split it over GPUs (ZeRO, the next lesson) or keep "
       "less per parameter.\n  Where it fits, accumulation runs more sequences per AdamW step than fit at once, "
       "at the cost of time, not memory.\n";
  return t;
}

namespace {
std::string needs_text(const StepBytes& b) {
  std::string t;
  for (auto& [k, v] : b.groups()) t += fmt::format("  {:<12} {:>16} bytes  {:>8.2f} GB\n", k, v, double(v) / kGB);
  t += fmt::format("  {:<12} {:>16} bytes  {:>8.2f} GB\n", "total", b.total(), double(b.total()) / kGB);
  return t;
}
constexpr const char* kToFit =
    "To fit: a smaller --batch; --accumulate K (K micro-batches: activations and batch / K, the same training, "
    "one AdamW step); --checkpoint (--layers > 1: hidden activations for about 2 sqrt(layers) layers instead of "
    "all); or a GPU model with more memory (--gpu H200: 141 GB).\n";
}  // namespace

json step_fit(const mlp::Shape& shape, const mlp::Plan& plan, const sim::GpuModel& gpu) {
  const StepBytes b = step_bytes(shape, plan);
  return {{"batch", shape.batch}, {"hidden", shape.hidden}, {"layers", shape.layers},
          {"accumulate", plan.accumulate}, {"checkpoint_every", plan.every}, {"groups", json(b.groups())},
          {"total_bytes", b.total()}, {"total_gb", double(b.total()) / kGB}, {"gpu", std::string(gpu.name)},
          {"capacity_bytes", gpu.dram_bytes}, {"fits", b.total() <= gpu.dram_bytes}};
}

std::string step_fit_text(const json& j) {
  std::string t = fmt::format("Lesson 10's step at batch {}, hidden {} x {} layer{}{}{}, by the formula the runtime's "
                              "counts confirm (lab/train/schedule.cpp):\n",
                              j["batch"].get<int>(), j["hidden"].get<int>(), j["layers"].get<int>(),
                              j["layers"].get<int>() > 1 ? "s" : "",
                              j["accumulate"].get<int>() > 1
                                  ? fmt::format(", {} micro-batches", j["accumulate"].get<int>())
                                  : "",
                              j["checkpoint_every"].get<int>() > 0
                                  ? fmt::format(", checkpoint every {}", j["checkpoint_every"].get<int>())
                                  : "");
  for (const auto& g : j["groups"])
    t += fmt::format("  {:<12} {:>16} bytes  {:>8.2f} GB\n", g[0].get<std::string>(), g[1].get<uint64_t>(),
                     g[1].get<double>() / kGB);
  t += fmt::format("  {:<12} {:>16} bytes  {:>8.2f} GB: {} on the {} ({:.0f} GB)\n\n", "total",
                   j["total_bytes"].get<uint64_t>(), j["total_gb"].get<double>(),
                   j["fits"].get<bool>() ? "fits" : "does NOT fit", j["gpu"].get<std::string>(),
                   j["capacity_bytes"].get<double>() / kGB);
  return t;
}

std::string fit_refusal(const mlp::Shape& shape, const mlp::Plan& plan, const sim::GpuModel& gpu, bool& out_of_memory) {
  const StepBytes b = step_bytes(shape, plan);
  out_of_memory = b.total() > gpu.dram_bytes;
  if (out_of_memory)
    return fmt::format("The step does not fit on the {}: it needs {} bytes ({:.2f} GB) of device memory and the {} "
                       "holds {} ({:.0f} GB).\nRefused before anything ran (the runtime would refuse the first "
                       "cudaMalloc past the capacity). By the formula, group by group:\n",
                       gpu.name, b.total(), double(b.total()) / kGB, gpu.name, gpu.dram_bytes,
                       double(gpu.dram_bytes) / kGB) +
           needs_text(b) + kToFit;
  // The simulator keeps the device's bytes in this machine's memory, and the
  // CPU step as many again: a quarter of it for the device keeps the run safe.
  const double host = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  if (double(b.total()) > host / 4)
    return fmt::format("The step fits on the {} ({:.2f} of its {:.0f} GB), but simulating it would back {:.2f} GB of "
                       "device memory with this machine's (and the CPU step as much again); this machine has {:.1f} "
                       "GB. Use a smaller --batch or --hidden (the memory formula scales: `gpulab train --fit`).\n",
                       gpu.name, double(b.total()) / kGB, double(gpu.dram_bytes) / kGB, double(b.total()) / kGB,
                       host / kGB);
  return "";
}

std::string refusal_text(const mlp::Shape& shape, const mlp::Plan& plan, const sim::GpuModel& gpu) {
  return fmt::format("\nThe step does not fit on the {} ({:.0f} GB): the runtime refused a cudaMalloc (above). By the "
                     "formula it needs:\n",
                     gpu.name, double(gpu.dram_bytes) / kGB) +
         needs_text(step_bytes(shape, plan)) + kToFit;
}

}  // namespace lab::train
