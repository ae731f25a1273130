// lab/cli/command.h: subcommands register themselves from their own file, so
// adding `gpulab foo` is one new cmd_foo.cpp and no edit elsewhere.
//
//   static const bool registered = lab::cli::register_command([](CLI::App& app, int& rc) {
//     auto* cmd = app.add_subcommand("foo", "what foo does");
//     ... options ...
//     cmd->callback([&rc] { rc = run_foo(...); });
//   });
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace lab::cli {

// Exit codes every subcommand uses (the `gpulab sim` contract fixes them).
constexpr int kExitOk = 0;
constexpr int kExitKernelFault = 1;  // also: a check that found problems
constexpr int kExitUsage = 2;        // usage, compile or argument errors

using CommandSetup = std::function<void(CLI::App& app, int& exit_code)>;
bool register_command(CommandSetup setup);

// The arguments after a bare `--`, set aside by main() before parsing: the
// program's own arguments for `gpulab run PROGRAM.cu -- ARGS` (CLI11 would
// read them as gpulab's). Other commands refuse them.
std::vector<std::string>& passthrough_args();

}  // namespace lab::cli
