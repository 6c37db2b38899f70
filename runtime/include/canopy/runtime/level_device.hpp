// canopy/runtime/level_device.hpp — the ring core's device level: config::device_rings front_rings at
// device scope in every policy (every work-group of the device touches them: P6). A work-group's home
// ring is wg % device_rings; work-sharing policies share into it, idle polls look at it and one other in
// turn, and a spill walks the others.
//
// Operations and their scopes (the ring's own orders are front_ring.hpp's):
//   take       reserve_pop at device scope: acquires the donor's release of the front;
//   hand_back  release at device scope, after the lanes read the slot;
//   reserve    reserve_push at device scope: acquires the consumers' release of the slots;
//   publish    a device-scope release (HRF-indirect: the wide release of the transitive link whose
//              narrow acquire was the donor's private hand-off); broken-donation narrows it to
//              work-group scope on purpose (policy.hpp), which the race detector must report;
//   idle       the device's hungry sub-groups: relaxed at device scope (a hint, as the work-group's).
#pragma once

#include <atomic>
#include <type_traits>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/queues/front_ring.hpp"
#include "canopy/queues/scoped_access.hpp"
#include "canopy/runtime/stats.hpp"

namespace canopy::runtime {

template <class Traits> struct device_level {
    using access = queues::scoped_access<scope::device>;
    // The release that publishes a share; broken_donation narrows it.
    using push_access =
        std::conditional_t<Traits::broken_donation,
                           queues::narrowed_release_access<scope::device, scope::workgroup>, access>;
    queues::front_ring q;

    /// Ring k's home work-groups, and the next ring an idle poll of home ring `home` looks at after `probe`
    /// (round robin, skipping home): each ring has a few pollers, not every idle sub-group of the device
    /// (a CAS race on one head word per hand-off).
    CANOPY_DEVICE static unsigned home(unsigned wg, unsigned rings) { return wg % rings; }
    CANOPY_DEVICE static unsigned next_probe(unsigned probe, unsigned home, unsigned rings) {
        probe = probe + 1 == rings ? 0 : probe + 1;
        return probe == home ? (probe + 1 == rings ? 0 : probe + 1) : probe;
    }

    CANOPY_DEVICE const queues::front_ring& ring() const { return q; }
    CANOPY_DEVICE unsigned queued() const { return q.template size_hint<access>(); }

    /// One front; true with its `ticket`.
    CANOPY_DEVICE bool take(unsigned& ticket) const {
        const queues::ring_span s = q.template reserve_pop<access>(1);
        if (s.n != 0) {
            ticket = s.first;
        }
        return s.n != 0;
    }
    CANOPY_DEVICE void hand_back(unsigned ticket) const { q.template release<access>({ticket, 1}); }
    CANOPY_DEVICE queues::ring_span reserve(unsigned want) const {
        return q.template reserve_push<access>(want);
    }
    CANOPY_DEVICE void publish(queues::ring_span r, unsigned /*tasks*/, unsigned* counters) const {
        q.template publish<push_access>(r);
        counters[c_donate_device] += r.n;
    }
    // Every lane (front_ring's sub-group versions): the same reservation and release, side by side.
    static constexpr bool moves_together = true;
    CANOPY_DEVICE queues::ring_span reserve_together(unsigned want, unsigned lane) const {
        return q.template reserve_push_together<access>(want, lane);
    }
    CANOPY_DEVICE void publish_together(queues::ring_span r, unsigned /*tasks*/, unsigned* counters,
                                        unsigned lane) const {
        q.template publish_together<push_access>(r, lane);
        if (lane == 0) {
            counters[c_donate_device] += r.n;
        }
    }
};

} // namespace canopy::runtime
