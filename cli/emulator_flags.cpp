#include <string>
#include <vector>

#include "commands.hpp"

namespace canopy::cli {

void emulator_flags::add_to(CLI::App& sub, bool runs_kernels) {
    const auto presets = emulator_presets();
    if (presets.empty()) {
        return; // a GPU backend: the device is the GPU
    }
    std::vector<std::string> names;
    for (const auto& p : presets) {
        names.push_back(p.name);
    }
    sub.add_option("--device", settings_.device, "virtual device preset of the emulator (see 'canopy info')")
        ->check(CLI::IsMember(names))
        ->default_val(settings_.device);
    sub.add_option("--subgroup", settings_.subgroup, "override the preset's sub-group size (32 or 64)")
        ->check(CLI::IsMember({32u, 64u}));
    if (runs_kernels) {
        sub.add_option("--scheduler", settings_.scheduler,
                       "deterministic (one thread, seeded, replayable) or parallel (several threads)")
            ->check(CLI::IsMember({"deterministic", "parallel"}))
            ->default_val(settings_.scheduler);
        sub.add_option("--seed", settings_.seed, "seed of the deterministic scheduler")
            ->default_val(settings_.seed);
        sub.add_option("--threads", settings_.threads, "OS threads of the parallel scheduler (0: all cores)")
            ->default_val(settings_.threads);
        sub.add_option("--memory-model", settings_.memory_model,
                       "coherent, or scoped: the scoped-cache model (deterministic scheduler only)")
            ->check(CLI::IsMember({"coherent", "scoped"}))
            ->default_val(settings_.memory_model);
        sub.add_option("--scheme", settings_.scheme,
                       "scoped model: RSP compilation scheme, proposed (sound) or original (buggy)")
            ->check(CLI::IsMember({"proposed", "original"}))
            ->default_val(settings_.scheme);
    }
}

} // namespace canopy::cli
