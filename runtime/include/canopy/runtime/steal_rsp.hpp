// canopy/runtime/steal_rsp.hpp — the steal strategy `steal-rsp` (RSP, Orr et al. 2015; emulator only):
// a thief in another work-group operates on the victim's work-group-scope queue directly, with
// remote-scope-promoted operations (core_base's thief_access: device scope, remote). A promoted acquire
// makes the victim's work-group-scope releases visible to the thief; a promoted release hands the
// victim's slots back. Each promoted operation flushes and invalidates every CU's L1 on the emulator's
// scoped-cache model (and would lock every CU's RMW unit on hardware: RSP Table 3), so a thief polls the
// victim's advert (a relaxed device-scope load of an ordinary word) first, and promotes only where
// there is work.
//
// One implementation per queue design:
//   ring core    take_ring: half of what the victim advertises (up to max_share and steal_batch_max),
//                one promoted reservation; the lanes read the fronts in place, the first runs here,
//                the others are copied into the thief's private ring; the leader's promoted release
//                hands the slots back (ring_scheduler.hpp, hand_back). A failed attempt backs off.
//   locked core  take_locked: the paper's design: the victim queue's lock taken with a promoted
//                acquire, its oldest front copied into the thief's private queue, a promoted unlock.
#pragma once

#include <atomic>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/runtime/stats.hpp"

namespace canopy::runtime {

struct rsp_thief {
    /// The most fronts one ring-core steal takes (the count rides in 5 bits of the pick's word).
    static constexpr unsigned batch_max = 16;

    /// The pick word of a ring-core steal: the victim work-group and the fronts reserved there (at most
    /// batch_max < 32: five bits), in the word that names the device ring for other picks.
    CANOPY_DEVICE static unsigned word(unsigned victim, unsigned fronts) { return victim << 5 | fronts; }
    CANOPY_DEVICE static unsigned victim(unsigned word) { return word >> 5; }
    CANOPY_DEVICE static unsigned fronts(unsigned word) { return word & 31u; }

    /// One pick's thief state: probes to skip after a failed attempt, and how many failed in a row.
    struct backoff_state {
        unsigned skip = 0, fails = 0;
    };

    /// The next victim, round robin from `cursor`, skipping this work-group.
    CANOPY_DEVICE static unsigned next_victim(unsigned wg, unsigned nwg, unsigned& cursor) {
        cursor = (cursor + 1) % nwg;
        if (cursor == wg) {
            cursor = (cursor + 1) % nwg;
        }
        return cursor;
    }

    /// The victim's advert: a relaxed device-scope load (a hint; as an idle thief on hardware polls).
    template <class Queue> CANOPY_DEVICE static unsigned advert(const Queue& q) {
        return atomic_ref<unsigned, scope::device>(*q.advert_word()).load(std::memory_order_relaxed);
    }

    /// Ring core, an idle leader: probes the next victim and takes half of what its work-group ring
    /// advertises with one remote-promoted reservation. True with the first `ticket` and
    /// `ring` = word(victim, fronts).
    template <class Core>
    CANOPY_DEVICE static bool take_ring(const Core& c, unsigned wg, unsigned nwg, unsigned private_fronts,
                                        backoff_state& b, unsigned& cursor, unsigned& ticket, unsigned& ring,
                                        unsigned* counters) {
        if (nwg <= 1) {
            return false;
        }
        if (b.skip != 0) {
            --b.skip; // backing off after a failed attempt (below)
            return false;
        }
        const unsigned v = next_victim(wg, nwg, cursor);
        const auto vq = c.workgroup_ring(v);
        const unsigned adv = advert(vq);
        if (adv == 0 || private_fronts >= c.L.private_capacity) {
            return false;
        }
        ++counters[c_rsp_attempts];
        // Half of what the advert shows (steal-half), up to max_share and what the private ring can
        // take besides the front this sub-group runs at once.
        unsigned want = (adv + 1) / 2;
        want = want < c.max_share ? want : c.max_share;
        const unsigned room = c.L.private_capacity - private_fronts + 1;
        want = want < room ? want : room;
        want = want < batch_max ? want : batch_max;
        // Remote-promoted (device, remote) reservation on the victim's work-group-scope ring: the
        // victim's work-group-scope releases become visible to this thief. Its lanes read the fronts in
        // place; the leader hands the slots back (a promoted release) after they have (hand_back).
        const auto r = vq.template reserve_pop<typename Core::thief_access>(want);
        if (r.n != 0) {
            ticket = r.first;
            ring = word(v, r.n);
            counters[c_steals_received] += r.n; // fronts (one steal: fronts[lvl_stolen])
            return true;
        }
        // The advert showed work but another thief (or the owner) took it first: this attempt's
        // promoted operations stalled every CU for nothing. Skip the next 1, 3, 7, ..., 63 probes, so
        // that a crowd of idle thieves does not stall the device with failed attempts (each promoted
        // RMW locks every CU's RMW unit; RSP Table 3, rows 6 and 9).
        b.fails = b.fails < 6 ? b.fails + 1 : 6;
        b.skip = (1u << b.fails) - 1;
        return false;
    }

    /// Locked core, an idle leader: probes the next victim's queue and, when it holds a front and the
    /// private queue has room, takes its oldest under the victim's lock (promoted acquire and release)
    /// into private slot tail. True when it took one.
    template <class Core>
    CANOPY_DEVICE static bool take_locked(const Core& c, unsigned wg, unsigned nwg, unsigned sg,
                                          unsigned head, unsigned tail, unsigned& cursor,
                                          unsigned* counters) {
        using thief = typename Core::thief_access;
        if (nwg <= 1) {
            return false;
        }
        const auto vq = c.workgroup_queue(next_victim(wg, nwg, cursor));
        // Probing every poll made every idle thief flush and invalidate the other CUs' L1s
        // (docs/graph-experiment.md): the advert first.
        if (advert(vq) == 0 || vq.template size_hint<thief>() == 0) {
            return false;
        }
        ++counters[c_rsp_attempts];
        if (!vq.template try_lock<thief>()) {
            return false;
        }
        if (vq.template size_locked<thief>() > 0 && tail - head < c.L.private_capacity) {
            c.private_slot(sg, tail).copy_from(vq.template oldest<thief>());
            vq.template commit_pop<thief>();
            vq.template unlock<thief>();
            ++counters[c_steals_received];
            return true;
        }
        vq.template unlock<thief>();
        return false;
    }
};

/// The steal strategy (steal_strategy.hpp's hooks): an idle leader steals by promotion; no request to
/// serve, no mailbox to read.
struct steal_by_promotion {
    static constexpr bool advertises = true; // thieves poll the work-group queues' adverts
    template <class Core> CANOPY_DEVICE static void serve(const Core&, unsigned, unsigned*) {}
    template <class Core> CANOPY_DEVICE static bool received(const Core&, unsigned, unsigned&) {
        return false;
    }
    template <class Core, class State>
    CANOPY_DEVICE static bool on_idle(const Core& c, unsigned wg, unsigned nwg, unsigned sg, State& s,
                                      rsp_thief::backoff_state& b, unsigned& ticket, unsigned& ring) {
        if constexpr (Core::rings) {
            return rsp_thief::take_ring(c, wg, nwg, s.tail - s.head, b, s.cursor, ticket, ring, s.counters);
        } else {
            return rsp_thief::take_locked(c, wg, nwg, sg, s.head, s.tail, s.cursor, s.counters);
        }
    }
};

} // namespace canopy::runtime
