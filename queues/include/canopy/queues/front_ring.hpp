// canopy/queues/front_ring.hpp — a bounded ring of task-fronts without a lock word: Vyukov's bounded
// MPMC queue, batched (a sub-group moves k fronts with one RMW on an index), scope-parameterized.
//
// Layout in device memory (32-bit words): [tail, head, advert, spare, seq 0 .. seq C-1, front 0 ..
// front C-1]. head and tail are unbounded 32-bit tickets (differences are wrap-safe); slot of ticket i
// is i & (C - 1), C a power of two of at least 2 (with C = 1, "published for i" and "free for i + 1" would
// be the same value i + 1; the runtime refuses it). seq[s] says what slot s holds, for the
// ticket i that maps to it (stored minus s, so that an all-zero ring is an empty one: a run's buffer is
// zeroed on the device and only the seeded device ring is uploaded):
//   seq == i          free for the producer of ticket i (initially seq[s] = s, stored 0);
//   seq == i + 1      published: the front of ticket i is in the slot, for its consumer;
//   seq == i + C      the consumer of ticket i has finished reading: free for ticket i + C.
//
// Why this design (and not the Broker Queue's count + ticket pair or a lock): a reservation checks the
// sequence words of the slots it wants *before* its one CAS on the index, so a successful CAS owns slots
// that are already ready — no waiting on another sub-group's half-done write or read, and a full or
// empty ring is an answer, not a wait. A producer (consumer) reserves up to k consecutive tickets in one
// CAS (GTaP's warp-cooperative batch): as many of the k slots as are free (published) in a row. The
// CAS fails only when another sub-group's CAS on the same index succeeded (lock-free). The Broker
// Queue's count-then-ticket enqueue needs two RMWs and then waits on the slot's ticket, and a lock
// word (front_queue, HRF Fig. 9) serializes every consumer for the whole time its lanes read the front.
//
// Synchronization, at the access policy's scope (scoped_access<S>: the queue's scope for its whole
// life; docs/scopes.md):
//   producer: relaxed seq checks, relaxed CAS on tail, then an acquire (acquire_fence) that
//             synchronizes with the releases of the consumers that freed the slots (their lanes' reads
//             of the previous front come before this producer's writes: no write-after-read race);
//             the front is written; release_fence + relaxed seq stores publish it (one release
//             for the whole batch: one L1 flush on AMD for k fronts);
//   consumer: relaxed seq checks, relaxed CAS on head, then an acquire that synchronizes with the
//             producers' releases (the fronts are visible); the front is read in place; a release +
//             relaxed seq stores hand the slots to the next lap's producers.
// A failed check or CAS acquires nothing and costs no acquire (on AMD an acquire invalidates the L1
// whatever the outcome). The fence-based release/acquire pairs through the seq word, which the relaxed
// load reads from the relaxed store that follows the release fence ([atomics.fences]). For a
// remote-scope-promoted thief (steal-rsp) the access policy's acquire is an acquire load of the
// seq word itself, and its release a release store: promotion is a property of an operation, not of a
// fence before or after it.
//
// The sub-group's versions (reserve_push_together, publish_together): the lanes check and store the
// sequence words side by side, lane j slot j, where the leader's loop does them one after another. A
// sequence word was last written by another sub-group, so each check is a miss: k of them cost k L2
// round trips on the leader's path while the other lanes wait (a share of 104 one-task fronts: ~50 K
// cycles on timed hrf32, PageRank's block pull on Kronecker 12), side by side one. The leader still makes
// the one CAS. Each lane that checked a slot it then owns acquires for it (its own acquire fence
// synchronizes with the release of that slot's consumer); each lane that stores a sequence word releases
// before it. Between those and the fronts' writes the caller's sub-group barrier orders the lanes (the
// HRF-indirect link: a sub-group-scope hand-off, then a wider acquire or release, as the leader's
// fences were). Accesses whose acquire is not a fence (a promoted thief's) keep the leader's loop.
//
// `advert` is a copy of the size that wider observers read (relaxed: a hint; steal-emulated and
// steal-rsp thieves read it at device scope before they ask or probe).
#pragma once

#include <atomic>

#include "canopy/platform/config.hpp"
#include "canopy/platform/ids.hpp"
#include "canopy/platform/subgroup.hpp"
#include "canopy/queues/front.hpp"

namespace canopy::queues {

/// Tickets [first, first + n) that one reservation owns (n == 0: none).
struct ring_span {
    unsigned first = 0;
    unsigned n = 0;
};

struct front_ring {
    unsigned* w = nullptr;
    unsigned capacity = 0; // fronts: a power of two
    front_shape shape;

    static constexpr unsigned control_words = 4;
    CANOPY_HOST_DEVICE static constexpr unsigned long long words(unsigned capacity, front_shape s) {
        return control_words + capacity + static_cast<unsigned long long>(capacity) * s.words();
    }
    /// The host's image of a ring holding `fronts` published fronts (tickets 0 .. fronts - 1) in a
    /// zeroed image of words(capacity, shape) words: the seeds. The fronts themselves are at front_at().
    static void seed_image(unsigned* image, unsigned fronts) {
        image[0] = fronts; // tail
        for (unsigned s = 0; s < fronts; ++s) {
            image[control_words + s] = 1; // seq == ticket + 1, stored minus the slot
        }
    }
    CANOPY_HOST_DEVICE static constexpr unsigned long long front_at(unsigned capacity, front_shape s,
                                                                    unsigned slot) {
        return control_words + capacity + static_cast<unsigned long long>(slot) * s.words();
    }

    CANOPY_DEVICE unsigned* tail_word() const { return &w[0]; }
    CANOPY_DEVICE unsigned* head_word() const { return &w[1]; }
    CANOPY_DEVICE unsigned* advert_word() const { return &w[2]; }
    CANOPY_DEVICE unsigned* seq_word(unsigned ticket) const {
        return &w[control_words + (ticket & (capacity - 1))];
    }
    CANOPY_DEVICE front_ref slot(unsigned ticket) const {
        return {w + front_at(capacity, shape, ticket & (capacity - 1)), shape};
    }

    /// Fronts queued or being written (relaxed: a hint; a stale pair reads as empty).
    template <class A> CANOPY_DEVICE unsigned size_hint() const {
        const unsigned h = A::load(head_word(), std::memory_order_relaxed);
        const unsigned t = A::load(tail_word(), std::memory_order_relaxed);
        const unsigned n = t - h;
        return n > capacity ? 0 : n;
    }

    /// Reserves up to k free slots for writing (n == 0: the ring is full). The caller writes the fronts
    /// (slot(first + j)) and then calls publish().
    template <class A> CANOPY_DEVICE ring_span reserve_push(unsigned k) const {
        return reserve<A>(tail_word(), k, 0u);
    }
    /// Publishes fronts written into reserved slots: one release, then the sequence words.
    template <class A> CANOPY_DEVICE void publish(ring_span r) const { hand_over<A>(r, 1u); }
    /// Reserves up to k published fronts for reading (n == 0: nothing published at the head). The
    /// caller's lanes read them in place (slot(first + j)), then the leader calls release().
    template <class A> CANOPY_DEVICE ring_span reserve_pop(unsigned k) const {
        return reserve<A>(head_word(), k, 1u);
    }
    /// Hands read slots back to the producers of the next lap: one release, then the sequence words.
    template <class A> CANOPY_DEVICE void release(ring_span r) const { hand_over<A>(r, capacity); }

    /// Every lane of the sub-group (uniform k): reserve_push, the sequence words checked side by side
    /// (at most the sub-group's width a reservation). Uniform result.
    template <class A> CANOPY_DEVICE ring_span reserve_push_together(unsigned k, unsigned lane) const {
        if constexpr (!A::acquire_by_fence) {
            ring_span r;
            if (lane == 0) {
                r = reserve_push<A>(k);
            }
            return {broadcast(r.first, 0), broadcast(r.n, 0)};
        } else {
            return reserve_together<A>(tail_word(), k, 0u, lane);
        }
    }
    /// Every lane of the sub-group, after a sub-group barrier that orders the fronts' writes before it:
    /// publish, the sequence words stored side by side, each after its storer's release.
    template <class A> CANOPY_DEVICE void publish_together(ring_span r, unsigned lane) const {
        if constexpr (!A::release_by_fence) {
            if (lane == 0) {
                publish<A>(r);
            }
        } else {
            for (unsigned j = lane; j < r.n; j += subgroup_size()) {
                if (j == lane) {
                    A::release_fence(); // this lane's release, before its first store (header comment)
                }
                A::store(seq_word(r.first + j), encode(r.first + j + 1u, r.first + j),
                         std::memory_order_relaxed);
            }
        }
    }

  private:
    /// A sequence value as stored: minus the slot of `ticket` (see the header).
    CANOPY_DEVICE unsigned encode(unsigned seq, unsigned ticket) const {
        return seq - (ticket & (capacity - 1));
    }
    /// The release side of both hand-offs: seq[ticket] = ticket + step for every ticket of r.
    template <class A> CANOPY_DEVICE void hand_over(ring_span r, unsigned step) const {
        if constexpr (A::release_by_fence) {
            A::release_fence(); // one release for the batch, then relaxed stores
            for (unsigned j = 0; j < r.n; ++j) {
                A::store(seq_word(r.first + j), encode(r.first + j + step, r.first + j),
                         std::memory_order_relaxed);
            }
        } else {
            for (unsigned j = 0; j < r.n; ++j) { // a release on each promoted store (steal-rsp)
                A::store(seq_word(r.first + j), encode(r.first + j + step, r.first + j),
                         std::memory_order_release);
            }
        }
    }
    /// One reservation on `index` (tail: ready = 0, head: ready = 1). Lock-free: the loop repeats only
    /// when the index moved (another sub-group's CAS succeeded) between the read and the CAS.
    template <class A> CANOPY_DEVICE ring_span reserve(unsigned* index, unsigned k, unsigned ready) const {
        unsigned i = A::load(index, std::memory_order_relaxed);
        for (;;) {
            unsigned n = 0;
            bool stale = false;
            for (; n < k && n < capacity; ++n) {
                const int d = static_cast<int>(A::load(seq_word(i + n), std::memory_order_relaxed) -
                                               encode(i + n + ready, i + n));
                if (d != 0) {
                    // d < 0: the slot is not ready for this ticket yet (full / empty, or its other side
                    // is still in progress); d > 0 on the first slot: another reservation took ticket i.
                    stale = n == 0 && d > 0;
                    break;
                }
            }
            if (n == 0) {
                if (!stale) {
                    return {};
                }
                i = A::load(index, std::memory_order_relaxed); // the index moved on: read it again
                continue;
            }
            if (A::cas(index, i, i + n, std::memory_order_relaxed)) {
                // Synchronizes with the releases that made these n slots ready (see the header).
                if constexpr (A::acquire_by_fence) {
                    A::acquire_fence();
                } else {
                    for (unsigned j = 0; j < n; ++j) { // an acquire on each promoted load (steal-rsp)
                        (void)A::load(seq_word(i + j), std::memory_order_acquire);
                    }
                }
                return {i, n};
            }
            i = A::load(index, std::memory_order_relaxed);
        }
    }
    /// reserve(), by every lane: lane j checks the slot of ticket i + j, a ballot finds the ready ones in
    /// a row from i, the leader makes the CAS. Collectives: every lane reaches each the same number of
    /// times (the loop's exits are broadcast).
    template <class A>
    CANOPY_DEVICE ring_span reserve_together(unsigned* index, unsigned k, unsigned ready,
                                             unsigned lane) const {
        const unsigned F = subgroup_size();
        const unsigned want = k < capacity ? (k < F ? k : F) : (capacity < F ? capacity : F);
        unsigned i = broadcast(lane == 0 ? A::load(index, std::memory_order_relaxed) : 0u, 0);
        for (;;) {
            int d = 1;
            if (lane < want) {
                d = static_cast<int>(A::load(seq_word(i + lane), std::memory_order_relaxed) -
                                     encode(i + lane + ready, i + lane));
            }
            const lane_mask ok = ballot(lane < want && d == 0);
            // The ready slots in a row from ticket i: the low set bits of the ballot.
            unsigned n = 0;
            while (n < want && ((ok >> n) & 1u) != 0) {
                ++n;
            }
            // 0: none (full / empty), 1: the index moved on (read it again), 2: reserved.
            unsigned verdict = 0;
            unsigned next = i;
            if (lane == 0) {
                if (n == 0) {
                    verdict = d > 0 ? 1u : 0u; // d > 0 on the first slot: another reservation took i
                } else {
                    verdict = A::cas(index, i, i + n, std::memory_order_relaxed) ? 2u : 1u;
                }
                if (verdict == 1) {
                    next = A::load(index, std::memory_order_relaxed);
                }
            }
            const unsigned long long word =
                broadcast(static_cast<unsigned long long>(next) << 2 | verdict, 0);
            if ((word & 3u) == 2) {
                if (lane < n) {
                    A::acquire_fence(); // synchronizes with the release that made this lane's slot ready
                }
                return {i, n};
            }
            if ((word & 3u) == 0) {
                return {};
            }
            i = static_cast<unsigned>(word >> 2);
        }
    }
};

} // namespace canopy::queues
