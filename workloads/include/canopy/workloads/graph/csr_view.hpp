// canopy/workloads/graph/csr_view.hpp — a CSR graph as raw pointers and sizes, for kernels.
//
// A plain aggregate with no std:: containers, so it can be passed by value to a kernel on every
// backend; the pointers may point at host memory (the emulator, the oracles) or at device buffers that
// the caller allocated and filled through platform/ (the view owns nothing). Include it only from code
// compiled for a backend (it includes platform/config.hpp for CANOPY_HOST_DEVICE); host-only code
// uses csr_graph.
#pragma once

#include "canopy/platform/config.hpp"
#include "canopy/workloads/graph/csr.hpp"
#include "canopy/workloads/graph/types.hpp"

namespace canopy::workloads::graph {

struct csr_view {
    const edge_id* offsets = nullptr;   // num_vertices + 1 entries
    const vertex_id* targets = nullptr; // num_edges entries
    const weight_t* weights = nullptr;  // num_edges entries, or null when unweighted
    vertex_id num_vertices = 0;
    edge_id num_edges = 0;

    CANOPY_HOST_DEVICE edge_id begin(vertex_id v) const { return offsets[v]; }
    CANOPY_HOST_DEVICE edge_id end(vertex_id v) const { return offsets[v + 1]; }
    CANOPY_HOST_DEVICE edge_id degree(vertex_id v) const { return offsets[v + 1] - offsets[v]; }
    CANOPY_HOST_DEVICE vertex_id target(edge_id e) const { return targets[e]; }
    CANOPY_HOST_DEVICE bool has_weights() const { return weights != nullptr; }
    /// 1 on an unweighted graph, as csr_graph::weight() (an unweighted SSSP is a BFS).
    CANOPY_HOST_DEVICE weight_t weight(edge_id e) const {
        return weights != nullptr ? weights[e] : weight_t{1};
    }
};

/// A view of a host graph's own arrays (valid while the graph lives and is not modified).
inline csr_view make_view(const csr_graph& g) {
    return csr_view{g.offsets().data(), g.targets().data(), g.has_weights() ? g.weights().data() : nullptr,
                    g.num_vertices(), g.num_edges()};
}

} // namespace canopy::workloads::graph
