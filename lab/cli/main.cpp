// gpulab: the command. Each subcommand lives in its own cmd_<name>.cpp and
// registers itself through register_command; this file parses and dispatches.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "lab/cli/command.h"

namespace lab::cli {
static std::vector<CommandSetup>& registry() {
  static std::vector<CommandSetup> r;
  return r;
}
bool register_command(CommandSetup setup) {
  registry().push_back(std::move(setup));
  return true;
}
std::vector<std::string>& passthrough_args() {
  static std::vector<std::string> args;
  return args;
}
}  // namespace lab::cli

int main(int argc, char** argv) {
  CLI::App app{"GPU Lab: why GPUs are fast for deep learning, by experiment"};
  app.require_subcommand(1);
  int exit_code = lab::cli::kExitOk;
  for (auto& setup : lab::cli::registry()) setup(app, exit_code);
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) != "--") continue;
    if (std::string(argv[1]) != "run") {
      std::fprintf(stderr, "gpulab: arguments after `--` are only for `gpulab run PROGRAM.cu -- ARGS`\n");
      return lab::cli::kExitUsage;
    }
    for (int j = i + 1; j < argc; ++j) lab::cli::passthrough_args().push_back(argv[j]);
    argc = i;
    break;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return lab::cli::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpulab: %s\n", e.what());
    return lab::cli::kExitUsage;
  }
  return exit_code;
}
