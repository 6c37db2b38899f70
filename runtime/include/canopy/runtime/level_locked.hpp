// canopy/runtime/level_locked.hpp — a level of the locked core (the HRF paper's design, Fig. 9): a
// bounded front_queue under a lock word, at one scope for its whole life (P7): the work-group queue at
// the policy's work-group scope, the device queue at device scope.
//
// Operations and their scopes (the lock's own orders are front_queue.hpp's):
//   take       size hint (relaxed), then try_lock: an acquire at the queue's scope, which makes the
//              previous holder's indices and slots visible; with a front, the leader keeps the lock
//              while its lanes read the front in place (the ring core's levels do not: their lanes read
//              a reserved slot while others reserve the next);
//   hand_back  commit the pop, then unlock: a release at the queue's scope, after the lanes read the
//              slot (a producer may overwrite it once the lock is free);
//   push       lock (acquire), copy, commit, unlock with PushAccess's release: the queue's scope, save
//              broken-donation's device queue, narrowed on purpose (policy.hpp);
//   advertise  steal policies, the work-group queue: its size, a relaxed device-scope store (a hint
//              thieves in other work-groups poll; the front never travels through it).
#pragma once

#include <atomic>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/queues/front_queue.hpp"
#include "canopy/runtime/status.hpp"

namespace canopy::runtime {

template <class Access, class PushAccess, bool Advertises> struct locked_level {
    queues::front_queue q;
    unsigned* status; // the run's status word: a full queue or a lock that timed out is reported there

    CANOPY_DEVICE unsigned queued() const { return q.template size_hint<Access>(); }
    CANOPY_DEVICE void advertise() const {
        if constexpr (Advertises) {
            atomic_ref<unsigned, scope::device>(*q.advert_word())
                .store(q.template size_locked<Access>(), std::memory_order_relaxed);
        }
    }
    /// Takes the lock when the queue holds a front: true with the front's `index`, the lock held
    /// until hand_back.
    CANOPY_DEVICE bool take(unsigned& index) const {
        if (queued() > 0 && q.template try_lock<Access>()) {
            if (q.template size_locked<Access>() > 0) {
                index = q.template head<Access>();
                return true;
            }
            q.template unlock<Access>();
        }
        return false;
    }
    /// After the lanes read the front that take found: pops it and frees the queue.
    CANOPY_DEVICE void hand_back() const {
        q.template commit_pop<Access>();
        advertise();
        q.template unlock<Access>();
    }
    /// Moves `src` (already acquired by the caller) into the queue; false (and the status word set: `f`
    /// for index `idx`, or a timed-out lock for `idx_self`) when the queue is full.
    CANOPY_DEVICE bool push(const queues::front_ref& src, failure f, unsigned idx, unsigned idx_self) const {
        if (!q.template lock<Access>()) {
            report(status, failure::spin_timeout, idx_self);
            return false;
        }
        if (!q.template has_room<Access>()) {
            q.template unlock<Access>();
            report(status, f, idx);
            return false;
        }
        q.template back_slot<Access>().copy_from(src);
        q.template commit_push<Access>();
        advertise();
        q.template unlock<PushAccess>(); // HRF-indirect: the wide release of the transitive link
        return true;
    }
};

} // namespace canopy::runtime
