// canopy/sync/atomic_barrier.hpp — the atomic-counter (sense-reversing) inter-work-group barrier.
//
// Xiao & Feng, "Inter-block GPU communication via fast barrier synchronization", IPDPS 2010 (the
// "GPU simple/atomic" barrier), as measured by Stuart & Owens 2011 (§5, Fig. 6) against the XF barrier.
// Each work-group's representative increments one device-scope counter; the last to arrive resets it
// and bumps a generation word the others wait on. One contended RMW per work-group per episode: simple,
// and the serialization point that makes it slower than XF at scale (S&O claim 14).
//
// Like every inter-work-group barrier it deadlocks unless all `groups` work-groups are resident at once:
// pass the participants of occupancy discovery (p_group_id / p_num_groups), not the launch size.
//
//   canopy::sync::atomic_barrier_state st;          // host: 2 words of device memory, zeroed
//   ... in the kernel, every work-item of every participating work-group:
//   st.barrier().wait(p_num_groups());
#pragma once

#include <vector>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/barrier.hpp"
#include "canopy/platform/config.hpp"
#include "canopy/platform/ids.hpp"
#include "canopy/platform/memory.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/spin.hpp"

namespace canopy::sync {

/// Device side: a copyable view of the barrier's two words ([0] arrivals, [1] generation).
class atomic_barrier {
  public:
    explicit atomic_barrier(unsigned* words) : w_(words) {}

    /// Every work-item of each of the `groups` work-groups calls it; none returns before all arrived,
    /// and every write before it (any work-item) happens-before every access after it (any work-item).
    CANOPY_DEVICE void wait(unsigned groups) const {
        // Every work-item releases its own writes at device scope before the arrival work-group
        // barrier (digest D.2.1): the representative's device-scope release below then does not depend
        // on the compiler making a work-group barrier cumulative up to device scope.
        fence<scope::device>(std::memory_order_release);
        block_barrier(); // the whole work-group has arrived (and its writes are ordered before ours)
        if (thread_id() == 0) {
            // Acquire at device scope: with every work-item's release fence before the barrier, the
            // work-group barrier is a device-scope synchronization (fence, barrier, fence: OpenCL's
            // work_group_barrier(flags, memory_scope_device)), so the chain to other work-groups uses one
            // scope and the barrier is race-free under HRF-direct too (docs/race-detector.md).
            fence<scope::device>(std::memory_order_acquire);
            atomic_ref<unsigned, scope::device> arrived(w_[0]);
            atomic_ref<unsigned, scope::device> generation(w_[1]);
            // Relaxed: the generation cannot advance before this work-group arrives, so the value only
            // names the episode to wait for (the "sense"; wrap-around is fine, the test is !=).
            const unsigned g = generation.load(std::memory_order_relaxed);
            // acq_rel at device scope: the release carries this work-group's writes into the counter's
            // release sequence; the acquire lets the last arriver see every earlier arrival's writes.
            if (arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == groups) {
                // Relaxed: published by the release on the generation below; the next episode's
                // increments happen after that release is acquired, so they see 0.
                arrived.store(0, std::memory_order_relaxed);
                // Release at device scope: hands everything the last arriver acquired to the waiters.
                generation.store(g + 1, std::memory_order_release);
            } else {
                // Acquire at device scope: pairs with the last arriver's release of the generation.
                spin_until([&] { return generation.load(std::memory_order_acquire) != g; });
            }
            // Release at device scope, then the barrier, then every work-item's acquire: the departure
            // reaches the work-group at device scope (one scope end to end, as at the arrival).
            fence<scope::device>(std::memory_order_release);
        }
        // The departure: the representative's acquire reaches its work-group through the barrier web.
        block_barrier();
        fence<scope::device>(std::memory_order_acquire);
    }

  private:
    unsigned* w_;
};

/// Host side: owns the two words. They return to 0 arrivals after every completed episode, so one
/// state serves any number of barriers and launches; reset() only after an aborted launch.
class atomic_barrier_state {
  public:
    atomic_barrier_state() : words_(2) { reset(); }
    void reset() { words_.fill_zero(); }
    atomic_barrier barrier() const { return atomic_barrier(words_.data()); }
    /// The words, read back: {arrivals (0 between episodes), generation (episodes completed)}.
    std::vector<unsigned> words() const { return words_.to_vector(); }

  private:
    device_buffer<unsigned> words_;
};

} // namespace canopy::sync
