// canopy/vocabulary/site.hpp — where in the kernel source a work-item waits or accesses memory (for the
// emulator's reports: deadlocks, divergence, races).
//
// On the emulator every blocking call (barrier, collective, spin_until) records its call site so
// that a deadlock or divergence report can say *where* each work-item is stuck. GPU backends have no
// use for it, so there the parameter does not exist and costs nothing.
#pragma once

#include "canopy/vocabulary/backend.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include <source_location>
#endif

namespace canopy {

#if defined(CANOPY_BACKEND_CPU)
#    if defined(__cpp_lib_source_location)
using source_location = std::source_location;
#    else
/// libstdc++ 12 defines std::source_location only when the compiler has __builtin_source_location,
/// which clang gained in 15: clang 14 sees an empty <source_location>. This fallback keeps the one
/// property canopy needs -- the caller's file and line, captured by a default argument -- with the
/// builtins both compilers have had for years. A builtin in current()'s own default arguments is
/// evaluated where current() is called, and current() is itself a default argument, so it reports the
/// line of the call to the API that declares CANOPY_SITE_PARAM (the idiom of
/// std::experimental::source_location). tests/emulator/test_race_detector.cpp checks the lines.
struct source_location {
    static constexpr source_location current(const char* file = __builtin_FILE(),
                                             unsigned line = __builtin_LINE()) noexcept {
        source_location l;
        l.file_ = file;
        l.line_ = line;
        return l;
    }
    constexpr const char* file_name() const noexcept { return file_; }
    constexpr unsigned line() const noexcept { return line_; }

  private:
    const char* file_ = "?";
    unsigned line_ = 0;
};
#    endif
#endif

struct site {
    const char* file = "?";
    unsigned line = 0;
#if defined(CANOPY_BACKEND_CPU)
    site() = default;
    site(const char* f, unsigned l) : file(f), line(l) {}
    // NOLINTNEXTLINE(google-explicit-constructor): call sites convert implicitly
    site(const canopy::source_location& l) : file(l.file_name()), line(l.line()) {}
#endif
};

} // namespace canopy

#if defined(CANOPY_BACKEND_CPU)
/// A default argument that captures the caller's file and line. source_location::current() must be
/// the default argument itself: wrapped in another expression, gcc reports the declaration's line.
#    define CANOPY_SITE_PARAM ::canopy::source_location where = ::canopy::source_location::current()
/// The same as a trailing parameter of an API every backend shares (atomic_ref, fence): on the CPU
/// backend it captures the call site for the race detector; elsewhere it does not exist.
#    define CANOPY_SITE_PARAM_TAIL , CANOPY_SITE_PARAM
#    define CANOPY_SITE_ARG_TAIL , where
#else
#    define CANOPY_SITE_PARAM_TAIL
#    define CANOPY_SITE_ARG_TAIL
#endif
