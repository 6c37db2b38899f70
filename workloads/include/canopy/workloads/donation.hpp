// canopy/workloads/donation.hpp — the HRF paper's donation example as one small kernel ([HRF] §4, §7;
// notes/scopes-hrf-rsp.md §1.4, §2.2): the program that separates HRF-direct from HRF-indirect.
//
// A producer (work-item 0 of work-group 0) writes a task's payload and publishes it at work-group
// scope. A mover in the same work-group (lane 0 of its second sub-group) acquires it at work-group scope
// and donates it to a device-wide queue with a device-scope release. A consumer in work-group 1 acquires
// the queue at device scope and reads the payload.
//   - by reference: the mover publishes only where the payload is. The payload's write and read are
//     ordered by so_WG then so_DV: a chain at two scopes, so the program is racy under HRF-direct (no
//     single-scope chain orders them) and race-free under HRF-indirect (hb is transitive across scopes).
//   - by copy: the mover copies the payload and publishes the copy. Each hop carries only what its own
//     scope published (the consumer reads the mover's write, ordered by one device-scope edge): race-free
//     under both. canopy's scheduler donates this way (docs/scopes.md).
// The producer and the mover are in different sub-groups so that the mover's spin never waits for a
// lane of its own sub-group (lanes of one wavefront need not make independent progress).
#pragma once

#include <atomic>

#include "canopy/platform/atomic.hpp"
#include "canopy/platform/ids.hpp"
#include "canopy/platform/plain_access.hpp"
#include "canopy/platform/scope.hpp"
#include "canopy/platform/spin.hpp"
#include "canopy/platform/subgroup.hpp"

namespace canopy::workloads {

/// The words of the donation kernel's buffer (zeroed before the launch).
struct donation_layout {
    static constexpr unsigned payload = 0; // the task, written by the producer
    static constexpr unsigned flag = 1;    // work-group-scope publication (1: the task is there)
    static constexpr unsigned queue = 2;   // the device queue's one slot: index of the task + 1
    static constexpr unsigned copy = 3;    // the mover's copy (by-copy variant)
    static constexpr unsigned result = 4;  // what the consumer read
    static constexpr unsigned status = 5;  // 1 when a wait timed out (a hang becomes a report)
    static constexpr unsigned words = 6;
    static constexpr unsigned task = 0x5eed42u; // the payload the consumer must read
};

/// Launch with 2 work-groups of at least two sub-groups each; both must be resident at once.
struct donation_kernel {
    unsigned* m = nullptr;
    bool by_reference = true;

    CANOPY_DEVICE void operator()() const {
        using L = donation_layout;
        const unsigned t = thread_id();
        if (block_id() == 0 && t == 0) { // producer
            st(&m[L::payload], L::task);
            // Release at work-group scope: the cheap publication HRF-indirect allows a producer.
            atomic_ref<unsigned, scope::workgroup>(m[L::flag]).store(1, std::memory_order_release);
        } else if (block_id() == 0 && t == subgroup_size()) { // mover: lane 0 of sub-group 1
            // Acquire at work-group scope: pairs with the producer's release (same work-group).
            if (!spin_until_bounded([&] {
                    return atomic_ref<unsigned, scope::workgroup>(m[L::flag])
                               .load(std::memory_order_acquire) == 1;
                })) {
                st(&m[L::status], 1u);
                return;
            }
            unsigned at = L::payload;
            if (!by_reference) {
                st(&m[L::copy], ld(&m[L::payload]));
                at = L::copy;
            }
            // Release at device scope: the consumer is in another work-group.
            atomic_ref<unsigned, scope::device>(m[L::queue]).store(at + 1, std::memory_order_release);
        } else if (block_id() == 1 && t == 0) { // consumer
            unsigned published = 0;
            // Acquire at device scope: pairs with the mover's release.
            if (!spin_until_bounded([&] {
                    published =
                        atomic_ref<unsigned, scope::device>(m[L::queue]).load(std::memory_order_acquire);
                    return published != 0;
                })) {
                st(&m[L::status], 1u);
                return;
            }
            st(&m[L::result], ld(&m[published - 1]));
        }
    }
};

} // namespace canopy::workloads
