// canopy/runtime/layout.hpp — where a run's state lives in its one device buffer (32-bit words).
//
//   status | outstanding | device queue | work-group queues | steal requests | mailboxes |
//   private queues | staging buffers | stats rows
#pragma once

#include "canopy/platform/config.hpp"
#include "canopy/queues/front_queue.hpp"

namespace canopy::runtime {

struct layout {
    queues::front_shape shape;
    unsigned workgroups = 0, subgroups_per_block = 0;
    unsigned private_capacity = 0, workgroup_capacity = 0, device_capacity = 0, staging_capacity = 0;
    unsigned staged_words = 0, counters = 0;
    // offsets
    unsigned status = 0, outstanding = 1, device_queue = 2, workgroup_queues = 0, requests = 0, mailboxes = 0,
             private_queues = 0, staging = 0, stats = 0, total = 0;

    CANOPY_HOST_DEVICE unsigned subgroups() const { return workgroups * subgroups_per_block; }
    CANOPY_HOST_DEVICE unsigned workgroup_queue_words() const {
        return queues::front_queue::words(workgroup_capacity, shape);
    }
    CANOPY_HOST_DEVICE unsigned mailbox_words() const { return 1 + shape.words(); }

    void finish() {
        workgroup_queues = device_queue + queues::front_queue::words(device_capacity, shape);
        requests = workgroup_queues + workgroups * workgroup_queue_words();
        mailboxes = requests + workgroups;
        private_queues = mailboxes + subgroups() * mailbox_words();
        staging = private_queues + subgroups() * private_capacity * shape.words();
        stats = staging + subgroups() * shape.lanes * staging_capacity * staged_words;
        total = stats + subgroups() * counters;
    }
};

} // namespace canopy::runtime
