// canopy/sync/sleeping_mutex.hpp — test-and-test-and-set with sleep: the sleeping spin mutex.
//
// Stuart & Owens, "Efficient Synchronization Primitives for GPUs" (2011), §5: a GPU cannot block, so
// "sleeping" is polling with loads instead of RMWs; their futex-like suggestion (§5.3, not evaluated)
// is an aggressive spin lock that falls back to backoff. This is that lock: it polls the word with
// loads, sleeping between polls with the platform's exponential canopy::backoff (s_sleep on AMD,
// __nanosleep on NVIDIA, a fiber yield on the emulator), and tries the exchange only once the word
// reads free. Unfair, like spin_mutex; far fewer RMWs under contention. For the fair sleeping mutex
// see ticket_mutex.
//
// SCOPE. lock() acquires at S, unlock() releases at S; S must include every contender. One work-item
// per work-group (or sub-group) contends; never two lanes of one sub-group.
#pragma once
#include "canopy/platform/atomic.hpp"
#include "canopy/platform/config.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/spin.hpp"
#include <atomic>

namespace canopy::sync {

template <scope S> struct sleeping_mutex {
    static constexpr scope scope_value = S;
    unsigned word = 0; // 0: free, 1: held

    CANOPY_DEVICE bool try_lock() {
        // Relaxed exchange + acquire fence on success, as in spin_mutex: failures cost no acquire.
        if (ref().exchange(1u, std::memory_order_relaxed) != 0u) {
            return false;
        }
        // Acquire at S: synchronizes with the release store of 0 that the exchange read.
        canopy::fence<S>(std::memory_order_acquire);
        return true;
    }

    CANOPY_DEVICE void lock(canopy::backoff sleep = {}) {
        // Relaxed polls: they only decide when an attempt is worth making; try_lock() acquires.
        canopy::spin_until([&] { return ref().load(std::memory_order_relaxed) == 0u && try_lock(); }, sleep);
    }

    CANOPY_DEVICE void unlock() {
        // Release at S: the critical section's writes are visible to the next acquirer.
        ref().store(0u, std::memory_order_release);
    }

  private:
    CANOPY_DEVICE atomic_ref<unsigned, S> ref() { return atomic_ref<unsigned, S>(word); }
};

} // namespace canopy::sync
