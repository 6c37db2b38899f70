// canopy/platform/ids.hpp — work-item, sub-group and work-group ids and sizes (1-D launches).
//
// canopy launches are one-dimensional: a task runtime flattens everything anyway, and one dimension
// keeps the emulator and the three backends trivially consistent.
#pragma once

#include "canopy/platform/config.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/ids.hpp"
#elif defined(CANOPY_BACKEND_HIP)
#    include "canopy/platform/detail/hip/ids.hpp"
#else
#    include "canopy/platform/detail/cuda/ids.hpp"
#endif

namespace canopy {
// Provided by the backend header above:
//   unsigned thread_id();      work-item index within its work-group, 0 .. block_dim()-1
//   unsigned block_id();       work-group index within the grid, 0 .. grid_dim()-1
//   unsigned block_dim();      work-items per work-group
//   unsigned grid_dim();       work-groups in the grid
//   unsigned subgroup_size();  32 or 64, a value, never a hard-coded constant
//   unsigned lane_id();        lane within the sub-group
//   unsigned subgroup_id();    sub-group index within the work-group

/// Global work-item index.
CANOPY_DEVICE inline unsigned global_id() { return block_id() * block_dim() + thread_id(); }

/// Sub-groups in one work-group (the last one may be partial when block_dim() is not a multiple).
CANOPY_DEVICE inline unsigned subgroups_per_block() {
    return (block_dim() + subgroup_size() - 1) / subgroup_size();
}
} // namespace canopy
