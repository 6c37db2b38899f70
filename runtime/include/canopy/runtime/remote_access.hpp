// canopy/runtime/remote_access.hpp — steal-rsp's access policy (canopy/queues/scoped_access.hpp shape):
// the thief reaches the victim's work-group-scope queue words with remote-scope-promoted device-scope
// operations (canopy/platform/remote.hpp; CPU emulator only: no GPU has remote-scope promotion).
#pragma once

#include <atomic>

#include "canopy/platform/config.hpp"
#include "canopy/platform/remote.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/site.hpp"

#if CANOPY_HAS_REMOTE_SCOPE
namespace canopy::runtime {

/// The access policy of a steal-rsp thief.
struct remote_access {
    static constexpr scope value = scope::device;

    static unsigned load(unsigned* p, std::memory_order o, CANOPY_SITE_PARAM) {
        return remote_load(p, o, where);
    }
    static void store(unsigned* p, unsigned v, std::memory_order o, CANOPY_SITE_PARAM) {
        remote_store(p, v, o, where);
    }
    static bool cas(unsigned* p, unsigned expected, unsigned desired, std::memory_order o,
                    CANOPY_SITE_PARAM) {
        return remote_compare_exchange(p, expected, desired, o, where);
    }
    static void release_store(unsigned* p, unsigned v, CANOPY_SITE_PARAM) {
        store(p, v, std::memory_order_release, where);
    }
    /// Lock acquisition by a thief: the acquire stays on the remote CAS itself, because remote-scope
    /// promotion is a property of the operation (RSP Table 3 row 9): a following fence would be an
    /// ordinary device-scope fence that does not reach the victim's work-group scope.
    static bool try_acquire(unsigned* p, CANOPY_SITE_PARAM) {
        return cas(p, 0u, 1u, std::memory_order_acquire, where);
    }
    // Lock-free rings (canopy/queues/front_ring.hpp): for the same reason, the ring's acquire is an
    // acquire load of each reserved slot's sequence word, and its release a release store of it.
    static constexpr bool acquire_by_fence = false;
    static constexpr bool release_by_fence = false;
};

} // namespace canopy::runtime

#    define CANOPY_RUNTIME_HAS_RSP 1
#else
#    define CANOPY_RUNTIME_HAS_RSP 0
namespace canopy::runtime {
/// Not available: steal-rsp needs remote-scope promotion, which only the emulator models.
struct remote_access {
    template <class... A> static unsigned load(A...) {
        static_assert(sizeof...(A) == 0,
                      "steal-rsp (remote-scope promotion) exists only on the CPU emulator");
        return 0;
    }
};
} // namespace canopy::runtime
#endif
