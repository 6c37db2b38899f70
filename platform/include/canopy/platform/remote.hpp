// canopy/platform/remote.hpp — remote-scope-promoted atomics (RSP, Orr et al.): device-scope operations
// on 32-bit words marked `remote`, which a memory model with promotion (the emulator's scoped-cache
// model, RSP Table 3 "proposed") makes reach the work-group scope of the word's owner: the owner's
// work-group-scope releases become visible to the remote side, and the remote side's writes to the
// owner. No GPU has such instructions, so they exist only on the CPU backend (CANOPY_HAS_REMOTE_SCOPE);
// elsewhere calling one is a compile error. Without a memory model (coherent memory, the parallel
// scheduler) they are std::atomic_ref operations with the same order.
//
//   unsigned remote_load(unsigned* p, std::memory_order o);
//   void     remote_store(unsigned* p, unsigned v, std::memory_order o);
//   bool     remote_compare_exchange(unsigned* p, unsigned expected, unsigned desired, std::memory_order o);
//                     (failure order: acquire for acq_rel, relaxed for release, else o)
#pragma once

#include <atomic>

#include "canopy/platform/config.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/remote.hpp"
#    define CANOPY_HAS_REMOTE_SCOPE 1
#else
#    define CANOPY_HAS_REMOTE_SCOPE 0
namespace canopy {
template <class... A> unsigned remote_load(A...) {
    static_assert(sizeof...(A) == 0, "remote-scope promotion exists only on the CPU emulator");
    return 0;
}
} // namespace canopy
#endif
