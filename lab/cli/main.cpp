// gpulab: the command. Each subcommand lives in its own cmd_<name>.cpp and
// registers itself through register_command; this file parses and dispatches.
#include <cstdio>
#include <exception>
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
}  // namespace lab::cli

int main(int argc, char** argv) {
  CLI::App app{"GPU Lab: why GPUs are fast for deep learning, by experiment"};
  app.require_subcommand(1);
  int exit_code = lab::cli::kExitOk;
  for (auto& setup : lab::cli::registry()) setup(app, exit_code);
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
