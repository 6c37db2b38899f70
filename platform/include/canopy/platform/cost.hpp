// canopy/platform/cost.hpp — model_cycles: a kernel tells the emulator's timing model what its
// computation costs.
//
// The scoped-cache model charges memory and synchronization; it has no pipeline, so arithmetic is
// free there. A kernel whose timing matters (the HRF experiment) declares the compute it does between
// memory operations, e.g. one SHA-1 compression per UTS child. On a GPU the hardware spends the time
// itself, so this compiles to nothing; on the emulator it advances the calling work-item's simulated
// clock (used by timed scheduling, emulator/options.hpp), and is harmless otherwise.
#pragma once

#include "canopy/platform/config.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/emulator/work_item.hpp"
#endif

namespace canopy {

/// Declares `cycles` of computation by the calling work-item (see the header comment).
CANOPY_DEVICE inline void model_cycles(unsigned cycles) {
#if defined(CANOPY_BACKEND_CPU)
    emu::self().clock += cycles;
#else
    (void)cycles;
#endif
}

} // namespace canopy
