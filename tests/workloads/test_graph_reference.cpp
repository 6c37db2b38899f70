// The sequential oracles (canopy/workloads/graph/reference.hpp): closed-form answers on grids, and
// Dijkstra and BFS against the Boost Graph Library's (Debian libboost-graph-dev), an implementation
// that shares nothing with ours, on Kronecker graphs, uniform random graphs and Debian's 4elt.graph.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/visitors.hpp>
#include <gtest/gtest.h>

#include "canopy/workloads/graph/generate.hpp"
#include "canopy/workloads/graph/load.hpp"
#include "canopy/workloads/graph/reference.hpp"
#include "canopy/workloads/graph/validate.hpp"
#include "graph_test_util.hpp"

namespace {

namespace g = canopy::workloads::graph;

using bgl_graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                        boost::property<boost::edge_weight_t, std::uint64_t>>;

bgl_graph to_bgl(const g::csr_graph& gr) {
    bgl_graph b(gr.num_vertices());
    for (g::vertex_id u = 0; u < gr.num_vertices(); ++u) {
        for (g::edge_id e = gr.offsets()[u]; e < gr.offsets()[u + 1]; ++e) {
            boost::add_edge(u, gr.targets()[e], std::uint64_t{gr.weight(e)}, b);
        }
    }
    return b;
}

// BGL's Dijkstra leaves unreached vertices at numeric_limits<D>::max(), which is infinite_distance.
std::vector<g::distance_t> bgl_dijkstra(const g::csr_graph& gr, g::vertex_id s) {
    const bgl_graph b = to_bgl(gr);
    std::vector<std::uint64_t> d(gr.num_vertices());
    boost::dijkstra_shortest_paths(b, s,
                                   boost::distance_map(boost::make_iterator_property_map(
                                       d.begin(), boost::get(boost::vertex_index, b))));
    return d;
}

std::vector<std::uint32_t> bgl_bfs_levels(const g::csr_graph& gr, g::vertex_id s) {
    const bgl_graph b = to_bgl(gr);
    std::vector<std::uint32_t> level(gr.num_vertices(), g::unreached_level);
    level[s] = 0;
    auto rec = boost::record_distances(
        boost::make_iterator_property_map(level.begin(), boost::get(boost::vertex_index, b)),
        boost::on_tree_edge());
    boost::breadth_first_search(b, s, boost::visitor(boost::make_bfs_visitor(rec)));
    return level;
}

void expect_matches_bgl(const g::csr_graph& gr, g::vertex_id s, const std::string& what) {
    const g::sssp_result mine = g::reference_sssp(gr, s);
    const auto cmp = g::compare_distances(bgl_dijkstra(gr, s), mine.distance);
    EXPECT_TRUE(cmp.ok()) << what << " from " << s << ": " << cmp.summary();
    const auto v = g::validate_sssp(gr, s, mine.distance, mine.parent);
    EXPECT_TRUE(v.ok()) << what << ": " << v.summary();
    const g::bfs_result bfs = g::reference_bfs(gr, s);
    const auto cmp_bfs = g::compare_levels(bgl_bfs_levels(gr, s), bfs.level);
    EXPECT_TRUE(cmp_bfs.ok()) << what << " BFS from " << s << ": " << cmp_bfs.summary();
    EXPECT_EQ(mine.reached, bfs.reached);
}

TEST(GraphReference, GridClosedFormFromTheCorner) {
    const std::uint32_t rows = 37, cols = 23;
    const auto gr = g::make_grid(rows, cols);
    const auto bfs = g::reference_bfs(gr.graph, 0);
    const auto sssp = g::reference_sssp(gr.graph, 0);
    for (std::uint32_t r = 0; r < rows; ++r) {
        for (std::uint32_t c = 0; c < cols; ++c) {
            ASSERT_EQ(bfs.level[r * cols + c], r + c) << r << "," << c;
            ASSERT_EQ(sssp.distance[r * cols + c], c + 3 * r) << r << "," << c;
        }
    }
    EXPECT_EQ(bfs.depth, rows - 1 + cols - 1);
    EXPECT_EQ(sssp.max_distance, 3u * (rows - 1) + cols - 1);
    EXPECT_EQ(bfs.reached, rows * cols);
}

TEST(GraphReference, GridClosedFormFromEverySource) {
    const std::uint32_t rows = 7, cols = 9;
    const auto gr = g::make_grid(rows, cols);
    for (std::uint32_t s = 0; s < rows * cols; ++s) {
        const auto bfs = g::reference_bfs(gr.graph, s);
        const auto sssp = g::reference_sssp(gr.graph, s);
        for (std::uint32_t v = 0; v < rows * cols; ++v) {
            ASSERT_EQ(bfs.level[v], g::grid_level(s / cols, s % cols, v / cols, v % cols)) << s << "->" << v;
            ASSERT_EQ(sssp.distance[v], g::grid_distance(s / cols, s % cols, v / cols, v % cols))
                << s << "->" << v;
        }
    }
}

TEST(GraphReference, UnreachedAndBadSource) {
    // Two components: 0-1 and 2.
    const g::csr_graph gr({0, 1, 2, 2}, {1, 0}, {5, 5});
    const auto bfs = g::reference_bfs(gr, 0);
    EXPECT_EQ(bfs.level[2], g::unreached_level);
    EXPECT_EQ(bfs.parent[2], g::no_vertex);
    EXPECT_EQ(bfs.reached, 2u);
    const auto sssp = g::reference_sssp(gr, 0);
    EXPECT_EQ(sssp.distance[1], 5u);
    EXPECT_EQ(sssp.distance[2], g::infinite_distance);
    EXPECT_THROW(g::reference_bfs(gr, 3), std::out_of_range);
    EXPECT_THROW(g::reference_sssp(gr, 3), std::out_of_range);
}

TEST(GraphReference, DijkstraMatchesBoostOnKronecker) {
    for (unsigned scale : {10u, 11u, 12u}) {
        g::kronecker_params p;
        p.scale = scale;
        p.seed = scale;
        const auto gr = g::make_kronecker(p);
        expect_matches_bgl(gr.graph, gr.graph.max_degree_vertex(),
                           "kronecker scale " + std::to_string(scale));
        expect_matches_bgl(gr.graph, 0, "kronecker scale " + std::to_string(scale));
    }
}

TEST(GraphReference, DijkstraMatchesBoostOnUniformRandom) {
    g::uniform_params p;
    p.vertices = 3000;
    p.edges = 9000;
    p.seed = 3;
    expect_matches_bgl(g::make_uniform(p).graph, 17, "uniform");
    p.directed = true; // sparse and directed: many vertices unreached
    expect_matches_bgl(g::make_uniform(p, {}).graph, 17, "uniform directed");
}

TEST(GraphReference, DijkstraMatchesBoostOn4elt) {
    const auto path = canopy_test_graph::metis_graphs_dir / "4elt.graph";
    if (!std::filesystem::exists(path)) {
        GTEST_SKIP() << path << " is absent: install Debian's libmetis-doc (tools/deps.sh)";
    }
    const g::csr_graph gr = g::with_hash_weights(g::load_graph(path).graph);
    expect_matches_bgl(gr, 0, "4elt.graph");
    expect_matches_bgl(gr, 5000, "4elt.graph");
}

} // namespace
