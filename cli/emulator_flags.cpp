#include <string>
#include <vector>

#include "canopy/platform/config.hpp"
#include "commands.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/emulator/options.hpp"
#    include "canopy/emulator/virtual_device.hpp"
#endif

namespace canopy::cli {

void emulator_flags::add_to(CLI::App &sub, bool runs_kernels) {
#if defined(CANOPY_BACKEND_CPU)
    std::vector<std::string> names;
    for (const auto &d : emu::presets()) {
        names.push_back(d.name);
    }
    sub.add_option("--device", device_, "virtual device preset of the emulator")
        ->check(CLI::IsMember(names))
        ->default_val(device_);
    sub.add_option("--subgroup", subgroup_, "override the preset's sub-group size (32 or 64)")
        ->check(CLI::IsMember({32u, 64u}));
    if (runs_kernels) {
        sub.add_option("--scheduler", scheduler_,
                       "deterministic (one thread, seeded, replayable) or parallel (several threads)")
            ->check(CLI::IsMember({"deterministic", "parallel"}))
            ->default_val(scheduler_);
        sub.add_option("--seed", seed_, "seed of the deterministic scheduler")->default_val(seed_);
        sub.add_option("--threads", threads_, "OS threads of the parallel scheduler (0: all cores)")
            ->default_val(threads_);
    }
#else
    (void)sub;
    (void)runs_kernels;
#endif
}

void emulator_flags::apply() const {
#if defined(CANOPY_BACKEND_CPU)
    auto &o = emu::current_options();
    o.device = emu::preset(device_);
    if (subgroup_) {
        o.device = emu::with_subgroup_size(o.device, subgroup_);
    }
    o.scheduler = emu::parse_scheduler(scheduler_);
    o.seed = seed_;
    o.threads = threads_;
#endif
}

} // namespace canopy::cli
