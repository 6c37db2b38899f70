// bench/parallel_run.hpp — the set-up the wall-clock benches share: the emulator's parallel scheduler on a
// named device preset, and a banner that says how the numbers were taken (device, threads, best-of,
// whether assertions were on), so two runs' numbers are never compared blind.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "canopy/emulator/options.hpp"
#include "canopy/emulator/virtual_device.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/runtime/policy.hpp"

namespace canopy::bench {

/// "release" when NDEBUG is set; otherwise the numbers include assertions and the banner says so.
inline const char* build_kind() {
#if defined(NDEBUG)
    return "release";
#else
    return "assertions on";
#endif
}

/// The emulator's parallel scheduler on `device` with `threads` workers (0 = every core). Throws
/// canopy::error on an unknown preset.
inline emu::options parallel_options(const std::string& device, unsigned threads) {
    emu::options o;
    o.device = emu::preset(device);
    o.scheduler = emu::scheduler_kind::parallel;
    o.threads = threads;
    return o;
}

/// The policies named on a wall-clock bench's command line. Throws canopy::error on an unknown name, and
/// on steal-rsp: remote-scope promotion is modelled only by the scoped-cache model (the deterministic
/// scheduler), and these benches measure the parallel one.
inline std::vector<runtime::policy> parallel_policies(const std::vector<std::string>& names) {
    std::vector<runtime::policy> pols;
    for (const auto& n : names) {
        pols.push_back(runtime::parse_policy(n));
        if (pols.back() == runtime::policy::steal_rsp) {
            throw error("steal-rsp needs the scoped-cache model (deterministic scheduler); this bench "
                        "measures the parallel scheduler");
        }
    }
    return pols;
}

/// The first line of a bench's table.
inline void print_parallel_banner(const char* bench, const std::string& device, unsigned threads,
                                  unsigned repeat) {
    std::printf("%s: device %s, parallel scheduler (%u threads; 0 = all cores), best of %u, build: %s\n\n",
                bench, device.c_str(), threads, repeat, build_kind());
}

} // namespace canopy::bench
