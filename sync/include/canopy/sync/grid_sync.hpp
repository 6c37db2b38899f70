// canopy/sync/grid_sync.hpp — the vendor's cooperative grid barrier, as a peer of sync's barriers.
//
// hipLaunchCooperativeKernel / cudaLaunchCooperativeKernel with cooperative_groups::this_grid().sync()
// (platform/grid_sync.hpp; on the emulator an arrival-counting barrier). The runtime refuses a grid
// that is not co-resident, so no discovery is needed; but the kernel is tied to a cooperative launch,
// and the vendor chooses the algorithm. Benchmarks compare it with atomic_barrier and xf_barrier.
//
//   canopy::launch_cooperative({.grid = n, .block = 64}, CANOPY_LAMBDA() {
//   canopy::sync::grid_barrier{}.wait(); });
#pragma once

#include "canopy/platform/config.hpp"
#include "canopy/platform/grid_sync.hpp"

namespace canopy::sync {

struct grid_barrier {
    /// Every work-item of the cooperative grid calls it.
    CANOPY_DEVICE void wait() const { canopy::grid_sync(); }
};

} // namespace canopy::sync
