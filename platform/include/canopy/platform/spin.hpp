// canopy/platform/spin.hpp — spin_until: the only sanctioned spin loop.
//
// Every wait on another work-item goes through spin_until, so that each backend can wait politely and
// the emulator can see it: AMD sleeps the wave (s_sleep), NVIDIA __nanosleep()s with exponential
// backoff, and the emulator yields the fiber and tells its watchdog where this work-item waits, so a
// wait that can never end becomes a deadlock report (with this call site) instead of a hang.
//
// Never spin on another lane of your own sub-group: lanes of one wavefront have no independent
// forward progress on AMD.
//
// spin_until_bounded: the same wait, but it gives up and returns false once a bound has passed. A GPU
// has no watchdog: a lost task or a lock never released hangs the kernel until the driver kills it,
// and nothing says where. Code that owns a failure channel (the runtime's status word) waits with
// spin_until_bounded and turns `false` into a report, so a hang becomes a message naming the waiter.
//   GPU backends: a time bound of CANOPY_SPIN_TIMEOUT_NS nanoseconds (device clock: %globaltimer on
//     NVIDIA, s_memrealtime on AMD). Debug builds (NDEBUG undefined) default it to 10 s; release builds
//     to 0, which means unbounded (the check compiles away). Define it to choose.
//   Emulator: unbounded by default, since its own watchdog reports a hang with every waiter's site;
//     options::spin_limit (CANOPY_EMU_SPIN_LIMIT) bounds the polls of one wait, so that tests can
//     exercise the GPU's path.
#pragma once

#include "canopy/platform/config.hpp"
#include "canopy/platform/site.hpp"

#if !defined(CANOPY_SPIN_TIMEOUT_NS)
#    if defined(NDEBUG)
#        define CANOPY_SPIN_TIMEOUT_NS 0ULL
#    else
#        define CANOPY_SPIN_TIMEOUT_NS 10000000000ULL
#    endif
#endif

namespace canopy {

/// The GPU backends' bound on one spin_until_bounded wait, in nanoseconds (0: unbounded).
inline constexpr unsigned long long spin_timeout_ns = CANOPY_SPIN_TIMEOUT_NS;

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
// Provided by the backend header:
//   template <class Pred> void spin_until(Pred pred, backoff b = {});
//       returns once pred() has returned true;
//   template <class Pred> bool spin_until_bounded(Pred pred, backoff b = {});
//       true once pred() has returned true; false when the bound above passed first.
