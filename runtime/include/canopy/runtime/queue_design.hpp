// canopy/runtime/queue_design.hpp — which runtime core a run uses (config::queues).
//
//   ring    the default core, built for fine-grained, wide work: lock-free rings of fronts
//           (canopy/queues/front_ring.hpp: a sub-group moves k fronts with one index RMW), fronts read
//           in place and copied by every lane at once, work shared on demand (idle sub-groups are
//           counted per work-group and per device) and private overflow spilled outward;
//   locked  the HRF paper's core (its Fig. 9): a lock word per queue (canopy/queues/front_queue.hpp),
//           one front per leader operation, threshold donation. What the HRF experiment measures.
// Both take every policy, with the same scope per queue level (docs/scopes.md).
#pragma once

#include <string>

#include "canopy/platform/error.hpp"

namespace canopy::runtime {

enum class queue_design : unsigned { ring, locked };

constexpr const char* to_string(queue_design q) { return q == queue_design::ring ? "ring" : "locked"; }

/// Parses "ring" or "locked"; throws canopy::error naming the choices otherwise.
inline queue_design parse_queue_design(const std::string& s) {
    for (queue_design q : {queue_design::ring, queue_design::locked}) {
        if (s == to_string(q)) {
            return q;
        }
    }
    throw error("canopy::runtime: unknown queue design '" + s + "' (valid: ring, locked)");
}

} // namespace canopy::runtime
