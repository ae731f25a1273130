#include "lab/cli/gpu_option.h"

namespace lab::cli {

CLI::Option* add_gpu_option(CLI::App* cmd, std::string& name, const std::string& help) {
  CLI::Validator known(
      [](std::string& value) -> std::string {
        try {
          sim::gpu_model(value);
          return {};
        } catch (const sim::UnknownGpu& e) {
          return e.what();
        }
      },
      "MODEL", "GPU model");
  return cmd->add_option("--gpu", name, help + " (" + sim::gpu_model_names() + ")")->check(known);
}

}  // namespace lab::cli
