// canopy/runtime/layout.hpp — where a run's state lives in its one device buffer (32-bit words).
//
//   status | outstanding | priority words | device queue | far queue | work-group queues |
//   steal requests | mailboxes | idle counts | device rings 1.. | private queues | staging buffers |
//   stats rows
//
// The queues are front_queue (locked core) or front_ring (ring core) images: `rings` says which. The
// idle counts (ring core) are one word for the device and one per work-group: how many sub-groups are
// waiting for work there (the hunger that sharing answers); then the ring last shared into (a hint). The ring
// core splits the device queue into device_rings rings: ring 0 is `device_queue` (inside the uploaded head);
// rings 1.. lie after the idle counts, in the part of the buffer that is zeroed on the device (a zeroed ring
// is empty). Seed fronts are dealt round the rings; only a ring that gets one is uploaded, and only its
// seeded part.
//
// Offsets are 64-bit words counts, and every product that locates a sub-group's or work-group's part is
// formed in 64 bits: at MI300X scale the buffer approaches 2^31 words with the default capacities
// (staging alone is sub-groups x lanes x staging_capacity x staged words), and a 32-bit offset would
// wrap silently into another sub-group's queue. The host refuses a layout it cannot allocate.
#pragma once

#include "canopy/platform/config.hpp"
#include "canopy/queues/front_queue.hpp"
#include "canopy/queues/front_ring.hpp"
#include "canopy/runtime/priority_words.hpp"

namespace canopy::runtime {

struct layout {
    using offset = unsigned long long; // words from the start of the buffer

    queues::front_shape shape;
    unsigned workgroups = 0, subgroups_per_block = 0;
    unsigned private_capacity = 0, workgroup_capacity = 0, device_capacity = 0, staging_capacity = 0;
    unsigned staged_words = 0, counters = 0;
    bool rings = false; // ring core: front_ring queues and the idle counts
    // Staging in the launch's dynamic shared memory (config::staging_in_shared): the buffer has no
    // staging region, and staging_at is not used.
    bool staging_shared = false;
    // Region offsets. The first three are fixed: the host uploads only [0, workgroup_queues) (status,
    // counter, the device queue holding the seeds) and reads back only the status, the counter, the
    // stats rows and, on failure, the queues' control words.
    // priority: order priority's words (priority_words.hpp; ring core). The far ring exists when
    // far_capacity != 0.
    unsigned far_capacity = 0;
    unsigned device_rings = 1; // ring core: the device queue's rings (ring 0 at device_queue)
    offset status = 0, outstanding = 1, priority = 2, device_queue = 2 + priority_words::count, far_queue = 0,
           workgroup_queues = 0, requests = 0, mailboxes = 0, idle = 0, more_device_rings = 0,
           private_queues = 0, staging = 0, stats = 0, total = 0;

    CANOPY_HOST_DEVICE unsigned subgroups() const { return workgroups * subgroups_per_block; }
    CANOPY_HOST_DEVICE offset queue_words(unsigned capacity) const {
        return rings ? queues::front_ring::words(capacity, shape)
                     : queues::front_queue::words(capacity, shape);
    }
    CANOPY_HOST_DEVICE offset workgroup_queue_words() const { return queue_words(workgroup_capacity); }
    /// Ring core: sub-groups waiting for work on the device (idle_device) and in work-group wg.
    CANOPY_HOST_DEVICE offset idle_device() const { return idle; }
    CANOPY_HOST_DEVICE offset idle_workgroup(unsigned wg) const { return idle + 1 + wg; }
    /// Ring core: the device ring a sub-group last shared into (a hint the hungry poll after their home
    /// ring), after the work-groups' idle counts, in the zeroed part of the buffer.
    CANOPY_HOST_DEVICE offset shared_hint() const { return idle + 1 + workgroups; }
    CANOPY_HOST_DEVICE unsigned mailbox_words() const { return 1 + shape.words(); }

    // ---- where each part starts (64-bit products throughout) ----
    CANOPY_HOST_DEVICE offset workgroup_queue_at(unsigned wg) const {
        return workgroup_queues + offset{wg} * workgroup_queue_words();
    }
    /// Device ring k (ring core; k < device_rings).
    CANOPY_HOST_DEVICE offset device_ring_at(unsigned k) const {
        return k == 0 ? device_queue : more_device_rings + offset{k - 1} * queue_words(device_capacity);
    }
    CANOPY_HOST_DEVICE offset request_at(unsigned wg) const { return requests + wg; }
    CANOPY_HOST_DEVICE offset mailbox_at(unsigned sg) const {
        return mailboxes + offset{sg} * mailbox_words();
    }
    /// Front `i` (an unbounded index) of sub-group `sg`'s private ring: the capacity is a power of two,
    /// so `i & (capacity - 1)` stays consistent when the 32-bit index wraps.
    CANOPY_HOST_DEVICE offset private_at(unsigned sg, unsigned i) const {
        return private_queues +
               (offset{sg} * private_capacity + (i & (private_capacity - 1))) * shape.words();
    }
    /// The first staged entry of lane `lane` of sub-group `sg` (in the buffer: !staging_shared). A
    /// sub-group's staging is entry-major: entry i of lane l at (i * lanes + l) * staged_words
    /// (task_context's stride), so that the lanes' first spawns share lines (a front's spawns touch
    /// as many lines as they fill, not one per lane) and, on a GPU, their stores coalesce.
    CANOPY_HOST_DEVICE offset staging_at(unsigned sg, unsigned lane) const {
        return staging + staging_offset(sg, lane);
    }
    /// Where lane `lane` of sub-group `sg` starts within a staging region that holds sub-groups 0, 1,
    /// ... side by side: the run's buffer's (staging_at, sg = the global sub-group), or a work-group's
    /// shared memory (core_base::staging_of, sg = the sub-group within its work-group). One formula for
    /// both, so that the two places cannot disagree about the entry-major order.
    CANOPY_HOST_DEVICE offset staging_offset(unsigned sg, unsigned lane) const {
        return (offset{sg} * shape.lanes * staging_capacity + lane) * staged_words;
    }
    CANOPY_HOST_DEVICE offset stats_at(unsigned sg) const { return stats + offset{sg} * counters; }

    void finish() {
        far_queue = device_queue + queue_words(device_capacity);
        workgroup_queues = far_queue + (far_capacity != 0 ? queue_words(far_capacity) : 0);
        requests = workgroup_queue_at(workgroups);
        mailboxes = requests + workgroups;
        idle = mailbox_at(subgroups());
        more_device_rings = idle + (rings ? 2 + offset{workgroups} : 0);
        private_queues = more_device_rings + offset{device_rings - 1} * queue_words(device_capacity);
        staging = private_queues + offset{subgroups()} * private_capacity * shape.words();
        stats = staging_shared ? staging : staging_at(subgroups(), 0);
        total = stats_at(subgroups());
    }
};

} // namespace canopy::runtime
