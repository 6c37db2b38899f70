// canopy/workloads/graph/weights.hpp — the deterministic weight rule for unweighted graphs, so that
// SSSP runs on every input with answers anyone can reproduce.
//
// hash_weight(u, v) = 1 + mix64(min(u, v) * 2^32 + max(u, v)) mod 255, with mix64 SplitMix64's
// finalizer (docs/graph.md). It is symmetric in u and v, so an undirected graph stays undirected, and
// in 1..255 like Graph500's generator here. constexpr, so kernels may compute it instead of loading it.
#pragma once

#include <cstdint>

#include "canopy/workloads/graph/csr.hpp"
#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {

/// SplitMix64's output function (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
constexpr std::uint64_t mix64(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

constexpr weight_t hash_weight(vertex_id u, vertex_id v) {
    const std::uint64_t lo = u < v ? u : v;
    const std::uint64_t hi = u < v ? v : u;
    return static_cast<weight_t>(1 + mix64((lo << 32) | hi) % 255);
}

/// A copy of g whose arcs carry hash_weight(u, v) (any weights g had are replaced).
csr_graph with_hash_weights(const csr_graph& g);

} // namespace canopy::workloads::graph
