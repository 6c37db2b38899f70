// canopy/runtime/priority_words.hpp — order priority's device words (layout::priority), by name: the
// host seeds them (run.hpp) and the ring core reads them (ring_scheduler.hpp) through this one
// definition, never by raw offset.
//
// All four are read and written relaxed at device scope: counts and thresholds that decide what runs
// when, never data (the fronts go through the far ring's releases and acquires). A stale read opens a
// bucket early or late, or sends a task far that could have run now: order, not correctness.
#pragma once

#include "canopy/platform/config.hpp"

namespace canopy::runtime {

struct priority_words {
    /// Tasks in the far ring: counted before a far front is published and after it is taken, so far
    /// tasks <= outstanding at every moment (what lets an idle leader see that only far work is left).
    static constexpr unsigned far_tasks = 0;
    /// The open bucket's end: a child whose priority is above it is far.
    static constexpr unsigned threshold = 1;
    /// The far ring's open ticket: its fronts before this ticket belong to open buckets.
    static constexpr unsigned far_open = 2;
    /// The least far priority since the last opening (~0u: none): the next threshold is it + delta - 1.
    static constexpr unsigned far_min = 3;
    static constexpr unsigned count = 4;

    /// The host's image of the words before a launch: no far task, the threshold ending the first
    /// bucket [0, delta), nothing open, no least far priority yet. `words` holds `count` words.
    static void seed(unsigned* words, unsigned delta) {
        words[far_tasks] = 0;
        words[threshold] = delta - 1;
        words[far_open] = 0;
        words[far_min] = ~0u;
    }
};

} // namespace canopy::runtime
