// canopy/sync/persistent.hpp — persistent launches: as many work-groups as the device could hold,
// occupancy discovery picks those that are resident together, the rest exit at once.
//
// Sorensen et al., OOPSLA 2016, §3 and Fig. 4: the main computation must not depend on the launched
// work-group count, only on the participating environment (p_group_id, p_num_groups, p_global_id,
// p_global_size), so it is correct for any number of participants — and may wait on all of them (e.g.
// with xf_barrier) because they are co-resident.
//
//   canopy::sync::discovery_context ctx(canopy::sync::persistent_grid<K>(64));
//   const unsigned n = canopy::sync::launch_persistent({.block = 64}, ctx, kernel);
//   // kernel: for (i = p_global_id(); i < size; i += p_global_size()) ...
#pragma once

#include <cstddef>
#include <string>

#include "canopy/platform/error.hpp"
#include "canopy/platform/kernel_timer.hpp"
#include "canopy/platform/launch.hpp"
#include "canopy/sync/discovery.hpp"

namespace canopy::sync {

/// The kernel a persistent launch runs: discovery first, then `body` in participants only.
template <class Body> struct persistent_kernel {
    discovery_view discovery;
    Body body;
    CANOPY_DEVICE void operator()() const {
        if (!discovery.join()) {
            return; // the whole work-group, uniformly: nothing has synchronised yet
        }
        body();
    }
};

/// Work-groups a persistent launch of `Body` with this block size launches: the device's residency
/// (the occupancy API on GPUs, the virtual device on the emulator).
template <class Body> unsigned persistent_grid(unsigned block, std::size_t shared_bytes = 0) {
    return max_resident_blocks<persistent_kernel<Body>>(block, shared_bytes);
}

/// Resets `ctx`, launches `cfg.grid` work-groups (0: persistent_grid, as many as the device holds),
/// runs `body` in the participants and returns their count once the launch is done (this synchronises
/// with the device on GPU backends, by reading the count back). With a timer, the kernel alone is timed
/// into it: the discovery context's reset before and the count's read-back after stay outside the marks.
template <class Body>
unsigned launch_persistent(launch_config cfg, discovery_context& ctx, const Body& body,
                           kernel_timer* timer = nullptr) {
    if (cfg.grid == 0) {
        cfg.grid = persistent_grid<Body>(cfg.block, cfg.shared_bytes);
    }
    if (cfg.grid > ctx.max_groups()) {
        throw error("canopy::sync::launch_persistent: the discovery context holds ids for " +
                    std::to_string(ctx.max_groups()) + " work-groups, the launch has " +
                    std::to_string(cfg.grid) + "; size it with persistent_grid()");
    }
    ctx.reset();
    timed_launch(timer, [&] { launch(cfg, persistent_kernel<Body>{ctx.view(), body}); });
    return ctx.participants();
}

} // namespace canopy::sync
