// canopy/workloads/graph/validate.hpp — checking a BFS or SSSP answer without trusting any other
// implementation: Graph500's BFS validation rules and its SSSP rules, over the graph itself.
//
// BFS rules (Graph500 specification, "Validation"; stated here for arcs, so they also hold on directed
// graphs; on a symmetric graph they are exactly Graph500's):
//   1 root:          level[root] == 0 (and parent[root] == root); no other vertex has level 0; a vertex
//                    has a parent exactly when it has a level. With rule 2 this makes the parent
//                    pointers a tree rooted at root (levels fall by one along every pointer: no cycle).
//   2 tree levels:   every reached v != root has level[v] == level[parent[v]] + 1. Without a parent
//                    array: some in-neighbour u of v has level[u] == level[v] - 1.
//   3 edge levels:   every arc u->v with u reached has v reached and level[v] <= level[u] + 1 (on an
//                    undirected graph: the endpoints' levels differ by at most one).
//   4 reachability:  the reached vertices are exactly those reachable from root in the graph (checked
//                    by an independent traversal), so the tree spans root's component and nothing else.
//   5 tree edges:    parent[v] -> v is an arc of the graph for every reached v != root.
// SSSP rules (Graph500 3.0's SSSP validation, for non-negative integer weights):
//   1 root:          distance[root] == 0 (and parent[root] == root).
//   2 relaxed:       every arc u->v with u reached has distance[v] <= distance[u] + w(u, v).
//   3 tight:         every reached vertex is reached from root along tight arcs (distance[u] + w ==
//                    distance[v]); with a parent array, parent[v] -> v is such an arc. (With positive
//                    weights "every reached v != root has a tight in-arc" implies this; with zero
//                    weights it does not, hence the stronger form.) Rules 1-3 together prove every
//                    distance exact: 2 bounds it above by the true distance, 3 below.
//   4 reachability:  the reached vertices (finite distance) are exactly those reachable from root.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "canopy/workloads/graph/csr.hpp"
#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {

enum class validation_rule {
    shape, // an array of the wrong size, a root out of range
    bfs_root,
    bfs_tree_levels,
    bfs_edge_levels,
    bfs_reachability,
    bfs_tree_edges,
    sssp_root,
    sssp_relaxed,
    sssp_tight,
    sssp_reachability,
    reference_mismatch, // compare_* below: a value differs from the oracle's
};
const char* rule_name(validation_rule r);

struct validation_issue {
    validation_rule rule;
    std::string message; // names the vertices and values
};

struct validation_report {
    /// The first max_issues issues found (every rule's count is in counts).
    std::vector<validation_issue> issues;
    std::uint64_t counts[11] = {}; // indexed by validation_rule
    std::uint64_t reached = 0;
    std::uint64_t depth = 0; // BFS: the largest level; SSSP: the largest finite distance
    bool ok() const { return total() == 0; }
    std::uint64_t total() const;
    std::uint64_t count(validation_rule r) const { return counts[static_cast<int>(r)]; }
    bool violates(validation_rule r) const { return count(r) != 0; }
    /// "valid: 7434 reached, depth 71" or the counts per rule and the first issues, one per line.
    std::string summary() const;
    void add(validation_rule r, std::string message);
    static constexpr std::size_t max_issues = 20;
};

/// Checks a BFS answer by BFS rules 1-5; `parent` may be empty (levels only: rule 2 then asks for an
/// in-neighbour one level up, rule 5 is skipped).
validation_report validate_bfs(const csr_graph& g, vertex_id root, std::span<const std::uint32_t> level,
                               std::span<const vertex_id> parent = {});

/// Checks an SSSP answer by SSSP rules 1-4 on g's weights (unit weights when g has none); `parent` may be
/// empty.
validation_report validate_sssp(const csr_graph& g, vertex_id root, std::span<const distance_t> distance,
                                std::span<const vertex_id> parent = {});

/// Element-wise comparison with an oracle's answer (reference_mismatch issues name the vertices).
validation_report compare_levels(std::span<const std::uint32_t> expected,
                                 std::span<const std::uint32_t> actual);
validation_report compare_distances(std::span<const distance_t> expected, std::span<const distance_t> actual);

} // namespace canopy::workloads::graph
