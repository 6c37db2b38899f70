// canopy/workloads/graph/edge_list.hpp — an edge list and its conversion to CSR, with the clean-up
// options (symmetrize, drop self-loops, drop duplicate edges) every loader and generator goes through.
//
// Nothing is changed silently: build_csr() counts what it found and what it did in a build_report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "canopy/workloads/graph/csr.hpp"
#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {

struct edge {
    vertex_id u = 0, v = 0;
    weight_t w = 1; // ignored when the list is unweighted
};

struct edge_list {
    std::uint64_t num_vertices = 0;
    /// Each listed edge stands for both arcs u->v and v->u (Matrix Market `symmetric`, generators). A
    /// directed list gives one arc per entry (DIMACS, METIS — which lists both arcs itself —, SNAP).
    bool undirected = false;
    bool weighted = false;
    std::vector<edge> edges;
};

struct build_options {
    /// Add the arc v->u (same weight) for every arc u->v that has no reverse, so that BFS/SSSP on a
    /// directed input run on its undirected version.
    bool symmetrize = false;
    /// Drop arcs u->u (they never change a BFS level or a distance, but they count as edges).
    bool drop_self_loops = false;
    /// Keep one arc per (u, v): the lightest, so shortest-path distances do not change.
    bool drop_duplicates = false;
};

/// What build_csr() found and did. Counts are of arcs (directed), after undirected expansion.
struct build_report {
    std::uint64_t input_edges = 0;        // entries in the edge list
    std::uint64_t expanded_arcs = 0;      // arcs before clean-up (2 per non-loop undirected edge)
    std::uint64_t self_loops = 0;         // arcs u->u found
    std::uint64_t self_loops_dropped = 0; // ... and dropped (drop_self_loops)
    std::uint64_t duplicates = 0;         // arcs repeating an earlier (u, v), found
    std::uint64_t duplicates_dropped = 0; // ... and dropped (drop_duplicates)
    std::uint64_t reverse_arcs_added = 0; // by symmetrize
    std::uint64_t unpaired_arcs = 0;      // arcs u->v of the result without an arc v->u
    std::uint64_t vertices = 0, arcs = 0; // the result's size
    bool symmetric() const { return unpaired_arcs == 0; }
    /// One line, e.g. "7434 vertices, 86062 arcs (symmetric); 0 self-loops, 0 duplicates".
    std::string summary() const;
};

struct built_graph {
    csr_graph graph;
    build_report report;
};

/// Builds the CSR of `list` (throws std::invalid_argument for an endpoint >= num_vertices or more than
/// max_vertices vertices). Steps, in order: expand undirected edges to two arcs (a self-loop to one);
/// drop self-loops (option); sort every adjacency by (target, weight); count duplicates and drop all
/// but the lightest of each (option); symmetrize (option); count unpaired arcs.
built_graph build_csr(const edge_list& list, const build_options& options = {});

} // namespace canopy::workloads::graph
