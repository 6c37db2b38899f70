// canopy/queues/front_queue.hpp — a bounded ring of task-fronts with scoped indices (HRF Fig. 9).
//
// Layout in device memory (32-bit words): [lock, head, tail, advert, front 0, front 1, ...]. head and
// tail grow without bound and wrap at 2^32 (differences are wrap-safe); slot i is front
// i & (capacity - 1). The capacity must be a power of two (the host refuses anything else,
// valid_capacity): with any other capacity `i % capacity` jumps when i wraps, and two live fronts would
// share a slot (e.g. capacity 3: indices 2^32 - 1 and 0 are consecutive but map to slots 0 and 0). Every
// operation is made by one work-item per sub-group (the leader): lanes of one sub-group never contend for the
// lock.
//
// Synchronization: the lock's acquire (CAS) and release (unlock) at the access policy's scope publish
// the fronts and the indices written inside the critical section. head/tail/advert are also atomics at
// that scope, read relaxed outside the lock only as an occupancy hint (a stale hint costs a failed
// attempt, never a lost front: every move re-checks under the lock). `advert` is a copy of the size
// that wider observers may read (the runtime keeps it at device scope for steal-emulated thieves).
//
// Overflow is never silent: push() returns false and the caller reports it (device status word).
#pragma once

#include <atomic>

#include "canopy/platform/config.hpp"
#include "canopy/platform/spin.hpp"
#include "canopy/queues/front.hpp"

namespace canopy::queues {

struct front_queue {
    unsigned* w = nullptr; // control words, then the ring
    unsigned capacity = 0; // fronts
    front_shape shape;

    static constexpr unsigned control_words = 4;
    CANOPY_HOST_DEVICE static constexpr unsigned words(unsigned capacity, front_shape s) {
        return control_words + capacity * s.words();
    }
    /// A capacity a ring can have: a power of two (so that slot indices survive the 32-bit wrap).
    CANOPY_HOST_DEVICE static constexpr bool valid_capacity(unsigned capacity) {
        return capacity != 0 && (capacity & (capacity - 1)) == 0;
    }

    CANOPY_DEVICE unsigned* lock_word() const { return &w[0]; }
    CANOPY_DEVICE unsigned* head_word() const { return &w[1]; }
    CANOPY_DEVICE unsigned* tail_word() const { return &w[2]; }
    CANOPY_DEVICE unsigned* advert_word() const { return &w[3]; }
    CANOPY_DEVICE front_ref slot(unsigned index) const {
        return {w + control_words + (index & (capacity - 1)) * shape.words(), shape};
    }

    /// Occupancy hint (relaxed: a hint only; see the header comment).
    template <class A> CANOPY_DEVICE unsigned size_hint() const {
        const unsigned h = A::load(head_word(), std::memory_order_relaxed);
        const unsigned t = A::load(tail_word(), std::memory_order_relaxed);
        const unsigned n = t - h;
        return n > capacity ? 0 : n; // torn (stale) pair: treat as empty, the lock re-checks
    }

    /// Acquire at A's scope: synchronizes with the previous holder's unlock, so the fronts and indices
    /// it wrote are visible here.
    template <class A> CANOPY_DEVICE bool try_lock() const { return A::try_acquire(lock_word()); }
    /// Waits for the lock; false when the wait passed the spin bound (spin_until_bounded: a GPU debug
    /// build's hang report), in which case the lock is not held and the caller reports a failure.
    template <class A> CANOPY_DEVICE bool lock() const {
        return spin_until_bounded([&] { return try_lock<A>(); });
    }
    /// Release at A's scope (A::release_store): publishes this critical section to the next holder.
    template <class A> CANOPY_DEVICE void unlock() const { A::release_store(lock_word(), 0u); }

    // ---- inside the lock: relaxed, because the lock's acquire/release orders them ----
    template <class A> CANOPY_DEVICE unsigned head() const {
        return A::load(head_word(), std::memory_order_relaxed);
    }
    template <class A> CANOPY_DEVICE unsigned tail() const {
        return A::load(tail_word(), std::memory_order_relaxed);
    }
    template <class A> CANOPY_DEVICE unsigned size_locked() const {
        const unsigned n = tail<A>() - head<A>();
        return n > capacity ? 0 : n;
    }
    /// The slot a push will fill, or nullptr-front when full (the caller reports the overflow).
    template <class A> CANOPY_DEVICE bool has_room() const { return size_locked<A>() < capacity; }
    template <class A> CANOPY_DEVICE front_ref back_slot() const { return slot(tail<A>()); }
    template <class A> CANOPY_DEVICE front_ref oldest() const { return slot(head<A>()); }
    template <class A> CANOPY_DEVICE void commit_push() const {
        A::store(tail_word(), tail<A>() + 1, std::memory_order_relaxed);
    }
    template <class A> CANOPY_DEVICE void commit_pop() const {
        A::store(head_word(), head<A>() + 1, std::memory_order_relaxed);
    }
};

} // namespace canopy::queues
