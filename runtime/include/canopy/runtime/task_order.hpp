// canopy/runtime/task_order.hpp — the order in which a sub-group runs its own fronts (config::order).
//
//   lifo  newest first: depth-first, the working set of a tree stays small (UTS, fork-join);
//   fifo  oldest first: breadth-first, what asynchronous label-correcting (BFS, SSSP) wants, since a
//         vertex reached by a shorter path runs before the longer paths it would otherwise re-lower;
//   priority  Delta-stepping inside one launch: a task spawned with a priority above the device's
//         threshold (its bucket's end) goes to a device-scope "far" ring; everything else runs fifo.
//         When every outstanding task is far, one idle sub-group opens the far ring (every front in it
//         then) and raises the threshold to the least far priority + delta - 1. How strict: no far task
//         runs while a near task is outstanding (save a race in the emptiness check: two counters read
//         one after the other); an opening releases every far front at once, whatever its bucket.
//         With unit weights and delta 1 (BFS) every far task is in the next bucket: level by level,
//         each vertex once. With weights, far tasks of later buckets run early and may be re-lowered.
// The shared rings are FIFO in all orders (a ring is a queue), and a sub-group shares its oldest
// private fronts in all. The ring core honours every order; the locked core (the HRF paper's) is lifo
// only (run() refuses the others).
#pragma once

#include <string>

#include "canopy/platform/config.hpp"
#include "canopy/platform/error.hpp"

namespace canopy::runtime {

enum class task_order : unsigned { lifo, fifo, priority };

constexpr const char* to_string(task_order o) {
    return o == task_order::lifo ? "lifo" : o == task_order::fifo ? "fifo" : "priority";
}

/// The private ring's hook, every order: which of a sub-group's own fronts [ph, pt) it runs next.
/// priority runs its near fronts fifo; its far ones are order_priority.hpp's.
CANOPY_DEVICE constexpr unsigned next_private(task_order o, unsigned ph, unsigned pt) {
    return o == task_order::lifo ? pt - 1 : ph;
}

/// Parses "lifo", "fifo" or "priority"; throws canopy::error naming the choices otherwise.
inline task_order parse_task_order(const std::string& s) {
    for (task_order o : {task_order::lifo, task_order::fifo, task_order::priority}) {
        if (s == to_string(o)) {
            return o;
        }
    }
    throw error("canopy::runtime: unknown task order '" + s + "' (valid: lifo, fifo, priority)");
}

} // namespace canopy::runtime
