// Emulator: an arrival-counting barrier with divergence detection (emulator/src/engine.cpp).
#pragma once

#include "canopy/emulator/launch.hpp"
#include "canopy/platform/site.hpp"

namespace canopy {
inline void block_barrier(CANOPY_SITE_PARAM) { emu::block_barrier(where); }
} // namespace canopy
