// canopy/workloads/graph/types.hpp — the integer types of canopy's graphs and their sentinels.
//
// Host and device code share this header. It includes no platform/ header, so host-only libraries
// (the loaders, compiled by the plain host compiler under every preset) can use it; everything here is
// constexpr, which nvcc (--expt-relaxed-constexpr) and hipcc accept in device code.
#pragma once

#include <cstdint>
#include <limits>

namespace canopy::workloads::graph {

/// Vertex ids are 32-bit: the largest graphs we target (Graph500 SCALE <= 31) fit, and 32-bit ids halve
/// the bandwidth of the adjacency array, which is what graph kernels are bound by.
using vertex_id = std::uint32_t;
/// Edge offsets are 64-bit: a SCALE-27 Kronecker graph already has more than 2^32 arcs.
using edge_id = std::uint64_t;
/// Edge weights are 32-bit unsigned integers; SSSP distances are 64-bit sums of them (no overflow for
/// any path of fewer than 2^32 edges).
using weight_t = std::uint32_t;
using distance_t = std::uint64_t;

/// "No vertex": a parent of an unreached vertex. Also the reason a graph holds at most 2^32 - 1 vertices.
inline constexpr vertex_id no_vertex = std::numeric_limits<vertex_id>::max();
/// The BFS level of a vertex the search did not reach (the CLI prints it as -1).
inline constexpr std::uint32_t unreached_level = std::numeric_limits<std::uint32_t>::max();
/// The SSSP distance of a vertex the search did not reach (the CLI prints it as inf).
inline constexpr distance_t infinite_distance = std::numeric_limits<distance_t>::max();
/// The most vertices a graph may have (ids 0 .. max_vertices - 1; no_vertex stays free).
inline constexpr std::uint64_t max_vertices = no_vertex;

} // namespace canopy::workloads::graph
