// canopy/runtime/order_priority.hpp — the order strategy `priority` (task_order.hpp): Delta-stepping
// inside one launch, on the ring core. A child whose priority is above the device's threshold (its
// bucket's end) is far: its front goes to the device-scope far ring instead of the private ring. When
// every outstanding task is far, one idle leader opens the far ring (every front in it then) and raises
// the threshold to the least far priority + delta - 1.
//
// Its words (priority_words.hpp: the layout the host seeds) are all read and written relaxed at device
// scope: counts and thresholds that decide what runs when, never data. The far fronts themselves go
// through the far ring's device-scope releases and acquires (front_ring.hpp), like the device rings'.
// A stale read opens a bucket early or late, or sends a task far that could have run now: order, not
// correctness. The one invariant the opening rests on, far tasks <= outstanding at every moment, is
// kept by program order on each word: a far front's tasks are counted far (deferring) before it is
// published, and stop being far (taken) only after they were picked, while still outstanding.
// The hooks the ring core calls: threshold (classify a front's children), note_least, then reserve and
// publish (defer its far fronts: publish counts them far first), take (an idle poll), hand_back (a far
// front read: no longer far), open_next_bucket (an idle leader, after the other rings came up empty).
// The far ring is one more level of the ring core's stack, with the same operations as the others.
#pragma once

#include <atomic>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/queues/front_ring.hpp"
#include "canopy/queues/scoped_access.hpp"
#include "canopy/runtime/layout.hpp"
#include "canopy/runtime/level_device.hpp"
#include "canopy/runtime/priority_words.hpp"
#include "canopy/runtime/stats.hpp"

namespace canopy::runtime {

template <class Traits> struct priority_order {
    using dev_access = queues::scoped_access<scope::device>;
    // The far ring's publishing release: the device level's (broken-donation narrows it too).
    using push_access = typename device_level<Traits>::push_access;
    unsigned* mem;
    const layout& L;
    unsigned delta; // the bucket width

    /// The far ring (device scope, like the device ring: every work-group uses it).
    CANOPY_DEVICE queues::front_ring ring() const { return {mem + L.far_queue, L.far_capacity, L.shape}; }
    CANOPY_DEVICE atomic_ref<unsigned, scope::device> word(unsigned w) const {
        return atomic_ref<unsigned, scope::device>(mem[L.priority + w]);
    }
    CANOPY_DEVICE atomic_ref<unsigned, scope::device> far_tasks() const {
        return word(priority_words::far_tasks);
    }
    CANOPY_DEVICE atomic_ref<unsigned, scope::device> far_open() const {
        return word(priority_words::far_open);
    }
    CANOPY_DEVICE atomic_ref<unsigned, scope::device> far_min() const {
        return word(priority_words::far_min);
    }

    /// The open bucket's end, read once per front by the leader: a child above it is far.
    CANOPY_DEVICE unsigned threshold() const {
        return word(priority_words::threshold).load(std::memory_order_relaxed);
    }

    /// The least far priority of a front's children (an order hint for the next opening).
    CANOPY_DEVICE void note_least(unsigned least) const {
        far_min().fetch_min(least, std::memory_order_relaxed);
    }

    /// Before far fronts holding `tasks` are published: counted far first (far tasks <= outstanding).
    CANOPY_DEVICE void deferring(unsigned tasks) const {
        far_tasks().fetch_add(tasks, std::memory_order_relaxed);
    }

    /// After a far front of `tasks` was picked: no longer far (still outstanding until they finish).
    CANOPY_DEVICE void taken(unsigned tasks) const {
        far_tasks().fetch_sub(tasks, std::memory_order_relaxed);
    }

    // The far ring as one level of the ring core's stack (level_device.hpp's operations and scopes).
    /// An idle leader's poll: the far ring's fronts before its open ticket belong to open buckets. True
    /// with the reserved `ticket` (acquire at device scope, inside reserve_pop).
    CANOPY_DEVICE bool take(unsigned& ticket) const {
        const queues::front_ring fq = ring();
        const unsigned open = far_open().load(std::memory_order_relaxed);
        const unsigned head = dev_access::load(fq.head_word(), std::memory_order_relaxed);
        if (static_cast<int>(open - head) > 0) {
            const queues::ring_span s = fq.template reserve_pop<dev_access>(1);
            if (s.n != 0) {
                ticket = s.first;
                return true;
            }
        }
        return false;
    }

    /// Release at device scope after the lanes read the slot; its `tasks` are no longer far.
    CANOPY_DEVICE void hand_back(unsigned ticket, unsigned tasks) const {
        ring().template release<dev_access>({ticket, 1});
        taken(tasks);
    }
    CANOPY_DEVICE queues::ring_span reserve(unsigned want) const {
        return ring().template reserve_push<dev_access>(want);
    }
    /// Far fronts holding `tasks`: counted far before they can be taken (far tasks <= outstanding).
    CANOPY_DEVICE void publish(queues::ring_span r, unsigned tasks, unsigned* counters) const {
        deferring(tasks);
        ring().template publish<push_access>(r);
        counters[c_deferred] += r.n;
    }

    /// An idle leader: when far fronts exist, none is open, and every outstanding task is far (far
    /// tasks read first, then the outstanding count: far tasks only grow while nothing is open, and
    /// outstanding >= far tasks always, so equal reads mean no near task existed at the second read,
    /// save a pop that raced with the opening), opens every far front and raises the threshold to the
    /// least far priority + delta - 1. One leader wins the CAS on the open ticket.
    CANOPY_DEVICE void open_next_bucket(unsigned* outstanding) const {
        const queues::front_ring fq = ring();
        const unsigned tail = dev_access::load(fq.tail_word(), std::memory_order_relaxed);
        const unsigned head = dev_access::load(fq.head_word(), std::memory_order_relaxed);
        unsigned open = far_open().load(std::memory_order_relaxed);
        if (tail == head || static_cast<int>(open - head) > 0) {
            return; // nothing far, or an open bucket still has fronts
        }
        const unsigned far = far_tasks().load(std::memory_order_relaxed);
        if (atomic_ref<unsigned, scope::device>(*outstanding).load(std::memory_order_relaxed) != far) {
            return;
        }
        if (!far_open().compare_exchange_strong(open, tail, std::memory_order_relaxed,
                                                std::memory_order_relaxed)) {
            return;
        }
        const unsigned least = far_min().exchange(~0u, std::memory_order_relaxed);
        atomic_ref<unsigned, scope::device> th_word = word(priority_words::threshold);
        const unsigned th = th_word.load(std::memory_order_relaxed);
        const unsigned next = least == ~0u ? th + delta : least > ~0u - delta ? ~0u : least + delta - 1;
        if (next > th) {
            th_word.store(next, std::memory_order_relaxed);
        }
    }
};

} // namespace canopy::runtime
