// The canopy command's subcommands. Each registers its flags on a CLI11 subcommand and returns the
// function that runs it (exit code: 0 ok, 1 runtime error; usage errors are CLI11's, mapped to 2).
// Host-only: these files talk to the backend through backend.hpp.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "backend.hpp"

namespace canopy::cli {

using action = std::function<int()>;

action add_info(CLI::App& app);
action add_demo(CLI::App& app);
action add_discover(CLI::App& app);
action add_uts(CLI::App& app);
action add_graph(CLI::App& app);
#if defined(CANOPY_WITH_LITMUS)
action add_litmus(CLI::App& app); // emulator only: the scoped-cache model runs the tests
#endif

/// The emulator's flags (--device, --subgroup, --scheduler, --seed, --threads) for subcommands that
/// run or describe the emulator; apply() installs them. GPU backends have none of them.
class emulator_flags {
  public:
    void add_to(CLI::App& sub, bool runs_kernels);
    void apply() const { configure_emulator(settings_); }

  private:
    emulator_settings settings_;
};

} // namespace canopy::cli
