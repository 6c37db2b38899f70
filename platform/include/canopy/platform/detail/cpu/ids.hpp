// Emulator: ids live in the running work-item (copied there when its work-group became resident).
#pragma once

#include "canopy/emulator/work_item.hpp"

namespace canopy {
inline unsigned thread_id() { return emu::self().thread; }
inline unsigned block_id() { return emu::self().block; }
inline unsigned block_dim() { return emu::self().block_dim; }
inline unsigned grid_dim() { return emu::self().grid_dim; }
inline unsigned subgroup_size() { return emu::self().subgroup_size; }
inline unsigned lane_id() { return emu::self().lane; }
inline unsigned subgroup_id() { return emu::self().subgroup; }
} // namespace canopy
