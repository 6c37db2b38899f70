// Emulator: a launch runs the kernel on every work-item's fiber and returns when the grid is done.
#pragma once

#include <cstddef>

#include "canopy/emulator/launch.hpp"

namespace canopy {

template <class Kernel> void launch(const launch_config& cfg, const Kernel& k) {
    emu::run(
        cfg.grid, cfg.block, cfg.shared_bytes, [](const void* p) { (*static_cast<const Kernel*>(p))(); }, &k);
}

template <class Kernel> unsigned max_resident_blocks(unsigned block, std::size_t shared_bytes = 0) {
    return emu::resident_slots(block, shared_bytes);
}

} // namespace canopy
