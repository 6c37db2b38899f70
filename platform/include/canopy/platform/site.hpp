// canopy/platform/site.hpp — where in the kernel source a work-item waits or accesses memory (for the
// emulator's reports: deadlocks, divergence, races).
//
// On the emulator every blocking call (barrier, collective, spin_until) records its call site so
// that a deadlock or divergence report can say *where* each work-item is stuck. GPU backends have no
// use for it, so there the parameter does not exist and costs nothing.
#pragma once

#include "canopy/platform/config.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include <source_location>
#endif

namespace canopy {

struct site {
    const char* file = "?";
    unsigned line = 0;
#if defined(CANOPY_BACKEND_CPU)
    site() = default;
    site(const char* f, unsigned l) : file(f), line(l) {}
    // NOLINTNEXTLINE(google-explicit-constructor): call sites convert implicitly
    site(const std::source_location& l) : file(l.file_name()), line(l.line()) {}
#endif
};

} // namespace canopy

#if defined(CANOPY_BACKEND_CPU)
/// A default argument that captures the caller's file and line. std::source_location::current() must
/// be the default argument itself: wrapped in another expression, gcc reports the declaration's line.
#    define CANOPY_SITE_PARAM ::std::source_location where = ::std::source_location::current()
/// The same as a trailing parameter of an API every backend shares (atomic_ref, fence): on the CPU
/// backend it captures the call site for the race detector; elsewhere it does not exist.
#    define CANOPY_SITE_PARAM_TAIL , CANOPY_SITE_PARAM
#    define CANOPY_SITE_ARG_TAIL , where
#else
#    define CANOPY_SITE_PARAM_TAIL
#    define CANOPY_SITE_ARG_TAIL
#endif
