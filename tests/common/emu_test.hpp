// Test helpers for emulator runs: options per test, and seed sweeps that name the failing seed.
#pragma once

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/options.hpp"

namespace canopy::test {

inline emu::options emu_options(const std::string& preset = "tiny", unsigned subgroup = 0,
                                emu::scheduler_kind k = emu::scheduler_kind::deterministic,
                                std::uint64_t seed = 1) {
    emu::options o;
    o.device = emu::preset(preset);
    if (subgroup) {
        o.device = emu::with_subgroup_size(o.device, subgroup);
    }
    o.scheduler = k;
    o.seed = seed;
    o.threads = 2;
    o.stack_bytes = 64 * 1024;
    o.watchdog_seconds = 3.0;
    return o;
}

/// emu_options on the scoped-cache memory model (deterministic scheduler): where a too-narrow scope
/// loses or repeats work.
inline emu::options scm_options(const std::string& preset = "tiny") {
    emu::options o = emu_options(preset);
    o.memory_model = emu::memory_model_kind::scoped;
    return o;
}

/// Runs `body()` under `base` with seeds 1..n on the deterministic scheduler; every assertion made
/// inside carries the seed, so a failure can be replayed (CANOPY_EMU_SEED=<seed>).
template <class Body> void for_seeds(emu::options base, unsigned n, Body body) {
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        base.seed = seed;
        emu::scoped_options scoped(base);
        SCOPED_TRACE(::testing::Message() << "emulator seed " << seed << " (device " << base.device.name
                                          << ", sub-group " << base.device.subgroup_size << ")");
        body();
        if (::testing::Test::HasFatalFailure()) {
            return;
        }
    }
}

} // namespace canopy::test
