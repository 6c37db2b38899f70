// Generators and build_csr (canopy/workloads/graph/generate.hpp, edge_list.hpp, weights.hpp): shapes,
// determinism, the documented definitions pinned by values, Graph500's initiator probabilities, and the
// hash weight rule.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "canopy/workloads/graph/csr_view.hpp"
#include "canopy/workloads/graph/generate.hpp"

namespace {

namespace g = canopy::workloads::graph;

bool same_graph(const g::csr_graph& a, const g::csr_graph& b) {
    return std::ranges::equal(a.offsets(), b.offsets()) && std::ranges::equal(a.targets(), b.targets()) &&
           std::ranges::equal(a.weights(), b.weights());
}

TEST(GraphGenerate, DrawIsTheDocumentedCounterHash) {
    // docs/graph.md: draw(seed, stream, i) = mix64(mix64(seed ^ stream * K1) + i * K2); pinned so that the
    // documentation and the code cannot drift apart silently.
    static_assert(g::mix64(0) == 0);
    EXPECT_EQ(g::draw(1, 1, 0), g::mix64(g::mix64(1 ^ 0xd1b54a32d192ed03ull)));
    EXPECT_EQ(g::draw(7, 3, 5),
              g::mix64(g::mix64(7 ^ (3 * 0xd1b54a32d192ed03ull)) + 5 * 0x9e3779b97f4a7c15ull));
    // SplitMix64 seeded with 0 yields 0xe220a8397b1dcdaf first: mix64 of the golden gamma.
    EXPECT_EQ(g::mix64(0x9e3779b97f4a7c15ull), 0xe220a8397b1dcdafull);
    const double u = g::draw_unit(3, 4, 5);
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
}

TEST(GraphGenerate, KroneckerShapeAndDeterminism) {
    g::kronecker_params p;
    p.scale = 10;
    p.seed = 42;
    const g::edge_list list = g::kronecker_edges(p);
    EXPECT_EQ(list.num_vertices, 1024u);
    EXPECT_EQ(list.edges.size(), 16u * 1024u);
    EXPECT_TRUE(list.undirected);
    for (const g::edge& e : list.edges) {
        ASSERT_LT(e.u, 1024u);
        ASSERT_LT(e.v, 1024u);
        ASSERT_GE(e.w, 1u);
        ASSERT_LE(e.w, 255u);
    }
    const auto a = g::make_kronecker(p);
    const auto b = g::make_kronecker(p);
    EXPECT_TRUE(same_graph(a.graph, b.graph));
    EXPECT_TRUE(a.report.symmetric());
    EXPECT_EQ(a.report.input_edges, 16u * 1024u);
    EXPECT_EQ(a.report.self_loops, a.report.self_loops_dropped);
    EXPECT_EQ(a.report.duplicates, a.report.duplicates_dropped);
    EXPECT_GT(a.report.duplicates, 0u); // Kronecker graphs repeat edges; the report must say how many
    // Skewed degrees: the hub has far more than the average degree (about 2 * 16 before clean-up).
    const auto hub = a.graph.max_degree_vertex();
    EXPECT_GT(a.graph.degree(hub), 10 * a.graph.num_edges() / a.graph.num_vertices());
    p.seed = 43;
    EXPECT_FALSE(same_graph(a.graph, g::make_kronecker(p).graph));
}

TEST(GraphGenerate, KroneckerInitiatorProbabilities) {
    // A permutation keeps "i == j", so the diagonal's share measures the generator through it: per bit the
    // endpoints agree with probability a + d, so at scale s an edge is a self-loop with (a + d)^s.
    for (unsigned scale : {1u, 2u}) {
        g::kronecker_params p;
        p.scale = scale;
        p.edge_factor = 100000;
        p.seed = 5;
        const g::edge_list list = g::kronecker_edges(p);
        const double loops = static_cast<double>(std::ranges::count_if(
                                 list.edges, [](const g::edge& e) { return e.u == e.v; })) /
                             static_cast<double>(list.edges.size());
        const double d = 1 - p.a - p.b - p.c;
        EXPECT_NEAR(loops, std::pow(p.a + d, scale), 0.005) << "scale " << scale;
    }
}

TEST(GraphGenerate, KroneckerPinnedEdges) {
    // The first edges of SCALE 4, seed 1: changing the generator (a draw, a stream, the permutation) must
    // be a deliberate act that also updates docs/graph.md.
    g::kronecker_params p;
    p.scale = 4;
    const g::edge_list list = g::kronecker_edges(p);
    std::vector<std::uint32_t> first;
    for (int i = 0; i < 4; ++i) {
        first.insert(first.end(), {list.edges[i].u, list.edges[i].v, list.edges[i].w});
    }
    EXPECT_EQ(first, (std::vector<std::uint32_t>{9, 8, 225, 14, 15, 148, 8, 14, 143, 14, 11, 154}));
}

TEST(GraphGenerate, GridShapeAndWeights) {
    const auto gr = g::make_grid(3, 4);
    EXPECT_EQ(gr.graph.num_vertices(), 12u);
    EXPECT_EQ(gr.graph.num_edges(), 2u * (3 * 3 + 2 * 4)); // both arcs of 9 horizontal + 8 vertical edges
    EXPECT_TRUE(gr.report.symmetric());
    // Vertex (1, 1) = 5: left (1,0) and right (1,2) weigh row + 1 = 2; up and down weigh 3.
    auto nb = gr.graph.neighbours(5);
    auto w = gr.graph.neighbour_weights(5);
    EXPECT_EQ(std::vector<g::vertex_id>(nb.begin(), nb.end()), (std::vector<g::vertex_id>{1, 4, 6, 9}));
    EXPECT_EQ(std::vector<g::weight_t>(w.begin(), w.end()), (std::vector<g::weight_t>{3, 2, 2, 3}));
}

TEST(GraphGenerate, UniformShapeAndDeterminism) {
    g::uniform_params p;
    p.vertices = 500;
    p.edges = 3000;
    p.seed = 9;
    const auto a = g::make_uniform(p);
    EXPECT_TRUE(same_graph(a.graph, g::make_uniform(p).graph));
    EXPECT_EQ(a.report.input_edges, 3000u);
    EXPECT_TRUE(a.report.symmetric());
    p.directed = true;
    const auto d = g::make_uniform(p, {});
    EXPECT_EQ(d.graph.num_edges(), 3000u);
    EXPECT_FALSE(d.report.symmetric());
}

TEST(GraphGenerate, HashWeightRule) {
    for (g::vertex_id u = 0; u < 200; ++u) {
        for (g::vertex_id v = 0; v < 200; v += 7) {
            ASSERT_EQ(g::hash_weight(u, v), g::hash_weight(v, u));
            ASSERT_GE(g::hash_weight(u, v), 1u);
            ASSERT_LE(g::hash_weight(u, v), 255u);
        }
    }
    static_assert(g::hash_weight(3, 9) == 1 + g::mix64((3ull << 32) | 9) % 255);
    g::uniform_params p;
    p.vertices = 50;
    p.edges = 200;
    const auto gr = g::make_uniform(p);
    const g::csr_graph hw = g::with_hash_weights(gr.graph);
    for (g::vertex_id u = 0; u < hw.num_vertices(); ++u) {
        for (g::edge_id e = hw.offsets()[u]; e < hw.offsets()[u + 1]; ++e) {
            ASSERT_EQ(hw.weights()[e], g::hash_weight(u, hw.targets()[e]));
        }
    }
}

TEST(GraphBuild, RejectsOutOfRangeEndpointsAndViewsMatch) {
    g::edge_list list;
    list.num_vertices = 2;
    list.edges = {{0, 2, 1}};
    EXPECT_THROW(g::build_csr(list), std::invalid_argument);
    EXPECT_THROW(g::csr_graph({0, 1}, {1}), std::invalid_argument); // target 1 in a 1-vertex graph
    EXPECT_THROW(g::csr_graph({0, 2, 1}, {0}), std::invalid_argument);
    const auto gr = g::make_grid(2, 2);
    const g::csr_view v = g::make_view(gr.graph);
    EXPECT_EQ(v.num_vertices, 4u);
    EXPECT_EQ(v.num_edges, 8u);
    EXPECT_TRUE(v.has_weights());
    EXPECT_EQ(v.degree(0), 2u);
    EXPECT_EQ(v.target(v.begin(0)), 1u);
    EXPECT_EQ(v.weight(v.begin(0)), 1u);
}

} // namespace
