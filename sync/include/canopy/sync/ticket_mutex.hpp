// canopy/sync/ticket_mutex.hpp — the fetch-and-add (ticket) mutex: fair, and it sleeps while it waits.
//
// Stuart & Owens, "Efficient Synchronization Primitives for GPUs" (2011), Algorithm 3 (their "FA" or
// "sleeping" mutex): lock takes a ticket with one fetch-and-add and then polls `serving` with loads
// until it is its turn; unlock advances `serving` (only the holder writes it, so no RMW is needed).
// FIFO in ticket order; exactly one atomic RMW per acquisition; the wait is loads only.
//
// SLEEPING. A GPU cannot block a work-group: "sleeping" means polling with plain-cost loads and letting
// canopy::spin_until sleep between polls (s_sleep / __nanosleep with exponential canopy::backoff; a
// fiber yield on the emulator) instead of hammering the word with RMWs as spin_mutex does.
//
// SCOPE. As spin_mutex: lock() acquires at S, unlock() releases at S; S must include every contender.
// One work-item per work-group (or sub-group) contends; never two lanes of one sub-group.
//
// try_lock() exists (SO11 says an FA mutex cannot have one, since a ticket commits its taker): it takes
// a ticket only when that ticket is being served right now, by compare-and-swap on `next`.
#pragma once
#include "canopy/platform/atomic.hpp"
#include "canopy/platform/config.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/spin.hpp"
#include <atomic>

namespace canopy::sync {

template <scope S> struct ticket_mutex {
    static constexpr scope scope_value = S;
    unsigned next = 0;    // the next ticket to hand out
    unsigned serving = 0; // the ticket that holds the mutex (== next: free)

    CANOPY_DEVICE void lock(canopy::backoff sleep = {}) {
        // Relaxed: taking a ticket orders nothing; the acquire is on `serving`, whose value our turn
        // is published by. (SO11's atomicInc is a plain fetch-and-increment: D.3.5.)
        const unsigned my = atomic_ref<unsigned, S>(next).fetch_add(1u, std::memory_order_relaxed);
        atomic_ref<unsigned, S> turn(serving);
        // Acquire at S: reading our ticket in `serving` synchronizes with the previous holder's release,
        // so its critical section's writes are visible in ours.
        canopy::spin_until([&] { return turn.load(std::memory_order_acquire) == my; }, sleep);
    }

    CANOPY_DEVICE bool try_lock() {
        // Acquire at S, as in lock(): if the CAS below succeeds, this is the value that admits us.
        unsigned now = atomic_ref<unsigned, S>(serving).load(std::memory_order_acquire);
        // Relaxed CAS: `serving` never passes `next` and only grows, so next == now (read after
        // serving == now) means ticket `now` is unissued and being served: taking it takes the lock.
        return atomic_ref<unsigned, S>(next).compare_exchange_strong(now, now + 1u, std::memory_order_relaxed,
                                                                     std::memory_order_relaxed);
    }

    CANOPY_DEVICE void unlock() {
        atomic_ref<unsigned, S> turn(serving);
        // Relaxed load: only the holder writes `serving`, and we read our own turn when we acquired.
        const unsigned my = turn.load(std::memory_order_relaxed);
        // Release at S: publishes the critical section to the holder of ticket my + 1 (D.3.4: SO11's
        // non-atomic `turn = turn + 1` must still be a release store).
        turn.store(my + 1u, std::memory_order_release);
    }
};

} // namespace canopy::sync
