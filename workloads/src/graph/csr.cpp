// The CSR graph and build_csr(): edge list -> sorted, cleaned CSR, with every change counted.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "canopy/workloads/graph/csr.hpp"
#include "canopy/workloads/graph/edge_list.hpp"
#include "canopy/workloads/graph/weights.hpp"

namespace canopy::workloads::graph {

csr_graph::csr_graph(std::vector<edge_id> offsets, std::vector<vertex_id> targets,
                     std::vector<weight_t> weights)
    : offsets_(std::move(offsets)), targets_(std::move(targets)), weights_(std::move(weights)) {
    if (offsets_.empty() || offsets_.front() != 0) {
        throw std::invalid_argument("csr_graph: offsets must start with 0");
    }
    if (offsets_.size() - 1 > max_vertices) {
        throw std::invalid_argument("csr_graph: more than 2^32 - 1 vertices");
    }
    if (offsets_.back() != targets_.size()) {
        throw std::invalid_argument("csr_graph: the last offset must equal the number of targets");
    }
    if (!weights_.empty() && weights_.size() != targets_.size()) {
        throw std::invalid_argument("csr_graph: weights must be empty or one per target");
    }
    for (std::size_t i = 1; i < offsets_.size(); ++i) {
        if (offsets_[i] < offsets_[i - 1]) {
            throw std::invalid_argument("csr_graph: offsets decrease at vertex " + std::to_string(i - 1));
        }
    }
    const std::uint64_t n = offsets_.size() - 1;
    for (vertex_id t : targets_) {
        if (t >= n) {
            throw std::invalid_argument("csr_graph: target " + std::to_string(t) +
                                        " >= " + std::to_string(n) + " vertices");
        }
    }
}

vertex_id csr_graph::max_degree_vertex() const {
    vertex_id best = 0;
    for (vertex_id v = 1; v < num_vertices(); ++v) {
        if (degree(v) > degree(best)) {
            best = v;
        }
    }
    return best;
}

void csr_graph::set_weights(std::vector<weight_t> weights) {
    if (!weights.empty() && weights.size() != targets_.size()) {
        throw std::invalid_argument("csr_graph::set_weights: one weight per arc, or none");
    }
    weights_ = std::move(weights);
}

csr_graph with_hash_weights(const csr_graph& g) {
    std::vector<weight_t> w(g.num_edges());
    for (vertex_id u = 0; u < g.num_vertices(); ++u) {
        for (edge_id e = g.offsets()[u]; e < g.offsets()[u + 1]; ++e) {
            w[e] = hash_weight(u, g.targets()[e]);
        }
    }
    csr_graph out = g;
    out.set_weights(std::move(w));
    return out;
}

namespace {

// An arc packed as (target << 32 | weight) so that one integer sort orders an adjacency by target and,
// among parallel arcs, by weight: the first of a run of duplicates is then the lightest.
using packed = std::uint64_t;
constexpr packed pack(vertex_id v, weight_t w) { return (static_cast<packed>(v) << 32) | w; }
constexpr vertex_id target_of(packed p) { return static_cast<vertex_id>(p >> 32); }
constexpr weight_t weight_of(packed p) { return static_cast<weight_t>(p); }

struct arc {
    vertex_id u;
    packed p;
};

// Counting sort by source, then a sort of every adjacency.
void assemble(std::uint64_t n, const std::vector<arc>& arcs, std::vector<edge_id>& offsets,
              std::vector<packed>& adj) {
    offsets.assign(n + 1, 0);
    for (const arc& a : arcs) {
        ++offsets[a.u + 1];
    }
    for (std::uint64_t v = 0; v < n; ++v) {
        offsets[v + 1] += offsets[v];
    }
    adj.resize(arcs.size());
    std::vector<edge_id> next(offsets.begin(), offsets.end() - 1);
    for (const arc& a : arcs) {
        adj[next[a.u]++] = a.p;
    }
    for (std::uint64_t v = 0; v < n; ++v) {
        std::sort(adj.begin() + static_cast<std::ptrdiff_t>(offsets[v]),
                  adj.begin() + static_cast<std::ptrdiff_t>(offsets[v + 1]));
    }
}

bool has_arc(const std::vector<edge_id>& offsets, const std::vector<packed>& adj, vertex_id u, vertex_id v) {
    auto first = adj.begin() + static_cast<std::ptrdiff_t>(offsets[u]);
    auto last = adj.begin() + static_cast<std::ptrdiff_t>(offsets[u + 1]);
    auto it = std::lower_bound(first, last, pack(v, 0));
    return it != last && target_of(*it) == v;
}

} // namespace

built_graph build_csr(const edge_list& list, const build_options& options) {
    const std::uint64_t n = list.num_vertices;
    if (n > max_vertices) {
        throw std::invalid_argument("build_csr: " + std::to_string(n) +
                                    " vertices; at most 2^32 - 1 fit 32-bit ids");
    }
    build_report rep;
    rep.input_edges = list.edges.size();
    std::vector<arc> arcs;
    arcs.reserve(list.edges.size() * (list.undirected ? 2 : 1));
    for (const edge& e : list.edges) {
        if (e.u >= n || e.v >= n) {
            throw std::invalid_argument("build_csr: edge " + std::to_string(e.u) + "->" +
                                        std::to_string(e.v) + " has an endpoint >= " + std::to_string(n) +
                                        " vertices");
        }
        const weight_t w = list.weighted ? e.w : 1;
        arcs.push_back({e.u, pack(e.v, w)});
        if (list.undirected && e.u != e.v) {
            arcs.push_back({e.v, pack(e.u, w)});
        }
    }
    rep.expanded_arcs = arcs.size();
    for (const arc& a : arcs) {
        rep.self_loops += a.u == target_of(a.p);
    }
    if (options.drop_self_loops && rep.self_loops != 0) {
        std::erase_if(arcs, [](const arc& a) { return a.u == target_of(a.p); });
        rep.self_loops_dropped = rep.self_loops;
    }

    std::vector<edge_id> offsets;
    std::vector<packed> adj;
    assemble(n, arcs, offsets, adj);
    arcs.clear();
    arcs.shrink_to_fit();

    // Duplicates: equal targets next to each other in a sorted adjacency; compact in place if asked.
    {
        edge_id out = 0;
        edge_id begin = 0;
        for (std::uint64_t v = 0; v < n; ++v) {
            const edge_id end = offsets[v + 1];
            for (edge_id e = begin; e < end; ++e) {
                const bool dup = e > begin && target_of(adj[e]) == target_of(adj[e - 1]);
                rep.duplicates += dup;
                if (!(dup && options.drop_duplicates)) {
                    adj[out++] = adj[e];
                }
            }
            begin = end;
            offsets[v + 1] = out;
        }
        adj.resize(out);
        if (options.drop_duplicates) {
            rep.duplicates_dropped = rep.duplicates;
        }
    }

    if (options.symmetrize) {
        std::vector<arc> extra;
        for (std::uint64_t u = 0; u < n; ++u) {
            for (edge_id e = offsets[u]; e < offsets[u + 1]; ++e) {
                const vertex_id v = target_of(adj[e]);
                if (v != u && !has_arc(offsets, adj, v, static_cast<vertex_id>(u))) {
                    extra.push_back({v, pack(static_cast<vertex_id>(u), weight_of(adj[e]))});
                }
            }
        }
        rep.reverse_arcs_added = extra.size();
        if (!extra.empty()) {
            for (std::uint64_t u = 0; u < n; ++u) {
                for (edge_id e = offsets[u]; e < offsets[u + 1]; ++e) {
                    extra.push_back({static_cast<vertex_id>(u), adj[e]});
                }
            }
            assemble(n, extra, offsets, adj);
        }
    }

    // An undirected list is symmetric by construction (both arcs of every edge, and dropping a loop or a
    // repeated arc keeps one arc per ordered pair), so the search per arc is needed only for directed ones.
    if (!list.undirected) {
        for (std::uint64_t u = 0; u < n; ++u) {
            for (edge_id e = offsets[u]; e < offsets[u + 1]; ++e) {
                const vertex_id v = target_of(adj[e]);
                rep.unpaired_arcs += v != u && !has_arc(offsets, adj, v, static_cast<vertex_id>(u));
            }
        }
    }

    std::vector<vertex_id> targets(adj.size());
    std::vector<weight_t> weights(list.weighted ? adj.size() : 0);
    for (std::size_t i = 0; i < adj.size(); ++i) {
        targets[i] = target_of(adj[i]);
        if (list.weighted) {
            weights[i] = weight_of(adj[i]);
        }
    }
    rep.vertices = n;
    rep.arcs = targets.size();
    return {csr_graph(std::move(offsets), std::move(targets), std::move(weights)), rep};
}

std::string build_report::summary() const {
    std::string s =
        std::to_string(vertices) + " vertices, " + std::to_string(arcs) + " arcs (" +
        (symmetric() ? std::string("symmetric") : std::to_string(unpaired_arcs) + " without a reverse") +
        "); " + std::to_string(self_loops) + " self-loops";
    if (self_loops_dropped != 0) {
        s += " (dropped)";
    }
    s += ", " + std::to_string(duplicates) + " duplicate arcs";
    if (duplicates_dropped != 0) {
        s += " (dropped)";
    }
    if (reverse_arcs_added != 0) {
        s += ", " + std::to_string(reverse_arcs_added) + " reverse arcs added (symmetrize)";
    }
    return s;
}

} // namespace canopy::workloads::graph
