// canopy/sync/spin_semaphore.hpp — the spin-lock semaphore (one word that is also its own lock).
//
// Stuart & Owens, "Efficient Synchronization Primitives for GPUs" (2011), Algorithm 4. GPUs have no
// "decrement if > 0" atomic, so the word S encodes both the count and a lock, for capacity X:
//   S == 0: another work-item is manipulating S (locked);  S == 1: at capacity;  S == v > 1: v - 1 free.
// wait() exchanges 0 in (grabbing the word): on v > 1 it puts back v - 1 and is admitted, on v == 1 it
// puts the 1 back and retries, on 0 it retries. post() grabs the word until it reads v > 0 and puts
// back v + 1. Both SPIN: every poll is an RMW. Backoff (linear_backoff is SO11's) applies to wait();
// post() backs off only with BackoffInPost (Alg. 4 has it, the text says no: D.3.2; default: the text).
//
// SCOPE. wait() acquires and post() releases at S, so the data a post()er wrote is visible to the
// waiter admitted after it. Every grab of the word is an acquire and every put-back a release: the
// word is a lock around itself, and the chain of grabs and put-backs carries the happens-before from
// a post() to any later wait(). S must include every work-item that waits or posts. One work-item per
// work-group (or sub-group) takes part; never two lanes of one sub-group.
//
// Initialize with with_capacity(X) (host or device) and upload; a zero word is a locked semaphore.
#pragma once
#include "canopy/platform/atomic.hpp"
#include "canopy/platform/config.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/spin.hpp"
#include "canopy/sync/backoff.hpp"
#include <atomic>

namespace canopy::sync {

template <scope S, class Backoff = no_backoff, bool BackoffInPost = false> struct spin_semaphore {
    static constexpr scope scope_value = S;
    unsigned word = 1; // X + 1 for capacity X (see above)

    CANOPY_HOST_DEVICE static constexpr spin_semaphore with_capacity(unsigned capacity) {
        spin_semaphore s;
        s.word = capacity + 1u;
        return s;
    }

    /// One attempt to take a slot.
    CANOPY_DEVICE bool try_wait() {
        // Acquire at S: grabbing the word synchronizes with the release put-back (of a post() or of
        // another waiter that saw one), so what the poster published is visible once we are admitted.
        const unsigned v = ref().exchange(0u, std::memory_order_acquire);
        if (v > 1u) {
            // Release at S: the next grabber of the word sees everything before this put-back.
            ref().store(v - 1u, std::memory_order_release);
            return true;
        }
        if (v == 1u) {
            // Full: put the 1 back (release at S, for the same chain).
            ref().store(1u, std::memory_order_release);
        }
        return false; // v == 0: someone else holds the word; it will put it back
    }

    CANOPY_DEVICE void wait() {
        Backoff b;
        canopy::spin_until(
            [&] {
                if (b.should_skip()) {
                    return false;
                }
                if (try_wait()) {
                    return true;
                }
                b.failed();
                return false;
            },
            Backoff::unit());
    }

    CANOPY_DEVICE void post() {
        Backoff b;
        canopy::spin_until(
            [&] {
                if (BackoffInPost && b.should_skip()) {
                    return false;
                }
                // Acquire at S: we hold the word until the put-back (a lock around the word).
                const unsigned v = ref().exchange(0u, std::memory_order_acquire);
                if (v > 0u) {
                    // Release at S: publishes this work-item's writes before the post to the waiter
                    // that takes this slot.
                    ref().store(v + 1u, std::memory_order_release);
                    return true;
                }
                b.failed();
                return false;
            },
            BackoffInPost ? Backoff::unit() : no_backoff::unit());
    }

  private:
    CANOPY_DEVICE atomic_ref<unsigned, S> ref() { return atomic_ref<unsigned, S>(word); }
};

/// SO11's "spin-lock semaphore with backoff" (linear, wrap-around, in wait() only).
template <scope S> using spin_backoff_semaphore = spin_semaphore<S, linear_backoff<>>;

} // namespace canopy::sync
