// canopy/vocabulary/lane_mask.hpp — a set of a sub-group's lanes, one bit a lane.
//
// 64 bits because the widest sub-group canopy targets is AMD's wave64; a 32-lane sub-group (NVIDIA's
// warp, RDNA's wave32, the emulator's presets) uses the low half. The emulator's collectives and the
// platform's ballots both speak it, so it lives below both.
#pragma once

namespace canopy {

using lane_mask = unsigned long long;
inline constexpr unsigned max_subgroup_size = 64;

} // namespace canopy
