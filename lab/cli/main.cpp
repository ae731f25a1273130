// gpulab: the command. Each subcommand lives in its own cmd_<name>.cpp and
// registers itself through register_command; this file parses and dispatches.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>
#include <stdexcept>
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

static std::string command_line(int argc, char** argv) {
  std::string s = "gpulab";
  for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

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
  } catch (const std::bad_alloc&) {
    // Every raw library message becomes a sentence: name what was asked for.
    std::fprintf(stderr, "gpulab: out of memory running `%s`: the sizes asked for need more memory than this machine "
                         "has; use smaller sizes\n", command_line(argc, argv).c_str());
    return lab::cli::kExitUsage;
  } catch (const std::filesystem::filesystem_error& e) {
    std::string what = e.code().message();
    std::fprintf(stderr, "gpulab: %s%s%s: %s\n", e.path1().c_str(), e.path2().empty() ? "" : " -> ", e.path2().c_str(),
                 what.c_str());
    return lab::cli::kExitUsage;
  } catch (const std::out_of_range& e) {
    std::fprintf(stderr, "gpulab: a number in `%s` is out of range (%s)\n", command_line(argc, argv).c_str(), e.what());
    return lab::cli::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpulab: %s\n", e.what());
    return lab::cli::kExitUsage;
  }
  return exit_code;
}
