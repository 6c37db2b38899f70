// BFS over a 1-D block partition of the vertices (canopy/workloads/graph/partitioned_bfs.hpp), every part
// in one process (compiled::bfs_partitioned, what canopy graph bfs --devices runs and what each rank runs
// under mpirun): exact against the sequential oracle (compare_levels) and Graph500's rules on Debian's
// copter2, a Kronecker graph and a graph with unreachable vertices, on 1 to 8 parts, on the
// deterministic scheduler and on the scoped-cache model; the partition against its definition.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../common/emu_test.hpp"
#include "canopy/vocabulary/error.hpp"
#include "canopy/workloads/graph/generate.hpp"
#include "canopy/workloads/graph/load.hpp"
#include "canopy/workloads/graph/partition.hpp"
#include "canopy/workloads/graph/partitioned_bfs_runs.hpp"
#include "canopy/workloads/graph/reference.hpp"
#include "canopy/workloads/graph/validate.hpp"
#include "graph_test_util.hpp"

namespace {

namespace g = canopy::workloads::graph;

/// Runs the partitioned BFS and checks it against the oracle, Graph500's rules and its own counters.
void check(const g::csr_graph& gr, g::vertex_id source, unsigned parts) {
    SCOPED_TRACE(::testing::Message() << parts << " parts, source " << source);
    const auto r = g::compiled::bfs_partitioned(gr, source, parts, 64);
    const g::bfs_result ref = g::reference_bfs(gr, source);
    const auto cmp = g::compare_levels(ref.level, r.levels);
    EXPECT_TRUE(cmp.ok()) << cmp.summary();
    const auto val = g::validate_bfs(gr, source, r.levels);
    EXPECT_TRUE(val.ok()) << val.summary();
    EXPECT_EQ(r.iterations, std::uint64_t{ref.depth} + 1); // one per level, and the last finds nothing
    ASSERT_EQ(r.reached_per_part.size(), parts);
    const g::block_partition p{gr.num_vertices(), parts};
    std::uint64_t reached = 0;
    for (unsigned k = 0; k < parts; ++k) {
        std::uint64_t mine = 0;
        for (g::vertex_id v = p.lo(k); v < p.hi(k); ++v) {
            mine += ref.level[v] != g::unreached_level ? 1 : 0;
        }
        EXPECT_EQ(r.reached_per_part[k], mine) << "part " << k;
        reached += r.reached_per_part[k];
    }
    EXPECT_EQ(reached, ref.reached);
    // Arcs to another part's vertex, expanded from reached vertices, and the vertices the send-once
    // filter sends: each (part, remote target) pair once over the search. Counted by hand.
    std::uint64_t remote = 0, sent_once = 0;
    std::vector<std::vector<bool>> sent_by(parts, std::vector<bool>(gr.num_vertices()));
    for (g::vertex_id u = 0; u < gr.num_vertices(); ++u) {
        if (ref.level[u] == g::unreached_level) {
            continue;
        }
        for (const g::vertex_id v : gr.neighbours(u)) {
            if (p.owner(v) != p.owner(u)) {
                ++remote;
                if (!sent_by[p.owner(u)][v]) {
                    sent_by[p.owner(u)][v] = true;
                    ++sent_once;
                }
            }
        }
    }
    EXPECT_EQ(r.remote_arcs, remote);
    EXPECT_EQ(r.sent, sent_once) << "each part sends each remote vertex once over the search";
    if (parts == 1) {
        EXPECT_EQ(r.sent, 0u);
    }
}

TEST(BlockPartition, EveryVertexHasOneOwnerWhoseRangeHoldsIt) {
    for (const g::vertex_id n : {0u, 1u, 5u, 64u, 55476u}) {
        for (unsigned parts = 1; parts <= 9; ++parts) {
            const g::block_partition p{n, parts};
            std::uint64_t total = 0;
            for (unsigned k = 0; k < parts; ++k) {
                ASSERT_LE(p.lo(k), p.hi(k)) << n << " " << parts << " " << k;
                total += p.size(k);
            }
            ASSERT_EQ(total, n);
            ASSERT_EQ(p.lo(0), 0u);
            ASSERT_EQ(p.hi(parts - 1), n);
            for (g::vertex_id v = 0; v < n; v += 1 + n / 97) {
                const unsigned k = p.owner(v);
                ASSERT_LT(k, parts);
                ASSERT_TRUE(p.lo(k) <= v && v < p.hi(k)) << n << " " << parts << " vertex " << v;
            }
        }
    }
}

TEST(PartitionedBfs, ExactOnCopter2OnOneToFourParts) {
    const auto file = canopy_test_graph::metis_graphs_dir / "copter2.graph";
    if (!std::filesystem::exists(file)) {
        GTEST_SKIP() << file << " is absent (tools/deps.sh installs libmetis-doc)";
    }
    const g::csr_graph gr = g::load_graph(file).graph;
    canopy::test::for_seeds(canopy::test::emu_options("tiny"), 1, [&] {
        for (unsigned parts = 1; parts <= 4; ++parts) {
            check(gr, parts == 3 ? gr.max_degree_vertex() : 0, parts);
        }
    });
}

TEST(PartitionedBfs, ExactOnKronecker) {
    g::kronecker_params kp;
    kp.scale = 9;
    const g::csr_graph gr = g::make_kronecker(kp).graph;
    canopy::test::for_seeds(canopy::test::emu_options("tiny"), 2, [&] {
        for (unsigned parts = 1; parts <= 5; ++parts) {
            check(gr, gr.max_degree_vertex(), parts);
        }
    });
}

TEST(PartitionedBfs, UnreachableVerticesAndMorePartsThanVertices) {
    // A path 0-1-2 and a triangle 3-4-5; a directed arc 6->0 (6 unreachable from 0).
    const g::csr_graph gr({0, 1, 3, 4, 6, 8, 10, 11}, {1, 0, 2, 1, 4, 5, 3, 5, 3, 4, 0});
    canopy::test::for_seeds(canopy::test::emu_options("tiny"), 2, [&] {
        for (unsigned parts = 1; parts <= 9; ++parts) {
            check(gr, 0, parts);
            check(gr, 6, parts);
        }
    });
}

TEST(PartitionedBfs, ExactOnTheScopedCacheModel) {
    // The claims are relaxed device-scope RMWs and the frontiers plain stores read after the kernel: on
    // the scoped-cache model (an L1 per CU) any order the kernel boundary does not give would show.
    g::kronecker_params kp;
    kp.scale = 7;
    const g::csr_graph gr = g::make_kronecker(kp).graph;
    auto o = canopy::test::emu_options("hrf8");
    o.memory_model = canopy::emu::memory_model_kind::scoped;
    canopy::test::for_seeds(o, 2, [&] {
        for (unsigned parts : {2u, 3u}) {
            check(gr, gr.max_degree_vertex(), parts);
        }
    });
}

TEST(PartitionedBfs, BadArgumentsThrow) {
    const g::csr_graph gr({0, 1, 2}, {1, 0});
    EXPECT_THROW(g::compiled::bfs_partitioned(gr, 0, 0, 64), canopy::error);
    EXPECT_THROW(g::compiled::bfs_partitioned(gr, 2, 2, 64), canopy::error);
}

} // namespace
