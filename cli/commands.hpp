// The canopy command's subcommands. Each registers its flags on a CLI11 subcommand and returns the
// function that runs it (exit code: 0 ok, 1 runtime error; usage errors are CLI11's, mapped to 2).
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace canopy::cli {

using action = std::function<int()>;

action add_info(CLI::App &app);
action add_demo(CLI::App &app);

/// The emulator's flags (--device, --subgroup, --scheduler, --seed, --threads), shared by every
/// subcommand that runs or describes the emulator; apply() installs them as the emulator's options.
class emulator_flags {
  public:
    void add_to(CLI::App &sub, bool runs_kernels);
    void apply() const;

  private:
    std::string device_ = "tiny";
    unsigned subgroup_ = 0;
    std::string scheduler_ = "deterministic";
    unsigned long long seed_ = 1;
    unsigned threads_ = 0;
};

} // namespace canopy::cli
