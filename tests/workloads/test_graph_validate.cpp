// The validators (canopy/workloads/graph/validate.hpp): they accept the oracles' answers, and each
// Graph500 rule rejects an answer corrupted to break it (where the corruption can break one rule only,
// the test says that no other rule fired, so a validator that blames the wrong rule fails too).
#include <cstdint>
#include <filesystem>
#include <vector>

#include <gtest/gtest.h>

#include "canopy/workloads/graph/generate.hpp"
#include "canopy/workloads/graph/load.hpp"
#include "canopy/workloads/graph/reference.hpp"
#include "canopy/workloads/graph/validate.hpp"
#include "graph_test_util.hpp"

namespace {

namespace g = canopy::workloads::graph;
using rule = g::validation_rule;

// The 4x4 grid (ids r * 4 + c, weights as make_grid) plus an isolated vertex 16.
g::csr_graph grid_plus_isolated() {
    g::edge_list list = g::grid_edges(4, 4);
    list.num_vertices = 17;
    return g::build_csr(list).graph;
}

constexpr g::vertex_id root = 0;

TEST(GraphValidateBfs, AcceptsTheReference) {
    const g::csr_graph gr = grid_plus_isolated();
    const auto r = g::reference_bfs(gr, root);
    const auto v = g::validate_bfs(gr, root, r.level, r.parent);
    EXPECT_TRUE(v.ok()) << v.summary();
    EXPECT_EQ(v.reached, 16u);
    EXPECT_EQ(v.depth, 6u);
    EXPECT_TRUE(g::validate_bfs(gr, root, r.level).ok()); // levels only
    EXPECT_EQ(v.summary(), "valid: 16 reached, depth 6");

    g::kronecker_params p;
    p.scale = 12;
    const auto k = g::make_kronecker(p);
    for (g::vertex_id s : {k.graph.max_degree_vertex(), g::vertex_id{1}}) {
        const auto kr = g::reference_bfs(k.graph, s);
        EXPECT_TRUE(g::validate_bfs(k.graph, s, kr.level, kr.parent).ok());
        EXPECT_TRUE(g::validate_bfs(k.graph, s, kr.level).ok());
    }
    g::uniform_params u;
    u.vertices = 2000;
    u.edges = 2500;
    u.directed = true;
    const auto d = g::make_uniform(u, {});
    const auto dr = g::reference_bfs(d.graph, 3);
    EXPECT_TRUE(g::validate_bfs(d.graph, 3, dr.level, dr.parent).ok());
    EXPECT_LT(dr.reached, 2000u);

    const auto path = canopy_test_graph::metis_graphs_dir / "4elt.graph";
    if (std::filesystem::exists(path)) {
        const auto m = g::load_graph(path).graph;
        const auto mr = g::reference_bfs(m, 0);
        EXPECT_TRUE(g::validate_bfs(m, 0, mr.level, mr.parent).ok());
    }
}

TEST(GraphValidateBfs, Rule1RootRejected) {
    const g::csr_graph gr = grid_plus_isolated();
    auto r = g::reference_bfs(gr, root);
    auto level = r.level;
    level[root] = 1;
    EXPECT_TRUE(g::validate_bfs(gr, root, level, r.parent).violates(rule::bfs_root));
    level = r.level;
    level[5] = 0; // a second level-0 vertex
    EXPECT_TRUE(g::validate_bfs(gr, root, level).violates(rule::bfs_root));
    auto parent = r.parent;
    parent[root] = 1;
    EXPECT_TRUE(g::validate_bfs(gr, root, r.level, parent).violates(rule::bfs_root));
    parent = r.parent;
    parent[16] = 0; // an unreached vertex with a parent
    EXPECT_TRUE(g::validate_bfs(gr, root, r.level, parent).violates(rule::bfs_root));
}

TEST(GraphValidateBfs, Rule2TreeLevelsRejected) {
    const g::csr_graph gr = grid_plus_isolated();
    auto r = g::reference_bfs(gr, root);
    // Vertex 5 = (1,1) is at level 2; its neighbour 6 = (1,2) is at level 3. 6 -> 5 is an arc, so only the
    // level rule can object.
    auto parent = r.parent;
    parent[5] = 6;
    const auto v = g::validate_bfs(gr, root, r.level, parent);
    EXPECT_TRUE(v.violates(rule::bfs_tree_levels)) << v.summary();
    EXPECT_EQ(v.total(), v.count(rule::bfs_tree_levels)) << v.summary();
    // Levels only: corner 15 = (3,3) claims level 5, the level of both its neighbours (11 and 14), so no
    // in-neighbour sits one level up.
    auto level = r.level;
    level[15] = 5;
    EXPECT_TRUE(g::validate_bfs(gr, root, level).violates(rule::bfs_tree_levels));
}

TEST(GraphValidateBfs, Rule3EdgeLevelsRejectsADepthFirstTree) {
    // A depth-first tree is a tree of graph edges rooted at the root, with levels that grow by one along
    // it, spanning the component: rules 1, 2, 4 and 5 hold. Only rule 3 tells it from a BFS.
    const g::csr_graph gr = grid_plus_isolated();
    std::vector<std::uint32_t> level(gr.num_vertices(), g::unreached_level);
    std::vector<g::vertex_id> parent(gr.num_vertices(), g::no_vertex);
    std::vector<g::vertex_id> stack{root};
    level[root] = 0;
    parent[root] = root;
    while (!stack.empty()) {
        const g::vertex_id u = stack.back();
        bool pushed = false;
        for (g::vertex_id w : gr.neighbours(u)) {
            if (level[w] == g::unreached_level) {
                level[w] = level[u] + 1;
                parent[w] = u;
                stack.push_back(w);
                pushed = true;
                break;
            }
        }
        if (!pushed) {
            stack.pop_back();
        }
    }
    const auto v = g::validate_bfs(gr, root, level, parent);
    EXPECT_TRUE(v.violates(rule::bfs_edge_levels)) << v.summary();
    EXPECT_EQ(v.total(), v.count(rule::bfs_edge_levels)) << v.summary();
}

TEST(GraphValidateBfs, Rule4ReachabilityRejected) {
    const g::csr_graph gr = grid_plus_isolated();
    auto r = g::reference_bfs(gr, root);
    // The isolated vertex claimed reached.
    auto level = r.level;
    auto parent = r.parent;
    level[16] = 1;
    parent[16] = root;
    EXPECT_TRUE(g::validate_bfs(gr, root, level, parent).violates(rule::bfs_reachability));
    // A reachable corner claimed unreached.
    level = r.level;
    parent = r.parent;
    level[15] = g::unreached_level;
    parent[15] = g::no_vertex;
    EXPECT_TRUE(g::validate_bfs(gr, root, level, parent).violates(rule::bfs_reachability));
}

TEST(GraphValidateBfs, Rule5TreeEdgesRejected) {
    const g::csr_graph gr = grid_plus_isolated();
    auto r = g::reference_bfs(gr, root);
    // Vertex 10 = (2,2) at level 4 given parent 3 = (0,3) at level 3: the levels fit, the arc does not exist.
    auto parent = r.parent;
    parent[10] = 3;
    const auto v = g::validate_bfs(gr, root, r.level, parent);
    EXPECT_TRUE(v.violates(rule::bfs_tree_edges)) << v.summary();
    EXPECT_EQ(v.total(), v.count(rule::bfs_tree_edges)) << v.summary();
}

TEST(GraphValidateBfs, ShapeRejected) {
    const g::csr_graph gr = grid_plus_isolated();
    const std::vector<std::uint32_t> short_levels(3, 0);
    EXPECT_TRUE(g::validate_bfs(gr, root, short_levels).violates(rule::shape));
    const auto r = g::reference_bfs(gr, root);
    EXPECT_TRUE(g::validate_bfs(gr, 99, r.level).violates(rule::shape));
}

TEST(GraphValidateSssp, AcceptsTheReference) {
    const g::csr_graph gr = grid_plus_isolated();
    const auto r = g::reference_sssp(gr, root);
    const auto v = g::validate_sssp(gr, root, r.distance, r.parent);
    EXPECT_TRUE(v.ok()) << v.summary();
    EXPECT_EQ(v.depth, 3u + 9u); // (3,3): c + 3r
    EXPECT_TRUE(g::validate_sssp(gr, root, r.distance).ok());
    g::kronecker_params p;
    p.scale = 11;
    const auto k = g::make_kronecker(p);
    const auto kr = g::reference_sssp(k.graph, k.graph.max_degree_vertex());
    EXPECT_TRUE(g::validate_sssp(k.graph, k.graph.max_degree_vertex(), kr.distance, kr.parent).ok());
}

TEST(GraphValidateSssp, Rule1RootRejected) {
    const g::csr_graph gr = grid_plus_isolated();
    auto r = g::reference_sssp(gr, root);
    auto d = r.distance;
    d[root] = 1;
    EXPECT_TRUE(g::validate_sssp(gr, root, d).violates(rule::sssp_root));
}

TEST(GraphValidateSssp, Rule2RelaxedRejected) {
    const g::csr_graph gr = grid_plus_isolated();
    auto r = g::reference_sssp(gr, root);
    auto d = r.distance;
    d[10] += 1; // too long: the arc from its predecessor is no longer relaxed
    EXPECT_TRUE(g::validate_sssp(gr, root, d, r.parent).violates(rule::sssp_relaxed));
}

TEST(GraphValidateSssp, Rule3TightRejected) {
    const g::csr_graph gr = grid_plus_isolated();
    auto r = g::reference_sssp(gr, root);
    auto d = r.distance;
    d[15] -= 1; // a corner with no out-neighbour relying on it: too short, nothing realizes it
    const auto v = g::validate_sssp(gr, root, d);
    EXPECT_TRUE(v.violates(rule::sssp_tight)) << v.summary();
    EXPECT_EQ(v.total(), v.count(rule::sssp_tight)) << v.summary();

    // With a zero-weight edge, "every reached vertex has a tight in-arc" is not enough: a and b below
    // vouch for each other at a distance no path from the root has. Only the tight-path rule sees it.
    // Graph: root 0 -5- 1 (a), 1 -0- 2 (b), undirected.
    const g::csr_graph z({0, 1, 3, 4}, {1, 0, 2, 1}, {5, 5, 0, 0});
    const std::vector<g::distance_t> fake{0, 2, 2};
    const auto vz = g::validate_sssp(z, 0, fake);
    EXPECT_TRUE(vz.violates(rule::sssp_tight)) << vz.summary();
    EXPECT_EQ(vz.total(), vz.count(rule::sssp_tight)) << vz.summary();
    EXPECT_TRUE(g::validate_sssp(z, 0, g::reference_sssp(z, 0).distance).ok());
    // With parents: a parent that is a graph neighbour but not tight.
    auto parent = r.parent;
    parent[5] = 6;
    EXPECT_TRUE(g::validate_sssp(gr, root, r.distance, parent).violates(rule::sssp_tight));
}

TEST(GraphValidateSssp, Rule4ReachabilityRejected) {
    const g::csr_graph gr = grid_plus_isolated();
    auto r = g::reference_sssp(gr, root);
    auto d = r.distance;
    d[16] = 7; // the isolated vertex claimed reached
    EXPECT_TRUE(g::validate_sssp(gr, root, d).violates(rule::sssp_reachability));
    d = r.distance;
    d[15] = g::infinite_distance; // a reachable vertex claimed unreached
    EXPECT_TRUE(g::validate_sssp(gr, root, d).violates(rule::sssp_reachability));
}

TEST(GraphValidate, CompareWithTheReference) {
    const std::vector<std::uint32_t> a{0, 1, 2}, b{0, 1, 3};
    const auto v = g::compare_levels(a, b);
    EXPECT_TRUE(v.violates(rule::reference_mismatch));
    EXPECT_NE(v.summary().find("vertex 2: expected 2, got 3"), std::string::npos) << v.summary();
    EXPECT_TRUE(g::compare_levels(a, a).ok());
    const std::vector<g::distance_t> x{0, g::infinite_distance}, y{0, 4};
    EXPECT_NE(g::compare_distances(x, y).summary().find("expected inf, got 4"), std::string::npos);
}

} // namespace
