// canopy/workloads/graph/generate.hpp — deterministic graph generators. docs/graph.md defines each
// one exactly (every random draw), so that other implementations can reproduce the graphs bit for bit.
//
// Random draws come from a counter-based generator (draw(seed, stream, index)): each value depends on
// its coordinates only, never on the order of generation or on the standard library's distributions
// (which differ between implementations).
#pragma once

#include <cstdint>

#include "canopy/workloads/graph/edge_list.hpp"
#include "canopy/workloads/graph/weights.hpp"

namespace canopy::workloads::graph {

/// The counter-based random value of the generators: mix64(mix64(seed ^ (stream * K1)) + index * K2)
/// with K1 = 0xd1b54a32d192ed03, K2 = 0x9e3779b97f4a7c15.
constexpr std::uint64_t draw(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
    return mix64(mix64(seed ^ (stream * 0xd1b54a32d192ed03ull)) + index * 0x9e3779b97f4a7c15ull);
}
/// draw() as a double in [0, 1): its top 53 bits times 2^-53.
constexpr double draw_unit(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
    return static_cast<double>(draw(seed, stream, index) >> 11) * 0x1.0p-53;
}

/// Graph500's Kronecker generator (specification, section "Graph generation"; 2^scale vertices,
/// edge_factor * 2^scale undirected edges; initiator probabilities a, b, c and d = 1 - a - b - c;
/// vertex labels randomly permuted; weights uniform in 1..255 here).
struct kronecker_params {
    unsigned scale = 10;
    unsigned edge_factor = 16;
    std::uint64_t seed = 1;
    double a = 0.57, b = 0.19, c = 0.19;
};
/// The undirected, weighted edge list (self-loops and repeated edges included, as Graph500's is).
edge_list kronecker_edges(const kronecker_params& p);
/// kronecker_edges() through build_csr (the default options drop self-loops and duplicates, which
/// Graph500's kernel 1 may do; pass other options to keep them).
built_graph make_kronecker(const kronecker_params& p, const build_options& options = {false, true, true});

/// The rows x cols 4-neighbour grid: vertex (r, c) has id r * cols + c. Weights: the horizontal edge
/// (r, c)-(r, c+1) weighs r + 1, every vertical edge weighs 3. From a corner source (0, 0) the BFS
/// level of (r, c) is r + c and its distance c + 3r; grid_distance() gives every source's closed form.
edge_list grid_edges(std::uint32_t rows, std::uint32_t cols);
built_graph make_grid(std::uint32_t rows, std::uint32_t cols);
/// The closed-form BFS level and SSSP distance between grid vertices (r0, c0) and (r, c): levels are
/// |r - r0| + |c - c0|; a shortest path climbs to some row k <= min(r0, r), crosses there and comes
/// back, so the distance is min over k of |c - c0| * (k + 1) + 3 * (r0 + r - 2k).
std::uint64_t grid_level(std::uint32_t r0, std::uint32_t c0, std::uint32_t r, std::uint32_t c);
distance_t grid_distance(std::uint32_t r0, std::uint32_t c0, std::uint32_t r, std::uint32_t c);

/// Uniform random graph G(n, m): edge e joins draw(seed, 4, 2e) mod n and draw(seed, 4, 2e + 1) mod n
/// with weight 1 + draw(seed, 5, e) mod 255; undirected unless `directed`.
struct uniform_params {
    std::uint32_t vertices = 1024;
    std::uint64_t edges = 8192;
    std::uint64_t seed = 1;
    bool directed = false;
};
edge_list uniform_edges(const uniform_params& p);
built_graph make_uniform(const uniform_params& p, const build_options& options = {false, true, true});

} // namespace canopy::workloads::graph
