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
// The mutex is a ticket lock (fair: FIFO, the paper's high-recall choice) or a test-and-set spin lock
// (unfair: low, variable recall). `delay` lock/unlock pairs between the phases let work-groups that
// are resident but slow to start join (the paper's CPU pilot; Sorensen's later code uses 5-10 on GPUs).
#pragma once

#include <cstddef>
#include <vector>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/barrier.hpp"
#include "canopy/platform/config.hpp"
#include "canopy/platform/ids.hpp"
#include "canopy/platform/memory.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/shared_memory.hpp"
#include "canopy/platform/spin.hpp"

namespace canopy::sync {

enum class discovery_lock : unsigned { ticket = 0, spin = 1 };

constexpr const char* to_string(discovery_lock l) { return l == discovery_lock::ticket ? "ticket" : "spin"; }

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

/// Layout of the protocol's device words; the dense ids M[native id] follow them.
enum word : unsigned { ticket_next, ticket_serving, spin_flag, poll_open, count, words_before_ids };
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
    discovery_view(unsigned* words, unsigned max_groups, discovery_lock lock, unsigned delay)
        : w_(words), max_groups_(max_groups), lock_(lock), delay_(delay) {}

    /// Every work-item of the work-group calls join() at kernel start, before anything else; it returns
    /// whether the work-group participates (the same answer in every work-item). Non-participants must
    /// return at once, all together. Only work-item 0 runs the protocol: lanes of one sub-group have
    /// no independent progress, so they must never contend for one lock (D.2.7).
    CANOPY_DEVICE bool join() const {
        participation& p = detail::block_participation();
        if (thread_id() == 0) {
            p = protocol();
        }
        block_barrier(); // publishes p (block-shared memory) to the work-group
        return p.participating != 0;
    }

    CANOPY_DEVICE unsigned max_groups() const { return max_groups_; }

  private:
    // Inside the critical sections the fields are relaxed device-scope atomics: the lock's
    // acquire/release (device scope) already orders them, and atomics keep the compiler from caching
    // them in registers and an L1 from serving them stale (digest A.2 note).
    CANOPY_DEVICE unsigned get(unsigned i) const {
        return atomic_ref<unsigned, scope::device>(w_[i]).load(std::memory_order_relaxed);
    }
    CANOPY_DEVICE void set(unsigned i, unsigned v) const {
        atomic_ref<unsigned, scope::device>(w_[i]).store(v, std::memory_order_relaxed);
    }

    CANOPY_DEVICE participation protocol() const {
        if (block_id() >= max_groups_) {
            return {0, 0, 0}; // the context was sized for fewer work-groups: never participate
        }
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
        if (lock_ == discovery_lock::ticket) {
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
        if (lock_ == discovery_lock::ticket) {
            atomic_ref<unsigned, scope::device> serving(w_[detail::ticket_serving]);
            // Only the holder writes `serving`, so a relaxed read of it is current; the release at
            // device scope publishes the critical section to the next holder.
            serving.store(serving.load(std::memory_order_relaxed) + 1, std::memory_order_release);
        } else {
            atomic_ref<unsigned, scope::device>(w_[detail::spin_flag]).store(0, std::memory_order_release);
        }
    }

    unsigned* w_;
    unsigned max_groups_;
    discovery_lock lock_;
    unsigned delay_;
};

/// Host side: owns the protocol's device words for launches of up to `max_groups` work-groups.
class discovery_context {
  public:
    explicit discovery_context(unsigned max_groups, discovery_lock lock = discovery_lock::ticket,
                               unsigned delay = default_delay)
        : words_(detail::words_before_ids + max_groups), max_groups_(max_groups), lock_(lock), delay_(delay) {
        reset();
    }

    /// Lock/unlock pairs between the phases by default: enough for every resident work-group that is
    /// already queued on the (FIFO) ticket lock to join before the first participant closes the poll.
    static constexpr unsigned default_delay = 10;

    /// Re-initialises the words (poll open, count 0, locks free, ids cleared). The protocol consumes
    /// its state, so this must run before every launch that discovers again (D.2.5).
    void reset() {
        std::vector<unsigned> init(detail::words_before_ids + max_groups_, 0u);
        init[detail::poll_open] = 1;
        words_.upload(init);
    }

    discovery_view view() const { return {words_.data(), max_groups_, lock_, delay_}; }

    /// After a launch: the participants' count (read back from the device).
    unsigned participants() const { return read()[detail::count]; }
    /// After a launch: M, the dense id of each native work-group (meaningful for participants only).
    std::vector<unsigned> dense_ids() const {
        const auto all = read();
        return {all.begin() + detail::words_before_ids, all.end()};
    }
    discovery_lock lock() const { return lock_; }
    unsigned max_groups() const { return max_groups_; }

  private:
    std::vector<unsigned> read() const { return words_.to_vector(); }
    device_buffer<unsigned> words_;
    unsigned max_groups_;
    discovery_lock lock_;
    unsigned delay_;
};

} // namespace canopy::sync
