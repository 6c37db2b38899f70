// canopy/runtime/level_workgroup.hpp — the ring core's work-group level: one front_ring per work-group,
// shared by its sub-groups, at the policy's work-group scope (policy_traits::workgroup_scope: work-group,
// or device under HRF-direct, whose every synchronization is at device scope).
//
// Operations and their scopes (the ring's own orders are front_ring.hpp's):
//   take       reserve_pop at the ring's scope: acquires the producer's release of the front;
//   hand_back  release at the ring's scope, after the lanes read the slot: the next producer may reuse it;
//   reserve    reserve_push at the ring's scope: acquires the consumers' release of the slots;
//   publish    publish at the ring's scope (HRF-indirect: a narrow release, which a thief's wider
//              acquire reaches only through steal-emulated's mailbox or steal-rsp's promotion);
//   advertise  steal policies: the ring's size, a relaxed device-scope store (a hint thieves in other
//              work-groups poll; the front never travels through it);
//   idle       the work-group's hungry sub-groups: relaxed, at the ring's scope (a hint that sizes a
//              share, never data: a stale count shares a front too many or too few, never loses one).
#pragma once

#include <atomic>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/queues/front_ring.hpp"
#include "canopy/queues/scoped_access.hpp"
#include "canopy/runtime/stats.hpp"
#include "canopy/runtime/steal_strategy.hpp"

namespace canopy::runtime {

template <class Traits> struct workgroup_level {
    static constexpr scope S = Traits::workgroup_scope;
    using access = queues::scoped_access<S>;
    queues::front_ring q;
    unsigned* idle_word; // this work-group's hungry sub-groups

    CANOPY_DEVICE const queues::front_ring& ring() const { return q; }
    CANOPY_DEVICE unsigned queued() const { return q.template size_hint<access>(); }
    CANOPY_DEVICE atomic_ref<unsigned, S> idle() const { return atomic_ref<unsigned, S>(*idle_word); }

    CANOPY_DEVICE void advertise() const {
        if constexpr (steal_strategy<Traits>::advertises) {
            atomic_ref<unsigned, scope::device>(*q.advert_word()).store(queued(), std::memory_order_relaxed);
        }
    }
    /// One front; true with its `ticket`.
    CANOPY_DEVICE bool take(unsigned& ticket) const {
        const queues::ring_span s = q.template reserve_pop<access>(1);
        if (s.n != 0) {
            ticket = s.first;
        }
        return s.n != 0;
    }
    CANOPY_DEVICE void hand_back(unsigned ticket) const {
        q.template release<access>({ticket, 1});
        advertise();
    }
    CANOPY_DEVICE queues::ring_span reserve(unsigned want) const {
        return q.template reserve_push<access>(want);
    }
    CANOPY_DEVICE void publish(queues::ring_span r, unsigned /*tasks*/, unsigned* counters) const {
        q.template publish<access>(r);
        advertise();
        counters[c_donate_wg] += r.n;
    }
    // Every lane (front_ring's sub-group versions): the same reservation and release, side by side.
    static constexpr bool moves_together = true;
    CANOPY_DEVICE queues::ring_span reserve_together(unsigned want, unsigned lane) const {
        return q.template reserve_push_together<access>(want, lane);
    }
    CANOPY_DEVICE void publish_together(queues::ring_span r, unsigned /*tasks*/, unsigned* counters,
                                        unsigned lane) const {
        q.template publish_together<access>(r, lane);
        if (lane == 0) {
            advertise(); // a hint: relaxed, after this lane's own release
            counters[c_donate_wg] += r.n;
        }
    }
};

} // namespace canopy::runtime
