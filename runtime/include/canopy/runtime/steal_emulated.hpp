// canopy/runtime/steal_emulated.hpp — the steal strategy `steal-emulated` (HRF §7): stealing without
// remote-scope promotion. Work-group queues stay at work-group scope; a thief in another work-group
// cannot touch them, so it asks: it posts a request to the victim's request word, the victim's leader
// answers at its next scheduling point by moving its oldest front into the thief's mailbox, and the
// mailbox's state word publishes the front at device scope. Both cores use this protocol; each supplies
// its own way to take its oldest front (`grant`) and its advert words (`advert`).
//
// The words, per device buffer (layout.hpp): one request word per work-group (0, or the thief's
// sub-group + 1) and one mailbox per sub-group (a state word, then one front). Scopes and orders:
//   request  device scope (thieves in other work-groups write it). The thief's CAS 0 -> sg+1 is a
//            release (its mailbox reset is ordered before the request); the victim's CAS back to 0 an
//            acquire (it sees that reset before it writes the mailbox).
//   mailbox  device scope. The victim's store of granted/declined is a release (the front it copied in
//            is published with it: the promotion from the queue's work-group scope to the device's);
//            the thief's load an acquire. The thief's reset to empty is relaxed: only it reads its
//            mailbox until its next request, whose release orders the reset.
//   advert   device scope, relaxed: a hint (a thief that reads a stale one asks in vain or waits a
//            poll); the front never travels through it.
#pragma once

#include <atomic>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/queues/front.hpp"
#include "canopy/runtime/layout.hpp"
#include "canopy/runtime/stats.hpp"

namespace canopy::runtime {

namespace detail {
/// Mailbox states. Written by the thief (empty) and the victim (granted/declined).
enum mailbox_state : unsigned { mb_empty = 0, mb_granted = 2, mb_declined = 3 };
} // namespace detail

/// steal-emulated's words in one device buffer, and the protocol's three steps: the thief asks, the
/// victim answers, the thief finds its answer.
struct emulated_steal {
    // The words themselves, not the layout: a reference to the core's layout kept the whole core in
    // local memory on sm_90 (ptxas -v: 24 more registers in steal-emulated's UTS kernels).
    unsigned* requests;  // one per work-group
    unsigned* mailboxes; // one per sub-group, mailbox_words apart
    unsigned mailbox_words;
    queues::front_shape shape;
    /// The thief's word (loop_state::cursor): the last victim asked, and this bit while its request
    /// is posted and not yet answered. One word, not a flag beside it: ptxas -v (sm_90) keeps the loop's
    /// scalars in registers, and the flag cost steal-emulated's persistent kernels 8 more (work-group
    /// ids never reach bit 31).
    static constexpr unsigned pending_bit = 1u << 31;

    CANOPY_DEVICE unsigned* state(unsigned sg) const {
        return mailboxes + static_cast<layout::offset>(sg) * mailbox_words;
    }
    CANOPY_DEVICE queues::front_ref front(unsigned sg) const { return {state(sg) + 1, shape}; }
    CANOPY_DEVICE atomic_ref<unsigned, scope::device> request(unsigned wg) const {
        return atomic_ref<unsigned, scope::device>(requests[wg]);
    }

    /// Victim (both cores, the leader at a scheduling point): answers one request to work-group wg.
    /// `grant(thief)` moves the oldest front of wg's queue into the thief's mailbox and says whether
    /// there was one.
    template <class Grant> CANOPY_DEVICE void answer(unsigned wg, unsigned* counters, Grant grant) const {
        // Relaxed peek, then an acquire CAS to claim it: synchronizes with the thief's release, which
        // ordered its mailbox reset before the request.
        const unsigned r = request(wg).load(std::memory_order_relaxed);
        if (r == 0) {
            return;
        }
        unsigned expected = r;
        if (!request(wg).compare_exchange_strong(expected, 0u, std::memory_order_acquire)) {
            return;
        }
        const unsigned thief = r - 1;
        const bool granted = grant(thief);
        // The promotion: the front was acquired at work-group scope (the queue's) and is now released
        // at device scope, which the thief (another work-group) acquires. A decline carries no data but
        // uses the same release for uniformity.
        atomic_ref<unsigned, scope::device>(*state(thief))
            .store(granted ? detail::mb_granted : detail::mb_declined, std::memory_order_release);
        ++counters[granted ? c_steal_grants : c_steal_declines];
    }

    /// Thief: true when the pending request was granted (the front is in this thief's mailbox); a
    /// decline clears the pending bit and empties the mailbox state. `thief`: the thief's word.
    CANOPY_DEVICE bool granted(unsigned sg, unsigned& thief) const {
        if ((thief & pending_bit) == 0) {
            return false;
        }
        // Acquire at device scope: pairs with the victim's release of the granted front.
        const unsigned s = atomic_ref<unsigned, scope::device>(*state(sg)).load(std::memory_order_acquire);
        if (s == detail::mb_granted) {
            thief &= ~pending_bit;
            return true;
        }
        if (s == detail::mb_declined) {
            thief &= ~pending_bit;
            emptied(sg);
        }
        return false;
    }

    /// Thief, after its lanes read a granted front (or on a decline): the mailbox is empty again.
    /// Relaxed: only this thief reads its mailbox state until its next request (a release).
    CANOPY_DEVICE void emptied(unsigned sg) const {
        atomic_ref<unsigned, scope::device>(*state(sg)).store(detail::mb_empty, std::memory_order_relaxed);
    }

    /// Thief: with no request pending, posts one to a victim that advertises work (`advert(v)`:
    /// work-group v's advert word), so that an idle device polls without writing (and the watchdog can
    /// tell a lost task from a busy run). Round robin from the work-group after the last victim (the
    /// thief word's low bits) through the last victim itself (k = nwg): every other work-group is a candidate
    /// on every poll. With k < nwg the last victim was never looked at again, so a thief declined once by the
    /// only work-group with work (its one front popped locally first) never asked it again: T4 at work-groups
    /// of 256 ran on one CU (docs/hrf-experiment.md, "The T4 anomaly").
    template <class Advert>
    CANOPY_DEVICE void ask(unsigned wg, unsigned nwg, unsigned sg, unsigned& thief, unsigned* counters,
                           Advert advert) const {
        if ((thief & pending_bit) != 0 || nwg <= 1) {
            return;
        }
        const unsigned cursor = thief;
        for (unsigned k = 1; k <= nwg && (thief & pending_bit) == 0; ++k) {
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
            if (request(v).compare_exchange_strong(expected, sg + 1, std::memory_order_release)) {
                thief = v | pending_bit;
                ++counters[c_steal_requests];
            }
        }
    }
};

/// The steal strategy (steal_strategy.hpp's hooks): the victim serves a request before it looks at its
/// own queues, the thief reads its mailbox after its private queue, and an idle thief asks.
struct steal_by_request {
    static constexpr bool advertises = true; // thieves poll the work-group queues' adverts
    template <class Core> CANOPY_DEVICE static void serve(const Core& c, unsigned wg, unsigned* counters) {
        c.service_request(wg, counters);
    }
    template <class Core> CANOPY_DEVICE static bool received(const Core& c, unsigned sg, unsigned& thief) {
        return c.mailboxes().granted(sg, thief);
    }
    template <class Core, class State, class Backoff>
    CANOPY_DEVICE static bool on_idle(const Core& c, unsigned wg, unsigned nwg, unsigned sg, State& s,
                                      Backoff&, unsigned&, unsigned&) {
        c.mailboxes().ask(wg, nwg, sg, s.cursor, s.counters, [&](unsigned v) { return c.advert_word(v); });
        return false; // the front arrives in the mailbox (received), at a later poll
    }
};

} // namespace canopy::runtime
