// canopy/sync/discovery.hpp — occupancy discovery: which launched work-groups are resident together.
//
// Sorensen, Donaldson, Batty, Gopalakrishnan, Rakamarić, "Portable inter-workgroup barrier
// synchronisation for GPUs", OOPSLA 2016, §3 (Fig. 3, Table 2). A GPU promises fair scheduling only
// among resident work-groups, and how many fit is unknown at compile time. The protocol finds, at run
// time, a set of work-groups that are resident at the same moment (the participants): a polling phase
// joins while the poll is open, a closing phase closes it. A work-group that finds the poll closed did
// not start before some participant finished the protocol, so it does not participate and exits.
// Participants get dense ids (p_group_id() in [0, p_num_groups())) and may wait on each other.
//
//   canopy::sync::discovery_context ctx(grid);              // host: device words, initialised
//   canopy::launch({.grid = grid, .block = 64}, [d = ctx.view()] {
//       if (!d.join()) return;                               // every work-item; uniform per group
//       for (unsigned i = p_global_id(); i < n; i += p_global_size()) ...
//   });
//   ctx.reset();                                             // before the next launch
//
// Three protocols (discovery_protocol):
//
// * counter (the default; issue 10 item 4). Sorensen's phases without a mutex: one 64-bit device word,
//   [bit 63: closed][bits 32..62: the count frozen at the close][bits 0..31: joins]. Join is one
//   fetch_add: the old value says whether the poll was open and, if so, is the dense id. Close is a CAS
//   that sets `closed` and copies the join count into the frozen field; every participant reads the
//   same final count from it, even though joins that arrive after the close keep incrementing the low
//   field (they see `closed` in their old value and do not participate). A participant closes as soon
//   as every launched work-group has joined (the common case: persistent launches size the grid at the
//   occupancy), or when it has seen the join count unchanged for `delay` consecutive polls (a quiet
//   window that, like Sorensen's delay, lets resident work-groups that start late join), or it finds
//   the word closed by someone else. Its cost per work-group is one RMW, one store, the polls and one
//   CAS, none of them queued behind the other work-groups: it does not grow with N serially, where the
//   ticket lock costs about (2 + delay) x N serialized lock hand-offs.
//
//   Why fetch_add and not a CAS that increments while open: a CAS loop under contention lets one
//   winner through per round trip to L2, so the last of N simultaneous joiners waits N round trips (on
//   the scoped-cache model, timed, that is again linear in N). fetch_add never fails; the price is that
//   a closed word still counts late arrivals, hence the frozen field, hence 64 bits.
//
//   Memory orders: every access to the word is a relaxed device-scope atomic, and that is enough.
//   - Safety and the ids need only the word's own modification order (coherence), which every scope-
//     correct atomic gets at device scope: the participants are exactly the joins ordered before the
//     close, their old values are 0..n-1, and the close froze n. No other location is published
//     through the word, so there is nothing for an acquire or release to order: the result reaches the
//     work-group through block-shared memory and block_barrier (work-group scope), M[native id] is read
//     by the host after the kernel, and the body synchronises on its own (e.g. the XF barrier's
//     release/acquire flags). Nothing in a persistent kernel precedes join().
//   - Co-residency: each participant joined before the close (modification order of one word, which
//     on coherent L2 is real-time order for RMWs) and returns only after reading a closed value, so at
//     the moment of the close every participant has started and none has finished.
//   - The polls only decide *when* to close, never who participates or the count: those come from
//     the fetch_add and the CAS, RMWs performed at L2 (the scoped-cache model's "device-scope RMW:
//     performed at L2"). A stale poll can only show an older, smaller count, never a close that has
//     not happened. So the polls' scope matters for recall and latency, not safety: they are device
//     scope, performed at L2 (the model's "device-scope relaxed load: L2, bypassing L1";
//     ld.relaxed.gpu on NVIDIA, an agent-scope glc load on AMD), so they see every join as it
//     happens. A work-group-scope poll may keep reading its CU's L1 copy, see no join for `delay`
//     polls while joins are arriving, and close early (its CAS then still freezes every join made so
//     far). Acquire would add an L1 invalidation per poll and buy nothing.
//   - Termination: the count only grows and is at most max_groups, so a participant stops polling
//     after at most (max_groups + 1) x delay polls; a close CAS fails only when a join or another
//     close intervened, at most max_groups + 1 times.
//
// * ticket: Sorensen's protocol under a ticket lock (fair: FIFO, the paper's high-recall choice).
// * spin: the same under a test-and-set spin lock (unfair: low, variable recall).
//   `delay` lock/unlock pairs between the phases let work-groups that are resident but slow to start
//   join (the paper's CPU pilot; Sorensen's later code uses 5-10 on GPUs). Each of the ~(2 + delay) x N
//   critical sections is a lock hand-off queued behind every other work-group: kept as the reference
//   the counter protocol is measured against (bench/discovery_bench.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/barrier.hpp"
#include "canopy/platform/config.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/ids.hpp"
#include "canopy/platform/memory.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/shared_memory.hpp"
#include "canopy/platform/spin.hpp"

namespace canopy::sync {

enum class discovery_protocol : unsigned { counter = 0, ticket = 1, spin = 2 };

constexpr const char* to_string(discovery_protocol p) {
    switch (p) {
    case discovery_protocol::counter: return "counter";
    case discovery_protocol::ticket: return "ticket";
    case discovery_protocol::spin: return "spin";
    }
    return "?";
}

/// This work-group's result, broadcast to its work-items through block-shared memory.
struct participation {
    unsigned participating; // 1: run the main computation; 0: exit
    unsigned group_id;      // dense participating id (valid when participating)
    unsigned num_groups;    // participants in total (valid when participating)
};

namespace detail {
/// The calling work-group's participation (block-shared; written by discovery_view::join).
CANOPY_DEVICE inline participation& block_participation() {
    CANOPY_SHARED(participation, slot);
    return slot;
}

/// Layout of the lock protocols' device words; the dense ids M[native id] follow them (all protocols).
enum word : unsigned { ticket_next, ticket_serving, spin_flag, poll_open, count, words_before_ids };

/// The counter protocol's word (see the header comment).
inline constexpr std::uint64_t poll_closed = std::uint64_t{1} << 63;
inline constexpr std::uint64_t poll_joins = 0xffff'ffffULL; // bits 0..31: fetch_adds so far
inline constexpr unsigned poll_frozen_shift = 32;           // bits 32..62: joins at the close
inline constexpr std::uint64_t poll_frozen_max = (std::uint64_t{1} << 31) - 1;

/// The word a close writes over `open` (an open value): closed, with its join count frozen.
CANOPY_HOST_DEVICE constexpr std::uint64_t poll_close(std::uint64_t open) {
    return poll_closed | ((open & poll_joins) << poll_frozen_shift) | (open & poll_joins);
}
/// The final participant count of a closed word.
CANOPY_HOST_DEVICE constexpr unsigned poll_final(std::uint64_t closed) {
    return static_cast<unsigned>((closed >> poll_frozen_shift) & poll_frozen_max);
}
} // namespace detail

/// Participating id of the calling work-group (Table 2's p_get_group_id). Valid after join().
CANOPY_DEVICE inline unsigned p_group_id() { return detail::block_participation().group_id; }
/// Participating work-groups (Table 2's p_get_num_groups; §4.2's p_get_disc_groups).
CANOPY_DEVICE inline unsigned p_num_groups() { return detail::block_participation().num_groups; }
/// Participating global id and size: kernels loop `for (i = p_global_id(); i < n; i += p_global_size())`.
CANOPY_DEVICE inline unsigned p_global_id() { return p_group_id() * block_dim() + thread_id(); }
CANOPY_DEVICE inline unsigned p_global_size() { return p_num_groups() * block_dim(); }

/// The device side of the protocol: a copyable view of the words a discovery_context owns.
class discovery_view {
  public:
    discovery_view(unsigned* words, std::uint64_t* poll, unsigned max_groups, discovery_protocol protocol,
                   unsigned delay)
        : w_(words), poll_(poll), max_groups_(max_groups), protocol_(protocol), delay_(delay) {}

    /// Every work-item of the work-group calls join() at kernel start, before anything else; it returns
    /// whether the work-group participates (the same answer in every work-item). Non-participants must
    /// return at once, all together. Only work-item 0 runs the protocol: lanes of one sub-group have
    /// no independent progress, so they must never contend for one lock (D.2.7).
    CANOPY_DEVICE bool join() const {
        participation& p = detail::block_participation();
        if (thread_id() == 0) {
            if (block_id() >= max_groups_) {
                p = {0, 0, 0}; // the context was sized for fewer work-groups: never participate
            } else if (protocol_ == discovery_protocol::counter) {
                p = counter_protocol();
            } else {
                p = lock_protocol();
            }
        }
        block_barrier(); // publishes p (block-shared memory) to the work-group
        return p.participating != 0;
    }

    CANOPY_DEVICE unsigned max_groups() const { return max_groups_; }

  private:
    CANOPY_DEVICE participation counter_protocol() const {
        // Relaxed device scope throughout: see "Memory orders" in the header comment.
        atomic_ref<std::uint64_t, scope::device> word(*poll_);
        // ---- join: one fetch_add, never retried ----
        const std::uint64_t before = word.fetch_add(1, std::memory_order_relaxed);
        if ((before & detail::poll_closed) != 0) {
            return {0, 0, 0}; // the poll closed before this work-group arrived; the increment is harmless
        }
        const auto id = static_cast<unsigned>(before & detail::poll_joins);
        set(detail::words_before_ids + block_id(), id); // M[native id] = dense id (the host reads it)
        // ---- wait until the poll may close ----
        // Every launched work-group that can participate has joined: nobody else can, close at once.
        const unsigned everyone = grid_dim() < max_groups_ ? grid_dim() : max_groups_;
        std::uint64_t seen = before + 1;
        unsigned quiet = 0;
        spin_until([&] {
            const std::uint64_t now = word.load(std::memory_order_relaxed);
            if ((now & detail::poll_closed) != 0 || (now & detail::poll_joins) >= everyone) {
                seen = now;
                return true;
            }
            // Open, so the word is just the join count: `delay` polls in a row without a join end the
            // window (a join restarts it). The window's length does not depend on N.
            quiet = now == seen ? quiet + 1 : 0;
            seen = now;
            return quiet >= delay_;
        });
        // ---- close (or find it closed) ----
        // A failed CAS returns the current word: closed by another participant (done), or open with a
        // later join (retry with the new count; at most one retry per joining work-group).
        while ((seen & detail::poll_closed) == 0) {
            const std::uint64_t closed = detail::poll_close(seen);
            if (word.compare_exchange_strong(seen, closed, std::memory_order_relaxed,
                                             std::memory_order_relaxed)) {
                seen = closed;
            }
        }
        return {1, id, detail::poll_final(seen)};
    }

    // Inside the critical sections the fields are relaxed device-scope atomics: the lock's
    // acquire/release (device scope) already orders them, and atomics keep the compiler from caching
    // them in registers and an L1 from serving them stale (digest A.2 note).
    CANOPY_DEVICE unsigned get(unsigned i) const {
        return atomic_ref<unsigned, scope::device>(w_[i]).load(std::memory_order_relaxed);
    }
    CANOPY_DEVICE void set(unsigned i, unsigned v) const {
        atomic_ref<unsigned, scope::device>(w_[i]).store(v, std::memory_order_relaxed);
    }

    CANOPY_DEVICE participation lock_protocol() const {
        // ---- polling phase ----
        lock();
        if (get(detail::poll_open) == 0) {
            unlock();
            return {0, 0, 0}; // the poll closed before this work-group arrived
        }
        const unsigned id = get(detail::count);
        set(detail::words_before_ids + block_id(), id); // M[native id] = dense id
        set(detail::count, id + 1);
        unlock();
        for (unsigned i = 0; i < delay_; ++i) { // let resident work-groups that start late queue up
            lock();
            unlock();
        }
        // ---- closing phase ----
        lock();
        set(detail::poll_open, 0); // the first participant to get here closes it; later ones see it closed
        const unsigned n = get(detail::count); // final: count changes only while the poll is open
        unlock();
        return {1, id, n};
    }

    CANOPY_DEVICE void lock() const {
        if (protocol_ == discovery_protocol::ticket) {
            // Relaxed: the ticket is only a number in the queue; the acquire is on `serving`.
            const unsigned mine = atomic_ref<unsigned, scope::device>(w_[detail::ticket_next])
                                      .fetch_add(1, std::memory_order_relaxed);
            atomic_ref<unsigned, scope::device> serving(w_[detail::ticket_serving]);
            // Poll relaxed, then acquire once at device scope: the previous holder (another work-group)
            // released its critical section with the store to `serving`; the fence after the read that
            // saw it synchronizes with that release. An acquire on every poll would invalidate this
            // CU's L1 (AMD, and the scoped-cache model) each time, for every waiting work-group.
            // Equality is wrap-safe (D.2.9).
            spin_until([&] { return serving.load(std::memory_order_relaxed) == mine; });
            fence<scope::device>(std::memory_order_acquire);
        } else {
            atomic_ref<unsigned, scope::device> flag(w_[detail::spin_flag]);
            // Test-and-set, relaxed; the acquire (device scope) only on a win, as above: winning
            // synchronizes with the last unlock.
            spin_until([&] { return flag.exchange(1, std::memory_order_relaxed) == 0; });
            fence<scope::device>(std::memory_order_acquire);
        }
    }
    CANOPY_DEVICE void unlock() const {
        if (protocol_ == discovery_protocol::ticket) {
            atomic_ref<unsigned, scope::device> serving(w_[detail::ticket_serving]);
            // Only the holder writes `serving`, so a relaxed read of it is current; the release at
            // device scope publishes the critical section to the next holder.
            serving.store(serving.load(std::memory_order_relaxed) + 1, std::memory_order_release);
        } else {
            atomic_ref<unsigned, scope::device>(w_[detail::spin_flag]).store(0, std::memory_order_release);
        }
    }

    unsigned* w_;
    std::uint64_t* poll_;
    unsigned max_groups_;
    discovery_protocol protocol_;
    unsigned delay_;
};

/// Host side: owns the protocol's device words for launches of up to `max_groups` work-groups.
class discovery_context {
  public:
    explicit discovery_context(unsigned max_groups, discovery_protocol protocol = discovery_protocol::counter)
        : discovery_context(max_groups, protocol, default_delay(protocol)) {}
    discovery_context(unsigned max_groups, discovery_protocol protocol, unsigned delay)
        : words_(detail::words_before_ids + max_groups), poll_(1), max_groups_(max_groups),
          protocol_(protocol), delay_(delay) {
        if (max_groups > detail::poll_frozen_max) {
            throw error("canopy::sync::discovery_context: at most " +
                        std::to_string(detail::poll_frozen_max) +
                        " work-groups (the counter protocol's frozen count has 31 bits)");
        }
        reset();
    }

    /// The protocol's `delay` when none is given.
    /// - ticket, spin: lock/unlock pairs between the phases: enough for every resident work-group that
    ///   is already queued on the (FIFO) ticket lock to join before the first participant closes.
    /// - counter: polls without a join before a participant closes (used only when fewer work-groups
    ///   joined than were launched, i.e. an oversubscribed launch). Long enough for a late-starting
    ///   resident work-group: on a GPU, 24 polls with spin_until's backoff (32 ns doubling to 1 us)
    ///   span ~20 us, far beyond the dispatcher's skew between resident work-groups; on the emulator's
    ///   deterministic scheduler a runnable work-item makes ~2 x 24 steps meanwhile and needs 2 to join.
    ///   Short enough for the deterministic watchdog: N spinners polling 24 times are ~48 N idle steps,
    ///   under its bound of 10,000 + 64 x (live work-items) even for work-groups of one work-item
    ///   (tests/sync/test_discovery.cpp, CounterQuietWindowStaysUnderTheWatchdog).
    static constexpr unsigned default_delay(discovery_protocol p) {
        return p == discovery_protocol::counter ? 24 : 10;
    }

    /// Re-initialises the words (poll open, count 0, locks free, ids cleared). The protocol consumes
    /// its state, so this must run before every launch that discovers again (D.2.5).
    void reset() {
        std::vector<unsigned> init(detail::words_before_ids + max_groups_, 0u);
        init[detail::poll_open] = 1;
        words_.upload(init);
        poll_.upload(std::vector<std::uint64_t>{0}); // open, no joins
    }

    discovery_view view() const { return {words_.data(), poll_.data(), max_groups_, protocol_, delay_}; }

    /// After a launch: the participants' count (read back from the device).
    unsigned participants() const {
        if (protocol_ != discovery_protocol::counter) {
            return read()[detail::count];
        }
        const std::uint64_t w = poll_.to_vector()[0];
        // Never closed: no participant finished the protocol (no launch since the reset).
        return (w & detail::poll_closed) != 0 ? detail::poll_final(w) : 0;
    }
    /// After a launch: M, the dense id of each native work-group (meaningful for participants only).
    std::vector<unsigned> dense_ids() const {
        const auto all = read();
        return {all.begin() + detail::words_before_ids, all.end()};
    }
    discovery_protocol protocol() const { return protocol_; }
    unsigned delay() const { return delay_; }
    unsigned max_groups() const { return max_groups_; }

  private:
    std::vector<unsigned> read() const { return words_.to_vector(); }
    device_buffer<unsigned> words_;
    device_buffer<std::uint64_t> poll_;
    unsigned max_groups_;
    discovery_protocol protocol_;
    unsigned delay_;
};

} // namespace canopy::sync
