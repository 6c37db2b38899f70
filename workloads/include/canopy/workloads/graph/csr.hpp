// canopy/workloads/graph/csr.hpp — the host-side CSR graph: what loaders and generators produce and
// what the oracles read. Device code takes a csr_view (csr_view.hpp) of copies of these arrays.
//
// Host-only (std::vector); includes no platform/ header, so the plain-C++ loader library can use it.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {

/// A directed graph in compressed sparse row form: the out-arcs of vertex v are
/// targets()[offsets()[v] .. offsets()[v + 1]), with weights() parallel to targets() when the graph is
/// weighted. An undirected graph is stored with both arcs of every edge (csr_graph::num_edges() counts
/// arcs). Graphs built by build_csr() (edge_list.hpp), i.e. by every loader and generator, have each
/// adjacency sorted by (target, weight); graphs built from raw arrays need not.
class csr_graph {
  public:
    csr_graph() : offsets_(1, 0) {}
    /// Takes the arrays and checks the invariants (throws std::invalid_argument): offsets start at 0,
    /// never decrease, end at targets.size(); every target < num_vertices; weights empty or parallel.
    csr_graph(std::vector<edge_id> offsets, std::vector<vertex_id> targets,
              std::vector<weight_t> weights = {});

    vertex_id num_vertices() const { return static_cast<vertex_id>(offsets_.size() - 1); }
    edge_id num_edges() const { return targets_.size(); }
    bool has_weights() const { return !weights_.empty(); }

    std::span<const edge_id> offsets() const { return offsets_; }
    std::span<const vertex_id> targets() const { return targets_; }
    /// Empty when the graph is unweighted.
    std::span<const weight_t> weights() const { return weights_; }

    edge_id degree(vertex_id v) const { return offsets_[v + 1] - offsets_[v]; }
    std::span<const vertex_id> neighbours(vertex_id v) const {
        return std::span<const vertex_id>(targets_).subspan(offsets_[v], degree(v));
    }
    /// The weights of v's out-arcs, parallel to neighbours(v); empty when unweighted.
    std::span<const weight_t> neighbour_weights(vertex_id v) const {
        if (weights_.empty()) {
            return {};
        }
        return std::span<const weight_t>(weights_).subspan(offsets_[v], degree(v));
    }
    /// The weight of arc e (1 on an unweighted graph, so that hop counts and distances coincide).
    weight_t weight(edge_id e) const { return weights_.empty() ? weight_t{1} : weights_[e]; }
    /// The vertex of largest out-degree (the lowest id among ties); a source choice for benchmarks.
    vertex_id max_degree_vertex() const;

    /// Replaces the weights (size num_edges(), or empty to drop them).
    void set_weights(std::vector<weight_t> weights);

  private:
    std::vector<edge_id> offsets_;
    std::vector<vertex_id> targets_;
    std::vector<weight_t> weights_;
};

} // namespace canopy::workloads::graph
