// canopy/workloads/graph/partition.hpp — a 1-D block partition of a graph's vertices over P parts (MPI
// ranks or emulated devices): part r owns the vertices [lo(r), hi(r)) and their out-arcs (docs/scale-out.md).
//
// Blocks, not a hash or a cyclic map: a vertex's owner is one division, a part's vertices are one range,
// and the parts' label arrays concatenate into the whole graph's in rank order (how rank 0 gathers them).
// How many arcs stay inside a part is the numbering's doing: copter2's (libmetis-doc) is close to random
// for this, 47% of its arcs cross between 2 blocks and 63% between 4 (a random map: 50% and 75%).
//
// Host and device: no platform/ header; everything is constexpr (types.hpp says why that serves both).
#pragma once

#include <cstdint>

#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {

struct block_partition {
    vertex_id vertices = 0;
    unsigned parts = 1; // >= 1

    /// Vertices per part (the last part may hold fewer, or none on a tiny graph).
    constexpr vertex_id chunk() const {
        const vertex_id c = static_cast<vertex_id>((std::uint64_t{vertices} + parts - 1) / parts);
        return c != 0 ? c : 1;
    }
    constexpr vertex_id lo(unsigned part) const {
        const std::uint64_t at = std::uint64_t{chunk()} * part;
        return at < vertices ? static_cast<vertex_id>(at) : vertices;
    }
    constexpr vertex_id hi(unsigned part) const { return lo(part + 1); }
    constexpr vertex_id size(unsigned part) const { return hi(part) - lo(part); }
    constexpr unsigned owner(vertex_id v) const { return static_cast<unsigned>(v / chunk()); }
};

} // namespace canopy::workloads::graph
