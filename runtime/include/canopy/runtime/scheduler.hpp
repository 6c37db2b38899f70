// canopy/runtime/scheduler.hpp — the locked core: the HRF paper's sub-group loop (§7, Fig. 9), over
// queues held under a lock (config::queues = locked), kept so that the HRF experiment runs on the
// paper's own design. What it shares with the ring core is in core_base.hpp. One iteration:
//   1. pick (leader): own private queue (newest first), then the work-group queue, then the device
//      queue (oldest first), then (steal policies) a stolen front; idle waits are one spin_until whose
//      predicate also services steal requests and checks termination and the status word;
//   2. run: each lane reads its task from the front and runs it; spawns go to per-lane staging;
//   3. pack: staged tasks of each type are packed into fronts of the private queue (topping up its
//      newest front of the same type first), offsets from an exclusive_sum, no atomics;
//   4. count: one device-scope RMW adds (spawned - executed) to the outstanding-work counter;
//   5. donate (leader): oldest private fronts go to a wider queue that is below its threshold.
#pragma once

#include "canopy/queues/front_queue.hpp"
#include "canopy/runtime/core_base.hpp"
#include "canopy/runtime/level_locked.hpp"

namespace canopy::runtime {

template <policy P, class... Tasks> struct scheduler : core_base<P, Tasks...> {
    using base = core_base<P, Tasks...>;
    using base::device_threshold, base::dispatch, base::handoff_barrier, base::keep_private, base::L,
        base::max_donations, base::mem, base::outstanding, base::private_slot, base::status,
        base::workgroup_threshold, base::write_stats;
    using typename base::ctx_t, typename base::dev_access, typename base::dev_push_access,
        typename base::loop_state, typename base::steal, typename base::traits, typename base::wg_access;
    static constexpr unsigned task_words = base::task_words;
    static constexpr unsigned num_types = base::num_types;
    static constexpr scope Sp = base::Sp;
    static constexpr bool rings = false; // the steal strategies' take per queue design

    /// Work-group v's advert word (thieves poll it: steal_strategy.hpp).
    CANOPY_DEVICE unsigned* advert_word(unsigned v) const { return workgroup_queue(v).advert_word(); }

    CANOPY_DEVICE queues::front_queue device_queue() const {
        return {mem + L.device_queue, L.device_capacity, L.shape};
    }
    CANOPY_DEVICE queues::front_queue workgroup_queue(unsigned wg) const {
        return {mem + L.workgroup_queue_at(wg), L.workgroup_capacity, L.shape};
    }
    // The two shared levels (level_locked.hpp: their operations and scopes). Work-group queue words:
    // one scope for their whole life (P7); the device queue's: device scope in every policy (P6). Only
    // the work-group queue advertises (steal policies, whose work never goes to the device queue).
    using wg_level_t = locked_level<wg_access, wg_access, steal::advertises>;
    using dev_level_t = locked_level<dev_access, dev_push_access, false>;
    CANOPY_DEVICE wg_level_t wg_level(unsigned wg) const { return {workgroup_queue(wg), status()}; }
    CANOPY_DEVICE dev_level_t dev_level() const { return {device_queue(), status()}; }

    /// steal-emulated, the locked core's owner side: the oldest front under the queue's lock.
    CANOPY_DEVICE void service_request(unsigned wg, unsigned* counters) const {
        // The level once, outside the grant (a register measurement, not a semantic need: run.hpp's
        // plain_kernel says which kernels it moves).
        const wg_level_t w = wg_level(wg);
        this->mailboxes().answer(wg, counters, [&](unsigned thief) {
            unsigned head = 0;
            if (!w.take(head)) { // acquire at WG scope
                return false;
            }
            this->mailboxes().front(thief).copy_from(w.q.slot(head));
            w.hand_back();
            return true;
        });
    }
    /// Leader: chooses the next front. Holds the source queue's lock on return for pk_workgroup/pk_device.
    CANOPY_DEVICE unsigned pick(unsigned wg, unsigned nwg, unsigned sg, unsigned& index,
                                loop_state& s) const {
        const wg_level_t wq = wg_level(wg);
        const dev_level_t dq = dev_level();
        unsigned kind = detail::pk_done;
        bool idle = false;               // --trace: a poll found no work
        std::uint64_t idle_since = 0;    // --trace: the first such poll
        rsp_thief::backoff_state unused; // steal-rsp: the paper's thief does not back off
        unsigned ring = 0;               // a ring core's steal word: none here
        // Bounded (platform/spin.hpp): on a GPU debug build a sub-group that waits past the bound for
        // work reports it instead of hanging the kernel; the run then fails with the queues' state.
        const bool in_time = spin_until_bounded([&] {
            if (base::pick_before_queues(*this, wg, sg, s, kind)) {
                return true;
            }
            // The shared levels, narrowest first; the leader keeps the lock of the one it took from.
            if (wq.take(index)) {
                kind = detail::pk_workgroup;
                return true;
            }
            if (dq.take(index)) {
                kind = detail::pk_device;
                return true;
            }
            // The steal strategy: steal-emulated asks (the front arrives in the mailbox); steal-rsp
            // copies a stolen front into private slot tail.
            if (steal::on_idle(*this, wg, nwg, sg, s, unused, index, ring)) {
                kind = detail::pk_rsp;
                return true;
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

    /// The picked front's source (the locked core): the queue whose lock the leader holds, the mailbox,
    /// or the private queue's newest front (a steal-rsp front was copied there).
    CANOPY_DEVICE queues::front_ref locked_source(unsigned kind, unsigned index, unsigned wg, unsigned sg,
                                                  unsigned tail) const {
        return kind == detail::pk_workgroup ? workgroup_queue(wg).slot(index)
               : kind == detail::pk_device  ? device_queue().slot(index)
               : kind == detail::pk_mailbox ? this->mailboxes().front(sg)
                                            : private_slot(sg, tail - 1);
    }

    /// The leader, after the lanes have read the front: frees its source (the unlock lets a producer
    /// overwrite the slot) and counts it.
    CANOPY_DEVICE void release_locked(unsigned kind, unsigned wg, unsigned sg, unsigned count, bool bad,
                                      unsigned* counters) const {
        const unsigned lanes = subgroup_size();
        if (kind == detail::pk_workgroup) {
            wg_level(wg).hand_back(); // the slot may be reused
        } else if (kind == detail::pk_device) {
            dev_level().hand_back();
        } else if (kind == detail::pk_mailbox) {
            this->mailboxes().emptied(sg);
            ++counters[c_steals_received];
        }
        if (bad) {
            report(status(), failure::corrupt_front, sg);
            return;
        }
        const unsigned lvl = kind == detail::pk_workgroup ? lvl_workgroup
                             : kind == detail::pk_device  ? lvl_device
                             : kind == detail::pk_private ? lvl_private
                                                          : lvl_stolen;
        ++counters[c_fronts + lvl];
        counters[c_tasks + lvl] += count;
        counters[c_partial] += count < lanes ? 1 : 0;
    }

    /// Every lane (the locked core): packs the front's children, type by type, into the private
    /// queue, topping up its newest front of the same type; offsets from an exclusive_sum, no atomics.
    /// True when the private queue would overflow (reported); `spawned` the children packed.
    CANOPY_DEVICE bool pack_locked(const ctx_t& ctx, unsigned sg, bool leader, loop_state& s,
                                   unsigned& spawned) const {
        const unsigned lanes = subgroup_size();
        for (unsigned t = 0; t < num_types; ++t) {
            unsigned k = 0;
            for (unsigned i = 0; i < detail::context_access::staged(ctx); ++i) {
                k += ld(detail::context_access::entry(ctx, i)) == t ? 1 : 0;
            }
            const unsigned off = exclusive_sum(k);
            const unsigned total = broadcast(off + k, lanes - 1);
            if (total == 0) {
                continue;
            }
            // The newest private front takes more tasks of its own type (headers: leader only).
            unsigned room = 0, have = 0;
            if (leader && s.tail != s.head) {
                const queues::front_ref nf = private_slot(sg, s.tail - 1);
                if (nf.type() == t && nf.count() < lanes) {
                    have = nf.count();
                    room = lanes - have;
                }
            }
            room = broadcast(room, 0);
            have = broadcast(have, 0);
            room = room < total ? room : total;
            const unsigned rest = total - room;
            const unsigned need = (rest + lanes - 1) / lanes;
            if ((s.tail - s.head) + need > L.private_capacity) {
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
                    g < room ? private_slot(sg, s.tail - 1) : private_slot(sg, s.tail + (g - room) / lanes);
                const unsigned slot = g < room ? have + g : (g - room) % lanes;
                for (unsigned w = 0; w < task_words; ++w) {
                    st(dst.payload(slot) + w, ld(e + 2 + w));
                }
            }
            if (leader) {
                this->set_packed_headers(sg, s.tail, t, have, room, rest, need, subgroup_size());
            }
            s.tail += need;
            spawned += total;
        }
        return false;
    }

    /// The leader (the locked core): its oldest private fronts beyond keep_private go to a wider queue
    /// below its threshold, at most max_donations; then (work-sharing policies) the work-group queue's
    /// oldest front to a starving device queue. Returns the private fronts donated.
    CANOPY_DEVICE unsigned donate(unsigned wg, unsigned sg, const loop_state& s, unsigned* counters) const {
        const wg_level_t wq = wg_level(wg);
        const dev_level_t dq = dev_level();
        unsigned donated = 0;
        if (s.tail - s.head > keep_private) {
            // Acquire the fronts the lanes published at the private scope: the narrow acquire of
            // HRF-indirect's transitive link (the wide release is the target queue's unlock).
            fence<Sp>(std::memory_order_acquire);
            while (donated < max_donations && s.tail - s.head - donated > keep_private) {
                const queues::front_ref src = private_slot(sg, s.head + donated);
                if (wq.queued() < workgroup_threshold) {
                    if (!wq.push(src, failure::workgroup_overflow, wg, sg)) {
                        break;
                    }
                    ++counters[c_donate_wg];
                } else if (traits::donates_to_device && dq.queued() < device_threshold) {
                    if (!dq.push(src, failure::device_overflow, 0, sg)) {
                        break;
                    }
                    ++counters[c_donate_device];
                } else {
                    break;
                }
                ++donated;
            }
        }
        if constexpr (traits::donates_to_device) {
            // Re-donation: the work-group queue's oldest front to a starving device queue. Acquire at WG
            // scope (the lock), release at device scope (the device queue's unlock).
            if (dq.queued() < device_threshold && wq.queued() >= 2) {
                const queues::front_queue& q = wq.q;
                if (!q.lock<wg_access>()) {
                    report(status(), failure::spin_timeout, sg);
                } else {
                    if (q.size_locked<wg_access>() >= 2) {
                        if (dq.push(q.oldest<wg_access>(), failure::device_overflow, 0, sg)) {
                            q.commit_pop<wg_access>();
                            ++counters[c_redonate_device];
                        }
                    }
                    q.unlock<wg_access>();
                }
            }
        }
        return donated;
    }

    /// The loop of one sub-group; `wg` / `nwg`: this work-group's (participating) id and their count.
    /// pick → read → release → run → pack → count → donate.
    CANOPY_DEVICE void operator()(unsigned wg, unsigned nwg) const {
        const unsigned lanes = subgroup_size();
        const unsigned lane = lane_id();
        const bool leader = lane == 0;
        const unsigned sg = wg * L.subgroups_per_block + subgroup_id();
        unsigned counters[num_counters] = {};
        loop_state s(counters, wg);
        ctx_t ctx(this->staging_of(sg, lane), L.staging_capacity);
        const bool traced = leader && tracing(); // --trace (platform/trace.hpp): read once

        for (;;) {
            unsigned index = 0, kind = detail::pk_done;
            const std::uint64_t pick_since = traced ? trace_clock() : 0;
            if (leader) {
                kind = pick(wg, nwg, sg, index, s);
            }
            kind = broadcast(kind, 0);
            index = broadcast(index, 0);
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
                s.tail += 1; // the leader copied the stolen front into private slot tail
            }
            const queues::front_ref f = locked_source(kind, index, wg, sg, s.tail);
            const unsigned type = f.type();
            const unsigned count = f.count();
            unsigned words[task_words] = {};
            bool bad = type >= num_types || count == 0 || count > lanes;
            if (!bad && lane < count) {
                for (unsigned i = 0; i < task_words; ++i) {
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
                release_locked(kind, wg, sg, count, bad, s.counters);
            }
            if (kind == detail::pk_private || kind == detail::pk_rsp) {
                s.tail -= 1;
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
            dispatch(type, lane < count, words, ctx); // every lane: a cooperative type needs them all
            const std::uint64_t resolve_since = traced ? trace_clock() : 0;
            const auto step = this->resolve_joins(ctx, lane, leader, s.counters); // join continuations
            if (traced && ctx_t::defers_joins) { // nested in the front's run span
                trace_span(trace_kind::resolve, resolve_since, step.ran);
            }
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
                const unsigned left = this->count_front(count, spawned, sg, s.counters);
                if (traced) {
                    trace_count(trace_counter::outstanding, 0, left);
                    trace_span(trace_kind::pack, pack_since, spawned);
                }
            }

            // ---- donate (leader): oldest first ----
            const std::uint64_t share_since = traced ? trace_clock() : 0;
            const unsigned moved_before =
                s.counters[c_donate_wg] + s.counters[c_donate_device] + s.counters[c_redonate_device];
            const unsigned donated = leader ? donate(wg, sg, s, s.counters) : 0;
            if (traced) {
                const unsigned moved =
                    s.counters[c_donate_wg] + s.counters[c_donate_device] + s.counters[c_redonate_device];
                if (moved != moved_before) {
                    trace_span(trace_kind::share, share_since, moved - moved_before);
                }
                trace_count(trace_counter::private_queue, 0, s.tail - s.head - donated);
            }
            s.head += broadcast(donated, 0);
        }

        if (leader) {
            write_stats(sg, s.counters);
        }
    }
};

} // namespace canopy::runtime
