// canopy/runtime/config.hpp — what a run is configured with (host side).
#pragma once

#include "canopy/runtime/policy.hpp"
#include "canopy/runtime/queue_design.hpp"
#include "canopy/runtime/task_order.hpp"

namespace canopy::runtime {

struct config {
    runtime::policy policy = policy::hrf_indirect;
    // The core (queue_design.hpp): lock-free rings with work shared on demand, or the HRF paper's
    // locked queues with threshold donation. And the order a sub-group runs its own fronts in.
    queue_design queues = queue_design::ring;
    task_order order = task_order::lifo;
    // Launch: persistent (occupancy discovery; grid = what the device holds resident) or a plain grid.
    bool persistent = true;
    unsigned grid = 0;   // work-groups when !persistent (0: as many as are resident)
    unsigned block = 64; // work-items per work-group: a multiple of the sub-group size
    // Queue capacities, in task-fronts; and the staging buffer, in tasks one lane may spawn per task.
    unsigned private_capacity = 32;
    unsigned workgroup_capacity = 16;
    unsigned device_capacity = 64;
    unsigned staging_capacity = 16;
    // Staging in the work-group's shared memory (LDS) when it fits without lowering how many work-groups
    // the device holds resident; otherwise (and by default) in the run's device buffer. Why: staging is
    // sub-group-private, but in global memory it passes through the L1, where every device-scope release
    // writes its dirty lines back and every acquire invalidates it (docs/runtime.md, "Staging in shared
    // memory"). Off by default until it is measured beyond fib: at the default staging_capacity only
    // payloads of up to 2 words fit beside hrf8's residency.
    bool staging_in_shared = false;
    // Locked core: donation thresholds (HRF §7.1 gives none; these are ours): a sub-group holding at least
    // `keep_private + 1` fronts donates its oldest when the work-group queue holds fewer than
    // `workgroup_threshold` fronts, else to the device queue when it holds fewer than
    // `device_threshold`; a work-group queue holding at least 2 fronts re-donates its oldest to a device
    // queue below its threshold. Steal policies donate only to the work-group queue.
    unsigned workgroup_threshold = 2;
    unsigned device_threshold = 4;
    unsigned keep_private = 1;
    unsigned max_donations_per_point = 2;
    // Ring core: a sub-group shares at most this many fronts at one scheduling point (one reservation),
    // and only as many as idle sub-groups outnumber the fronts already queued where they look.
    unsigned max_share_per_point = 8;
    // Ring core: how many device rings the device queue is split into (0: one per
    // `workgroups_per_device_ring` work-groups of the grid). Each work-group shares into and polls its
    // home ring first and probes one other per idle poll. Why: one ring for a whole GPU makes every
    // hand-off a CAS race among all its idle sub-groups on one head word (measured: docs/runtime.md, "Why
    // several device rings"). Seed fronts are dealt round the rings (one seed: ring 0).
    unsigned device_rings = 0;
    unsigned workgroups_per_device_ring = 8;
    // order = priority (task_order.hpp): the bucket width, and the far ring's capacity in fronts (0: the
    // device queue's).
    unsigned priority_delta = 1;
    unsigned far_capacity = 0;
    // Ring core, several devices in one run (system_level.hpp; the emulator only for now): the devices,
    // the system ring's capacity in fronts, and how many fronts a busy sub-group runs between looks
    // at the system's hunger (one system-scope load: a link crossing on GPUs).
    // And the fronts the system ring is kept stocked with per dry device.
    unsigned devices = 1;
    unsigned system_capacity = 256;
    unsigned system_poll = 4;
    unsigned system_stock = 8;
};

} // namespace canopy::runtime
