// canopy/runtime/ring_scheduler.hpp — the ring core's device loop: lock-free rings, fronts read in
// place, work shared on demand, private overflow spilled outward (config::queues = ring, the default).
//
// The same vocabulary as the locked core (scheduler.hpp: the HRF paper's Fig. 9), with what the graph
// experiment found it lacked for fine-grained, wide work (docs/runtime.md, "The ring core"):
//   - the work-group and device queues are front_rings: a reservation is one CAS on an index, and the
//     lanes read a reserved front in place while other sub-groups reserve the next ones (the locked
//     core holds the queue's lock while the lanes read);
//   - a move between queues is copied by every lane at once (lane l copies task l: W words a lane),
//     and k fronts move with one reservation (one release for the batch);
//   - sharing is driven by hunger: a sub-group that finds no work counts itself idle in its
//     work-group's and the device's idle counts; after a front, a sub-group holding more than
//     keep_private fronts shares as many as the idle sub-groups outnumber the fronts already queued
//     where they look (its work-group ring first, then the device ring), up to max_share_per_point;
//     steal policies share into the work-group ring only, and keep it stocked with a front for each
//     hungry sub-group of the device (at least workgroup_threshold): what thieves from other
//     work-groups take;
//   - a steal-rsp thief takes half of what the victim advertises (up to max_share) with one
//     remote-promoted reservation; its lanes run the first front in place and copy the others into
//     its private ring before the leader hands the victim's slots back;
//   - a private ring that would overflow spills its fronts to the work-group ring, then the device
//     ring (work-sharing policies), instead of failing: only when every ring it may use is full does
//     the run fail, naming the private queue;
//   - config::order: lifo (newest private front first) or fifo (oldest first); a sub-group shares the
//     end of its private ring that it would run last.
// One iteration: pick (leader) → lanes read the front in place → the leader hands the slot back → run →
// count (one device-scope RMW, before any child is published) → pack into the private ring (spilling
// when it is full) → share. Scopes per operation: docs/scopes.md ("Ring core").
// Several devices (config::devices > 1): each device runs this loop over its own buffer, and the system
// level (system_level.hpp) joins them: a busy sub-group donates to the system ring when devices are dry,
// a dry device takes from it, and a device with no task leaves only when the system's credits read 0.
#pragma once

#include <atomic>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/ids.hpp"
#include "canopy/platform/plain_access.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/spin.hpp"
#include "canopy/platform/subgroup.hpp"
#include "canopy/platform/trace.hpp"
#include "canopy/queues/front_ring.hpp"
#include "canopy/runtime/scheduler.hpp"
#include "canopy/runtime/system_level.hpp"
#include "canopy/runtime/task_order.hpp"

namespace canopy::runtime {

template <policy P, class... Tasks> struct ring_scheduler : scheduler<P, Tasks...> {
    using base = scheduler<P, Tasks...>;
    using base::dispatch;
    using base::handoff_barrier;
    using base::L;
    using base::mailbox_front;
    using base::mailbox_granted;
    using base::mailbox_state;
    using base::mem;
    using base::outstanding;
    using base::post_request;
    using base::private_slot;
    using base::status;
    using base::write_stats;
    using typename base::ctx_t;
    using typename base::dev_access;
    using typename base::dev_push_access;
    using typename base::thief_access;
    using typename base::traits;
    using typename base::wg_access;
    static constexpr unsigned W = base::W;
    static constexpr unsigned num_types = base::num_types;
    static constexpr scope Sp = base::Sp;
    static constexpr scope Swg = traits::workgroup_scope;

    task_order order = task_order::lifo;
    unsigned max_share = 8;
    // steal-rsp: the most fronts one steal takes (the count rides in 5 bits of the pick's broadcast).
    static constexpr unsigned steal_batch_max = 16;
    unsigned delta = 1; // order priority: the bucket width

    // ---- the system level (system_level.hpp): several devices; devices == 1 leaves it unused ----
    using sys_access = queues::scoped_access<scope::system>;
    unsigned* sys = nullptr; // the system buffer (memory every device reaches)
    unsigned devices = 1;    // devices of the run
    unsigned dev = 0;        // this sub-group's device
    unsigned system_capacity = 2;
    unsigned system_poll = 4;
    // Fronts the system ring is kept stocked with per dry device (config::system_stock): a few fronts
    // to start from, which the device's own sharing then spreads.
    unsigned system_stock = 8;

    CANOPY_DEVICE queues::front_ring system_ring() const {
        return {sys + system_layout::ring, system_capacity, L.shape};
    }
    CANOPY_DEVICE system_level sys_level() const { return {sys, dev}; }

    /// The leader whose count step (or donation) left its device with no task: its device's credit goes.
    CANOPY_DEVICE void device_dry(unsigned* cnt) const {
        sys_level().device_dry();
        ++cnt[c_device_dry];
    }

    /// A hungry device's leader (the device is dry, or half its sub-groups are idle): counts the device
    /// hungry (once) and takes a front from the system ring. True with the ticket in `aux` when it took
    /// one: its tasks are counted on this device already.
    CANOPY_DEVICE bool take_from_system(unsigned& aux) const {
        sys_level().hungry();
        const queues::front_ring q = system_ring();
        // Acquire at system scope (inside reserve_pop): the donor's system-scope release of the front.
        const queues::ring_span r = q.template reserve_pop<sys_access>(1);
        if (r.n == 0) {
            return false;
        }
        // The header, read after the acquire.
        sys_level().taken(outstanding(), q.slot(r.first).count());
        aux = r.first;
        return true;
    }

    /// Busy again (fewer than half the device's sub-groups idle): the device leaves the hungry count.
    CANOPY_DEVICE void sated() const { sys_level().sated(); }

    /// Device ring k (config::device_rings); a work-group's home ring is home_ring(wg).
    CANOPY_DEVICE queues::front_ring device_ring(unsigned k) const {
        return {mem + L.device_ring_at(k), L.device_capacity, L.shape};
    }
    CANOPY_DEVICE unsigned home_ring(unsigned wg) const { return wg % L.device_rings; }
    CANOPY_DEVICE queues::front_ring workgroup_ring(unsigned wg) const {
        return {mem + L.workgroup_queue_at(wg), L.workgroup_capacity, L.shape};
    }
    /// order priority: the far ring (device scope, like the device ring: every work-group uses it).
    CANOPY_DEVICE queues::front_ring far_ring() const { return {mem + L.far_queue, L.far_capacity, L.shape}; }
    // order priority's words, all relaxed at device scope: counts and thresholds that decide what runs
    // when, never data (the fronts go through the far ring's releases and acquires). A stale read opens
    // a bucket early or late, or sends a task far that could have run now: order, not correctness.
    CANOPY_DEVICE atomic_ref<unsigned, scope::device> far_tasks() const {
        return atomic_ref<unsigned, scope::device>(mem[L.priority]);
    }
    CANOPY_DEVICE atomic_ref<unsigned, scope::device> threshold() const {
        return atomic_ref<unsigned, scope::device>(mem[L.priority + 1]);
    }
    CANOPY_DEVICE atomic_ref<unsigned, scope::device> far_open() const {
        return atomic_ref<unsigned, scope::device>(mem[L.priority + 2]);
    }
    CANOPY_DEVICE atomic_ref<unsigned, scope::device> far_min() const {
        return atomic_ref<unsigned, scope::device>(mem[L.priority + 3]);
    }

    // Idle counts: relaxed RMWs and loads. They are hints that decide how much to share and carry no
    // data (the fronts are published by the rings' releases), so a stale count costs a front shared
    // too many or too few, never a lost or unsynchronized one. The device count at device scope (every
    // work-group reads it), a work-group's count at its ring's scope.
    CANOPY_DEVICE atomic_ref<unsigned, scope::device> idle_device() const {
        return atomic_ref<unsigned, scope::device>(mem[L.idle_device()]);
    }
    CANOPY_DEVICE atomic_ref<unsigned, Swg> idle_workgroup(unsigned wg) const {
        return atomic_ref<unsigned, Swg>(mem[L.idle_workgroup(wg)]);
    }

    /// steal policies: the work-group ring's size, at device scope for thieves in other work-groups.
    /// Relaxed: a hint (a thief that reads a stale advert asks or probes in vain, or waits a poll).
    CANOPY_DEVICE void advertise(const queues::front_ring& q) const {
        if constexpr (traits::steal_emulated || traits::steal_rsp) {
            atomic_ref<unsigned, scope::device>(*q.advert_word())
                .store(q.template size_hint<wg_access>(), std::memory_order_relaxed);
        }
    }

    /// steal-emulated, owner side (the leader, at a scheduling point): answers one steal request to
    /// this work-group with the oldest front of its ring, or declines. As in the locked core.
    CANOPY_DEVICE void service_request(unsigned wg, unsigned* cnt) const {
        atomic_ref<unsigned, scope::device> req(mem[L.request_at(wg)]);
        // Relaxed peek, then an acquire CAS to claim it: synchronizes with the thief's release, which
        // ordered its mailbox reset before the request (device scope: the thief is in another WG).
        const unsigned r = req.load(std::memory_order_relaxed);
        if (r == 0) {
            return;
        }
        unsigned expected = r;
        if (!req.compare_exchange_strong(expected, 0u, std::memory_order_acquire)) {
            return;
        }
        const unsigned thief = r - 1;
        const queues::front_ring q = workgroup_ring(wg);
        // Reserve at the ring's (work-group) scope: the producer's release of the front is acquired.
        const queues::ring_span s = q.template reserve_pop<wg_access>(1);
        if (s.n != 0) {
            mailbox_front(thief).copy_from(q.slot(s.first));
            q.template release<wg_access>(s); // this leader read the slot: hand it back at WG scope
            advertise(q);
        }
        // The promotion: acquired at work-group scope, released at device scope to the thief.
        atomic_ref<unsigned, scope::device>(*mailbox_state(thief))
            .store(s.n != 0 ? detail::mb_granted : detail::mb_declined, std::memory_order_release);
        ++cnt[s.n != 0 ? c_steal_grants : c_steal_declines];
    }

    /// order priority, an idle leader: when far fronts exist, none is open, and every outstanding task
    /// is far (far tasks read first, then the outstanding count: far tasks only grow while nothing is
    /// open, and outstanding >= far tasks always, so equal reads mean no near task existed at the second
    /// read, save a pop that raced with the opening), opens every far front and raises the threshold
    /// to the least far priority + delta - 1. One leader wins the CAS on the open ticket.
    CANOPY_DEVICE void open_next_bucket() const {
        const queues::front_ring fq = far_ring();
        const unsigned tail = dev_access::load(fq.tail_word(), std::memory_order_relaxed);
        const unsigned head = dev_access::load(fq.head_word(), std::memory_order_relaxed);
        unsigned open = far_open().load(std::memory_order_relaxed);
        if (tail == head || static_cast<int>(open - head) > 0) {
            return; // nothing far, or an open bucket still has fronts
        }
        const unsigned far = far_tasks().load(std::memory_order_relaxed);
        if (atomic_ref<unsigned, scope::device>(*outstanding()).load(std::memory_order_relaxed) != far) {
            return;
        }
        if (!far_open().compare_exchange_strong(open, tail, std::memory_order_relaxed,
                                                std::memory_order_relaxed)) {
            return;
        }
        const unsigned least = far_min().exchange(~0u, std::memory_order_relaxed);
        const unsigned th = threshold().load(std::memory_order_relaxed);
        const unsigned next = least == ~0u ? th + delta : least > ~0u - delta ? ~0u : least + delta - 1;
        if (next > th) {
            threshold().store(next, std::memory_order_relaxed);
        }
    }

    /// Leader: chooses the next front (pk_* as the locked core). For pk_workgroup / pk_device the
    /// reserved ticket is in `aux` (the slot is handed back after the lanes have read it).
    /// For pk_device, `ring` says which device ring.
    CANOPY_DEVICE unsigned pick(unsigned wg, unsigned nwg, unsigned sg, unsigned ph, unsigned pt,
                                unsigned& aux, unsigned& ring, bool& pending, unsigned& cursor,
                                unsigned* cnt) const {
        const queues::front_ring wq = workgroup_ring(wg);
        const unsigned home = home_ring(wg);
        // Idle polls look at the home device ring and one other, in turn: each ring has a few pollers,
        // not every idle sub-group of the device (a CAS race on one head word per hand-off).
        unsigned probe = home;
        unsigned kind = detail::pk_done;
        unsigned rsp_skip = 0, rsp_fails = 0; // steal-rsp: probes to skip after a failed attempt
        bool idle = false;
        std::uint64_t idle_since = 0; // --trace: the first poll that found nothing
        const bool in_time = spin_until_bounded([&] {
            if (base::pick_before_queues(*this, wg, sg, ph, pt, pending, cnt, kind)) {
                return true;
            }
            // Exact termination, before the shared rings: a launch with nothing left (or nothing at
            // all) ends after one L2 read instead of a round of empty polls (~1,300 cycles on the timed
            // model: two words per device ring). The counter reads 0 only once no task exists anywhere
            // (it is seeded before the launch and a task is counted before its children are published),
            // so no ring can hold a front then. A poll round costs the same reads in either order.
            // Relaxed at device scope: the counter carries no data, only the count.
            if (atomic_ref<unsigned, scope::device>(*outstanding()).load(std::memory_order_relaxed) == 0) {
                // Several devices: this one is dry. The run ends when the credits read 0 (no task
                // anywhere, none can appear: system_level.hpp); until then, take from the system ring.
                if (devices > 1) {
                    if (take_from_system(aux)) {
                        kind = detail::pk_system;
                        return true;
                    }
                    if (sys_level().credits().load(std::memory_order_relaxed) != 0) {
                        return false;
                    }
                }
                kind = detail::pk_done;
                return true;
            }
            queues::ring_span s = wq.template reserve_pop<wg_access>(1);
            if (s.n != 0) {
                aux = s.first;
                kind = detail::pk_workgroup;
                return true;
            }
            s = device_ring(home).template reserve_pop<dev_access>(1);
            if (s.n != 0) {
                aux = s.first;
                ring = home;
                kind = detail::pk_device;
                return true;
            }
            if (L.device_rings > 1) {
                probe = probe + 1 == L.device_rings ? 0 : probe + 1;
                probe = probe == home ? (probe + 1 == L.device_rings ? 0 : probe + 1) : probe;
                s = device_ring(probe).template reserve_pop<dev_access>(1);
                if (s.n != 0) {
                    aux = s.first;
                    ring = probe;
                    kind = detail::pk_device;
                    return true;
                }
            }
            if (devices > 1 && idle && 2 * idle_device().load(std::memory_order_relaxed) >= L.subgroups()) {
                // Several devices, half of this one idle: work from the system ring before the device's
                // own stealing (a device with one long front has tasks, but its sub-groups have none).
                if (take_from_system(aux)) {
                    kind = detail::pk_system;
                    return true;
                }
            }
            if (order == task_order::priority) {
                // The far ring's fronts before its open ticket belong to open buckets.
                const queues::front_ring fq = far_ring();
                const unsigned open = far_open().load(std::memory_order_relaxed);
                const unsigned head = dev_access::load(fq.head_word(), std::memory_order_relaxed);
                if (static_cast<int>(open - head) > 0) {
                    s = fq.template reserve_pop<dev_access>(1);
                    if (s.n != 0) {
                        aux = s.first;
                        kind = detail::pk_far;
                        return true;
                    }
                }
            }
            if constexpr (traits::steal_emulated) {
                post_request(wg, nwg, sg, pending, cursor, cnt,
                             [&](unsigned v) { return workgroup_ring(v).advert_word(); });
            }
            if constexpr (traits::steal_rsp) {
                if (nwg > 1 && rsp_skip != 0) {
                    --rsp_skip; // backing off after a failed attempt (below)
                } else if (nwg > 1) {
                    cursor = (cursor + 1) % nwg;
                    if (cursor == wg) {
                        cursor = (cursor + 1) % nwg;
                    }
                    const unsigned v = cursor; // the victim
                    const queues::front_ring vq = workgroup_ring(v);
                    // The advert first (a relaxed device-scope load, as an idle thief on hardware would
                    // poll): remote-promoted operations only where there is work to take.
                    const unsigned adv = atomic_ref<unsigned, scope::device>(*vq.advert_word())
                                             .load(std::memory_order_relaxed);
                    if (adv != 0 && pt - ph < L.private_capacity) {
                        ++cnt[c_rsp_attempts];
                        // Half of what the advert shows (steal-half), up to max_share and what the
                        // private ring can take besides the front this sub-group runs at once.
                        unsigned want = (adv + 1) / 2;
                        want = want < max_share ? want : max_share;
                        const unsigned room = L.private_capacity - (pt - ph) + 1;
                        want = want < room ? want : room;
                        want = want < steal_batch_max ? want : steal_batch_max;
                        // Remote-promoted (device, remote) reservation on the victim's work-group-scope
                        // ring: the victim's work-group-scope releases become visible to this thief.
                        // Its lanes read the fronts in place; the leader hands the slots back (a
                        // promoted release) after they have (the main loop, pk_rsp).
                        const queues::ring_span r = vq.template reserve_pop<thief_access>(want);
                        if (r.n != 0) {
                            aux = r.first;
                            ring = v << 5 | r.n;           // v < 2^23 work-groups: the word's 28 bits hold it
                            cnt[c_steals_received] += r.n; // fronts (one steal: fronts[lvl_stolen])
                            kind = detail::pk_rsp;
                            return true;
                        }
                        // The advert showed work but another thief (or the owner) took it first: this
                        // attempt's promoted operations stalled every CU for nothing. Skip the next 1, 3,
                        // 7, ..., 63 probes, so that a crowd of idle thieves does not stall the device
                        // with failed attempts (each promoted RMW locks every CU's RMW unit; RSP Table
                        // 3, rows 6 and 9).
                        rsp_fails = rsp_fails < 6 ? rsp_fails + 1 : 6;
                        rsp_skip = (1u << rsp_fails) - 1;
                    }
                }
            }
            if (!idle) {
                // Hungry from now on: counted where sharers look (relaxed; see idle_device()).
                idle = true;
                idle_since = tracing() ? trace_clock() : 0;
                idle_workgroup(wg).fetch_add(1u, std::memory_order_relaxed);
                // Every policy: work-sharing ones share into the device ring by it, steal policies
                // stock their work-group ring for the thieves it counts.
                idle_device().fetch_add(1u, std::memory_order_relaxed);
            }
            if (order == task_order::priority) {
                open_next_bucket();
            }
            return false;
        });
        if (idle) {
            if (tracing()) {
                trace_span(trace_kind::idle, idle_since);
            }
            idle_workgroup(wg).fetch_sub(1u, std::memory_order_relaxed);
            idle_device().fetch_sub(1u, std::memory_order_relaxed);
        }
        if (!in_time) {
            report(status(), failure::spin_timeout, sg);
            kind = detail::pk_done;
        }
        return kind;
    }

    /// Every lane: copies front src to dst, lane l task l (its type's words only), the leader the header;
    /// a count above `limit` or an unknown type copies no task. Returns the count.
    CANOPY_DEVICE unsigned copy_front(const queues::front_ref& src, const queues::front_ref& dst,
                                      unsigned limit, bool leader, unsigned lane) const {
        const unsigned count = src.count();
        const unsigned type = src.type();
        if (lane < count && count <= limit && type < num_types) {
            for (unsigned i = 0; i < type_words<Tasks...>(type); ++i) {
                st(dst.payload(lane) + i, ld(src.payload(lane) + i));
            }
        }
        if (leader) {
            dst.set_header(type, count);
        }
        return count;
    }

    /// Where move_out puts fronts.
    enum target : unsigned { to_workgroup = 0, to_device = 1, to_far = 2, to_system = 3 };

    /// Every lane: moves up to `want` private fronts — the oldest (from ph on), or with `newest` the
    /// newest (ending at pt) — into the work-group, device or far ring, as many as it has free slots for
    /// (one reservation); returns how many moved (uniform) and advances ph (or pulls pt back) past them.
    /// Lane l copies task l of every front; the leader the headers.
    /// to_device: the device ring ring_offset after the home ring.
    CANOPY_DEVICE unsigned move_out(unsigned wg, unsigned sg, unsigned& ph, unsigned& pt, unsigned want,
                                    unsigned where, bool newest, bool leader, unsigned lane, unsigned* cnt,
                                    unsigned ring_offset = 0) const {
        const queues::front_ring q = where == to_far      ? far_ring()
                                     : where == to_system ? system_ring()
                                     : where == to_device
                                         ? device_ring(home_ring(wg) + ring_offset < L.device_rings
                                                           ? home_ring(wg) + ring_offset
                                                           : home_ring(wg) + ring_offset - L.device_rings)
                                         : workgroup_ring(wg);
        const bool traced = leader && tracing(); // --trace: a share span when fronts move
        const std::uint64_t since = traced ? trace_clock() : 0;
        queues::ring_span r;
        if (leader && want != 0) {
            // Acquire at the ring's scope (inside reserve_push): the consumers that freed these slots
            // have finished reading them.
            r = where == to_system      ? q.template reserve_push<sys_access>(want)
                : where != to_workgroup ? q.template reserve_push<dev_access>(want)
                                        : q.template reserve_push<wg_access>(want);
        }
        r.first = broadcast(r.first, 0);
        r.n = broadcast(r.n, 0);
        if (r.n == 0) {
            return 0;
        }
        const unsigned from = newest ? pt - r.n : ph;
        // Leader -> lanes (its acquire of the slots) and lanes -> lanes (the packed private fronts were
        // written by whichever lane packed them), at the private scope.
        handoff_barrier();
        unsigned moved_tasks = 0;
        for (unsigned j = 0; j < r.n; ++j) {
            moved_tasks +=
                copy_front(private_slot(sg, from + j), q.slot(r.first + j), L.shape.lanes, leader, lane);
        }
        // Lanes -> leader: every lane's copy comes before the leader's release that publishes them.
        handoff_barrier();
        if (leader) {
            if (where == to_system) {
                // The tasks' credit before they leave this device's count (system_level.hpp); the
                // system-scope release publishes them to every device; then this device's count falls,
                // with a device-scope release that the sub-group making it 0 acquires.
                sys_level().credit_donation(moved_tasks);
                q.template publish<sys_access>(r);
                if (sys_level().donated(outstanding(), moved_tasks)) {
                    ++cnt[c_device_dry];
                }
                cnt[c_donate_system] += r.n;
            } else if (where == to_far) {
                // Counted before they can be taken (far tasks <= outstanding at every moment).
                far_tasks().fetch_add(moved_tasks, std::memory_order_relaxed);
                q.template publish<dev_push_access>(r);
                cnt[c_deferred] += r.n;
            } else if (where == to_device) {
                q.template publish<dev_push_access>(r); // device-scope release (HRF-indirect: the wide one)
                cnt[c_donate_device] += r.n;
            } else {
                q.template publish<wg_access>(r);
                advertise(q);
                cnt[c_donate_wg] += r.n;
            }
            if (traced && where != to_far) { // a far move is part of packing
                trace_span(trace_kind::share, since, r.n);
            }
        }
        if (newest) {
            pt -= r.n;
        } else {
            ph += r.n;
        }
        return r.n;
    }

    /// Every lane: moves up to `n` of the oldest private fronts to the work-group ring, then (work-
    /// sharing policies) the device ring. Returns how many moved (uniform).
    CANOPY_DEVICE unsigned spill(unsigned wg, unsigned sg, unsigned& ph, unsigned& pt, unsigned n,
                                 bool leader, unsigned lane, unsigned* cnt) const {
        unsigned moved = move_out(wg, sg, ph, pt, n, to_workgroup, false, leader, lane, cnt);
        if constexpr (traits::donates_to_device) {
            // The home device ring, then the others in turn: a full ring need not mean a full device
            // (a high-degree vertex's children can outnumber a private ring, its work-group ring and a
            // device ring together: PageRank on Kronecker 16 and 18, 1,584 work-groups of an H200).
            // Only a spill pays for the walk, and it stops at the first rings that take the fronts.
            for (unsigned k = 0; k < L.device_rings && moved < n; ++k) {
                moved += move_out(wg, sg, ph, pt, n - moved, to_device, false, leader, lane, cnt, k);
            }
        }
        return moved;
    }

    /// Every lane: for each type, this lane's offset among the lanes (`offs`) and the sub-group's total
    /// (`totals`) of the counts `k`. Up to 4 types in 16-bit fields of one 64-bit scan when no total can
    /// reach 2^16 (one collective instead of one per type). Returns whether `flag` is set on any lane:
    /// in a free field of the same scan when fewer than 4 types leave one, else by one more vote.
    CANOPY_DEVICE bool scan_counts(const unsigned (&k)[num_types], unsigned (&offs)[num_types],
                                   unsigned (&totals)[num_types], unsigned F, bool flag = false) const {
        if (num_types <= 4 && L.staging_capacity * F < 65536u) {
            unsigned long long packed = 0;
            for (unsigned t = 0; t < num_types; ++t) {
                packed |= static_cast<unsigned long long>(k[t]) << (16 * t);
            }
            if (num_types < 4) {
                packed |= static_cast<unsigned long long>(flag ? 1u : 0u) << (16 * (num_types % 4));
            }
            const unsigned long long o = exclusive_sum(packed);
            const unsigned long long all = broadcast(o + packed, F - 1);
            for (unsigned t = 0; t < num_types; ++t) {
                offs[t] = static_cast<unsigned>(o >> (16 * t)) & 0xffffu;
                totals[t] = static_cast<unsigned>(all >> (16 * t)) & 0xffffu;
            }
            if (num_types < 4) {
                return ((all >> (16 * (num_types % 4))) & 0xffffu) != 0;
            }
        } else {
            for (unsigned t = 0; t < num_types; ++t) {
                offs[t] = exclusive_sum(k[t]);
                totals[t] = broadcast(offs[t] + k[t], F - 1);
            }
        }
        return any(flag);
    }

    /// The loop of one sub-group; `wg` / `nwg`: this work-group's (participating) id and their count.
    CANOPY_DEVICE void operator()(unsigned wg, unsigned nwg) const {
        const unsigned F = subgroup_size();
        const unsigned lane = lane_id();
        const bool leader = lane == 0;
        const unsigned sg = wg * L.subgroups_per_block + subgroup_id();
        const queues::front_ring wq = workgroup_ring(wg);
        const queues::front_ring dq = device_ring(home_ring(wg));
        const bool lifo = order == task_order::lifo;
        unsigned ph = 0, pt = 0; // private ring tickets: uniform (every lane keeps the same copy)
        unsigned cnt[num_counters] = {};
        bool pending = false;
        unsigned cursor = wg;
        ctx_t ctx(mem + L.staging_at(sg, lane), L.staging_capacity, dev);
        unsigned system_tick = 0; // fronts since this sub-group last looked at the system's hunger
        const bool traced = leader && tracing(); // --trace (platform/trace.hpp): read once

        for (;;) {
            unsigned aux = 0, ring = 0, kind = detail::pk_done;
            const std::uint64_t pick_since = traced ? trace_clock() : 0;
            if (leader) {
                kind = pick(wg, nwg, sg, ph, pt, aux, ring, pending, cursor, cnt);
            }
            // The pick in one broadcast: the device ring (pk_rsp: the victim and the fronts reserved
            // there) rides in the kind's word (kinds < 16), the slot ticket in the high half. Every
            // collective of this loop runs once per front; on the emulator each costs a fiber switch per
            // lane, on a GPU a shuffle or two.
            const unsigned long long picked =
                broadcast(static_cast<unsigned long long>(aux) << 32 | (kind | ring << 4), 0);
            aux = static_cast<unsigned>(picked >> 32);
            kind = static_cast<unsigned>(picked) & 15u;
            ring = static_cast<unsigned>(picked) >> 4;
            if (kind == detail::pk_done) {
                if (traced) {
                    trace_span(trace_kind::pick, pick_since);
                }
                break;
            }
            // Leader -> lanes: its acquire of the front (at its ring's scope), at the private scope.
            handoff_barrier();
            // pk_rsp: `ring` holds the victim work-group and how many fronts were reserved there.
            const unsigned stolen_n = kind == detail::pk_rsp ? ring & 31u : 0;
            const queues::front_ring vq = workgroup_ring(kind == detail::pk_rsp ? ring >> 5 : wg);
            const bool own = kind == detail::pk_private;
            const unsigned mine = lifo ? pt - 1 : ph;
            const unsigned lvl = kind == detail::pk_workgroup                          ? lvl_workgroup
                                 : kind == detail::pk_device || kind == detail::pk_far ? lvl_device
                                 : kind == detail::pk_private                          ? lvl_private
                                 : kind == detail::pk_system                           ? lvl_system
                                                                                       : lvl_stolen;
            const queues::front_ref f = kind == detail::pk_workgroup ? wq.slot(aux)
                                        : kind == detail::pk_device  ? device_ring(ring).slot(aux)
                                        : kind == detail::pk_far     ? far_ring().slot(aux)
                                        : kind == detail::pk_system  ? system_ring().slot(aux)
                                        : kind == detail::pk_mailbox ? mailbox_front(sg)
                                        : kind == detail::pk_rsp     ? vq.slot(aux)
                                                                     : private_slot(sg, mine);
            const unsigned type = f.type();
            const unsigned count = f.count();
            unsigned words[W] = {};
            const bool bad = type >= num_types || count == 0 || count > F;
            if (!bad && lane < count) {
                // Only the words this type's payload has (a vertex id is 1 of a range task's 6).
                for (unsigned i = 0; i < type_words<Tasks...>(type); ++i) {
                    words[i] = ld(f.payload(lane) + i);
                }
            }
            // A steal of several fronts: this sub-group runs the first in place and its lanes copy the
            // others into its private ring (lane l copies task l; the leader the headers), before the
            // hand-off below that precedes the promoted release of the victim's slots.
            for (unsigned j = 1; j < stolen_n; ++j) {
                copy_front(vq.slot(aux + j), private_slot(sg, pt + j - 1), F, leader, lane);
            }
            // No vote on `bad`: every lane read the same two header words of a front its sub-group
            // owns (nothing writes them until the leader hands the slot back, below), after the same
            // hand-off, so `bad` is uniform already and the branches on it cannot diverge.
            // Lanes -> leader: every lane's reads come before the leader hands the slot back (the next
            // producer may overwrite it) or the private slot is repacked.
            handoff_barrier();
            if (leader) {
                if (kind == detail::pk_workgroup) {
                    wq.template release<wg_access>({aux, 1}); // release at the ring's scope
                    advertise(wq);
                } else if (kind == detail::pk_device) {
                    device_ring(ring).template release<dev_access>({aux, 1}); // release at device scope
                } else if (kind == detail::pk_far) {
                    far_ring().template release<dev_access>({aux, 1}); // release at device scope
                    // No longer far (still outstanding until they finish): far tasks <= outstanding.
                    far_tasks().fetch_sub(count, std::memory_order_relaxed);
                } else if (kind == detail::pk_system) {
                    system_ring().template release<sys_access>({aux, 1}); // release at system scope
                } else if (kind == detail::pk_rsp) {
                    // The promoted release hands the victim's slots back: its producers may reuse them.
                    vq.template release<thief_access>({aux, stolen_n});
                } else if (kind == detail::pk_mailbox) {
                    // Relaxed: only this thief reads its mailbox state until its next request (a release).
                    atomic_ref<unsigned, scope::device>(*mailbox_state(sg))
                        .store(detail::mb_empty, std::memory_order_relaxed);
                    ++cnt[c_steals_received];
                }
                if (bad) {
                    report(status(), failure::corrupt_front, sg);
                } else {
                    ++cnt[c_fronts + lvl];
                    cnt[c_tasks + lvl] += count;
                    cnt[c_device_away] += kind == detail::pk_device && ring != home_ring(wg) ? 1 : 0;
                    cnt[c_partial] += count < F ? 1 : 0;
                }
            }
            if (stolen_n > 1) {
                pt += stolen_n - 1; // the copies above: the newest private fronts
            }
            if (own) {
                if (mine == pt - 1) {
                    pt -= 1;
                } else {
                    ph += 1;
                }
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

            // ---- pack (into the private ring; spilling outward first when it would overflow) ----
            const bool prio = order == task_order::priority;
            unsigned near_k[num_types] = {}, far_k[num_types] = {};
            unsigned offs[num_types] = {}, totals[num_types] = {}, far_offs[num_types] = {},
                     far_totals[num_types] = {};
            for (unsigned t = 0; t < num_types; ++t) {
                near_k[t] = detail::context_access::staged_of(ctx, t);
            }
            // fifo and lifo: the staging overflow vote rides in the counts' scan (one collective fewer
            // per front); priority splits the counts by a threshold first, so it votes on its own. Either
            // way every lane has finished its task here.
            const bool staging_overflow =
                prio ? any(detail::context_access::overflowed(ctx))
                     : scan_counts(near_k, offs, totals, F, detail::context_access::overflowed(ctx));
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
            // ---- count, before any child can be published: a spill below hands fronts to other
            // sub-groups mid-pack, and they must not finish a child before it is counted ----
            // order priority: a task whose priority is above the threshold (read once per front) is far.
            unsigned theta = 0;
            if (prio) {
                if (leader) {
                    theta = threshold().load(std::memory_order_relaxed);
                }
                theta = broadcast(theta, 0);
            }
            unsigned least_far = ~0u;
            if (prio) {
                for (unsigned i = 0; i < detail::context_access::staged(ctx); ++i) {
                    const unsigned* e = detail::context_access::entry(ctx, i);
                    const unsigned pr = ld(e + 1);
                    if (pr > theta) {
                        const unsigned t = ld(e);
                        --near_k[t];
                        ++far_k[t];
                        least_far = pr < least_far ? pr : least_far;
                    }
                }
            }
            // Per type and class: this lane's staged count, its offset among the lanes and the total.
            if (prio) {
                scan_counts(near_k, offs, totals, F);
                scan_counts(far_k, far_offs, far_totals, F);
            }
            unsigned spawned = 0;
            for (unsigned t = 0; t < num_types; ++t) {
                spawned += totals[t] + far_totals[t];
            }
            if (leader) {
                cnt[c_spawned] += spawned;
                // One RMW per front: children are counted in the same step as their parent finishes, so
                // the counter never reads 0 while work exists. Relaxed at device scope: a count only.
                const unsigned old = atomic_ref<unsigned, scope::device>(*outstanding())
                                         .fetch_add(spawned - count, std::memory_order_relaxed);
                if (old + spawned < count) {
                    report(status(), failure::counter_underflow, sg);
                } else if (devices > 1 && old + spawned == count) {
                    device_dry(cnt); // several devices: this device has no task left
                }
                if (traced) {
                    trace_count(trace_counter::outstanding, 0, old + spawned - count);
                }
            }
            bool overflow = false;
            unsigned far_fronts = 0; // far fronts packed (the newest of the private ring)
            for (unsigned u = 0; u < (prio ? 2 * num_types : num_types) && !overflow; ++u) {
                const unsigned t = u % num_types;
                const bool far = u >= num_types; // near tasks first, so the far fronts are the newest
                const unsigned off = far ? far_offs[t] : offs[t];
                const unsigned total = far ? far_totals[t] : totals[t];
                const unsigned mine_k = far ? far_k[t] : near_k[t];
                if (total == 0) {
                    continue;
                }
                // The newest private front takes more tasks of its own type (headers: leader only);
                // never a far one's.
                unsigned room = 0, have = 0;
                if (leader && pt != ph && !far) {
                    const queues::front_ref nf = private_slot(sg, pt - 1);
                    if (nf.type() == t && nf.count() < F) {
                        have = nf.count();
                        room = F - have;
                    }
                }
                // Both in one broadcast (each is at most F <= 64).
                const unsigned room_have = broadcast(room | have << 16, 0);
                room = room_have & 0xffffu;
                have = room_have >> 16;
                room = room < total ? room : total;
                // In chunks of what the private ring can take: when it is full, its oldest fronts spill
                // to the work-group ring, then the device ring (work-sharing policies), and packing goes
                // on; only when no ring takes a front does the run fail (every value here is uniform).
                for (unsigned placed = 0; placed < total;) {
                    const unsigned top = placed == 0 ? room : 0;
                    const unsigned free_fronts = L.private_capacity - (pt - ph);
                    if (top == 0 && free_fronts == 0) {
                        const unsigned left = (total - placed + F - 1) / F;
                        const unsigned n = left < pt - ph ? left : pt - ph;
                        if (spill(wg, sg, ph, pt, n, leader, lane, cnt) == 0) {
                            if (leader) {
                                report(status(), failure::private_overflow, sg);
                            }
                            overflow = true;
                            break;
                        }
                        continue;
                    }
                    const unsigned fit = top + free_fronts * F;
                    const unsigned hi = total - placed < fit ? total : placed + fit;
                    const unsigned rest = hi - placed - (top < hi - placed ? top : hi - placed);
                    const unsigned need = (rest + F - 1) / F;
                    unsigned j = 0;
                    // A lane with one type and class staged (the usual case) needs no word from memory.
                    const bool only_t = mine_k == detail::context_access::staged(ctx);
                    for (unsigned i = 0; i < detail::context_access::staged(ctx) && j < mine_k; ++i) {
                        const unsigned* e = detail::context_access::entry(ctx, i);
                        if (!only_t && (ld(e) != t || (prio && (ld(e + 1) > theta) != far))) {
                            continue;
                        }
                        const unsigned g = off + j++;
                        if (g < placed || g >= hi) {
                            continue;
                        }
                        const unsigned x = g - placed; // position in this chunk
                        const queues::front_ref dst =
                            x < top ? private_slot(sg, pt - 1) : private_slot(sg, pt + (x - top) / F);
                        const unsigned slot = x < top ? have + x : (x - top) % F;
                        for (unsigned w = 0; w < type_words<Tasks...>(t); ++w) {
                            st(dst.payload(slot) + w, ld(e + 2 + w));
                        }
                    }
                    if (leader) {
                        const unsigned used = top < hi - placed ? top : hi - placed;
                        if (used > 0) {
                            private_slot(sg, pt - 1).set_header(t, have + used);
                        }
                        for (unsigned c = 0; c < need; ++c) {
                            const unsigned left = rest - c * F;
                            private_slot(sg, pt + c).set_header(t, left < F ? left : F);
                        }
                    }
                    pt += need;
                    placed = hi;
                    far_fronts += far ? need : 0;
                }
                if (overflow) {
                    break;
                }
            }
            // Lanes -> leader hand-off of the packed payloads (at the private scope).
            handoff_barrier();
            if (overflow) {
                continue;
            }
            if (prio && far_fronts != 0) {
                // The least far priority, then the far fronts (a spill may have taken some: at most the
                // private ring's contents) to the far ring; what does not fit runs here, as near work.
                const unsigned below =
                    exclusive_scan(least_far, ~0u, [](unsigned a, unsigned b) { return a < b ? a : b; });
                const unsigned least = broadcast(below < least_far ? below : least_far, F - 1);
                if (leader) {
                    far_min().fetch_min(least, std::memory_order_relaxed);
                }
                const unsigned n = far_fronts < pt - ph ? far_fronts : pt - ph;
                move_out(wg, sg, ph, pt, n, to_far, true, leader, lane, cnt);
            }
            if (traced) {
                trace_span(trace_kind::pack, pack_since, spawned);
            }

            // ---- share on demand ----
            if (pt - ph > this->keep_private) {
                unsigned n = 0;
                bool to_wg = true, to_sys = false;
                if (leader) {
                    const unsigned spare = pt - ph - this->keep_private;
                    // Hungry sub-groups of this work-group, beyond the fronts already queued for them.
                    const unsigned hw = idle_workgroup(wg).load(std::memory_order_relaxed);
                    const unsigned qw = wq.template size_hint<wg_access>();
                    if (traced) {
                        trace_count(trace_counter::workgroup_queue, wg, qw);
                    }
                    unsigned want = hw > qw ? hw - qw : 0;
                    if constexpr (traits::steal_emulated || traits::steal_rsp) {
                        // Thieves of other work-groups take from this ring: keep it stocked, with a
                        // front for each hungry sub-group of the device while there are any (read
                        // relaxed, as the work-sharing policies read it: a hint; every busy work-group
                        // stocks for them, and what no thief takes its own sub-groups run next).
                        const unsigned hd = idle_device().load(std::memory_order_relaxed);
                        const unsigned stock =
                            hd > this->workgroup_threshold ? hd : this->workgroup_threshold;
                        if (want == 0 && qw < stock) {
                            want = stock - qw;
                        }
                    }
                    if (want == 0 && traits::donates_to_device) {
                        const unsigned hd = idle_device().load(std::memory_order_relaxed);
                        const unsigned qd = dq.template size_hint<dev_access>();
                        if (traced) {
                            trace_count(trace_counter::device_queue, home_ring(wg), qd);
                        }
                        want = hd > qd ? hd - qd : 0;
                        to_wg = false;
                    }
                    n = want < spare ? want : spare;
                    n = n < max_share ? n : max_share;
                    // Several devices: every system_poll fronts, a look at how many devices are dry
                    // (one system-scope load), and fronts for them beyond those the system ring holds,
                    // before this device's own wants (a dry device has nothing at all to run).
                    if (devices > 1 && ++system_tick >= system_poll) {
                        system_tick = 0;
                        // A device with half its sub-groups idle keeps its fronts (and asks the system
                        // ring: pick); a busier one leaves the hungry count and feeds the others.
                        if (2 * idle_device().load(std::memory_order_relaxed) < L.subgroups()) {
                            sated();
                            const unsigned h = sys_level().hungry_devices().load(std::memory_order_relaxed);
                            const unsigned qs = h != 0 ? system_ring().template size_hint<sys_access>() : 0;
                            const unsigned ws = h * system_stock > qs ? h * system_stock - qs : 0;
                            if (ws != 0) {
                                n = ws < spare ? ws : spare;
                                n = n < max_share ? n : max_share;
                                to_sys = true;
                            }
                        }
                    }
                }
                // One broadcast for the count and the target.
                const unsigned n_to = broadcast(n << 2 | (to_wg ? 1u : 0u) | (to_sys ? 2u : 0u), 0);
                n = n_to >> 2;
                to_wg = (n_to & 1u) != 0;
                to_sys = (n_to & 2u) != 0;
                if (n != 0) {
                    // The oldest fronts go (the shared rings are FIFO: the oldest work spreads first).
                    move_out(wg, sg, ph, pt, n,
                             to_sys  ? to_system
                             : to_wg ? to_workgroup
                                     : to_device,
                             false, leader, lane, cnt);
                }
            }
            if (traced) {
                trace_count(trace_counter::private_queue, 0, pt - ph);
            }
        }

        if (leader) {
            write_stats(sg, cnt);
        }
    }
};

} // namespace canopy::runtime
