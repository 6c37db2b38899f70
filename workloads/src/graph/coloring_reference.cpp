// Colouring's sequential oracles and validator (coloring_reference.hpp).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "canopy/workloads/graph/coloring_reference.hpp"

namespace canopy::workloads::graph {

std::vector<std::uint32_t> reference_jones_plassmann(const csr_graph& g) {
    const vertex_id n = g.num_vertices();
    std::vector<std::uint32_t> color(n, no_color);
    std::vector<vertex_id> chosen;
    for (std::uint32_t k = 0, remaining = n; remaining != 0; ++k) {
        chosen.clear();
        for (vertex_id v = 0; v < n; ++v) {
            if (color[v] != no_color) {
                continue;
            }
            bool first = true;
            for (vertex_id w : g.neighbours(v)) {
                if (w != v && color[w] == no_color && color_before(w, v)) {
                    first = false;
                    break;
                }
            }
            if (first) {
                chosen.push_back(v);
            }
        }
        for (vertex_id v : chosen) { // after the scan: the decisions see the iteration's starting state
            color[v] = k;
        }
        remaining -= static_cast<std::uint32_t>(chosen.size());
    }
    return color;
}

namespace {
/// First fit in `order`: each vertex the smallest colour no coloured neighbour has.
std::vector<std::uint32_t> first_fit(const csr_graph& g, const std::vector<vertex_id>& order) {
    const vertex_id n = g.num_vertices();
    std::vector<std::uint32_t> color(n, no_color);
    std::vector<char> used;
    for (vertex_id v : order) {
        used.assign(g.degree(v) + 1, 0);
        for (vertex_id w : g.neighbours(v)) {
            if (w != v && color[w] != no_color && color[w] < used.size()) {
                used[color[w]] = 1;
            }
        }
        color[v] = static_cast<std::uint32_t>(std::find(used.begin(), used.end(), 0) - used.begin());
    }
    return color;
}
} // namespace

std::vector<std::uint32_t> reference_greedy_color(const csr_graph& g) {
    std::vector<vertex_id> order(g.num_vertices());
    std::iota(order.begin(), order.end(), vertex_id{0});
    std::sort(order.begin(), order.end(),
              [&](vertex_id a, vertex_id b) { return ldf_before(g.degree(a), a, g.degree(b), b); });
    return first_fit(g, order);
}

std::vector<std::uint32_t> reference_greedy_color_ldf(const csr_graph& g) {
    std::vector<vertex_id> order(g.num_vertices());
    std::iota(order.begin(), order.end(), vertex_id{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](vertex_id a, vertex_id b) { return g.degree(a) > g.degree(b); });
    return first_fit(g, order);
}

coloring_report validate_coloring(const csr_graph& g, std::span<const std::uint32_t> colors) {
    coloring_report r;
    const vertex_id n = g.num_vertices();
    if (colors.size() != n) {
        r.uncolored = n;
        r.message = "the colouring has " + std::to_string(colors.size()) + " entries for " +
                    std::to_string(n) + " vertices";
        return r;
    }
    for (vertex_id u = 0; u < n; ++u) {
        if (colors[u] == no_color) {
            if (r.message.empty()) {
                r.message = "vertex " + std::to_string(u) + " is not coloured";
            }
            ++r.uncolored;
            continue;
        }
        r.colors = std::max(r.colors, colors[u] + 1);
        for (vertex_id v : g.neighbours(u)) {
            if (v != u && colors[v] == colors[u]) {
                if (r.message.empty()) {
                    r.message = "arc " + std::to_string(u) + " -> " + std::to_string(v) +
                                " joins two vertices of colour " + std::to_string(colors[u]);
                }
                ++r.conflicts;
            }
        }
    }
    r.ok = r.uncolored == 0 && r.conflicts == 0;
    return r;
}

} // namespace canopy::workloads::graph
