// canopy/runtime/scheduler.hpp — the device side: one scheduling loop per sub-group (HRF §7, Fig. 9).
//
// Every sub-group runs the loop converged. Lane 0 (the leader) makes every queue operation; the other
// lanes wait for it at a collective (never by spinning on it). Memory handed between lanes of the
// sub-group (a front the leader acquired, payloads the lanes packed for the leader to donate, a slot
// the lanes read before the leader frees it) crosses a subgroup_barrier(): broadcast/any move values
// only, and on NVIDIA (PTX memory model) they order no memory. One iteration:
//   1. pick (leader): own private queue (newest first), then the work-group queue, then the device
//      queue (oldest first), then (steal policies) a stolen front; idle waits are one spin_until whose
//      predicate also services steal requests and checks termination and the status word;
//   2. run: each lane reads its task from the front and runs it; spawns go to per-lane staging;
//   3. pack: staged tasks of each type are packed into fronts of the private queue (topping up its
//      newest front of the same type first), offsets from an exclusive_sum, no atomics;
//   4. count: one device-scope RMW adds (spawned - executed) to the outstanding-work counter;
//   5. donate (leader): oldest private fronts go to a wider queue that is below its threshold.
// Termination is exact: the counter holds tasks spawned (or seeded) and not yet finished; it reaches 0
// only when no task is queued, staged or running.
#pragma once

#include <atomic>
#include <cstring>
#include <tuple>
#include <type_traits>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/ids.hpp"
#include "canopy/platform/plain_access.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/spin.hpp"
#include "canopy/platform/subgroup.hpp"
#include "canopy/platform/trace.hpp"
#include "canopy/queues/front_queue.hpp"
#include "canopy/queues/scoped_access.hpp"
#include "canopy/runtime/layout.hpp"
#include "canopy/runtime/policy.hpp"
#include "canopy/runtime/remote_access.hpp"
#include "canopy/runtime/stats.hpp"
#include "canopy/runtime/status.hpp"
#include "canopy/runtime/task_context.hpp"

namespace canopy::runtime {

namespace detail {
/// Mailbox states (steal-emulated). Written by the thief (empty) and the victim (granted/declined).
enum mailbox_state : unsigned { mb_empty = 0, mb_granted = 2, mb_declined = 3 };
/// What the leader picked.
enum pick_kind : unsigned {
    pk_done = 0,
    pk_private = 1,
    pk_workgroup = 2,
    pk_device = 3,
    pk_mailbox = 4,
    pk_rsp = 5,
    pk_far = 6,   // ring core, order priority: the far ring
    pk_system = 7 // ring core, several devices: the system ring (system_level.hpp)
};
} // namespace detail

template <policy P, class... Tasks> struct scheduler {
    using traits = policy_traits<P>;
    using ctx_t = task_context<Tasks...>;
    static constexpr unsigned W = payload_words<Tasks...>;
    static constexpr unsigned num_types = sizeof...(Tasks);
    static constexpr scope Sp = traits::private_scope;
    // Work-group queue words: one scope for their whole life (P7).
    using wg_access = queues::scoped_access<traits::workgroup_scope>;
    // Device queue words: device scope in every policy (P6: touched by every work-group).
    using dev_access = queues::scoped_access<scope::device>;
    // The release that publishes a donation into the device queue; broken_donation narrows it.
    using dev_push_access =
        std::conditional_t<traits::broken_donation,
                           queues::narrowed_release_access<scope::device, scope::workgroup>, dev_access>;
    // A steal-rsp thief on the victim's queue: remote-promoted device scope; broken_steal: the same
    // device-scope operations without the promotion (they race with the owner's work-group-scope ones).
    using thief_access = std::conditional_t<traits::broken_steal, queues::scoped_access<scope::device>,
                                            std::conditional_t<traits::steal_rsp, remote_access, wg_access>>;

    std::tuple<Tasks...> tasks;
    unsigned* mem = nullptr;
    layout L;
    unsigned workgroup_threshold = 2, device_threshold = 4, keep_private = 1, max_donations = 2;

    CANOPY_DEVICE queues::front_queue device_queue() const {
        return {mem + L.device_queue, L.device_capacity, L.shape};
    }
    CANOPY_DEVICE queues::front_queue workgroup_queue(unsigned wg) const {
        return {mem + L.workgroup_queue_at(wg), L.workgroup_capacity, L.shape};
    }
    CANOPY_DEVICE queues::front_ref private_slot(unsigned sg, unsigned i) const {
        return {mem + L.private_at(sg, i), L.shape};
    }
    CANOPY_DEVICE unsigned* mailbox_state(unsigned sg) const { return mem + L.mailbox_at(sg); }
    CANOPY_DEVICE queues::front_ref mailbox_front(unsigned sg) const {
        return {mailbox_state(sg) + 1, L.shape};
    }
    CANOPY_DEVICE unsigned* outstanding() const { return mem + L.outstanding; }
    CANOPY_DEVICE unsigned* status() const { return mem + L.status; }

    /// Every lane of the sub-group, converged, with the front's (uniform) type: a lane holding a task
    /// (`valid`) runs it; a cooperative type's body runs on every lane (task_context.hpp), so that
    /// its collectives are reached by all of them.
    template <unsigned I = 0>
    CANOPY_DEVICE void dispatch(unsigned type, bool valid, const unsigned* words, ctx_t& ctx) const {
        if constexpr (I < num_types) {
            using T = std::tuple_element_t<I, std::tuple<Tasks...>>;
            if (type == I) {
                typename T::payload p;
                __builtin_memcpy(&p, words, sizeof(p)); // device code: std::memcpy is host-only on HIP
                if constexpr (detail::is_cooperative<T>::value) {
                    std::get<I>(tasks)(static_cast<const typename T::payload&>(p), valid, ctx);
                } else if (valid) {
                    std::get<I>(tasks)(static_cast<const typename T::payload&>(p), ctx);
                }
                return;
            }
            dispatch<I + 1>(type, valid, words, ctx);
        }
    }

    /// Steal policies: keeps the advert (the work-group queue's size, read by thieves in other
    /// work-groups) current. Device scope: every work-group reads it (P6). Relaxed: it is a hint; the
    /// front itself is published by the device-scope release of the mailbox (steal-emulated) or taken
    /// by the thief's remote-promoted lock acquire (steal-rsp).
    CANOPY_DEVICE void advertise(const queues::front_queue& q) const {
        if constexpr (traits::steal_emulated || traits::steal_rsp) {
            atomic_ref<unsigned, scope::device>(*q.advert_word())
                .store(q.size_locked<wg_access>(), std::memory_order_relaxed);
        }
    }

    /// Leader: moves `src` (already acquired by the caller) into `q`; false (and the status word set)
    /// when q is full.
    template <class Lock, class Push>
    CANOPY_DEVICE bool push(const queues::front_queue& q, const queues::front_ref& src, failure f,
                            unsigned idx, unsigned idx_self) const {
        if (!q.lock<Lock>()) { // acquire at q's scope: the previous holder's indices and slots are visible
            report(status(), failure::spin_timeout, idx_self);
            return false;
        }
        if (!q.has_room<Lock>()) {
            q.unlock<Lock>();
            report(status(), f, idx);
            return false;
        }
        q.back_slot<Lock>().copy_from(src);
        q.commit_push<Lock>();
        advertise(q);
        q.unlock<Push>(); // release at q's scope (HRF-indirect: the wide release of the transitive link)
        return true;
    }

    /// steal-emulated, owner side (both cores, the leader at a scheduling point): answers one steal
    /// request to work-group wg. `grant(thief)` moves the oldest front of wg's queue (each core's own
    /// kind) into the thief's mailbox and says whether there was one.
    template <class Grant> CANOPY_DEVICE void answer_request(unsigned wg, unsigned* cnt, Grant grant) const {
        atomic_ref<unsigned, scope::device> req(mem[L.request_at(wg)]);
        // Relaxed peek (device scope: thieves in other work-groups write it), then an acquire CAS to
        // claim it: synchronizes with the thief's release, which ordered its mailbox reset before the
        // request.
        const unsigned r = req.load(std::memory_order_relaxed);
        if (r == 0) {
            return;
        }
        unsigned expected = r;
        if (!req.compare_exchange_strong(expected, 0u, std::memory_order_acquire)) {
            return;
        }
        const unsigned thief = r - 1;
        const bool granted = grant(thief);
        // The promotion: the front was acquired at work-group scope (the queue's) and is now released
        // at device scope, which the thief (another work-group) acquires. A decline carries no data but
        // uses the same release for uniformity.
        atomic_ref<unsigned, scope::device>(*mailbox_state(thief))
            .store(granted ? detail::mb_granted : detail::mb_declined, std::memory_order_release);
        ++cnt[granted ? c_steal_grants : c_steal_declines];
    }

    /// steal-emulated, the locked core's owner side: the oldest front under the queue's lock.
    CANOPY_DEVICE void service_request(unsigned wg, unsigned* cnt) const {
        answer_request(wg, cnt, [&](unsigned thief) {
            const queues::front_queue q = workgroup_queue(wg);
            bool granted = false;
            if (q.size_hint<wg_access>() > 0 && q.try_lock<wg_access>()) { // acquire at WG scope
                if (q.size_locked<wg_access>() > 0) {
                    mailbox_front(thief).copy_from(q.oldest<wg_access>());
                    q.commit_pop<wg_access>();
                    advertise(q);
                    granted = true;
                }
                q.unlock<wg_access>();
            }
            return granted;
        });
    }

    /// The leader's counters, once, as it leaves the loop (both cores). Plain stores: the host reads the
    /// rows after the kernel ends (kernel end publishes them).
    CANOPY_DEVICE void write_stats(unsigned sg, const unsigned* cnt) const {
        // The rows start zeroed (the host zero-fills the buffer): an idle sub-group's mostly-zero row
        // then costs no stores and no dirty lines to write back at the kernel's end.
        for (unsigned i = 0; i < num_counters; ++i) {
            if (cnt[i] != 0) {
                st(mem + L.stats_at(sg) + i, cnt[i]);
            }
        }
    }

    /// steal-emulated, thief side (both cores): true when the pending request was granted (the front
    /// is in this thief's mailbox); a decline clears `pending` and empties the mailbox state.
    CANOPY_DEVICE bool mailbox_granted(unsigned sg, bool& pending) const {
        if (!pending) {
            return false;
        }
        // Acquire at device scope: pairs with the victim's release of the granted front.
        const unsigned s =
            atomic_ref<unsigned, scope::device>(*mailbox_state(sg)).load(std::memory_order_acquire);
        if (s == detail::mb_granted) {
            pending = false;
            return true;
        }
        if (s == detail::mb_declined) {
            pending = false;
            // Relaxed: only this thief reads it until its next request, whose release orders it.
            atomic_ref<unsigned, scope::device>(*mailbox_state(sg))
                .store(detail::mb_empty, std::memory_order_relaxed);
        }
        return false;
    }

    /// steal-emulated, thief side (both cores): with no request pending, posts one to a victim that
    /// advertises work (`advert(v)`: work-group v's advert word), so that an idle device polls without
    /// writing (and the watchdog can tell a lost task from a busy run). Round robin from the
    /// work-group after the last victim (`cursor`) through the last victim itself (k = nwg): every
    /// other work-group is a candidate on every poll. With k < nwg the last victim was never looked at
    /// again, so a thief declined once by the only work-group with work (its one front popped locally
    /// first) never asked it again: T4 at work-groups of 256 ran on one CU (docs/hrf-experiment.md,
    /// "The T4 anomaly").
    template <class Advert>
    CANOPY_DEVICE void post_request(unsigned wg, unsigned nwg, unsigned sg, bool& pending, unsigned& cursor,
                                    unsigned* cnt, Advert advert) const {
        if (pending || nwg <= 1) {
            return;
        }
        for (unsigned k = 1; k <= nwg && !pending; ++k) {
            const unsigned v = (cursor + k) % nwg;
            if (v == wg) {
                continue;
            }
            // Relaxed device scope: a hint read by every work-group; the front goes through the mailbox.
            if (atomic_ref<unsigned, scope::device>(*advert(v)).load(std::memory_order_relaxed) == 0) {
                continue;
            }
            unsigned expected = 0;
            // Release at device scope: the victim (another work-group) must see this thief's mailbox
            // reset before it writes the mailbox.
            if (atomic_ref<unsigned, scope::device>(mem[L.request_at(v)])
                    .compare_exchange_strong(expected, sg + 1, std::memory_order_release)) {
                pending = true;
                cursor = v;
                ++cnt[c_steal_requests];
            }
        }
    }

    /// The checks every core's pick makes before it looks at a shared queue, in this order: a failed
    /// run stops every sub-group; under steal-emulated the work-group first serves a thief's request
    /// (so a thief never waits on a victim that is busy polling); then the sub-group's own private
    /// queue; then a granted mailbox. True with `kind` set when one of them decides. `self` is the
    /// calling core: its service_request serves its own queues (ring_scheduler hides the locked one).
    template <class Self>
    CANOPY_DEVICE static bool pick_before_queues(const Self& self, unsigned wg, unsigned sg, unsigned ph,
                                                 unsigned pt, bool& pending, unsigned* cnt, unsigned& kind) {
        if (failed(self.status())) {
            kind = detail::pk_done;
            return true;
        }
        if constexpr (traits::steal_emulated) {
            self.service_request(wg, cnt);
        }
        if (pt != ph) {
            kind = detail::pk_private;
            return true;
        }
        if constexpr (traits::steal_emulated) {
            if (self.mailbox_granted(sg, pending)) {
                kind = detail::pk_mailbox;
                return true;
            }
        }
        return false;
    }

    /// Leader: chooses the next front. Holds the source queue's lock on return for pk_workgroup/pk_device.
    CANOPY_DEVICE unsigned pick(unsigned wg, unsigned nwg, unsigned sg, unsigned ph, unsigned pt,
                                unsigned& aux, bool& pending, unsigned& cursor, unsigned* cnt) const {
        const queues::front_queue wq = workgroup_queue(wg);
        const queues::front_queue dq = device_queue();
        unsigned kind = detail::pk_done;
        bool idle = false;            // --trace: a poll found no work
        std::uint64_t idle_since = 0; // --trace: the first such poll
        // Bounded (platform/spin.hpp): on a GPU debug build a sub-group that waits past the bound for
        // work reports it instead of hanging the kernel; the run then fails with the queues' state.
        const bool in_time = spin_until_bounded([&] {
            if (pick_before_queues(*this, wg, sg, ph, pt, pending, cnt, kind)) {
                return true;
            }
            if (wq.size_hint<wg_access>() > 0 && wq.try_lock<wg_access>()) {
                if (wq.size_locked<wg_access>() > 0) {
                    aux = wq.head<wg_access>();
                    kind = detail::pk_workgroup;
                    return true;
                }
                wq.unlock<wg_access>();
            }
            if (dq.size_hint<dev_access>() > 0 && dq.try_lock<dev_access>()) {
                if (dq.size_locked<dev_access>() > 0) {
                    aux = dq.head<dev_access>();
                    kind = detail::pk_device;
                    return true;
                }
                dq.unlock<dev_access>();
            }
            if constexpr (traits::steal_emulated) {
                post_request(wg, nwg, sg, pending, cursor, cnt,
                             [&](unsigned v) { return workgroup_queue(v).advert_word(); });
            }
            if constexpr (traits::steal_rsp) {
                if (nwg > 1) {
                    cursor = (cursor + 1) % nwg;
                    if (cursor == wg) {
                        cursor = (cursor + 1) % nwg;
                    }
                    const queues::front_queue vq = workgroup_queue(cursor);
                    // The advert first (a relaxed device-scope load of an ordinary word, as an idle thief
                    // polls on hardware): remote-promoted (device, remote) accesses to the victim's
                    // work-group-scope words only where there is work to take. Probing every poll made
                    // every idle thief flush and invalidate the other CUs' L1s (docs/graph-experiment.md).
                    const unsigned adv = atomic_ref<unsigned, scope::device>(*vq.advert_word())
                                             .load(std::memory_order_relaxed);
                    if (adv != 0 && vq.size_hint<thief_access>() > 0) {
                        ++cnt[c_rsp_attempts];
                        if (vq.try_lock<thief_access>()) {
                            if (vq.size_locked<thief_access>() > 0 && pt - ph < L.private_capacity) {
                                private_slot(sg, pt).copy_from(vq.oldest<thief_access>());
                                vq.commit_pop<thief_access>();
                                vq.unlock<thief_access>();
                                ++cnt[c_steals_received];
                                kind = detail::pk_rsp;
                                return true;
                            }
                            vq.unlock<thief_access>();
                        }
                    }
                }
            }
            if (!idle) {
                idle = true;
                idle_since = tracing() ? trace_clock() : 0;
            }
            // Exact termination. Relaxed at device scope: the counter carries no data, only the count.
            if (atomic_ref<unsigned, scope::device>(*outstanding()).load(std::memory_order_relaxed) == 0) {
                kind = detail::pk_done;
                return true;
            }
            return false;
        });
        if (idle && tracing()) {
            trace_span(trace_kind::idle, idle_since);
        }
        if (!in_time) {
            report(status(), failure::spin_timeout, sg);
            kind = detail::pk_done;
        }
        return kind;
    }

    /// A hand-off of memory between the lanes of this sub-group at the private scope Sp: a release fence,
    /// subgroup_barrier(), an acquire fence, all at Sp (OpenCL's work_group_barrier(flags, scope) for one
    /// sub-group; docs/race-detector.md). At sub-group scope the barrier alone is that synchronization
    /// (it is a sub-group fence pair around the wave barrier / bar.warp.sync), so the fences are emitted
    /// only for a wider Sp: HRF-direct's device scope. The other policies pay no extra fence (on NVIDIA a
    /// sub-group fence would be a fence.acq_rel.cta per lane, twice per front).
    CANOPY_DEVICE static void handoff_barrier() {
        if constexpr (Sp != scope::subgroup) {
            fence<Sp>(std::memory_order_release);
        }
        subgroup_barrier();
        if constexpr (Sp != scope::subgroup) {
            fence<Sp>(std::memory_order_acquire);
        }
    }

    /// What one sub-group's loop carries from front to front (both cores). Uniform (every lane keeps
    /// the same copy), save the counters, which only the leader's count and write.
    struct loop_state {
        unsigned ph = 0, pt = 0; // the private queue's indices: its fronts are [ph, pt)
        // The leader's counters: an array of the caller's (operator()'s), not a member, so that the
        // scalars here stay in registers (an aggregate with a dynamically indexed array member is
        // kept in local memory whole on sm_90: 16 to 48 more stack bytes a kernel, measured).
        unsigned* cnt = nullptr;
        bool pending = false;     // steal-emulated: a request is posted and not yet answered
        unsigned cursor = 0;      // the last victim asked (steal-emulated) or probed (steal-rsp)
        unsigned system_tick = 0; // ring core, several devices: fronts since the last look at the system
    };

    /// The picked front's source (the locked core): the queue whose lock the leader holds, the mailbox,
    /// or the private queue's newest front (a steal-rsp front was copied there).
    CANOPY_DEVICE queues::front_ref locked_source(unsigned kind, unsigned aux, unsigned wg, unsigned sg,
                                                  unsigned pt) const {
        return kind == detail::pk_workgroup ? workgroup_queue(wg).slot(aux)
               : kind == detail::pk_device  ? device_queue().slot(aux)
               : kind == detail::pk_mailbox ? mailbox_front(sg)
                                            : private_slot(sg, pt - 1);
    }

    /// The leader, after the lanes have read the front: frees its source (the unlock lets a producer
    /// overwrite the slot) and counts it.
    CANOPY_DEVICE void release_locked(unsigned kind, unsigned wg, unsigned sg, unsigned count, bool bad,
                                      unsigned* cnt) const {
        const unsigned F = subgroup_size();
        if (kind == detail::pk_workgroup) {
            const queues::front_queue wq = workgroup_queue(wg);
            wq.commit_pop<wg_access>();
            advertise(wq);
            wq.unlock<wg_access>(); // release at WG scope: the slot may be reused
        } else if (kind == detail::pk_device) {
            const queues::front_queue dq = device_queue();
            dq.commit_pop<dev_access>();
            dq.unlock<dev_access>(); // release at device scope
        } else if (kind == detail::pk_mailbox) {
            // Relaxed: only this thief reads its mailbox state until its next request (a release).
            atomic_ref<unsigned, scope::device>(*mailbox_state(sg))
                .store(detail::mb_empty, std::memory_order_relaxed);
            ++cnt[c_steals_received];
        }
        if (bad) {
            report(status(), failure::corrupt_front, sg);
            return;
        }
        const unsigned lvl = kind == detail::pk_workgroup ? lvl_workgroup
                             : kind == detail::pk_device  ? lvl_device
                             : kind == detail::pk_private ? lvl_private
                                                          : lvl_stolen;
        ++cnt[c_fronts + lvl];
        cnt[c_tasks + lvl] += count;
        cnt[c_partial] += count < F ? 1 : 0;
    }

    /// The leader, after the lanes packed `used` more tasks of type t into the newest private front
    /// (which held `have`) and `rest` into `need` new fronts from ticket pt: their headers (both cores).
    CANOPY_DEVICE void set_packed_headers(unsigned sg, unsigned pt, unsigned t, unsigned have, unsigned used,
                                          unsigned rest, unsigned need) const {
        const unsigned F = subgroup_size();
        if (used > 0) {
            private_slot(sg, pt - 1).set_header(t, have + used);
        }
        for (unsigned k = 0; k < need; ++k) {
            const unsigned left = rest - k * F;
            private_slot(sg, pt + k).set_header(t, left < F ? left : F);
        }
    }

    /// Every lane (the locked core): packs the front's children, type by type, into the private
    /// queue, topping up its newest front of the same type; offsets from an exclusive_sum, no atomics.
    /// True when the private queue would overflow (reported); `spawned` the children packed.
    CANOPY_DEVICE bool pack_locked(const ctx_t& ctx, unsigned sg, bool leader, loop_state& s,
                                   unsigned& spawned) const {
        const unsigned F = subgroup_size();
        for (unsigned t = 0; t < num_types; ++t) {
            unsigned k = 0;
            for (unsigned i = 0; i < detail::context_access::staged(ctx); ++i) {
                k += ld(detail::context_access::entry(ctx, i)) == t ? 1 : 0;
            }
            const unsigned off = exclusive_sum(k);
            const unsigned total = broadcast(off + k, F - 1);
            if (total == 0) {
                continue;
            }
            // The newest private front takes more tasks of its own type (headers: leader only).
            unsigned room = 0, have = 0;
            if (leader && s.pt != s.ph) {
                const queues::front_ref nf = private_slot(sg, s.pt - 1);
                if (nf.type() == t && nf.count() < F) {
                    have = nf.count();
                    room = F - have;
                }
            }
            room = broadcast(room, 0);
            have = broadcast(have, 0);
            room = room < total ? room : total;
            const unsigned rest = total - room;
            const unsigned need = (rest + F - 1) / F;
            if ((s.pt - s.ph) + need > L.private_capacity) {
                if (leader) {
                    report(status(), failure::private_overflow, sg);
                }
                return true;
            }
            unsigned j = 0;
            for (unsigned i = 0; i < detail::context_access::staged(ctx); ++i) {
                const unsigned* e = detail::context_access::entry(ctx, i);
                if (ld(e) != t) {
                    continue;
                }
                const unsigned g = off + j++;
                const queues::front_ref dst =
                    g < room ? private_slot(sg, s.pt - 1) : private_slot(sg, s.pt + (g - room) / F);
                const unsigned slot = g < room ? have + g : (g - room) % F;
                for (unsigned w = 0; w < W; ++w) {
                    st(dst.payload(slot) + w, ld(e + 2 + w));
                }
            }
            if (leader) {
                set_packed_headers(sg, s.pt, t, have, room, rest, need);
            }
            s.pt += need;
            spawned += total;
        }
        return false;
    }

    /// The leader (the locked core): its oldest private fronts beyond keep_private go to a wider queue
    /// below its threshold, at most max_donations; then (work-sharing policies) the work-group queue's
    /// oldest front to a starving device queue. Returns the private fronts donated.
    CANOPY_DEVICE unsigned donate(unsigned wg, unsigned sg, const loop_state& s, unsigned* cnt) const {
        const queues::front_queue wq = workgroup_queue(wg);
        const queues::front_queue dq = device_queue();
        unsigned donated = 0;
        if (s.pt - s.ph > keep_private) {
            // Acquire the fronts the lanes published at the private scope: the narrow acquire of
            // HRF-indirect's transitive link (the wide release is the target queue's unlock).
            fence<Sp>(std::memory_order_acquire);
            while (donated < max_donations && s.pt - s.ph - donated > keep_private) {
                const queues::front_ref src = private_slot(sg, s.ph + donated);
                if (wq.size_hint<wg_access>() < workgroup_threshold) {
                    if (!push<wg_access, wg_access>(wq, src, failure::workgroup_overflow, wg, sg)) {
                        break;
                    }
                    ++cnt[c_donate_wg];
                } else if (traits::donates_to_device && dq.size_hint<dev_access>() < device_threshold) {
                    if (!push<dev_access, dev_push_access>(dq, src, failure::device_overflow, 0, sg)) {
                        break;
                    }
                    ++cnt[c_donate_device];
                } else {
                    break;
                }
                ++donated;
            }
        }
        if constexpr (traits::donates_to_device) {
            // Re-donation: the work-group queue's oldest front to a starving device queue. Acquire at WG
            // scope (the lock), release at device scope (the device queue's unlock).
            if (dq.size_hint<dev_access>() < device_threshold && wq.size_hint<wg_access>() >= 2) {
                if (!wq.lock<wg_access>()) {
                    report(status(), failure::spin_timeout, sg);
                } else {
                    if (wq.size_locked<wg_access>() >= 2) {
                        if (push<dev_access, dev_push_access>(dq, wq.oldest<wg_access>(),
                                                              failure::device_overflow, 0, sg)) {
                            wq.commit_pop<wg_access>();
                            ++cnt[c_redonate_device];
                        }
                    }
                    wq.unlock<wg_access>();
                }
            }
        }
        return donated;
    }

    /// The leader, once per front (both cores): the front's `ran` tasks finish and its `spawned`
    /// children are counted in one RMW, before any child can be published (a child finished before it
    /// was counted could bring the count to 0 while work exists). Relaxed at device scope: a count
    /// only, which carries no data. Returns the count after it (wrapped if it underflowed: reported).
    CANOPY_DEVICE unsigned count_front(unsigned ran, unsigned spawned, unsigned sg, unsigned* cnt) const {
        cnt[c_spawned] += spawned;
        const unsigned old = atomic_ref<unsigned, scope::device>(*outstanding())
                                 .fetch_add(spawned - ran, std::memory_order_relaxed);
        if (old + spawned < ran) {
            report(status(), failure::counter_underflow, sg);
        }
        return old + spawned - ran;
    }

    /// The loop of one sub-group; `wg` / `nwg`: this work-group's (participating) id and their count.
    /// pick → read → release → run → pack → count → donate.
    CANOPY_DEVICE void operator()(unsigned wg, unsigned nwg) const {
        const unsigned F = subgroup_size();
        const unsigned lane = lane_id();
        const bool leader = lane == 0;
        const unsigned sg = wg * L.subgroups_per_block + subgroup_id();
        unsigned cnt[num_counters] = {};
        loop_state s;
        s.cnt = cnt;
        s.cursor = wg;
        ctx_t ctx(mem + L.staging_at(sg, lane), L.staging_capacity);
        const bool traced = leader && tracing(); // --trace (platform/trace.hpp): read once

        for (;;) {
            unsigned aux = 0, kind = detail::pk_done;
            const std::uint64_t pick_since = traced ? trace_clock() : 0;
            if (leader) {
                kind = pick(wg, nwg, sg, s.ph, s.pt, aux, s.pending, s.cursor, s.cnt);
            }
            kind = broadcast(kind, 0);
            aux = broadcast(aux, 0);
            if (kind == detail::pk_done) {
                if (traced) {
                    trace_span(trace_kind::pick, pick_since);
                }
                break;
            }
            // Leader -> lanes: the leader's acquire of the front (at its source's scope) and its last
            // iteration's reads of private slots (donations) come before the lanes' accesses below.
            // At the private scope (handoff_barrier): under HRF-direct (Sp = device) that makes the
            // hand-off one more device-scope synchronization, so the chain producer -> leader -> lane
            // uses one scope; the barrier alone is a sub-group-scope edge, which HRF-direct does not
            // compose with the leader's device-scope acquire.
            handoff_barrier();
            if (kind == detail::pk_rsp) {
                s.pt += 1; // the leader copied the stolen front into private slot pt
            }
            const queues::front_ref f = locked_source(kind, aux, wg, sg, s.pt);
            const unsigned type = f.type();
            const unsigned count = f.count();
            unsigned words[W] = {};
            bool bad = type >= num_types || count == 0 || count > F;
            if (!bad && lane < count) {
                for (unsigned i = 0; i < W; ++i) {
                    words[i] = ld(f.payload(lane) + i);
                }
            }
            bad = any(bad);
            // Lanes -> leader: every lane's reads of the front come before the leader frees its slot
            // (the unlock lets a producer overwrite it) or the lanes repack the private slot.
            // At the private scope for the same reason as the hand-off above: under HRF-direct the
            // lanes' reads must reach the next writer of the slot through device-scope edges only.
            handoff_barrier();
            if (leader) {
                release_locked(kind, wg, sg, count, bad, s.cnt);
            }
            if (kind == detail::pk_private || kind == detail::pk_rsp) {
                s.pt -= 1;
            }
            if (traced) { // a front from another work-group's queue is a steal
                const bool stolen = kind == detail::pk_mailbox || kind == detail::pk_rsp;
                trace_span(stolen ? trace_kind::steal : trace_kind::pick, pick_since, stolen ? 1 : 0);
            }
            if (bad) {
                continue; // the next pick sees the status word and stops
            }

            // ---- run ----
            const std::uint64_t run_since = traced ? trace_clock() : 0;
            detail::context_access::clear(ctx);
            dispatch(type, lane < count, words, ctx); // every lane: a cooperative type's body needs them all

            // ---- pack ----
            const bool staging_overflow =
                any(detail::context_access::overflowed(ctx)); // every lane has finished its task
            if (traced) {
                trace_span(trace_kind::run, run_since, count);
            }
            const std::uint64_t pack_since = traced ? trace_clock() : 0;
            if (staging_overflow) {
                if (detail::context_access::overflowed(ctx)) {
                    report(status(), failure::staging_overflow, sg * max_subgroup_size + lane);
                }
                continue;
            }
            unsigned spawned = 0;
            const bool overflow = pack_locked(ctx, sg, leader, s, spawned);
            // Lanes -> leader hand-off of the packed payloads, at the private scope (device for
            // HRF-direct), then the sub-group barrier, so that the leader's acquire follows every lane's
            // release (a collective would only move values).
            fence<Sp>(std::memory_order_release);
            subgroup_barrier();
            if (overflow) {
                continue;
            }
            if (leader) {
                const unsigned left = count_front(count, spawned, sg, s.cnt);
                if (traced) {
                    trace_count(trace_counter::outstanding, 0, left);
                    trace_span(trace_kind::pack, pack_since, spawned);
                }
            }

            // ---- donate (leader): oldest first ----
            const std::uint64_t share_since = traced ? trace_clock() : 0;
            const unsigned moved_before =
                s.cnt[c_donate_wg] + s.cnt[c_donate_device] + s.cnt[c_redonate_device];
            const unsigned donated = leader ? donate(wg, sg, s, s.cnt) : 0;
            if (traced) {
                const unsigned moved = s.cnt[c_donate_wg] + s.cnt[c_donate_device] + s.cnt[c_redonate_device];
                if (moved != moved_before) {
                    trace_span(trace_kind::share, share_since, moved - moved_before);
                }
                trace_count(trace_counter::private_queue, 0, s.pt - s.ph - donated);
            }
            s.ph += broadcast(donated, 0);
        }

        if (leader) {
            write_stats(sg, s.cnt);
        }
    }
};

} // namespace canopy::runtime
