// Graph500-style validation of BFS and SSSP answers (the rules are stated in validate.hpp). Every check
// reads the graph itself; the only traversal here is a plain reachability search (rule 4), which does
// not compute levels or distances, so it shares no logic with the algorithms under test.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "canopy/workloads/graph/validate.hpp"

namespace canopy::workloads::graph {

const char* rule_name(validation_rule r) {
    switch (r) {
    case validation_rule::shape: return "shape";
    case validation_rule::bfs_root: return "BFS rule 1 (root and tree)";
    case validation_rule::bfs_tree_levels: return "BFS rule 2 (tree levels)";
    case validation_rule::bfs_edge_levels: return "BFS rule 3 (edge levels)";
    case validation_rule::bfs_reachability: return "BFS rule 4 (reachability)";
    case validation_rule::bfs_tree_edges: return "BFS rule 5 (tree edges are graph edges)";
    case validation_rule::sssp_root: return "SSSP rule 1 (root)";
    case validation_rule::sssp_relaxed: return "SSSP rule 2 (every arc relaxed)";
    case validation_rule::sssp_tight: return "SSSP rule 3 (tight paths from the root)";
    case validation_rule::sssp_reachability: return "SSSP rule 4 (reachability)";
    case validation_rule::reference_mismatch: return "mismatch with the reference";
    }
    return "?";
}

std::uint64_t validation_report::total() const {
    std::uint64_t t = 0;
    for (std::uint64_t c : counts) {
        t += c;
    }
    return t;
}

void validation_report::add(validation_rule r, std::string message) {
    ++counts[static_cast<int>(r)];
    if (issues.size() < max_issues) {
        issues.push_back({r, std::move(message)});
    }
}

std::string validation_report::summary() const {
    if (ok()) {
        return "valid: " + std::to_string(reached) + " reached, depth " + std::to_string(depth);
    }
    std::string s = "invalid: " + std::to_string(total()) + " issues";
    for (int r = 0; r < static_cast<int>(std::size(counts)); ++r) {
        if (counts[r] != 0) {
            s += "; " + std::string(rule_name(static_cast<validation_rule>(r))) + ": " +
                 std::to_string(counts[r]);
        }
    }
    for (const validation_issue& i : issues) {
        s += "\n  " + std::string(rule_name(i.rule)) + ": " + i.message;
    }
    if (total() > issues.size()) {
        s += "\n  ... " + std::to_string(total() - issues.size()) + " more";
    }
    return s;
}

namespace {

std::string vtx(vertex_id v) { return "vertex " + std::to_string(v); }
std::string lvl(std::uint32_t l) {
    return l == unreached_level ? std::string("unreached") : std::to_string(l);
}
std::string dst(distance_t d) { return d == infinite_distance ? std::string("inf") : std::to_string(d); }

// The vertices reachable from root along out-arcs: an explicit-stack search (order is irrelevant).
std::vector<bool> reachable_from(const csr_graph& g, vertex_id root) {
    std::vector<bool> seen(g.num_vertices(), false);
    std::vector<vertex_id> stack{root};
    seen[root] = true;
    while (!stack.empty()) {
        const vertex_id u = stack.back();
        stack.pop_back();
        for (vertex_id v : g.neighbours(u)) {
            if (!seen[v]) {
                seen[v] = true;
                stack.push_back(v);
            }
        }
    }
    return seen;
}

bool check_shape(validation_report& rep, const csr_graph& g, vertex_id root, std::size_t values,
                 std::size_t parents, const char* what) {
    const std::uint64_t n = g.num_vertices();
    bool ok = true;
    if (root >= n) {
        rep.add(validation_rule::shape,
                "root " + std::to_string(root) + " is not one of the " + std::to_string(n) + " vertices");
        ok = false;
    }
    if (values != n) {
        rep.add(validation_rule::shape, std::string(what) + " has " + std::to_string(values) +
                                            " entries for " + std::to_string(n) + " vertices");
        ok = false;
    }
    if (parents != 0 && parents != n) {
        rep.add(validation_rule::shape,
                "parent has " + std::to_string(parents) + " entries for " + std::to_string(n) + " vertices");
        ok = false;
    }
    return ok;
}

} // namespace

validation_report validate_bfs(const csr_graph& g, vertex_id root, std::span<const std::uint32_t> level,
                               std::span<const vertex_id> parent) {
    validation_report rep;
    if (!check_shape(rep, g, root, level.size(), parent.size(), "level")) {
        return rep;
    }
    const vertex_id n = g.num_vertices();
    const bool with_parents = !parent.empty();
    auto reached = [&](vertex_id v) { return level[v] != unreached_level; };

    // Rule 1: the root, the only level-0 vertex; parents exactly for reached vertices, in range.
    if (level[root] != 0) {
        rep.add(validation_rule::bfs_root,
                "the root " + vtx(root) + " has level " + lvl(level[root]) + ", not 0");
    }
    if (with_parents && parent[root] != root) {
        rep.add(validation_rule::bfs_root,
                "the root's parent is " + std::to_string(parent[root]) + ", not itself");
    }
    for (vertex_id v = 0; v < n; ++v) {
        if (v != root && level[v] == 0) {
            rep.add(validation_rule::bfs_root, vtx(v) + " has level 0 but is not the root");
        }
        if (with_parents && v != root) {
            if (reached(v) && (parent[v] == no_vertex || parent[v] >= n)) {
                rep.add(validation_rule::bfs_root,
                        vtx(v) + " has level " + lvl(level[v]) + " but parent " +
                            (parent[v] == no_vertex ? "none" : std::to_string(parent[v])));
            } else if (!reached(v) && parent[v] != no_vertex) {
                rep.add(validation_rule::bfs_root,
                        vtx(v) + " is unreached but has parent " + std::to_string(parent[v]));
            }
        }
    }

    // One pass over the arcs for rules 2 (levels only), 3 and 5.
    std::vector<bool> has_pred(n, false), tree_arc(n, false);
    for (vertex_id u = 0; u < n; ++u) {
        for (vertex_id v : g.neighbours(u)) {
            if (with_parents && parent[v] == u) {
                tree_arc[v] = true;
            }
            if (!reached(u)) {
                continue;
            }
            if (!reached(v)) {
                rep.add(validation_rule::bfs_edge_levels, "arc " + std::to_string(u) + "->" +
                                                              std::to_string(v) + " leaves the tree: level " +
                                                              lvl(level[u]) + " -> unreached");
            } else if (level[v] > level[u] + 1) {
                rep.add(validation_rule::bfs_edge_levels,
                        "arc " + std::to_string(u) + "->" + std::to_string(v) + " spans levels " +
                            lvl(level[u]) + " -> " + lvl(level[v]) + " (more than one)");
            } else if (level[v] == level[u] + 1) {
                has_pred[v] = true;
            }
        }
    }
    // Rule 2 and rule 5.
    for (vertex_id v = 0; v < n; ++v) {
        if (v == root || !reached(v)) {
            continue;
        }
        if (!with_parents) {
            if (!has_pred[v] && level[v] != 0) {
                rep.add(validation_rule::bfs_tree_levels, vtx(v) + " has level " + lvl(level[v]) +
                                                              " but no in-neighbour at level " +
                                                              lvl(level[v] - 1));
            }
            continue;
        }
        const vertex_id p = parent[v];
        if (p == no_vertex || p >= n) {
            continue; // reported under rule 1
        }
        if (!reached(p) || level[v] != level[p] + 1) {
            rep.add(validation_rule::bfs_tree_levels, vtx(v) + " at level " + lvl(level[v]) + " has parent " +
                                                          std::to_string(p) + " at level " + lvl(level[p]));
        }
        if (!tree_arc[v]) {
            rep.add(validation_rule::bfs_tree_edges,
                    vtx(v) + "'s parent " + std::to_string(p) + " has no arc to it in the graph");
        }
    }

    // Rule 4: exactly the vertices reachable from the root are reached.
    const std::vector<bool> reachable = reachable_from(g, root);
    for (vertex_id v = 0; v < n; ++v) {
        if (reachable[v] && !reached(v)) {
            rep.add(validation_rule::bfs_reachability, vtx(v) + " is reachable from the root but unreached");
        } else if (!reachable[v] && reached(v)) {
            rep.add(validation_rule::bfs_reachability,
                    vtx(v) + " is not reachable from the root but has level " + lvl(level[v]));
        }
        if (reached(v)) {
            ++rep.reached;
            rep.depth = std::max<std::uint64_t>(rep.depth, level[v]);
        }
    }
    return rep;
}

validation_report validate_sssp(const csr_graph& g, vertex_id root, std::span<const distance_t> distance,
                                std::span<const vertex_id> parent) {
    validation_report rep;
    if (!check_shape(rep, g, root, distance.size(), parent.size(), "distance")) {
        return rep;
    }
    const vertex_id n = g.num_vertices();
    const bool with_parents = !parent.empty();
    auto reached = [&](vertex_id v) { return distance[v] != infinite_distance; };
    // d + w, saturating: a bogus distance near the top must not wrap around and look small.
    auto plus = [](distance_t d, weight_t w) {
        return d > infinite_distance - w ? infinite_distance : d + w;
    };

    // Rule 1.
    if (distance[root] != 0) {
        rep.add(validation_rule::sssp_root,
                "the root " + vtx(root) + " has distance " + dst(distance[root]) + ", not 0");
    }
    if (with_parents && parent[root] != root) {
        rep.add(validation_rule::sssp_root,
                "the root's parent is " + std::to_string(parent[root]) + ", not itself");
    }
    // Rule 2, and the tight arcs for rule 3.
    std::vector<bool> tight_parent(n, false);
    for (vertex_id u = 0; u < n; ++u) {
        if (!reached(u)) {
            continue;
        }
        for (edge_id e = g.offsets()[u]; e < g.offsets()[u + 1]; ++e) {
            const vertex_id v = g.targets()[e];
            const distance_t via = plus(distance[u], g.weight(e));
            if (distance[v] > via) {
                rep.add(validation_rule::sssp_relaxed,
                        "arc " + std::to_string(u) + "->" + std::to_string(v) + " (weight " +
                            std::to_string(g.weight(e)) + ") is not relaxed: " + dst(distance[u]) + " + " +
                            std::to_string(g.weight(e)) + " < " + dst(distance[v]));
            }
            if (with_parents && parent[v] == u && via == distance[v]) {
                tight_parent[v] = true;
            }
        }
    }
    // Rule 3: a search from the root along tight arcs must reach every reached vertex.
    std::vector<bool> tight_reached(n, false);
    {
        std::vector<vertex_id> stack;
        if (distance[root] == 0) {
            stack.push_back(root);
            tight_reached[root] = true;
        }
        while (!stack.empty()) {
            const vertex_id u = stack.back();
            stack.pop_back();
            for (edge_id e = g.offsets()[u]; e < g.offsets()[u + 1]; ++e) {
                const vertex_id v = g.targets()[e];
                if (!tight_reached[v] && reached(v) && plus(distance[u], g.weight(e)) == distance[v]) {
                    tight_reached[v] = true;
                    stack.push_back(v);
                }
            }
        }
    }
    const std::vector<bool> reachable = reachable_from(g, root);
    for (vertex_id v = 0; v < n; ++v) {
        if (reached(v) && !tight_reached[v]) {
            rep.add(validation_rule::sssp_tight, vtx(v) + " has distance " + dst(distance[v]) +
                                                     " but no path of tight arcs from the root realizes it");
        }
        if (with_parents && v != root) {
            if (reached(v) && !tight_parent[v]) {
                rep.add(validation_rule::sssp_tight,
                        vtx(v) + "'s parent " +
                            (parent[v] == no_vertex ? std::string("none") : std::to_string(parent[v])) +
                            " is not a tight in-arc");
            } else if (!reached(v) && parent[v] != no_vertex) {
                rep.add(validation_rule::sssp_tight,
                        vtx(v) + " is unreached but has parent " + std::to_string(parent[v]));
            }
        }
        // Rule 4.
        if (reachable[v] && !reached(v)) {
            rep.add(validation_rule::sssp_reachability,
                    vtx(v) + " is reachable from the root but has distance inf");
        } else if (!reachable[v] && reached(v)) {
            rep.add(validation_rule::sssp_reachability,
                    vtx(v) + " is not reachable from the root but has distance " + dst(distance[v]));
        }
        if (reached(v)) {
            ++rep.reached;
            rep.depth = std::max<std::uint64_t>(rep.depth, distance[v]);
        }
    }
    return rep;
}

namespace {
template <class T, class Show>
validation_report compare(std::span<const T> expected, std::span<const T> actual, Show show) {
    validation_report rep;
    if (expected.size() != actual.size()) {
        rep.add(validation_rule::shape, "expected " + std::to_string(expected.size()) + " values, got " +
                                            std::to_string(actual.size()));
        return rep;
    }
    for (std::size_t v = 0; v < expected.size(); ++v) {
        if (expected[v] != actual[v]) {
            rep.add(validation_rule::reference_mismatch, "vertex " + std::to_string(v) + ": expected " +
                                                             show(expected[v]) + ", got " + show(actual[v]));
        }
    }
    return rep;
}
} // namespace

validation_report compare_levels(std::span<const std::uint32_t> expected,
                                 std::span<const std::uint32_t> actual) {
    return compare(expected, actual, lvl);
}

validation_report compare_distances(std::span<const distance_t> expected,
                                    std::span<const distance_t> actual) {
    return compare(expected, actual, dst);
}

} // namespace canopy::workloads::graph
