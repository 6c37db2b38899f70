// canopy/platform/grid_sync.hpp — the vendor's cooperative grid barrier, and the launch it needs.
//
//   canopy::launch_cooperative({.grid = n, .block = 256}, CANOPY_LAMBDA() {
//       ...; canopy::grid_sync(); ...   // every work-item of every work-group, like __syncthreads()
//   });
//
// grid_sync() waits until every work-item of the grid has reached it, and makes every write made
// before it visible to every work-item after it (a device-scope barrier web). It is only valid in a
// kernel launched with launch_cooperative, which refuses a grid larger than the device holds resident
// at once (hipLaunchCooperativeKernel / cudaLaunchCooperativeKernel do the same): a grid barrier over
// work-groups that cannot all be resident deadlocks (Sorensen et al. 2016 §2.3).
//   AMD:      hipLaunchCooperativeKernel + cooperative_groups::this_grid().sync()
//   NVIDIA:   cudaLaunchCooperativeKernel + cooperative_groups::this_grid().sync()
//   emulator: an arrival-counting (sense-reversing) barrier over the resident grid, so that the same
//             kernels run, and time, on the CPU.
// sync/ offers it beside its own barriers (sync/grid_sync.hpp) as the peer they are compared with.
#pragma once

#include <cstddef>

#include "canopy/platform/config.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/launch.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/grid_sync.hpp"
#else // one host layer for both GPU vendors (detail/gpu/vendor.hpp)
#    include "canopy/platform/detail/gpu/grid_sync.hpp"
#endif
// Provided by the backend header:
//   template <class Kernel> void launch_cooperative(const launch_config& cfg, const Kernel& k);
//       throws canopy::error when cfg.grid exceeds max_resident_blocks<Kernel>(cfg.block,
//       cfg.shared_bytes) or the device cannot launch cooperatively.
//   void grid_sync();   (device) the grid-wide barrier
