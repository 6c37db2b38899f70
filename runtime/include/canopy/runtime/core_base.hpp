// canopy/runtime/core_base.hpp — what both cores' sub-group loops share: the run's buffer and layout,
// the tasks and their dispatch, the private queue's slots, the hand-off between a sub-group's lanes,
// the state one loop carries from front to front, the outstanding-work count, and the checks every
// pick makes before it looks at a shared queue.
//
// The two cores (config::queues) derive from this, side by side:
//   scheduler       the HRF paper's locked core (Fig. 9): queues under a lock (scheduler.hpp);
//   ring_scheduler  the production core: lock-free rings at every level (ring_scheduler.hpp).
// Every sub-group runs its loop converged. Lane 0 (the leader) makes every queue operation; the other
// lanes wait for it at a collective (never by spinning on it). Memory handed between lanes of the
// sub-group (a front the leader acquired, payloads the lanes packed for the leader to share, a slot
// the lanes read before the leader frees it) crosses handoff_barrier(): broadcast/any move values
// only, and on NVIDIA (PTX memory model) they order no memory.
// Termination is exact: the outstanding counter holds tasks spawned (or seeded) and not yet finished;
// it reaches 0 only when no task is queued, staged or running.
#pragma once

#include <atomic>
#include <tuple>
#include <type_traits>

// The platform the loops are written in (both cores include this header for it): atomics and plain
// accesses, scopes, sub-group ids and collectives, bounded spins, the --trace clock.
#include "canopy/platform/atomic.hpp"
#include "canopy/platform/ids.hpp"
#include "canopy/platform/plain_access.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/shared_memory.hpp"
#include "canopy/platform/spin.hpp"
#include "canopy/platform/subgroup.hpp"
#include "canopy/platform/trace.hpp"
#include "canopy/queues/front.hpp"
#include "canopy/queues/scoped_access.hpp"
#include "canopy/runtime/layout.hpp"
#include "canopy/runtime/policy.hpp"
#include "canopy/runtime/remote_access.hpp"
#include "canopy/runtime/stats.hpp"
#include "canopy/runtime/status.hpp"
#include "canopy/runtime/steal_strategy.hpp"
#include "canopy/runtime/task_context.hpp"

namespace canopy::runtime {

namespace detail {
/// What the leader picked: the level its front came from.
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

template <policy P, class... Tasks> struct core_base {
    using traits = policy_traits<P>;
    using ctx_t = task_context<Tasks...>;
    static constexpr unsigned task_words = payload_words<Tasks...>;
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
    // How this policy's work-groups take work from each other (steal_strategy.hpp).
    using steal = steal_strategy<traits>;

    std::tuple<Tasks...> tasks;
    unsigned* mem = nullptr;
    layout L;
    unsigned workgroup_threshold = 2, device_threshold = 4, keep_private = 1, max_donations = 2;

    CANOPY_DEVICE queues::front_ref private_slot(unsigned sg, unsigned i) const {
        return {mem + L.private_at(sg, i), L.shape};
    }
    /// steal-emulated's request words and mailboxes (steal_emulated.hpp).
    CANOPY_DEVICE emulated_steal mailboxes() const {
        return {mem + L.requests, mem + L.mailboxes, L.mailbox_words(), L.shape};
    }
    /// Lane `lane` of sub-group `sg`'s staging buffer: in the work-group's shared memory when the run
    /// put it there (layout::staging_shared; only a set that may_stage_in_shared), else in the run's
    /// buffer. Only that lane reads or writes
    /// it, with plain accesses in program order, so where it lives changes no synchronization; in
    /// shared memory no release writes it back and no acquire invalidates it.
    CANOPY_DEVICE unsigned* staging_of(unsigned sg, unsigned lane) const {
        if constexpr (may_stage_in_shared<Tasks...>) {
            if (L.staging_shared) { // the work-group's shared memory holds its own sub-groups' rows
                return dynamic_shared<unsigned>() + L.staging_offset(subgroup_id(), lane);
            }
        }
        return mem + L.staging_at(sg, lane);
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

    /// Every lane, converged: whether any lane of the front deferred a join completion (a constant
    /// false when no task type is a continuation: no collective).
    CANOPY_DEVICE static bool joins_deferred(const ctx_t& ctx) {
        if constexpr (!ctx_t::defers_joins) {
            (void)ctx;
            return false;
        } else {
            return any(detail::context_access::has_deferred(ctx));
        }
    }

    /// Every lane, converged, after its front ran: resolves the join completions the lanes deferred
    /// (join_continuation.hpp) and runs each resolved record's continuation inline, round after round
    /// until none is left; the leader counts them as private-level tasks (they never left the sub-group,
    /// and a counter of their own would make every kernel's counter row, in local memory, a word
    /// longer). Nothing at all when no task type is a continuation.
    ///   - Lanes completing the same record sit side by side (siblings are packed together), so a run
    ///     of equal counts is one segment: its first lane (the head) decrements the count by the run's
    ///     length k in one RMW, or, when k is the record's child count, not at all (no other child
    ///     exists). Equal counts that are not adjacent are separate segments: more RMWs, never wrong.
    ///   - handoff_barrier() first, at the private scope: every lane's slot stores happen-before the
    ///     head's RMW (which releases them to a later resolver) and before a continuation's reads in
    ///     the head lane. Under HRF-direct that scope is device (policy.hpp), so the chain from a slot
    ///     store to its reader is device-scope throughout; there a round takes it only when a head needs
    ///     another lane's stores (a segment of two or more, or a record resolved through the local tag),
    ///     since it is a flush and an invalidation on the scoped-cache model.
    ///   - The RMW is a release at device scope (this segment's slots); the head whose RMW is the last
    ///     (it reads k) then issues an acquire fence at device scope, which synchronizes with every
    ///     earlier child's release (the RMW read the end of their release sequence), so the continuation
    ///     in this lane needs no acquire of its own (join_payload::ordered). Not acq_rel: the heads that
    ///     are not last would each invalidate their work-group's cache on the scoped-cache model.
    /// `may_park` (uniform; the ring core: its private ring holds a front, so a next step in this
    /// sub-group is certain): the step may stop before its rounds are done and leave each lane's
    /// unresolved completion parked in its context, for the next front's step, instead of climbing on
    /// while the sub-group's next front waits. Returns (uniform) whether any continuation it ran spawned
    /// a task (or overflowed its staging: the front has a second pass to count and pack; the ring core
    /// skips it otherwise), whether it parked completions, and how many continuations it ran (uniform;
    /// a traced run's `resolve` span).
    struct resolved_step {
        bool staged, parked;
        unsigned ran;
    };
    CANOPY_DEVICE resolved_step resolve_joins(ctx_t& ctx, unsigned lane, bool leader, unsigned* counters,
                                              bool may_park = false, bool reserve = false) const {
        if constexpr (!ctx_t::defers_joins) {
            (void)ctx;
            (void)lane;
            (void)leader;
            (void)counters;
            (void)may_park;
            (void)reserve;
            return {false, false, 0};
        } else {
            // The sub-group's local tag (uniform): a record carrying it had every child run here
            // (join_continuation.hpp, "Records that stay in their sub-group"); 0: none.
            const unsigned long long local = detail::context_access::local_tag(ctx);
            unsigned ran = 0;       // this lane's inline continuations
            unsigned by_tag = 0;    // of them, for records resolved through the local tag
            bool any_round = false; // uniform: whether the loop below ran at all
            bool parked = false;    // uniform
            while (any(detail::context_access::has_deferred(ctx))) {
                // While the private ring holds a front, a step parks every lane's completion as soon as
                // no lane holds two (its own front's and a parked one), with no round at all, and the
                // next front's step resolves them beside that front's own: the climbs of successive
                // fronts share rounds instead of each holding the sub-group's next front back. Timed
                // hrf8, hrf-indirect, fib(16) by joins over seeds 1-5: 107,385 cycles without parking,
                // 100,255 parking after one round, 98,764 after none; UTS T1's shape 6.45 M, 6.34 M.
                if (may_park && !any(detail::context_access::holds_two(ctx))) {
                    detail::context_access::park(ctx);
                    parked = true;
                    break;
                }
                any_round = true;
                if constexpr (Sp == scope::subgroup) {
                    handoff_barrier(); // a collective only: cheaper than the vote below
                }
                const detail::deferred_join e = detail::context_access::take_deferred(ctx);
                const auto key = reinterpret_cast<std::uintptr_t>(e.pending); // 0: nothing deferred
                const std::uintptr_t below = shuffle(key, lane == 0 ? 0u : lane - 1);
                const bool head = key != 0 && (lane == 0 || below != key);
                // A segment ends before the next lane that deferred nothing or heads its own.
                const lane_mask ends = ballot(key == 0 || head) & ~((lane_mask{2} << lane) - 1);
                const unsigned end = ends != 0 ? lowest_lane(ends) : subgroup_size();
                bool resolved = false;
                unsigned n = 0;   // the record's child count, once resolved
                bool own = false; // the record is the sub-group's own (its tag is `local`)
                const unsigned k = head ? end - lane : 0;
                // Plain: written by the fork before any child existed (join.hpp, rule R1) and not
                // written again until the continuation frees the record, which runs after this; the
                // chain of hand-offs that brought the completing task here orders it, so it may be read
                // before this round's hand-off. Read by a segment that may hold every child, and where
                // the sub-group has a local tag to compare; otherwise a lone completion learns the child
                // count from its RMW (one miss fewer on the climb of a tree).
                const unsigned long long word =
                    head && (k >= 2 || (local != 0 && e.maybe_local)) ? ld(e.children) : 0ull;
                own = head && local != 0 && word >> detail::join_tag_shift == local;
                if constexpr (Sp != scope::subgroup) {
                    // HRF-direct: the round's hand-off is a device-scope release and acquire in every
                    // lane (on the scoped-cache model a flush and an invalidation of the work-group's
                    // L1). Only two kinds of head need it: a segment of two or more lanes (the others'
                    // slot stores before its RMW or its continuation's reads) and a record resolved
                    // through the local tag (earlier local decrements carry no release). A lone head
                    // on the device path needs nothing from another lane: its own slot store precedes
                    // its release RMW in program order, and its acquire fence orders every other
                    // child's release before its continuation. A climb's rounds are mostly such heads.
                    if (any(head && (k >= 2 || own))) {
                        handoff_barrier();
                    }
                }
                if (head) {
                    const unsigned children = static_cast<unsigned>(word) & detail::join_count_mask;
                    unsigned old = 0;
                    if (k == children) {
                        resolved = true;
                        n = children;
                    } else if (own) {
                        // Every child ran in this sub-group and is resolved here (the tag says so):
                        // relaxed at work-group scope, no release and no acquire fence. The rounds'
                        // hand-offs order every slot store and earlier decrement before this; the RMW
                        // is atomic only against another head of this round with the same record.
                        old = atomic_ref<unsigned, scope::workgroup>(*e.pending)
                                  .fetch_sub(k, std::memory_order_relaxed);
                        if ((old & detail::join_count_mask) == k) {
                            n = old >> detail::join_children_shift;
                            resolved = true;
                            ++by_tag;
                        }
                    } else if (((old = atomic_ref<unsigned, scope::device>(*e.pending)
                                           .fetch_sub(k, std::memory_order_release)) &
                                detail::join_count_mask) == k) {
                        n = old >> detail::join_children_shift;
                        // The last: acquire every earlier child's release (the RMW read the end of
                        // their release sequence). A fence, so that the other heads, which only
                        // release, do not invalidate their work-group's cache on the scoped model.
                        fence<scope::device>(std::memory_order_acquire);
                        resolved = true;
                    }
                }
                // No collective between the heads' RMWs and the continuations: a head that resolved
                // its record with no RMW (k == n) starts its continuation at once instead of waiting
                // for the heads whose release RMW writes back the front's dirty lines (the first one's
                // flush is most of a round's wait on the scoped model). The next round's any() is the
                // only join point, and the count of continuations is summed once, below.
                if (resolved) {
                    ++ran;
                    // What the continuation completes (its record's `to`) may be the sub-group's own
                    // when this record was: the task that forked it ran here.
                    detail::context_access::set_local_front(ctx, own);
                    dispatch_continuation(e.type, e.record, n, ctx);
                }
            }
            if (!any_round) {
                return {false, parked, 0};
            }
            // The records this lane's continuations freed: the latest to a lane of this sub-group for
            // its next fork (the ring core), the rest back to their pool in one push (join_stash.hpp),
            // off the rounds' critical path. A context that defers joins has a stash.
            if (reserve) {
                reserve_records(ctx, lane);
            }
            detail::context_access::stash(ctx)->push();
            // One scan for the three sums: the continuations run (bits 0-23), those of records
            // resolved through the local tag (bits 24-47), and the lanes whose continuations staged a
            // task or overflowed (bits 48-63: at most 64). A lane runs at most one continuation a
            // round, and a step's rounds end when the deferred chains do: far below 2^24 a sub-group.
            const bool staged =
                detail::context_access::staged(ctx) != 0 || detail::context_access::overflowed(ctx);
            const unsigned long long mine = ran | static_cast<unsigned long long>(by_tag) << 24 |
                                            static_cast<unsigned long long>(staged ? 1u : 0u) << 48;
            const unsigned long long before = exclusive_sum(mine);
            const unsigned long long total = broadcast(before + mine, subgroup_size() - 1);
            if (leader) {
                counters[c_tasks + static_cast<unsigned>(lvl_private)] +=
                    static_cast<unsigned>(total) & 0xffffffu;
                counters[c_joins_local] += static_cast<unsigned>(total >> 24) & 0xffffffu;
            }
            return {(total >> 48) != 0, parked, static_cast<unsigned>(total) & 0xffffffu};
        }
    }

    /// A resolved record's continuation, in this lane (resolve_joins): type `type`, payload the record
    /// with `ordered` set to its child count `n` (at least 1: join_payload says why).
    template <unsigned I = 0>
    CANOPY_DEVICE void dispatch_continuation(unsigned type, unsigned record, unsigned n, ctx_t& ctx) const {
        if constexpr (I < num_types) {
            using T = std::tuple_element_t<I, std::tuple<Tasks...>>;
            if constexpr (detail::is_inline_continuation<T>) {
                if (type == I) {
                    std::get<I>(tasks)(join_payload{record, n}, ctx);
                    return;
                }
            }
            dispatch_continuation<I + 1>(type, record, n, ctx);
        }
    }

    /// The leader's counters, once, as it leaves the loop (both cores). Plain stores: the host reads the
    /// rows after the kernel ends (kernel end publishes them).
    CANOPY_DEVICE void write_stats(unsigned sg, const unsigned* counters) const {
        // The rows start zeroed (the host zero-fills the buffer): an idle sub-group's mostly-zero row
        // then costs no stores and no dirty lines to write back at the kernel's end.
        for (unsigned i = 0; i < num_counters; ++i) {
            if (counters[i] != 0) {
                st(mem + L.stats_at(sg) + i, counters[i]);
            }
        }
    }

    /// After a resolve step's rounds (the ring core; `reserve`): each lane's latest freed record
    /// (record_stash::spare) goes to a lane of this sub-group that holds none reserved, for that lane's
    /// next fork of the pool (join_view_common::take_record(ctx, ...)): a fork that finds one makes no
    /// device access (the take_fresh RMW or a pop), and a record handed on is not pushed (no link store,
    /// and a step whose frees are all handed on makes no release CAS, so no write-back of the front's
    /// dirty lines). Why it is ordered: the lane that freed a record read it in its continuation, and
    /// the lane that will open it writes it; the sub-group's next hand-off (handoff_barrier(): the
    /// pick's before the next front runs, which comes before any later step's continuation) orders
    /// those reads before those writes; whatever wrote the record before its continuation's reads
    /// (children anywhere, with a device-scope release that the resolve step acquired) happens-before
    /// them by HRF-indirect transitivity, and under HRF-direct that hand-off is at device scope (Sp), so
    /// the chain is device-scope throughout, as the free list's release and acquire made it. No
    /// barrier of its own, so a record handed on costs no synchronization at all. How many are held: at
    /// most one a lane, records no other sub-group can take, so only when they are a quarter of the pool
    /// at most (a pool of capacity >= 4 x the launch's lanes); at the sub-group's exit they go on the
    /// pool's stranded list (strand_reserved).
    CANOPY_DEVICE static void reserve_records(ctx_t& ctx, unsigned lane) {
        if constexpr (traits::steal_rsp) {
            // Not under steal-rsp: measured slower with it (timed hrf8 fib(16), seeds 1-10: 476,628
            // cycles without, 510,142 with; docs/runtime.md), with no gain elsewhere to set against it.
            (void)ctx;
            (void)lane;
        } else {
            constexpr unsigned none = detail::record_stash::none;
            detail::record_stash* st = detail::context_access::stash(ctx);
            const lane_mask gives = ballot(st->spare != none);
            const lane_mask needs = ballot(st->reserved == none);
            if (gives == 0 || needs == 0) {
                return;
            }
            const unsigned src = lowest_lane(gives);
            unsigned* const pool = broadcast(st->next, src);
            unsigned* const strand = broadcast(st->stranded, src);
            const unsigned cap = broadcast(st->capacity, src);
            if (!detail::join_may_reserve(cap)) {
                return;
            }
            const bool gives_mine = st->spare != none && st->next == pool; // one pool only
            const lane_mask giving = ballot(gives_mine);
            const unsigned moves = min_u(lane_count(giving), lane_count(needs));
            if (moves == 0) {
                return;
            }
            const lane_mask below = lanes_below(lane);
            const unsigned rank = lane_count(needs & below); // among the lanes that need one
            const bool takes = st->reserved == none && rank < moves;
            const unsigned from = takes ? nth_lane(giving, rank) : lane;
            const unsigned idx = shuffle(st->spare, from);
            unsigned long long* const stack = shuffle(st->stack, from);
            if (takes) {
                st->reserve(idx, pool, stack, strand, cap);
            }
            if (gives_mine && lane_count(giving & below) < moves) {
                st->spare = none; // handed on: not pushed
            }
            // No barrier here: the takers' forks come after the next hand-off of this sub-group (the
            // pick's before the next front's dispatch, before any later step's continuation), which orders
            // the givers' reads before them (the header above).
        }
    }
    /// At the sub-group's exit (the ring core): the records its lanes still hold reserved
    /// (reserve_records) go on their pool's stranded list, which the host counts as free: the run is
    /// over, so no fork will take them, and reset() makes every record fresh again before the next run.
    /// One relaxed device-scope RMW a sub-group (a count the host reads after the kernel, as it reads
    /// the plain index stores) instead of a push a lane: fib(16) on hrf8 (seed 1) ends with 627 of its
    /// 2,048 lanes holding one, against 1,596 forks in all. What does not fit (another pool's) is pushed.
    CANOPY_DEVICE static void strand_reserved(ctx_t& ctx, unsigned lane) {
        if constexpr (!ctx_t::defers_joins) {
            (void)ctx;
            (void)lane;
        } else {
            constexpr unsigned none = detail::record_stash::none;
            detail::record_stash* rs = detail::context_access::stash(ctx);
            const lane_mask holds = ballot(rs->reserved != none);
            if (holds == 0) {
                return;
            }
            const unsigned src = lowest_lane(holds);
            unsigned* const strand = broadcast(rs->reserved_stranded, src);
            const unsigned room = broadcast(rs->reserved_capacity, src) / 4;
            const bool mine = rs->reserved != none && rs->reserved_stranded == strand;
            const lane_mask m = ballot(mine);
            unsigned base = 0;
            if (lane == src) {
                base = atomic_ref<unsigned, scope::device>(*strand).fetch_add(lane_count(m),
                                                                              std::memory_order_relaxed);
            }
            base = broadcast(base, src);
            const unsigned at = base + lane_count(m & lanes_below(lane));
            if (mine && at < room) {
                st(&strand[1 + at], rs->reserved); // read by the host after the kernel
                rs->reserved = none;
            }
            rs->give_back_reserved();
        }
    }
    CANOPY_DEVICE static unsigned min_u(unsigned a, unsigned b) { return a < b ? a : b; }
    /// The lowest lane set in m (m != 0), and the lane of m's (k + 1)-th set bit (k < lanes set in m).
    CANOPY_DEVICE static unsigned lowest_lane(lane_mask m) { return lane_count((m & (~m + 1u)) - 1u); }
    /// The lanes below `lane`, as a mask.
    CANOPY_DEVICE static lane_mask lanes_below(unsigned lane) { return (lane_mask{1} << lane) - 1u; }
    CANOPY_DEVICE static unsigned nth_lane(lane_mask m, unsigned k) {
        for (unsigned i = 0; i < k; ++i) {
            m &= m - 1u;
        }
        return lowest_lane(m);
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
    /// the same copy), save the counters and the leader's two ticks (status_tick, share_quiet), which
    /// only the leader's pick and share decision read and write.
    struct loop_state {
        /// A loop's start: counting into the caller's `counters`, its first victim after work-group wg.
        CANOPY_DEVICE loop_state(unsigned* c, unsigned wg) : counters(c), cursor(wg) {}
        unsigned head = 0, tail = 0; // the private queue's indices: its fronts are [head, tail)
        // The leader's counters: an array of the caller's (operator()'s), not a member, so that the
        // scalars here stay in registers (an aggregate with a dynamically indexed array member is
        // kept in local memory whole on sm_90: 16 to 48 more stack bytes a kernel, measured).
        unsigned* counters = nullptr;
        // The last victim asked (steal-emulated) or probed (steal-rsp); under steal-emulated its top bit
        // says a request is posted and not yet answered (one word: steal_emulated.hpp's thief state).
        unsigned cursor = 0;
        unsigned system_tick = 0; // ring core, several devices: fronts since the last look at the system
        unsigned status_tick = 0; // the leader's (it picks): fronts of its own since it last read the status
        // The leader's (it decides shares, ring core): share decisions left to skip before it next reads
        // the hunger counts (ring_scheduler.hpp, share_quiet_fronts).
        unsigned share_quiet = 0;
        // The leader's (it counts), ring core: tasks its fronts finished that are still counted: a
        // front whose join continuations spawned nothing retires its kept task with the next count
        // instead of a second pass (ring_scheduler.hpp, settle_owed).
        unsigned owed = 0;
        // Uniform, ring core: lanes hold parked join completions (resolve_joins), and one front's task
        // stays counted for them until a step leaves none parked.
        bool parked = false;
        // Uniform, ring core: the sub-group's local tag (join_continuation.hpp, "Records that stay in
        // their sub-group"), moved on whenever fronts leave its private ring (ring_scheduler.hpp's
        // move_out); 0 (the locked core): none.
        unsigned long long local_tag = 0;
    };

    /// Fronts a sub-group with fronts of its own runs between looks at the status word (a failed run).
    /// The look is a device-scope load, an L2 access (193 cycles on the timed model, more on a GPU), on
    /// the leader's path before the front while every other lane waits: on a BFS's one-sub-group tail,
    /// 193 of a front's ~1,200 cycles. A sub-group about to poll the shared queues looks every time (it
    /// pays L2 accesses there anyway, and an idle one must see a failure to stop); one with work of its
    /// own stops at most this many fronts after a failure, whose first report the status word keeps
    /// (status.hpp: a CAS from 0), so the error is the same.
    static constexpr unsigned status_poll_fronts = 16;

    /// The checks every core's pick makes before it looks at a shared queue, in this order: a failed
    /// run stops every sub-group (looked at every status_poll_fronts-th front while the private queue
    /// holds fronts, every time otherwise); the steal strategy serves a thief's request (steal-emulated:
    /// so that a thief never waits on a victim that is busy polling); then the sub-group's own private
    /// queue; then a front the strategy received (steal-emulated's mailbox). True with `kind` set when
    /// one of them decides. `self` is the calling core: its service_request serves its own queues.
    template <class Self>
    CANOPY_DEVICE static bool pick_before_queues(const Self& self, unsigned wg, unsigned sg, loop_state& s,
                                                 unsigned& kind) {
        const unsigned head = s.head, tail = s.tail;
        if (tail == head || ++s.status_tick >= status_poll_fronts) {
            s.status_tick = 0;
            if (failed(self.status())) {
                kind = detail::pk_done;
                return true;
            }
        }
        steal::serve(self, wg, s.counters);
        if (tail != head) {
            kind = detail::pk_private;
            return true;
        }
        if (steal::received(self, sg, s.cursor)) {
            kind = detail::pk_mailbox;
            return true;
        }
        return false;
    }

    /// The leader, after the lanes packed `used` more tasks of type t into the newest private front
    /// (which held `have`) and `rest` into `need` new fronts from ticket tail: their headers (both cores).
    CANOPY_DEVICE void set_packed_headers(unsigned sg, unsigned tail, unsigned t, unsigned have,
                                          unsigned used, unsigned rest, unsigned need, unsigned width) const {
        if (used > 0) {
            private_slot(sg, tail - 1).set_header(t, have + used);
        }
        for (unsigned k = 0; k < need; ++k) {
            const unsigned left = rest - k * width;
            private_slot(sg, tail + k).set_header(t, left < width ? left : width);
        }
    }

    /// The leader, once per front (both cores): the front's `ran` tasks finish and its `spawned`
    /// children are counted in one RMW, before any child can be published (a child finished before it
    /// was counted could bring the count to 0 while work exists). Relaxed at device scope: a count
    /// only, which carries no data. Returns the count after it (wrapped if it underflowed: reported).
    CANOPY_DEVICE unsigned count_front(unsigned ran, unsigned spawned, unsigned sg,
                                       unsigned* counters) const {
        counters[c_spawned] += spawned;
        const unsigned old = atomic_ref<unsigned, scope::device>(*outstanding())
                                 .fetch_add(spawned - ran, std::memory_order_relaxed);
        if (old + spawned < ran) {
            report(status(), failure::counter_underflow, sg);
        }
        return old + spawned - ran;
    }
};

} // namespace canopy::runtime
