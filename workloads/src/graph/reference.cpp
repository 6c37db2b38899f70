// Sequential BFS and Dijkstra: the oracles.
#include <cstdint>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "canopy/workloads/graph/reference.hpp"

namespace canopy::workloads::graph {

namespace {
void check_source(const csr_graph& g, vertex_id s) {
    if (s >= g.num_vertices()) {
        throw std::out_of_range("source vertex " + std::to_string(s) + " is not in a graph of " +
                                std::to_string(g.num_vertices()) + " vertices (ids are 0-based)");
    }
}
} // namespace

bfs_result reference_bfs(const csr_graph& g, vertex_id source) {
    check_source(g, source);
    bfs_result r;
    r.level.assign(g.num_vertices(), unreached_level);
    r.parent.assign(g.num_vertices(), no_vertex);
    std::vector<vertex_id> queue;
    queue.reserve(g.num_vertices());
    queue.push_back(source);
    r.level[source] = 0;
    r.parent[source] = source;
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const vertex_id u = queue[head];
        r.traversed_arcs += g.degree(u);
        for (vertex_id v : g.neighbours(u)) {
            if (r.level[v] == unreached_level) {
                r.level[v] = r.level[u] + 1;
                r.parent[v] = u;
                queue.push_back(v);
            }
        }
    }
    r.reached = queue.size();
    r.depth = r.level[queue.back()];
    return r;
}

sssp_result reference_sssp(const csr_graph& g, vertex_id source) {
    check_source(g, source);
    sssp_result r;
    r.distance.assign(g.num_vertices(), infinite_distance);
    r.parent.assign(g.num_vertices(), no_vertex);
    using item = std::pair<distance_t, vertex_id>;
    std::priority_queue<item, std::vector<item>, std::greater<item>> heap;
    std::vector<bool> done(g.num_vertices(), false);
    r.distance[source] = 0;
    r.parent[source] = source;
    heap.push({0, source});
    while (!heap.empty()) {
        const auto [d, u] = heap.top();
        heap.pop();
        if (done[u]) {
            continue; // a stale entry: u was settled with a smaller distance
        }
        done[u] = true;
        ++r.reached;
        r.max_distance = d;
        r.traversed_arcs += g.degree(u);
        for (edge_id e = g.offsets()[u]; e < g.offsets()[u + 1]; ++e) {
            const vertex_id v = g.targets()[e];
            const distance_t nd = d + g.weight(e);
            if (nd < r.distance[v]) {
                r.distance[v] = nd;
                r.parent[v] = u;
                heap.push({nd, v});
            }
        }
    }
    return r;
}

} // namespace canopy::workloads::graph
