// canopy/workloads/graph/coloring_order.hpp — the priority order of graph colouring (and count_colors),
// shared by the kernels (coloring.hpp) and the host oracles (coloring_reference.hpp), so both order vertices
// alike.
//
// A vertex's priority is mix64(v + K) (weights.hpp's SplitMix64 finalizer, K = 0x9e3779b97f4a7c15: a
// pseudo-random order, as Pannotia's and Jones-Plassmann's random weights), ties broken by the larger
// id: a strict total order. (mix64 is a bijection, so distinct ids never tie; the tie rule makes the
// order total by construction rather than by that fact.) constexpr and platform/-free (types.hpp's rule).
#pragma once

#include <cstdint>
#include <span>

#include "canopy/workloads/graph/types.hpp"
#include "canopy/workloads/graph/weights.hpp"

namespace canopy::workloads::graph {

/// The colour of a vertex not yet coloured.
inline constexpr std::uint32_t no_color = 0xffffffffu;

constexpr std::uint64_t color_priority(vertex_id v) {
    return mix64(std::uint64_t{v} + 0x9e3779b97f4a7c15ull);
}

/// True when u comes before v: u has the higher priority (the larger id on a tie).
constexpr bool color_before(vertex_id u, vertex_id v) {
    const std::uint64_t pu = color_priority(u), pv = color_priority(v);
    return pu != pv ? pu > pv : u > v;
}

/// The tasks strategy's order (its DAG colouring; which end of a speculative clash keeps its colour):
/// the larger degree first, ties by color_before. Its greedy colouring is a largest-degree-first one;
/// reference_greedy_color_ldf, the yardstick, breaks ties by the smaller id instead, which on a mesh
/// numbered row by row chains the DAG along the rows (road20k: 918 K cycles against 98 K).
constexpr bool ldf_before(std::uint64_t du, vertex_id u, std::uint64_t dv, vertex_id v) {
    return du != dv ? du > dv : color_before(u, v);
}

/// The number of colours of a colouring: the largest colour + 1 (0 when empty; no_color entries are
/// not counted).
inline std::uint32_t count_colors(std::span<const std::uint32_t> colors) {
    std::uint32_t n = 0;
    for (std::uint32_t c : colors) {
        if (c != no_color && c + 1 > n) {
            n = c + 1;
        }
    }
    return n;
}

} // namespace canopy::workloads::graph
