// The canopy command's subcommands. Each registers its flags on a CLI11 subcommand and returns the
// function that runs it (exit code: 0 ok, 1 runtime error; usage errors are CLI11's, mapped to 2).
// Host-only: these files talk to the backend through backend.hpp.
#pragma once

#include <functional>
#include <string>

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
action add_stress(CLI::App& app); // emulator only: schedule sweeps on the deterministic scheduler
#endif

struct emulator_flag_set {
    bool runs_kernels =
        true;           // --scheduler, --seed, --threads, --memory-model, --scheme (else: the device only)
    bool timed = false; // --timed
};

/// Registers the emulator's flags on `sub` (nothing on GPU backends), writing into `s`, whose values are
/// the defaults --help shows. After parsing, --memory-model scoped, --timed and --seed choose the
/// deterministic scheduler; with an explicit --scheduler parallel they are a usage error (exit 2).
void add_emulator_flags(CLI::App& sub, emulator_settings& s, emulator_flag_set what);

/// --queues: the runtime core, ring (the default: lock-free rings) or locked (the HRF paper's design);
/// `help` says what it applies to. The value in `queues` is the default --help shows.
inline void add_queues_flag(CLI::App& sub, std::string& queues, const std::string& help) {
    sub.add_option("--queues", queues, help)->check(CLI::IsMember({"ring", "locked"}))->default_val(queues);
}

/// --trace FILE: throws CLI::ValidationError (exit 2), naming the fix, when FILE cannot be written.
void check_trace_path(const std::string& path);

/// The emulator's flags with their own settings, for subcommands that keep nothing else about them;
/// apply() installs them. GPU backends have none of them.
class emulator_flags {
  public:
    void add_to(CLI::App& sub, bool runs_kernels) {
        add_emulator_flags(sub, settings_, {.runs_kernels = runs_kernels});
    }
    void apply() const { configure_emulator(settings_); }

  private:
    emulator_settings settings_;
};

} // namespace canopy::cli
