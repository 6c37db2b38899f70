// canopy/sync/xf_barrier.hpp — the XF (Xiao–Feng) master/slave inter-work-group barrier.
//
// Xiao & Feng, IPDPS 2010, in the OpenCL 2.0 form of Sorensen et al., OOPSLA 2016, §4.2 (Fig. 2, with
// the strided master loop of D.1.7): no RMWs, one flag per work-group, every flag access a device-scope
// atomic (arrival: slave release-stores 1, master acquire-loads it; departure: master release-stores
// 0, slave acquire-loads it). Each flag alternates strictly between its slave (writes 1 after seeing 0)
// and its master thread (writes 0 after seeing 1), so after every episode every flag is 0 again and
// needs no reinitialisation or sense (claim 9).
//
// The master is participating work-group 0, not native work-group 0, which discovery may have refused
// (D.1.3). The barrier spans `groups` work-groups that must all be resident at once: use occupancy
// discovery (discovery.hpp); over a grid larger than the device holds it deadlocks (§2.3).
//
// Porting note (digest D.2.1): every work-item issues a device-scope release fence before the arrival
// work-group barrier, so a non-representative's writes are released at device scope without relying
// on cumulativity through the work-group barrier (an LLVM AMDGPU gap in CU mode, fixed in 2025).
//
//   canopy::sync::xf_barrier_state st(max_groups);   // host: one zeroed flag per work-group
//   st.barrier().wait();                              // kernel: after discovery (p_* ids)
//   st.barrier().wait(canopy::block_id(), canopy::grid_dim());   // or explicit ids
#pragma once

#include <cstddef>
#include <vector>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/barrier.hpp"
#include "canopy/platform/config.hpp"
#include "canopy/platform/ids.hpp"
#include "canopy/platform/memory.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/spin.hpp"
#include "canopy/sync/discovery.hpp"

namespace canopy::sync {

/// Device side: a copyable view of the flags (at least as many as participating work-groups).
class xf_barrier {
  public:
    explicit xf_barrier(unsigned* flags) : flag_(flags) {}

    /// Over the participants of occupancy discovery (p_group_id(), p_num_groups()).
    CANOPY_DEVICE void wait() const { wait(p_group_id(), p_num_groups()); }

    /// Over `groups` work-groups with dense ids `group` in [0, groups). Every work-item calls it.
    CANOPY_DEVICE void wait(unsigned group, unsigned groups) const {
        fence<scope::device>(std::memory_order_release); // the porting note: see the header comment
        if (group == 0) {
            // MASTER: work-item t manages slaves t+1, t+1+B, ... (strided, so any group count works).
            for (unsigned i = thread_id() + 1; i < groups; i += block_dim()) {
                atomic_ref<unsigned, scope::device> f(flag_[i]);
                // Acquire at device scope: reads the slave's release of 1, so everything its work-group
                // wrote before arriving happens-before what the master (and, through it, everyone) does.
                spin_until([&] { return f.load(std::memory_order_acquire) == 1; });
            }
            // Fence, barrier, fence at device scope (OpenCL's work_group_barrier(flags,
            // memory_scope_device)): the arrivals one master work-item acquired reach the one that
            // releases slave i through device-scope edges only, so the barrier is race-free under
            // HRF-direct as well (docs/race-detector.md); the work-group barrier alone is a
            // work-group-scope edge, which HRF-direct does not compose with the device-scope ones.
            fence<scope::device>(std::memory_order_release);
            block_barrier(); // every slave has arrived
            fence<scope::device>(std::memory_order_acquire);
            for (unsigned i = thread_id() + 1; i < groups; i += block_dim()) {
                // Release at device scope: the departure carries every arrival (acquired by this work-
                // group, joined by the barrier above) to slave i.
                atomic_ref<unsigned, scope::device>(flag_[i]).store(0, std::memory_order_release);
            }
        } else {
            block_barrier(); // the whole slave work-group has arrived
            if (thread_id() == 0) {
                // Acquire at device scope: takes the work-group's release fences (before the barrier)
                // at device scope, so the release below carries them in a one-scope chain.
                fence<scope::device>(std::memory_order_acquire);
                atomic_ref<unsigned, scope::device> f(flag_[group]);
                // Release at device scope: announces the arrival with the work-group's writes.
                f.store(1, std::memory_order_release);
                // Acquire at device scope: the master's release of 0 is the departure.
                spin_until([&] { return f.load(std::memory_order_acquire) == 0; });
                fence<scope::device>(std::memory_order_release); // the departure, to the others
            }
            block_barrier(); // the others wait for their representative
            fence<scope::device>(std::memory_order_acquire);
        }
    }

  private:
    unsigned* flag_;
};

/// Host side: owns one flag per work-group, zeroed once; they are 0 again after every completed episode.
/// reset() only after an aborted or deadlocked launch, which can leave flags at 1 (D.2.5).
class xf_barrier_state {
  public:
    explicit xf_barrier_state(unsigned max_groups) : flags_(max_groups > 0 ? max_groups : 1) { reset(); }
    void reset() { flags_.fill_zero(); }
    xf_barrier barrier() const { return xf_barrier(flags_.data()); }
    std::size_t size() const { return flags_.size(); }
    /// The flags, read back (all 0 between launches unless one was aborted).
    std::vector<unsigned> flags() const { return flags_.to_vector(); }

  private:
    device_buffer<unsigned> flags_;
};

} // namespace canopy::sync
