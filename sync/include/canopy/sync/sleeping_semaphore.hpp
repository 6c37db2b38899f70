// canopy/sync/sleeping_semaphore.hpp — the fetch-and-add ("sleeping") semaphore: fair, bounded atomics.
//
// Stuart & Owens, "Efficient Synchronization Primitives for GPUs" (2011), Algorithm 5. `count` counts
// holders plus waiters. wait(): fetch-and-add count; under capacity it is admitted at once, otherwise
// it takes a ticket and sleeps (load polls) until `turn` has passed it. post(): fetch-and-subtract
// count; when someone is (or will be) waiting, advance `turn` to admit exactly one waiter, in ticket
// order. wait() costs one RMW (two when it waits), post() at most two, and post() never waits.
//
// ">" NOT ">=". With ticket and turn both starting at 0, waiter `idx` is admitted when turn > idx
// (Alg. 5). The paper's text says ">=", which would let ticket 0 in while turn is still 0 and exceed
// the capacity (digest D.3.1). The comparison is done on the wrapping difference, so it survives 2^32
// tickets.
//
// SLEEPING. A GPU cannot block a work-group: the waiter polls `turn` with loads and canopy::spin_until
// sleeps between polls (s_sleep / __nanosleep, exponential canopy::backoff; a yield on the emulator).
//
// SCOPE. wait() acquires and post() releases at S; S must include every work-item that waits or posts.
// One work-item per work-group (or sub-group) takes part; never two lanes of one sub-group.
//
// Initialize with with_capacity(C) and upload.
#pragma once
#include "canopy/platform/atomic.hpp"
#include "canopy/platform/config.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/spin.hpp"
#include <atomic>

namespace canopy::sync {

template <scope S> struct sleeping_semaphore {
    static constexpr scope scope_value = S;
    unsigned count = 0;    // holders + waiters
    unsigned ticket = 0;   // next waiting ticket
    unsigned turn = 0;     // waiters with ticket < turn have been admitted
    unsigned capacity = 1; // set by with_capacity

    CANOPY_HOST_DEVICE static constexpr sleeping_semaphore with_capacity(unsigned c) {
        sleeping_semaphore s;
        s.capacity = c;
        return s;
    }

    CANOPY_DEVICE void wait(canopy::backoff sleep = {}) {
        // Acquire at S: every post() decrements `count` with a release RMW, and RMWs continue release
        // sequences, so an admission under capacity synchronizes with the posts before it.
        const unsigned old = atomic_ref<unsigned, S>(count).fetch_add(1u, std::memory_order_acquire);
        if (old < capacity) {
            return;
        }
        // Relaxed: the ticket orders nothing; admission is published through `turn`.
        const unsigned idx = atomic_ref<unsigned, S>(ticket).fetch_add(1u, std::memory_order_relaxed);
        atomic_ref<unsigned, S> t(turn);
        // Acquire at S: synchronizes with the release increment of `turn` by the post() that admits us.
        // turn > idx, as a wrapping difference in [1, 2^31).
        canopy::spin_until([&] { return static_cast<int>(t.load(std::memory_order_acquire) - idx) > 0; },
                           sleep);
    }

    CANOPY_DEVICE void post() {
        // Release at S: what the holder wrote is visible to whoever is admitted next (directly, via
        // count, or via turn below).
        const unsigned old = atomic_ref<unsigned, S>(count).fetch_sub(1u, std::memory_order_release);
        if (old > capacity) {
            // Release at S: admits exactly one waiter, publishing this holder's writes to it.
            atomic_ref<unsigned, S>(turn).fetch_add(1u, std::memory_order_release);
        }
    }

    /// Admitted only if a slot is free now (never takes a ticket).
    CANOPY_DEVICE bool try_wait() {
        atomic_ref<unsigned, S> c(count);
        unsigned v = c.load(std::memory_order_relaxed);
        // count < capacity means no waiters, so taking a slot jumps no queue. Acquire on success, as
        // in wait(); relaxed on failure (we retry or give up, ordering nothing).
        while (v < capacity) {
            if (c.compare_exchange_strong(v, v + 1u, std::memory_order_acquire, std::memory_order_relaxed)) {
                return true;
            }
        }
        return false;
    }
};

} // namespace canopy::sync
