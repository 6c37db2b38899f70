// canopy/workloads/graph/coloring_reference.hpp — colouring's oracles and validator (host-only).
//
// reference_jones_plassmann simulates the multi-kernel/persistent strategies' iterations sequentially
// (iteration k colours every uncoloured vertex that comes before all its neighbours uncoloured at the
// iteration's start) in color_before's order; reference_greedy_color colours vertices one by one in
// ldf_before's order (the larger degree first, ties by color_before) with the smallest colour no
// neighbour has (the tasks strategy's result). Both use coloring_order.hpp and ignore self-loops.
// validate_coloring checks any colouring without trusting either.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "canopy/workloads/graph/coloring_order.hpp"
#include "canopy/workloads/graph/csr.hpp"

namespace canopy::workloads::graph {

std::vector<std::uint32_t> reference_jones_plassmann(const csr_graph& g);
std::vector<std::uint32_t> reference_greedy_color(const csr_graph& g);

/// The sequential greedy colouring in largest-degree-first order (ties: the smaller id first), the
/// usual yardstick of a colouring's quality: what a parallel colouring's colour count is held to.
std::vector<std::uint32_t> reference_greedy_color_ldf(const csr_graph& g);

struct coloring_report {
    bool ok = false;
    std::uint32_t colors = 0;    // the largest colour + 1
    std::uint64_t uncolored = 0; // vertices with no_color (or a colour array of the wrong size)
    std::uint64_t conflicts = 0; // arcs u->v, u != v, with equal colours
    std::string message;         // the first problem, naming vertices and colours; empty when ok
};

/// A proper colouring: the array has one colour per vertex, every vertex is coloured, and no arc
/// u -> v with u != v joins two vertices of the same colour (self-loops are ignored).
coloring_report validate_coloring(const csr_graph& g, std::span<const std::uint32_t> colors);

} // namespace canopy::workloads::graph
