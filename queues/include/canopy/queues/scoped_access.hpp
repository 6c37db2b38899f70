// canopy/queues/scoped_access.hpp — how a queue's control words (lock, indices) are accessed.
//
// A queue's words keep one scope for their whole life (HRF best practice, digest §5 P7). The access
// policy is a type so that the same queue code serves every runtime policy:
//   scoped_access<S>            atomics at scope S, the release of unlock() at S too;
//   narrowed_release_access<S, R>  atomics at S, but unlock() publishes with a fence at the narrower
//                               scope R followed by a relaxed store: a deliberately broken variant that
//                               tests use to show the scoped-cache model catches a too-narrow release.
// The runtime adds a remote-scope-promoted access (canopy/runtime/remote_access.hpp) for steal-rsp.
#pragma once

#include <atomic>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/scope.hpp"

namespace canopy::queues {

template <scope S> struct scoped_access {
    static constexpr scope value = S;
    CANOPY_DEVICE static unsigned load(unsigned* p, std::memory_order o) {
        return atomic_ref<unsigned, S>(*p).load(o);
    }
    CANOPY_DEVICE static void store(unsigned* p, unsigned v, std::memory_order o) {
        atomic_ref<unsigned, S>(*p).store(v, o);
    }
    CANOPY_DEVICE static bool cas(unsigned* p, unsigned expected, unsigned desired, std::memory_order o) {
        return atomic_ref<unsigned, S>(*p).compare_exchange_strong(expected, desired, o);
    }
    /// Lock acquisition: a relaxed CAS, then an acquire fence at S only when it won. A failed attempt
    /// acquires nothing, so it must not pay for an acquire: on AMD an acquire RMW invalidates the L1
    /// whether or not it succeeds (the invalidate is not predicated on the outcome), and on the
    /// scoped-cache model every spinning loser would otherwise wipe its CU's L1 for the sub-groups
    /// that are still working there.
    CANOPY_DEVICE static bool try_acquire(unsigned* p) {
        unsigned expected = 0;
        if (!atomic_ref<unsigned, S>(*p).compare_exchange_strong(expected, 1u, std::memory_order_relaxed)) {
            return false;
        }
        fence<S>(std::memory_order_acquire);
        return true;
    }
    /// The store that ends a critical section and publishes everything written in it.
    CANOPY_DEVICE static void release_store(unsigned* p, unsigned v) {
        atomic_ref<unsigned, S>(*p).store(v, std::memory_order_release);
    }
    // Lock-free rings (front_ring.hpp): a reservation's acquire and a hand-off's release are fences at
    // S around relaxed accesses of the sequence words (one fence for a batch of fronts).
    static constexpr bool acquire_by_fence = true;
    static constexpr bool release_by_fence = true;
    CANOPY_DEVICE static void acquire_fence() { fence<S>(std::memory_order_acquire); }
    CANOPY_DEVICE static void release_fence() { fence<S>(std::memory_order_release); }
};

/// BROKEN ON PURPOSE (tests only): the publishing release is a fence at R (narrower than S), then a
/// relaxed store at S. The word itself is seen everywhere, the data it should publish is not.
template <scope S, scope R> struct narrowed_release_access : scoped_access<S> {
    CANOPY_DEVICE static void release_store(unsigned* p, unsigned v) {
        fence<R>(std::memory_order_release);
        atomic_ref<unsigned, S>(*p).store(v, std::memory_order_relaxed);
    }
    /// The ring's release (front_ring::publish / release), narrowed the same way.
    CANOPY_DEVICE static void release_fence() { fence<R>(std::memory_order_release); }
};

} // namespace canopy::queues
