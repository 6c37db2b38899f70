// tests/fuzz/fuzz_check.hpp — what the fuzz targets share: the oracle check that aborts (so libFuzzer
// and the replay executable both see a failure), and the planted bug that proves the replay tests can
// fail (CANOPY_FUZZ_PLANTED_BUG=1 makes every target's first non-empty input fail its check).
#pragma once

#include <cstdio>
#include <cstdlib>

namespace canopy::fuzz {

/// Prints "canopy fuzz check failed: WHAT (FILE:LINE)" and aborts: an oracle violation is a finding.
[[noreturn]] inline void check_failed(const char* what, const char* file, int line) {
    std::fprintf(stderr, "canopy fuzz check failed: %s (%s:%d)\n", what, file, line);
    std::fflush(stderr);
    std::abort();
}

/// Whether CANOPY_FUZZ_PLANTED_BUG=1 is set (read once).
inline bool planted_bug() {
    static const bool on = [] {
        const char* v = std::getenv("CANOPY_FUZZ_PLANTED_BUG");
        return v != nullptr && v[0] == '1';
    }();
    return on;
}

} // namespace canopy::fuzz

#define CANOPY_FUZZ_CHECK(cond, what)                                                                        \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            ::canopy::fuzz::check_failed(what, __FILE__, __LINE__);                                          \
        }                                                                                                    \
    } while (false)

/// Every target calls this first: with the planted bug on, a non-empty input fails a check.
#define CANOPY_FUZZ_PLANTED_CHECK(size)                                                                      \
    CANOPY_FUZZ_CHECK(!(::canopy::fuzz::planted_bug() && (size) != 0),                                       \
                      "planted bug (CANOPY_FUZZ_PLANTED_BUG=1)")
