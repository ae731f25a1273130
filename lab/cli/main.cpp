// gpulab: the command. Each subcommand lives in its own file (cmd_<name>.cpp)
// and registers itself here; this file only parses and dispatches.
#include <CLI/CLI.hpp>
#include <cstdio>

int main(int argc, char** argv) {
  CLI::App app{"GPU Lab: why GPUs are fast, by experiment"};
  app.require_subcommand(1);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
