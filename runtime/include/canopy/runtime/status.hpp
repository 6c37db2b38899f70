// canopy/runtime/status.hpp — the device status word: how a run fails cleanly.
//
// One 32-bit word in device memory, 0 while the run is healthy. The first failure wins a CAS from 0
// and records what failed and where (kind in the top byte, an index below); every sub-group checks the
// word (at each scheduling point while it has no front of its own, every status_poll_fronts-th front
// while it has: core_base.hpp) and stops, and the host turns it into a canopy::error naming the queue
// and its level. A task is never dropped silently: a full queue fails the run instead.
#pragma once

#include <string>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/config.hpp"

namespace canopy::runtime {

enum class failure : unsigned {
    none = 0,
    private_overflow = 1,   // index: global sub-group id
    workgroup_overflow = 2, // index: work-group
    device_overflow = 3,    // index: 0
    staging_overflow = 4,   // index: global sub-group id * 64 + lane
    corrupt_front = 5,      // index: global sub-group id (type or count out of range: stale data)
    counter_underflow = 6,  // index: global sub-group id (more completions than spawns: a duplicate)
    spin_timeout = 7,       // index: global sub-group id (a bounded wait gave up: spin_until_bounded)
};

CANOPY_HOST_DEVICE constexpr unsigned encode(failure f, unsigned index) {
    return static_cast<unsigned>(f) << 24 | (index & 0xffffffu);
}

/// Records the first failure (device scope: every work-group polls the word). Relaxed: the word carries
/// no data besides itself, and the run's results are read by the host after the kernel ends.
CANOPY_DEVICE inline void report(unsigned* status, failure f, unsigned index) {
    unsigned expected = 0;
    atomic_ref<unsigned, scope::device>(*status).compare_exchange_strong(expected, encode(f, index),
                                                                         std::memory_order_relaxed);
}

CANOPY_DEVICE inline bool failed(unsigned* status) {
    return atomic_ref<unsigned, scope::device>(*status).load(std::memory_order_relaxed) != 0;
}

/// The host's message for a status word (names the queue and its level).
inline std::string describe(unsigned word, unsigned private_capacity, unsigned workgroup_capacity,
                            unsigned device_capacity, unsigned staging_capacity) {
    const auto f = static_cast<failure>(word >> 24);
    const unsigned i = word & 0xffffffu;
    const std::string pre = "canopy::runtime: ";
    switch (f) {
    case failure::none: return pre + "no failure";
    case failure::private_overflow:
        return pre + "queue overflow: private queue of sub-group " + std::to_string(i) +
               " (level sub-group, capacity " + std::to_string(private_capacity) + " fronts)";
    case failure::workgroup_overflow:
        return pre + "queue overflow: work-group queue of work-group " + std::to_string(i) +
               " (level work-group, capacity " + std::to_string(workgroup_capacity) + " fronts)";
    case failure::device_overflow:
        return pre + "queue overflow: device queue (level device, capacity " +
               std::to_string(device_capacity) + " fronts)";
    case failure::staging_overflow:
        return pre + "queue overflow: staging buffer of sub-group " + std::to_string(i / 64) + " lane " +
               std::to_string(i % 64) + " (level lane, capacity " + std::to_string(staging_capacity) +
               " tasks per executed task)";
    case failure::corrupt_front:
        return pre + "corrupt task-front read by sub-group " + std::to_string(i) +
               " (type or count out of range: stale data, a too-narrow scope)";
    case failure::counter_underflow:
        return pre + "outstanding-work counter underflow seen by sub-group " + std::to_string(i) +
               " (a task ran twice)";
    case failure::spin_timeout:
        return pre + "sub-group " + std::to_string(i) +
               " waited past the spin bound for work or a queue lock (a lost task, a lock never released, "
               "or a hang; the bound is CANOPY_SPIN_TIMEOUT_NS in a GPU debug build, CANOPY_EMU_SPIN_LIMIT "
               "polls on the emulator)";
    }
    return pre + "unknown failure word " + std::to_string(word);
}

} // namespace canopy::runtime
