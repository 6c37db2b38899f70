// canopy/sync/spin_mutex.hpp — the test-and-set spin mutex, with optional backoff.
//
// Stuart & Owens, "Efficient Synchronization Primitives for GPUs" (2011), Algorithms 1 and 2: lock by
// atomically exchanging 1 into the word until the old value was 0; unlock by writing 0. With
// Backoff = no_backoff it is SO11's "spin lock" (every poll is an atomic RMW on the word, and the
// waiter never sleeps); with linear_backoff it is their "spin lock with backoff" (linear, wrap-around);
// exponential_backoff is the exponential variant. It is unfair: whoever is lucky wins.
//
// SCOPE. S is the set of work-items that may contend, and the scope at which the protected data is
// made visible: unlock() releases at S and lock() acquires at S. A work-group-scope mutex used by
// several work-groups is a data race: on AMD (and the emulator's scoped-cache model) its RMWs happen
// in each CU's L1, so two CUs can both "acquire" it, and the data stays in the L1 it was written in.
//
// WHO CONTENDS. One work-item per work-group (or per sub-group) should call lock(); let the others
// wait at a block_barrier. Never let two lanes of one sub-group contend: lanes of a wavefront have no
// independent forward progress, and a lane spinning on its holder sibling can hang the wave on AMD.
//
// Usage (the state lives in device memory, zero = unlocked):
//   canopy::device_buffer<canopy::sync::spin_mutex<canopy::scope::device>> m(1); m.fill_zero();
//   kernel: if (canopy::thread_id() == 0) { m.data()->lock(); ...; m.data()->unlock(); }
#pragma once
#include "canopy/platform/atomic.hpp"
#include "canopy/platform/config.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/spin.hpp"
#include "canopy/sync/backoff.hpp"
#include <atomic>

namespace canopy::sync {

template <scope S, class Backoff = no_backoff> struct spin_mutex {
    static constexpr scope scope_value = S;
    unsigned word = 0; // 0: free, 1: held

    /// One test-and-set attempt; acquires at S when it succeeds.
    CANOPY_DEVICE bool try_lock() {
        // Relaxed RMW: a failed attempt needs no ordering, so it pays no acquire (on AMD, and in the
        // scoped-cache model, a device-scope acquire invalidates the whole L1). The exchange reads the
        // 0 that the previous holder's release store wrote, so the acquire fence below synchronizes
        // with that release (fence-to-atomic synchronization) and the protected data becomes visible.
        if (ref().exchange(1u, std::memory_order_relaxed) != 0u) {
            return false;
        }
        // Acquire at S: the critical section's reads must not see data older than the last unlock.
        canopy::fence<S>(std::memory_order_acquire);
        return true;
    }

    CANOPY_DEVICE void lock() {
        Backoff b;
        // A spin, not a sleep: every poll that is not a backoff unit is an atomic RMW on the word
        // (SO11's definition of spinning), and spin_until sleeps only the policy's unit between polls.
        canopy::spin_until(
            [&] {
                if (b.should_skip()) {
                    return false; // backing off: leave the word alone
                }
                if (try_lock()) {
                    return true;
                }
                b.failed();
                return false;
            },
            Backoff::unit());
    }

    CANOPY_DEVICE void unlock() {
        // Release at S: the critical section's writes (flushed from the L1 at device scope) are visible
        // to whoever exchanges this 0 out next. A plain `word = 0` (SO11 Alg. 2) would be a data race
        // with no ordering; an atomic release store is D.3.3's modern form of Alg. 1's atomicExch.
        ref().store(0u, std::memory_order_release);
    }

  private:
    CANOPY_DEVICE atomic_ref<unsigned, S> ref() { return atomic_ref<unsigned, S>(word); }
};

/// SO11's "spin lock with backoff": linear, wrap-around backoff.
template <scope S> using spin_backoff_mutex = spin_mutex<S, linear_backoff<>>;
/// The same with exponential backoff.
template <scope S> using spin_exp_backoff_mutex = spin_mutex<S, exponential_backoff<>>;

} // namespace canopy::sync
