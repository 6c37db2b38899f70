// canopy/platform/spin.hpp — spin_until: the only sanctioned spin loop.
//
// Every wait on another work-item goes through spin_until, so that each backend can wait politely and
// the emulator can see it: AMD sleeps the wave (s_sleep), NVIDIA __nanosleep()s with exponential
// backoff, and the emulator yields the fiber and tells its watchdog where this work-item waits, so a
// wait that can never end becomes a deadlock report (with this call site) instead of a hang.
//
// Never spin on another lane of your own sub-group: lanes of one wavefront have no independent
// forward progress on AMD.
#pragma once

#include "canopy/platform/config.hpp"
#include "canopy/platform/site.hpp"

namespace canopy {

/// Exponential backoff between polls, in nanoseconds (GPU backends); the emulator yields instead.
struct backoff {
    unsigned initial_ns = 32;
    unsigned max_ns = 1024;
};

} // namespace canopy

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/spin.hpp"
#elif defined(CANOPY_BACKEND_HIP)
#    include "canopy/platform/detail/hip/spin.hpp"
#else
#    include "canopy/platform/detail/cuda/spin.hpp"
#endif
// Provided by the backend header: template <class Pred> void spin_until(Pred pred, backoff b = {});
// it returns once pred() has returned true.
