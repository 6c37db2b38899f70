// canopy/runtime/task_order.hpp — the order in which a sub-group runs its own fronts (config::order).
//
//   lifo  newest first: depth-first, the working set of a tree stays small (UTS, fork-join);
//   fifo  oldest first: breadth-first, what asynchronous label-correcting (BFS, SSSP) wants, since a
//         vertex reached by a shorter path runs before the longer paths it would otherwise re-lower.
// The shared rings are FIFO in both orders (a ring is a queue), and a sub-group shares its oldest
// private fronts in both. The ring core honours both orders; the locked core (the HRF paper's) is lifo
// only (run() refuses fifo there).
#pragma once

#include <string>

#include "canopy/platform/error.hpp"

namespace canopy::runtime {

enum class task_order : unsigned { lifo, fifo };

constexpr const char* to_string(task_order o) { return o == task_order::lifo ? "lifo" : "fifo"; }

/// Parses "lifo" or "fifo"; throws canopy::error naming the choices otherwise.
inline task_order parse_task_order(const std::string& s) {
    for (task_order o : {task_order::lifo, task_order::fifo}) {
        if (s == to_string(o)) {
            return o;
        }
    }
    throw error("canopy::runtime: unknown task order '" + s + "' (valid: lifo, fifo)");
}

} // namespace canopy::runtime
