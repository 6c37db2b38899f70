// canopy/runtime/ring_scheduler.hpp — the ring core's device loop: lock-free rings, fronts read in
// place, work shared on demand, private overflow spilled outward (config::queues = ring, the default).
//
// The same vocabulary as the locked core (scheduler.hpp: the HRF paper's Fig. 9), with what the graph
// experiment found it lacked for fine-grained, wide work (docs/runtime.md, "The ring core"):
//   - the work-group and device queues are front_rings: a reservation is one CAS on an index, and the
//     lanes read a reserved front in place while other sub-groups reserve the next ones (the locked
//     core holds the queue's lock while the lanes read);
//   - a move between queues is copied by every lane at once (lane l copies task l's words), and k
//     fronts move with one reservation (one release for the batch);
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
// One iteration, one function a step (operator() at the end reads them in order): pick_front (the
// leader's pick, one broadcast) → read_picked (the lanes read the front in place) → hand_back (the
// leader hands the slot back) → run → tally_children / classify_children → count_front (one
// device-scope RMW, before any child is published) → pack_children (into the private ring, spilling when
// it is full) → defer_far (order priority) → share_on_demand. Scopes per operation: docs/scopes.md
// ("Ring core"). Every queue operation is a level's (level_workgroup.hpp, level_device.hpp,
// system_level.hpp's system ring, order_priority.hpp's far ring), and stealing and order are strategies
// (steal_strategy.hpp, task_order.hpp, order_priority.hpp): this file chooses which, and when.
// Several devices (config::devices > 1): each device runs this loop over its own buffer, and the system
// level (system_level.hpp) joins them: a busy sub-group donates to the system ring when devices are dry,
// a dry device takes from it, and a device with no task leaves only when the system's credits read 0.
#pragma once

#include <type_traits>

#include "canopy/queues/front_ring.hpp"
#include "canopy/runtime/core_base.hpp"
#include "canopy/runtime/level_device.hpp"
#include "canopy/runtime/level_workgroup.hpp"
#include "canopy/runtime/order_priority.hpp"
#include "canopy/runtime/system_level.hpp"
#include "canopy/runtime/task_order.hpp"

namespace canopy::runtime {
namespace detail {
/// A level whose reservation and publish the whole sub-group makes (moves_together: the work-group and
/// device rings, front_ring's sub-group versions); the others' are the leader's.
template <class Level, class = void> inline constexpr bool moves_together = false;
template <class Level>
inline constexpr bool moves_together<Level, std::void_t<decltype(Level::moves_together)>> =
    Level::moves_together;
} // namespace detail

template <policy P, class... Tasks> struct ring_scheduler : core_base<P, Tasks...> {
    using base = core_base<P, Tasks...>;
    using base::dispatch, base::handoff_barrier, base::L, base::mem, base::outstanding, base::private_slot,
        base::status, base::write_stats;
    using typename base::ctx_t, typename base::loop_state, typename base::steal, typename base::thief_access,
        typename base::traits;
    static constexpr unsigned task_words = base::task_words;
    static constexpr unsigned num_types = base::num_types;
    static constexpr bool rings = true; // the steal strategies' take per queue design

    task_order order = task_order::lifo;
    unsigned max_share = 8;
    unsigned delta = 1; // order priority: the bucket width

    // ---- the system level (system_level.hpp): several devices; devices == 1 leaves it unused ----
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
    CANOPY_DEVICE void device_dry(unsigned* counters) const {
        sys_level().device_dry();
        ++counters[c_device_dry];
    }

    /// Busy again (fewer than half the device's sub-groups idle): the device leaves the hungry count.
    CANOPY_DEVICE void sated() const { sys_level().sated(); }

    /// Device ring k (config::device_rings); a work-group's home ring is home_ring(wg).
    CANOPY_DEVICE queues::front_ring device_ring(unsigned k) const {
        return {mem + L.device_ring_at(k), L.device_capacity, L.shape};
    }
    CANOPY_DEVICE unsigned home_ring(unsigned wg) const {
        return device_level<traits>::home(wg, L.device_rings);
    }
    CANOPY_DEVICE queues::front_ring workgroup_ring(unsigned wg) const {
        return {mem + L.workgroup_queue_at(wg), L.workgroup_capacity, L.shape};
    }

    // ---- the level stack, narrowest first: the private ring (loop_state's tickets), the work-group
    // ring, the device rings, the system ring (several devices), the far ring (order priority). Every
    // shared level offers the same operations (take, hand_back, reserve, publish, queued); each one's
    // scopes and orders are argued in its header.
    CANOPY_DEVICE workgroup_level<traits> wg_level(unsigned wg) const {
        return {workgroup_ring(wg), mem + L.idle_workgroup(wg)};
    }
    CANOPY_DEVICE device_level<traits> dev_level(unsigned k) const { return {device_ring(k)}; }
    CANOPY_DEVICE system_ring_level sys_ring() const { return {sys_level(), system_ring(), outstanding()}; }
    CANOPY_DEVICE priority_order<traits> prio() const { return {mem, L, delta}; }
    /// Work-group v's advert word (thieves poll it: steal_strategy.hpp).
    CANOPY_DEVICE unsigned* advert_word(unsigned v) const { return workgroup_ring(v).advert_word(); }
    // The device's hungry sub-groups: relaxed RMWs and loads at device scope (every work-group reads
    // it). A hint that decides how much to share and carries no data (the fronts are published by the
    // rings' releases), so a stale count costs a front shared too many or too few, never a lost or
    // unsynchronized one. A work-group's count is its level's (level_workgroup.hpp).
    CANOPY_DEVICE atomic_ref<unsigned, scope::device> idle_device() const {
        return atomic_ref<unsigned, scope::device>(mem[L.idle_device()]);
    }
    /// The device ring a sub-group last shared into: relaxed at device scope, a hint like the idle counts
    /// (a stale one costs a poll of a ring that may be empty, never a lost front).
    CANOPY_DEVICE atomic_ref<unsigned, scope::device> shared_hint() const {
        return atomic_ref<unsigned, scope::device>(mem[L.shared_hint()]);
    }
    /// steal-emulated, the ring core's owner side (emulated_steal::answer): the oldest front of its ring.
    CANOPY_DEVICE void service_request(unsigned wg, unsigned* counters) const {
        this->mailboxes().answer(wg, counters, [&](unsigned thief) {
            const workgroup_level<traits> w = wg_level(wg);
            unsigned ticket = 0;
            if (!w.take(ticket)) {
                return false;
            }
            this->mailboxes().front(thief).copy_from(w.ring().slot(ticket));
            w.hand_back(ticket); // this leader read the slot
            return true;
        });
    }

    /// The leader's poll of the shared rings, in order: its work-group ring, its home device ring, one
    /// other device ring in turn (`probe`), the system ring once half the device is idle (several
    /// devices), the far ring's open buckets (order priority). True with the reserved `ticket`
    /// (and the ring in `ring`) when one had a front: the slot is handed back after the lanes read it.
    CANOPY_DEVICE bool take_shared(unsigned wg, unsigned home, unsigned& probe, bool idle, unsigned& ticket,
                                   unsigned& ring, unsigned& kind) const {
        if (wg_level(wg).take(ticket)) {
            kind = detail::pk_workgroup;
            return true;
        }
        const auto take_device = [&](unsigned k) {
            const bool took = dev_level(k).take(ticket);
            if (took) {
                ring = k;
                kind = detail::pk_device;
            }
            return took;
        };
        if (take_device(home)) {
            return true;
        }
        if (L.device_rings > 1) {
            // The ring the last share went into, before the turn of the others: a burst shared by one
            // sub-group sits in its home ring, which the others' probes reach one poll in device_rings
            // (PageRank's block pull on Kronecker 12, timed hrf32: a generation's last fronts waited ~15 K
            // cycles to be found while 120 sub-groups polled). Relaxed: a hint, as the idle counts.
            const unsigned hinted = shared_hint().load(std::memory_order_relaxed);
            if (hinted != home && hinted < L.device_rings && take_device(hinted)) {
                return true;
            }
            probe = device_level<traits>::next_probe(probe, home, L.device_rings);
            if (probe != hinted && take_device(probe)) {
                return true;
            }
        }
        if (devices > 1 && idle && 2 * idle_device().load(std::memory_order_relaxed) >= L.subgroups()) {
            // Several devices, half of this one idle: work from the system ring before the device's
            // own stealing (a device with one long front has tasks, but its sub-groups have none).
            if (sys_ring().take(ticket)) {
                kind = detail::pk_system;
                return true;
            }
        }
        if (order == task_order::priority && prio().take(ticket)) {
            kind = detail::pk_far;
            return true;
        }
        return false;
    }

    /// The leader: count_front of `ran` finished tasks (and those owed: loop_state::owed) and `spawned`
    /// children, in one RMW; several devices: this device is dry when nothing is left. Returns the count.
    CANOPY_DEVICE unsigned count_and_settle(unsigned ran, unsigned spawned, unsigned sg,
                                            loop_state& s) const {
        const unsigned left = this->count_front(ran + s.owed, spawned, sg, s.counters);
        s.owed = 0;
        if (devices > 1 && left == 0) {
            device_dry(s.counters); // several devices: this device has no task left
        }
        return left;
    }

    /// The leader, before it looks past its private ring: the tasks its fronts still hold counted
    /// retired, so that the count it is about to read for termination, and every other sub-group's,
    /// can reach 0.
    CANOPY_DEVICE void settle_owed(loop_state& s, unsigned sg) const {
        if (s.owed != 0) {
            (void)count_and_settle(0, 0, sg, s);
        }
    }

    /// Leader: chooses the next front (pk_* as the locked core). For the shared rings the reserved
    /// ticket is `ticket` (the slot is handed back after the lanes have read it); `ring` says which
    /// device ring (pk_device) or, for pk_rsp, the victim and the fronts reserved (rsp_thief::word).
    CANOPY_DEVICE unsigned pick(unsigned wg, unsigned nwg, unsigned sg, unsigned& ticket, unsigned& ring,
                                loop_state& s) const {
        const unsigned home = home_ring(wg);
        unsigned probe = home; // the other device ring an idle poll looks at (take_shared)
        unsigned kind = detail::pk_done;
        rsp_thief::backoff_state backoff; // steal-rsp: probes to skip after a failed attempt
        bool idle = false;
        std::uint64_t idle_since = 0; // --trace: the first poll that found nothing
        const bool in_time = spin_until_bounded([&] {
            if (base::pick_before_queues(*this, wg, sg, s, kind)) {
                return true;
            }
            settle_owed(s, sg);
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
                    if (sys_ring().take(ticket)) {
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
            if (take_shared(wg, home, probe, idle, ticket, ring, kind)) {
                return true;
            }
            // The steal strategy: steal-emulated asks (the front arrives in the mailbox); steal-rsp
            // reserves fronts at a victim (ring = rsp_thief::word(victim, fronts)).
            if (steal::on_idle(*this, wg, nwg, sg, s, backoff, ticket, ring)) {
                kind = detail::pk_rsp;
                return true;
            }
            if (!idle) {
                // Hungry from now on: counted where sharers look (relaxed; see idle_device()).
                idle = true;
                idle_since = tracing() ? trace_clock() : 0;
                wg_level(wg).idle().fetch_add(1u, std::memory_order_relaxed);
                // Every policy: work-sharing ones share into the device ring by it, steal policies
                // stock their work-group ring for the thieves it counts.
                idle_device().fetch_add(1u, std::memory_order_relaxed);
            }
            if (order == task_order::priority) {
                prio().open_next_bucket(outstanding());
            }
            return false;
        });
        if (idle) {
            if (tracing()) {
                trace_span(trace_kind::idle, idle_since);
            }
            wg_level(wg).idle().fetch_sub(1u, std::memory_order_relaxed);
            idle_device().fetch_sub(1u, std::memory_order_relaxed);
        }
        if (!in_time) {
            report(status(), failure::spin_timeout, sg);
            kind = detail::pk_done;
        }
        return kind;
    }

    /// Every lane: copies fronts src(j) to dst(j), j < n, and returns their tasks (uniform). The lanes
    /// first read the headers side by side (lane j front j, F at a time), then copy the tasks of those
    /// fronts laid end to end, a task a lane (its type's words only), and lane j writes front j's header;
    /// a count above `limit` or an unknown type copies no task. Why not front after front: a front's
    /// header and payload reads are misses on its copier's path (the slots were written before the
    /// last acquire), so a move of 8 one-task fronts (a type of front_width 1: PageRank's block pull)
    /// cost 8 x ~900 cycles on timed hrf32, lane 0 copying while 63 lanes waited; read side by side it is
    /// about one front's. Full fronts cost as before (a task a lane), less the serial header reads.
    template <class Src, class Dst>
    CANOPY_DEVICE unsigned copy_fronts(Src&& src, Dst&& dst, unsigned n, unsigned limit,
                                       unsigned lane) const {
        const unsigned F = subgroup_size();
        unsigned top = 1;
        while (top * 2 <= F) {
            top *= 2;
        }
        unsigned copied = 0;
        for (unsigned g0 = 0; g0 < n; g0 += F) { // uniform
            const unsigned m = n - g0 < F ? n - g0 : F;
            unsigned type = 0, count = 0;
            if (lane < m) {
                const queues::front_ref f = src(g0 + lane);
                type = f.type();
                count = f.count();
            }
            const unsigned ok = lane < m && count <= limit && type < num_types ? count : 0;
            const unsigned at = exclusive_sum(ok);
            const unsigned total = broadcast(at + ok, F - 1);
            copied += broadcast(exclusive_sum(count) + count, F - 1);
            // Task g of the concatenation belongs to the last front whose base is at most g (a front
            // without tasks never is: the next one has the same base), found by a binary search over the
            // lanes' bases (shuffles), as each_together finds a range's owner.
            for (unsigned c0 = 0; c0 < total; c0 += F) { // uniform
                const unsigned g = c0 + lane;
                unsigned j = 0;
                for (unsigned step = top; step != 0; step >>= 1) {
                    const unsigned c = j + step < F ? j + step : F - 1;
                    if (shuffle(at, c) <= g && j + step < F) {
                        j = c;
                    }
                }
                const unsigned tj = shuffle(type, j), bj = shuffle(at, j);
                if (g < total) {
                    const queues::front_ref s_ = src(g0 + j), d_ = dst(g0 + j);
                    const unsigned i = g - bj;
                    for (unsigned w = 0; w < type_words<Tasks...>(tj); ++w) {
                        st(d_.payload(i) + w, ld(s_.payload(i) + w));
                    }
                }
            }
            if (lane < m) {
                dst(g0 + lane).set_header(type, count);
            }
        }
        return copied;
    }

    /// Where move_out puts fronts.
    enum target : unsigned { to_workgroup = 0, to_device = 1, to_far = 2, to_system = 3 };

    /// The level a move targets, given to `op` (the same operations on every level, each its own type).
    /// to_device: the device ring ring_offset after the home ring.
    template <class Op>
    CANOPY_DEVICE auto at_target(unsigned where, unsigned wg, unsigned ring_offset, Op&& op) const {
        if (where == to_far) {
            return op(prio());
        }
        if (where == to_system) {
            return op(sys_ring());
        }
        if (where == to_device) {
            const unsigned k = home_ring(wg) + ring_offset;
            return op(dev_level(k < L.device_rings ? k : k - L.device_rings));
        }
        return op(wg_level(wg));
    }

    /// Every lane: moves up to `want` private fronts — the oldest (from head on), or with `newest` the
    /// newest (ending at tail) — into the work-group, device or far ring, as many as it has free slots for
    /// (one reservation); returns how many moved (uniform) and advances head (or pulls tail back) past them.
    /// Lane l copies task l of every front; the leader the headers.
    /// to_device: the device ring ring_offset after the home ring.
    CANOPY_DEVICE unsigned move_out(unsigned wg, unsigned sg, loop_state& s, unsigned want, unsigned where,
                                    bool newest, bool leader, unsigned lane, unsigned ring_offset = 0) const {
        unsigned* const counters = s.counters;
        // The level `where` names: every operation below is that level's (its header argues the scopes).
        const auto to = [&](auto&& op) { return at_target(where, wg, ring_offset, op); };
        const queues::front_ring q = to([](const auto& level) { return level.ring(); });
        const bool traced = leader && tracing(); // --trace: a share span when fronts move
        const std::uint64_t since = traced ? trace_clock() : 0;
        // Acquire at the ring's scope (inside reserve_push): the consumers that freed these slots have
        // finished reading them. The work-group and device rings' reservation is the sub-group's
        // (front_ring: the sequence words checked side by side); the others' the leader's.
        const queues::ring_span r = to([&](const auto& level) {
            if constexpr (detail::moves_together<std::decay_t<decltype(level)>>) {
                return want != 0 ? level.reserve_together(want, lane) : queues::ring_span{};
            } else {
                queues::ring_span got;
                if (leader && want != 0) {
                    got = level.reserve(want);
                }
                return queues::ring_span{broadcast(got.first, 0), broadcast(got.n, 0)};
            }
        });
        if (r.n == 0) {
            return 0;
        }
        const unsigned from = newest ? s.tail - r.n : s.head;
        // Leader -> lanes (its acquire of the slots) and lanes -> lanes (the packed private fronts were
        // written by whichever lane packed them), at the private scope.
        handoff_barrier();
        const unsigned moved_tasks =
            copy_fronts([&](unsigned j) { return private_slot(sg, from + j); },
                        [&](unsigned j) { return q.slot(r.first + j); }, r.n, L.shape.lanes, lane);
        // Lanes -> lanes: every lane's copy comes before the releases that publish them (the leader's, or
        // each storing lane's: front_ring's sub-group publish).
        handoff_barrier();
        // The release that publishes the fronts, with the level's own counting (the system level's
        // credits, the far ring's far tasks).
        to([&](const auto& level) {
            if constexpr (detail::moves_together<std::decay_t<decltype(level)>>) {
                level.publish_together(r, moved_tasks, counters, lane);
            } else if (leader) {
                level.publish(r, moved_tasks, counters);
            }
        });
        if (traced && where != to_far) { // a far move is part of packing
            trace_span(trace_kind::share, since, r.n);
        }
        if (newest) {
            s.tail -= r.n;
        } else {
            s.head += r.n;
        }
        if constexpr (ctx_t::defers_joins) {
            // Tasks left the private ring: the records open now may have a child elsewhere, so none of
            // them is this sub-group's alone any more (join_continuation.hpp). A stride of every
            // sub-group of the run: no two sub-groups ever hold the same tag.
            s.local_tag += static_cast<unsigned long long>(L.subgroups()) * devices;
        }
        return r.n;
    }

    /// Every lane: moves up to `n` of the oldest private fronts to the work-group ring, then (work-
    /// sharing policies) the device ring. Returns how many moved (uniform).
    CANOPY_DEVICE unsigned spill(unsigned wg, unsigned sg, loop_state& s, unsigned n, bool leader,
                                 unsigned lane) const {
        unsigned moved = move_out(wg, sg, s, n, to_workgroup, false, leader, lane);
        if constexpr (traits::donates_to_device) {
            // The home device ring, then the others in turn: a full ring need not mean a full device
            // (a high-degree vertex's children can outnumber a private ring, its work-group ring and a
            // device ring together: PageRank on large Kronecker graphs, docs/graph-experiment.md).
            // Only a spill pays for the walk, and it stops at the first rings that take the fronts.
            for (unsigned k = 0; k < L.device_rings && moved < n; ++k) {
                moved += move_out(wg, sg, s, n - moved, to_device, false, leader, lane, k);
            }
        }
        return moved;
    }

    /// Every lane: for each type, this lane's offset among the lanes (`offs`) and the sub-group's total
    /// (`totals`) of the counts `k`. Up to 4 types in 16-bit fields of one 64-bit scan when no total can
    /// reach 2^16 (one collective instead of one per type). Returns whether `flag` is set on any lane:
    /// in a free field of the same scan when fewer than 4 types leave one, else by one more vote.
    CANOPY_DEVICE bool scan_counts(const unsigned (&k)[num_types], unsigned (&offs)[num_types],
                                   unsigned (&totals)[num_types], unsigned lanes, bool flag = false) const {
        if (num_types <= 4 && L.staging_capacity * lanes < 65536u) {
            unsigned long long packed = 0;
            for (unsigned t = 0; t < num_types; ++t) {
                packed |= static_cast<unsigned long long>(k[t]) << (16 * t);
            }
            if (num_types < 4) {
                packed |= static_cast<unsigned long long>(flag ? 1u : 0u) << (16 * (num_types % 4));
            }
            const unsigned long long o = exclusive_sum(packed);
            const unsigned long long all = broadcast(o + packed, lanes - 1);
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
                totals[t] = broadcast(offs[t] + k[t], lanes - 1);
            }
        }
        return any(flag);
    }

    /// The front a sub-group picked, as every lane sees it after the pick's one broadcast: the kind
    /// (detail::pk_*), the reserved ticket (shared rings) and the device ring or rsp_thief::word.
    struct picked_front {
        unsigned kind, ticket, ring;
    };

    /// The front's header and what the lanes read of it.
    struct read_front {
        unsigned type, count;
        bool bad;          // not a front this run's tasks can hold: a corrupt front
        unsigned stolen_n; // steal-rsp: fronts reserved at the victim (the first runs here)
        unsigned mine;     // pk_private: the private ticket that order runs next
    };

    /// The pick, in one broadcast: the ring (pk_rsp: rsp_thief::word) rides in the kind's word (kinds < 16),
    /// the ticket in the high half. Every collective of the loop runs once per front; on the emulator
    /// each costs a fiber switch per lane, on a GPU a shuffle or two.
    CANOPY_DEVICE picked_front pick_front(unsigned wg, unsigned nwg, unsigned sg, bool leader,
                                          loop_state& s) const {
        unsigned ticket = 0, ring = 0, kind = detail::pk_done;
        if (leader) {
            kind = pick(wg, nwg, sg, ticket, ring, s);
        }
        const unsigned long long picked =
            broadcast(static_cast<unsigned long long>(ticket) << 32 | (kind | ring << 4), 0);
        return {static_cast<unsigned>(picked) & 15u, static_cast<unsigned>(picked >> 32),
                static_cast<unsigned>(picked) >> 4};
    }

    /// The ring a picked front is in (pk_private and pk_mailbox: none; the caller uses the slot).
    CANOPY_DEVICE queues::front_ring source_ring(const picked_front& p, unsigned wg) const {
        return p.kind == detail::pk_device   ? device_ring(p.ring)
               : p.kind == detail::pk_far    ? prio().ring()
               : p.kind == detail::pk_system ? system_ring()
               : p.kind == detail::pk_rsp    ? workgroup_ring(rsp_thief::victim(p.ring))
                                             : workgroup_ring(wg);
    }

    /// Every lane, after the leader -> lanes hand-off: reads the picked front's header and its own
    /// task's words (only the words its type has: a vertex id is 1 of a range task's 6). A steal of
    /// several fronts: this sub-group runs the first in place and its lanes copy the others into its
    /// private ring (copy_fronts: a task a lane, the headers side by side), before the hand-off that precedes
    /// the promoted release of the victim's slots.
    CANOPY_DEVICE read_front read_picked(const picked_front& p, unsigned wg, unsigned sg, unsigned lane,
                                         const loop_state& s, unsigned (&words)[task_words]) const {
        const unsigned lanes = subgroup_size();
        read_front r{};
        r.stolen_n = p.kind == detail::pk_rsp ? rsp_thief::fronts(p.ring) : 0;
        r.mine = next_private(order, s.head, s.tail);
        const queues::front_ref f = p.kind == detail::pk_mailbox   ? this->mailboxes().front(sg)
                                    : p.kind == detail::pk_private ? private_slot(sg, r.mine)
                                                                   : source_ring(p, wg).slot(p.ticket);
        r.type = f.type();
        r.count = f.count();
        // No vote on `bad`: every lane read the same two header words of a front its sub-group owns
        // (nothing writes them until the leader hands the slot back), after the same hand-off, so `bad`
        // is uniform already and the branches on it cannot diverge.
        r.bad = r.type >= num_types || r.count == 0 || r.count > lanes;
        if (!r.bad && lane < r.count) {
            for (unsigned i = 0; i < type_words<Tasks...>(r.type); ++i) {
                words[i] = ld(f.payload(lane) + i);
            }
        }
        if (r.stolen_n > 1) { // uniform: the picked word was broadcast
            const queues::front_ring vq = source_ring(p, wg);
            copy_fronts([&](unsigned j) { return vq.slot(p.ticket + 1 + j); },
                        [&](unsigned j) { return private_slot(sg, s.tail + j); }, r.stolen_n - 1, lanes,
                        lane);
        }
        return r;
    }

    /// After the lanes -> leader hand-off: the leader hands the front's slot back to its ring (each at
    /// the ring's scope: the next producer may overwrite it) and counts the front; every lane then moves
    /// its private tickets past what the pick took or the steal copied.
    CANOPY_DEVICE void hand_back(const picked_front& p, const read_front& r, unsigned wg, unsigned sg,
                                 bool leader, loop_state& s) const {
        const unsigned lanes = subgroup_size();
        if (leader) {
            if (p.kind == detail::pk_workgroup) {
                wg_level(wg).hand_back(p.ticket);
            } else if (p.kind == detail::pk_device) {
                dev_level(p.ring).hand_back(p.ticket);
            } else if (p.kind == detail::pk_far) {
                prio().hand_back(p.ticket, r.count); // its tasks are no longer far
            } else if (p.kind == detail::pk_system) {
                sys_ring().hand_back(p.ticket);
            } else if (p.kind == detail::pk_rsp) {
                // The promoted release hands the victim's slots back: its producers may reuse them.
                source_ring(p, wg).template release<thief_access>({p.ticket, r.stolen_n});
            } else if (p.kind == detail::pk_mailbox) {
                this->mailboxes().emptied(sg);
                ++s.counters[c_steals_received];
            }
            if (r.bad) {
                report(status(), failure::corrupt_front, sg);
            } else {
                const unsigned lvl = p.kind == detail::pk_workgroup                            ? lvl_workgroup
                                     : p.kind == detail::pk_device || p.kind == detail::pk_far ? lvl_device
                                     : p.kind == detail::pk_private                            ? lvl_private
                                     : p.kind == detail::pk_system                             ? lvl_system
                                                                                               : lvl_stolen;
                ++s.counters[c_fronts + lvl];
                s.counters[c_tasks + lvl] += r.count;
                s.counters[c_device_away] += p.kind == detail::pk_device && p.ring != home_ring(wg) ? 1 : 0;
                s.counters[c_partial] += r.count < lanes ? 1 : 0;
            }
        }
        if (r.stolen_n > 1) {
            s.tail += r.stolen_n - 1; // the copies: the newest private fronts
        }
        if (p.kind == detail::pk_private) {
            if (r.mine == s.tail - 1) {
                s.tail -= 1;
            } else {
                s.head += 1;
            }
        }
    }

    /// A front's children, counted per type and class (near: runs in order; far: order priority's
    /// tasks above the threshold): each lane's count, its offset among the lanes, the sub-group's total.
    struct child_counts {
        unsigned near_k[num_types] = {}, far_k[num_types] = {};
        unsigned offs[num_types] = {}, totals[num_types] = {}, far_offs[num_types] = {},
                 far_totals[num_types] = {};
    };
    /// The same front's scalars, apart from the arrays: an aggregate holding a dynamically indexed array
    /// stays in local memory whole on sm_90, and these are read on every front.
    struct child_split {
        unsigned theta = 0;       // order priority: the threshold this front's children were split by
        unsigned least_far = ~0u; // order priority: this lane's least far priority
        unsigned spawned = 0;     // every child of the front (uniform)
        unsigned far_fronts = 0;  // far fronts packed (the newest of the private ring)
    };

    /// Every lane, after its task ran: its staged counts per type, and whether any lane's staging
    /// overflowed. fifo and lifo: the vote rides in the counts' scan (one collective fewer per front);
    /// priority splits the counts by a threshold first (classify), so it votes on its own.
    CANOPY_DEVICE bool tally_children(const ctx_t& ctx, unsigned lanes, child_counts& c) const {
        for (unsigned t = 0; t < num_types; ++t) {
            c.near_k[t] = detail::context_access::staged_of(ctx, t);
        }
        return order == task_order::priority
                   ? any(detail::context_access::overflowed(ctx))
                   : scan_counts(c.near_k, c.offs, c.totals, lanes, detail::context_access::overflowed(ctx));
    }

    /// order priority: a child whose priority is above the threshold (read once per front, relaxed: a
    /// stale one defers a task too few or too many, order not correctness) is far; then the scans of
    /// both classes. Every order: the front's child total.
    CANOPY_DEVICE void classify_children(const ctx_t& ctx, unsigned lanes, bool leader, child_counts& c,
                                         child_split& x) const {
        if (order == task_order::priority) {
            if (leader) {
                x.theta = prio().threshold();
            }
            x.theta = broadcast(x.theta, 0);
            for (unsigned i = 0; i < detail::context_access::staged(ctx); ++i) {
                const unsigned* e = detail::context_access::entry(ctx, i);
                const unsigned pr = ld(e + 1);
                if (pr > x.theta) {
                    const unsigned t = ld(e);
                    --c.near_k[t];
                    ++c.far_k[t];
                    x.least_far = pr < x.least_far ? pr : x.least_far;
                }
            }
            scan_counts(c.near_k, c.offs, c.totals, lanes);
            scan_counts(c.far_k, c.far_offs, c.far_totals, lanes);
        }
        for (unsigned t = 0; t < num_types; ++t) {
            x.spawned += c.totals[t] + c.far_totals[t];
        }
    }

    /// Every lane: packs the front's children into the private ring, near ones first (so the far fronts
    /// are the newest), topping up the newest front of the same type. In chunks of what the private
    /// ring can take: when it is full its oldest fronts spill to the work-group ring, then the device
    /// ring (work-sharing policies), and packing goes on; only when no ring takes a front does the run
    /// fail (every value here is uniform). True when it failed (the status word says why).
    CANOPY_DEVICE bool pack_children(const ctx_t& ctx, unsigned wg, unsigned sg, bool leader, unsigned lane,
                                     child_counts& c, child_split& x, loop_state& s) const {
        const unsigned lanes = subgroup_size();
        const bool by_priority = order == task_order::priority;
        for (unsigned u = 0; u < (by_priority ? 2 * num_types : num_types); ++u) {
            const unsigned t = u % num_types;
            const bool far = u >= num_types;
            const unsigned off = far ? c.far_offs[t] : c.offs[t];
            const unsigned total = far ? c.far_totals[t] : c.totals[t];
            const unsigned mine_k = far ? c.far_k[t] : c.near_k[t];
            if (total == 0) {
                continue;
            }
            // The newest private front takes more tasks of its own type (headers: leader only); never a
            // far one's. Both in one broadcast (each is at most lanes <= 64).
            const unsigned width = type_front_width<Tasks...>(t, lanes);
            unsigned room = 0, have = 0;
            if (leader && s.tail != s.head && !far) {
                const queues::front_ref nf = private_slot(sg, s.tail - 1);
                if (nf.type() == t && nf.count() < width) {
                    have = nf.count();
                    room = width - have;
                }
            }
            const unsigned room_have = broadcast(room | have << 16, 0);
            room = room_have & 0xffffu;
            have = room_have >> 16;
            room = room < total ? room : total;
            for (unsigned placed = 0; placed < total;) {
                const unsigned top = placed == 0 ? room : 0;
                const unsigned free_fronts = L.private_capacity - (s.tail - s.head);
                if (top == 0 && free_fronts == 0) {
                    const unsigned left = (total - placed + width - 1) / width;
                    const unsigned n = left < s.tail - s.head ? left : s.tail - s.head;
                    if (spill(wg, sg, s, n, leader, lane) == 0) {
                        if (leader) {
                            report(status(), failure::private_overflow, sg);
                        }
                        return true;
                    }
                    continue;
                }
                const unsigned fit = top + free_fronts * width;
                const unsigned hi = total - placed < fit ? total : placed + fit;
                const unsigned used = top < hi - placed ? top : hi - placed; // into the newest front
                const unsigned rest = hi - placed - used;
                const unsigned need = (rest + width - 1) / width; // new fronts
                place_chunk(ctx, sg, t, far, x.theta, off, mine_k, placed, hi, top, have, s.tail, width);
                if (leader) {
                    this->set_packed_headers(sg, s.tail, t, have, used, rest, need, width);
                }
                s.tail += need;
                placed = hi;
                x.far_fronts += far ? need : 0;
            }
        }
        return false;
    }

    /// Every lane: writes its staged children of type t and class `far` whose place among the
    /// sub-group's (off + j) falls in [placed, hi) into the private ring: the first `top` into the
    /// newest front after its `have` tasks, the rest into new fronts from ticket tail.
    CANOPY_DEVICE void place_chunk(const ctx_t& ctx, unsigned sg, unsigned t, bool far, unsigned theta,
                                   unsigned off, unsigned mine_k, unsigned placed, unsigned hi, unsigned top,
                                   unsigned have, unsigned tail, unsigned width) const {
        const bool by_priority = order == task_order::priority;
        unsigned j = 0;
        // A lane with one type and class staged (the usual case) needs no word from memory.
        const bool only_t = mine_k == detail::context_access::staged(ctx);
        for (unsigned i = 0; i < detail::context_access::staged(ctx) && j < mine_k; ++i) {
            const unsigned* e = detail::context_access::entry(ctx, i);
            if (!only_t && (ld(e) != t || (by_priority && (ld(e + 1) > theta) != far))) {
                continue;
            }
            const unsigned g = off + j++;
            if (g < placed || g >= hi) {
                continue;
            }
            const unsigned x = g - placed; // position in this chunk
            const queues::front_ref dst =
                x < top ? private_slot(sg, tail - 1) : private_slot(sg, tail + (x - top) / width);
            const unsigned slot = x < top ? have + x : (x - top) % width;
            for (unsigned w = 0; w < type_words<Tasks...>(t); ++w) {
                st(dst.payload(slot) + w, ld(e + 2 + w));
            }
        }
    }

    /// order priority, every lane: the least far priority to far_min (relaxed, an order hint), then
    /// the far fronts (a spill may have taken some: at most the private ring's contents) to the far
    /// ring; what does not fit runs here, as near work.
    CANOPY_DEVICE void defer_far(const child_split& x, unsigned wg, unsigned sg, bool leader, unsigned lane,
                                 loop_state& s) const {
        const unsigned lanes = subgroup_size();
        const unsigned below =
            exclusive_scan(x.least_far, ~0u, [](unsigned a, unsigned b) { return a < b ? a : b; });
        const unsigned least = broadcast(below < x.least_far ? below : x.least_far, lanes - 1);
        if (leader) {
            prio().note_least(least);
        }
        const unsigned n = x.far_fronts < s.tail - s.head ? x.far_fronts : s.tail - s.head;
        move_out(wg, sg, s, n, to_far, true, leader, lane);
    }

    /// A share decision looks at the hunger counts at most every this many, while its looks find no one
    /// short of work (every idle sub-group of its work-group and device already has a front queued where
    /// it looks, or none is idle): after such a look the next share_quiet_fronts - 1 decisions share
    /// nothing without looking; a look that finds hunger keeps looking every front. The look is three
    /// to five hint loads on the leader's path while every other lane waits, device-scope ones among
    /// them: L2 accesses, 734 cycles a decision on mdual's BFS (timed hrf32, CANOPY_EMU_SITE_PROFILE),
    /// where one was made after 6,357 of 17,108 fronts. A sub-group that runs dry meanwhile waits at
    /// most share_quiet_fronts - 1 more of a busy one's fronts for its share (it polls the shared rings,
    /// where other sharers' fronts may be, all along). Measured (docs/graph-experiment.md, "The share
    /// decision's look"): BFS on mdual 9% fewer cycles over seeds 1-4, PageRank 6% fewer in geometric
    /// mean over six graphs, UTS 1.5% fewer without joins and 1.4% more by joins.
    static constexpr unsigned share_quiet_fronts = 4;

    /// The leader's look at the hunger counts: how many fronts the sub-groups short of work want, and
    /// where (`where`: the work-group ring, or the device's home ring when the work-group wants none).
    /// Hungry sub-groups of this work-group beyond the fronts already queued for them first; steal
    /// policies keep their work-group ring stocked for thieves; then (work-sharing policies) the device's.
    /// Hunger counts and queue sizes: relaxed hints (idle_device()), never data.
    CANOPY_DEVICE unsigned hunger(unsigned wg, unsigned& where, bool traced) const {
        const unsigned hw = wg_level(wg).idle().load(std::memory_order_relaxed);
        const unsigned qw = wg_level(wg).queued();
        if (traced) {
            trace_count(trace_counter::workgroup_queue, wg, qw);
        }
        unsigned want = hw > qw ? hw - qw : 0;
        if constexpr (steal::advertises) {
            // Thieves of other work-groups take from this ring: keep it stocked, with a front for each
            // hungry sub-group of the device while there are any (every busy work-group stocks for
            // them, and what no thief takes its own sub-groups run next).
            const unsigned hd = idle_device().load(std::memory_order_relaxed);
            const unsigned stock = hd > this->workgroup_threshold ? hd : this->workgroup_threshold;
            if (want == 0 && qw < stock) {
                want = stock - qw;
            }
        }
        if (want == 0 && traits::donates_to_device) {
            const unsigned hd = idle_device().load(std::memory_order_relaxed);
            const unsigned qd = dev_level(home_ring(wg)).queued();
            if (traced) {
                trace_count(trace_counter::device_queue, home_ring(wg), qd);
            }
            want = hd > qd ? hd - qd : 0;
            where = to_device;
        }
        return want;
    }

    /// The leader's share decision after a front (uniform once broadcast): how many of its oldest
    /// private fronts beyond keep_private go, and where (share_word): what hunger() finds, looked at
    /// as share_quiet_fronts says; several devices: every system_poll fronts, fronts for the hungry
    /// devices first.
    CANOPY_DEVICE unsigned share_decision(unsigned wg, loop_state& s, bool traced) const {
        const unsigned spare = s.tail - s.head - this->keep_private;
        unsigned n = 0;
        unsigned where = to_workgroup;
        unsigned want = 0;
        if (s.share_quiet != 0) {
            --s.share_quiet; // the last look found no one short of work (share_quiet_fronts)
        } else {
            want = hunger(wg, where, traced);
            if (want == 0) {
                s.share_quiet = share_quiet_fronts - 1;
            }
        }
        n = want < spare ? want : spare;
        n = n < max_share ? n : max_share;
        // Several devices: every system_poll fronts, a look at how many devices are dry (one
        // system-scope load), and fronts for them beyond those the system ring holds, before this
        // device's own wants (a dry device has nothing at all to run).
        if (devices > 1 && ++s.system_tick >= system_poll) {
            s.system_tick = 0;
            // A device with half its sub-groups idle keeps its fronts (and asks the system ring: pick);
            // a busier one leaves the hungry count and feeds the others.
            if (2 * idle_device().load(std::memory_order_relaxed) < L.subgroups()) {
                sated();
                const unsigned h = sys_level().hungry_devices().load(std::memory_order_relaxed);
                const unsigned qs = h != 0 ? sys_ring().queued() : 0;
                const unsigned ws = h * system_stock > qs ? h * system_stock - qs : 0;
                if (ws != 0) {
                    n = ws < spare ? ws : spare;
                    n = n < max_share ? n : max_share;
                    where = to_system;
                }
            }
        }
        return n << 2 | where;
    }

    /// Every lane: shares on demand after a front, when the private ring holds more than keep_private
    /// fronts: the oldest go (the shared rings are FIFO: the oldest work spreads first), in one
    /// broadcast of the leader's decision.
    CANOPY_DEVICE void share_on_demand(unsigned wg, unsigned sg, bool leader, unsigned lane, loop_state& s,
                                       bool traced) const {
        if (s.tail - s.head <= this->keep_private) {
            return;
        }
        const unsigned decision = broadcast(leader ? share_decision(wg, s, traced) : 0u, 0);
        const unsigned n = decision >> 2;
        if (n != 0 && move_out(wg, sg, s, n, decision & 3u, false, leader, lane) != 0 &&
            (decision & 3u) == to_device && leader && L.device_rings > 1) {
            shared_hint().store(home_ring(wg), std::memory_order_relaxed);
        }
    }

    /// The loop of one sub-group; `wg` / `nwg`: this work-group's (participating) id and their count.
    /// pick → read → hand back → run → count → pack → share → resolve (joins), each step a function above.
    CANOPY_DEVICE void operator()(unsigned wg, unsigned nwg) const {
        const unsigned lanes = subgroup_size();
        const unsigned lane = lane_id();
        const bool leader = lane == 0;
        const unsigned sg = wg * L.subgroups_per_block + subgroup_id();
        unsigned counters[num_counters] = {};
        loop_state s(counters, wg);
        if constexpr (ctx_t::defers_joins) {
            s.local_tag = 1ull + static_cast<unsigned long long>(dev) * L.subgroups() + sg; // never 0
        }
        ctx_t ctx(this->staging_of(sg, lane), L.staging_capacity, dev);
        const bool traced = leader && tracing(); // --trace (platform/trace.hpp): read once

        for (;;) {
            const std::uint64_t pick_since = traced ? trace_clock() : 0;
            const picked_front p = pick_front(wg, nwg, sg, leader, s);
            if (p.kind == detail::pk_done) {
                if (traced) {
                    trace_span(trace_kind::pick, pick_since);
                }
                break;
            }
            // Leader -> lanes: its acquire of the front (at its ring's scope), at the private scope.
            handoff_barrier();
            unsigned words[task_words] = {};
            const read_front r = read_picked(p, wg, sg, lane, s, words);
            // Lanes -> leader: every lane's reads come before the leader hands the slot back (the next
            // producer may overwrite it) or the private slot is repacked.
            handoff_barrier();
            hand_back(p, r, wg, sg, leader, s);
            if (traced) { // a front from another work-group's queue is a steal
                const bool stolen = p.kind == detail::pk_mailbox || p.kind == detail::pk_rsp;
                trace_span(stolen ? trace_kind::steal : trace_kind::pick, pick_since, stolen ? 1 : 0);
            }
            if (r.bad) {
                continue; // the next pick sees the status word and stops
            }

            // ---- run ----
            const std::uint64_t run_since = traced ? trace_clock() : 0;
            detail::context_access::clear(ctx);
            detail::context_access::set_local_tag(ctx, s.local_tag); // what this front's forks write
            // Only a task from the private ring can complete a record of this sub-group's: one from a
            // shared ring was forked elsewhere, or left this private ring (its record's tag is stale).
            detail::context_access::set_local_front(ctx, p.kind == detail::pk_private);
            dispatch(r.type, lane < r.count, words, ctx); // every lane: a cooperative type needs them all
            // A front whose lanes deferred join completions is not finished until they are resolved
            // (the second pass below, after the share): one of its tasks stays counted until then.
            const bool joins = this->joins_deferred(ctx);
            unsigned ran = r.count - (joins ? 1u : 0u);
            for (unsigned pass = 0;; ++pass) {
                // ---- count, then pack (into the private ring; spilling outward when it would overflow) ----
                child_counts c;
                child_split x;
                const bool staging_overflow =
                    tally_children(ctx, lanes, c); // every lane has finished its task
                if (traced && pass == 0) {
                    trace_span(trace_kind::run, run_since, r.count);
                }
                const std::uint64_t pack_since = traced ? trace_clock() : 0;
                if (staging_overflow) {
                    if (detail::context_access::overflowed(ctx)) {
                        report(status(), failure::staging_overflow, sg * max_subgroup_size + lane);
                    }
                    break; // the next pick sees the status word and stops
                }
                classify_children(ctx, lanes, leader, c, x);
                if (leader) {
                    // Before any child can be published: a spill below hands fronts to other sub-groups
                    // mid-pack, and they must not finish a child before it is counted.
                    const unsigned left = count_and_settle(ran, x.spawned, sg, s);
                    if (traced) {
                        trace_count(trace_counter::outstanding, 0, left);
                    }
                }
                const bool overflow = pack_children(ctx, wg, sg, leader, lane, c, x, s);
                // Lanes -> leader hand-off of the packed payloads (at the private scope).
                handoff_barrier();
                if (overflow) {
                    break;
                }
                if (order == task_order::priority && x.far_fronts != 0) {
                    defer_far(x, wg, sg, leader, lane, s);
                }
                if (traced) {
                    trace_span(trace_kind::pack, pack_since, x.spawned);
                }
                if (pass == 0) { // ---- share on demand ----
                    share_on_demand(wg, sg, leader, lane, s, traced);
                    if (traced) {
                        trace_count(trace_counter::private_queue, 0, s.tail - s.head);
                    }
                }
                if constexpr (!ctx_t::defers_joins) {
                    break; // no resolve step at all
                } else {
                    if (!joins || pass != 0) {
                        break;
                    }
                    // ---- resolve: the front's children are published; now its joins' continuations,
                    // whose own children the second pass counts and packs ----
                    detail::context_access::clear_staged(ctx);
                    // The tag after this front's moves (share, spills): what its records are checked by.
                    detail::context_access::set_local_tag(ctx, s.local_tag);
                    const std::uint64_t resolve_since = traced ? trace_clock() : 0;
                    const auto step =
                        this->resolve_joins(ctx, lane, leader, s.counters, s.tail != s.head, true);
                    if (traced) { // the rounds, climbs and frees: what follows the front's pack
                        trace_span(trace_kind::resolve, resolve_since, step.ran);
                    }
                    // The tasks kept counted to retire now: this front's, unless it is the one kept
                    // for completions parked from now on; and the one kept for parked completions, once
                    // none is left. (Parked only while the private ring holds a front: the next front's
                    // step is certain, and no sub-group goes idle, where the count is read for
                    // termination, with completions parked.)
                    unsigned retire = 1;
                    if (step.parked && !s.parked) {
                        retire = 0;
                    } else if (!step.parked && s.parked) {
                        retire = 2;
                    }
                    s.parked = step.parked;
                    if (!step.staged) {
                        // Nothing to count or pack: no second pass. The task kept counted is owed
                        // instead, retired by the leader's next count (settle_owed: before it looks past
                        // its private ring, where an idle sub-group reads the count for termination),
                        // one device RMW and a pass of collectives fewer a front (timed hrf8, fib(16) by
                        // joins: ~200 cycles a front). A count that is high for longer is safe: the run
                        // ends only at 0.
                        if (leader) {
                            s.owed += retire;
                        }
                        break;
                    }
                    ran = retire;
                }
            }
        }

        // The records resolve steps reserved for forks that never came, back to their pool: the run is
        // over (core_base::reserve_records).
        this->strand_reserved(ctx, lane);
        if (leader) {
            write_stats(sg, s.counters);
        }
    }
};

} // namespace canopy::runtime
