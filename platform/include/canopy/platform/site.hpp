// canopy/platform/site.hpp — where in the kernel source a work-item waits (for the emulator's reports).
//
// On the emulator every blocking call (barrier, collective, spin_until) records its call site so
// that a deadlock or divergence report can say *where* each work-item is stuck. GPU backends have no
// use for it, so there the parameter does not exist and costs nothing.
#pragma once

#include "canopy/platform/config.hpp"

namespace canopy {

struct site {
    const char* file = "?";
    unsigned line = 0;
};

} // namespace canopy

#if defined(CANOPY_BACKEND_CPU)
/// A default argument that captures the caller's file and line (gcc and clang both provide these).
#    define CANOPY_SITE_PARAM ::canopy::site where = ::canopy::site{__builtin_FILE(), __builtin_LINE()}
#endif
