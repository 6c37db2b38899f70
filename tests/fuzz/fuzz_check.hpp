// tests/fuzz/fuzz_check.hpp — what the fuzz targets share: the oracle check that aborts (so libFuzzer
// and the replay executable both see a failure), and the planted bugs that prove the replay tests can
// fail (CANOPY_FUZZ_PLANTED_BUG=1 makes every target's first non-empty input fail its check; =alloc makes
// it allocate 3 GiB, which the replay's allocation limit must turn into a failure).
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace canopy::fuzz {

/// Prints "canopy fuzz check failed: WHAT (FILE:LINE)" and aborts: an oracle violation is a finding.
[[noreturn]] inline void check_failed(const char* what, const char* file, int line) {
    std::fprintf(stderr, "canopy fuzz check failed: %s (%s:%d)\n", what, file, line);
    std::fflush(stderr);
    std::abort();
}

/// CANOPY_FUZZ_PLANTED_BUG (read once): "1" fails a check, "alloc" allocates 3 GiB (over the 2 GiB limit).
inline const char* planted_bug_kind() {
    static const char* kind = [] {
        const char* v = std::getenv("CANOPY_FUZZ_PLANTED_BUG");
        return v == nullptr ? "" : v;
    }();
    return kind;
}
inline bool planted_bug() { return planted_bug_kind()[0] == '1'; }

/// With CANOPY_FUZZ_PLANTED_BUG=alloc: the allocation a loader that trusts a huge header would make.
inline void planted_allocation(std::size_t size) {
    if (size != 0 && std::strcmp(planted_bug_kind(), "alloc") == 0) {
        // Through a volatile global, so that no compiler can elide the new/delete pair.
        static void* volatile sink = nullptr;
        sink = ::operator new (std::size_t{3} << 30);
        ::operator delete(sink);
    }
}

} // namespace canopy::fuzz

#define CANOPY_FUZZ_CHECK(cond, what)                                                                        \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            ::canopy::fuzz::check_failed(what, __FILE__, __LINE__);                                          \
        }                                                                                                    \
    } while (false)

/// Every target calls this first: with the planted bug on, a non-empty input fails a check (or allocates).
#define CANOPY_FUZZ_PLANTED_CHECK(size)                                                                      \
    do {                                                                                                     \
        ::canopy::fuzz::planted_allocation(size);                                                            \
        CANOPY_FUZZ_CHECK(!(::canopy::fuzz::planted_bug() && (size) != 0),                                   \
                          "planted bug (CANOPY_FUZZ_PLANTED_BUG=1)");                                        \
    } while (false)
