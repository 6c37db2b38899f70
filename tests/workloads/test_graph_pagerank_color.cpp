// PageRank and colouring (canopy/workloads/graph/pagerank.hpp, coloring.hpp) under every strategy on the
// emulator's deterministic scheduler: the multi-kernel and persistent PageRank equal the sequential
// fixed-point oracle bit for bit and, with every strategy, stay within the proved L1 bound of the
// double-precision oracle; Jones-Plassmann equals its sequential simulation and the task DAG the
// sequential greedy colouring, both proper. The tasks strategy under every runtime policy on the
// scoped-cache model; and each check shown to reject a wrong answer.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../common/emu_test.hpp"
#include "../common/policy_name.hpp"
#include "canopy/workloads/graph/coloring.hpp"
#include "canopy/workloads/graph/coloring_reference.hpp"
#include "canopy/workloads/graph/compiled_runs.hpp"
#include "canopy/workloads/graph/generate.hpp"
#include "canopy/workloads/graph/load.hpp"
#include "canopy/workloads/graph/pagerank.hpp"
#include "canopy/workloads/graph/pagerank_reference.hpp"
#include "canopy/workloads/graph/strategies.hpp"
#include "graph_test_util.hpp"

namespace {

namespace g = canopy::workloads::graph;
namespace rt = canopy::runtime;

g::run_options opts(g::strategy s, rt::policy p = rt::policy::hrf_indirect) {
    g::run_options o;
    o.how = s;
    o.tasks = g::run_options::default_tasks_config(p);
    return o;
}

/// PageRank on the device, checked against the oracles; returns the run.
g::run_result<double> check_pagerank(const g::csr_graph& gr, const g::pagerank_options& p,
                                     const g::run_options& o) {
    const g::device_graph dg(gr);
    auto r = g::compiled::pagerank(dg.view(), p, o);
    const std::vector<double> exact = g::reference_pagerank(gr, p.damping);
    const double dist = g::l1_distance(exact, r.labels);
    if (o.how == g::strategy::tasks) {
        const double tol = p.tolerance > 0 ? p.tolerance : g::pagerank_tasks_default_tolerance;
        if (p.error > 0) { // rounds until the measured guarantee meets the target
            EXPECT_LE(r.guarantee, p.error);
            EXPECT_LE(dist, r.guarantee + g::pagerank_oracle_error(p.damping)) << "tasks";
            EXPECT_GE(r.iterations, 1u);
            EXPECT_EQ(r.launches, 1 + 2 * r.iterations); // the warm push, then a round and its sums each
        } else {
            EXPECT_LE(dist, g::pagerank_tasks_bound(gr, p.damping, tol, static_cast<double>(r.tasks)))
                << "tasks";
            EXPECT_GE(r.tasks, 1u);
            EXPECT_EQ(r.launches, 2u); // the warm start's push, then one round
        }
    } else {
        const g::pagerank_fixed_result ref =
            g::reference_pagerank_fixed(gr, p.damping, p.iterations, p.tolerance);
        EXPECT_EQ(r.labels, g::ranks_to_double(ref.rank)) << g::to_string(o.how) << ": not bit-identical";
        EXPECT_EQ(r.iterations, ref.iterations);
        EXPECT_EQ(r.launches, o.how == g::strategy::persistent ? 1u : 2 * r.iterations);
        EXPECT_EQ(r.barriers, o.how == g::strategy::persistent ? 2 * r.iterations : 0u);
        EXPECT_LE(dist, g::pagerank_power_bound(gr, p.damping, ref.last_change)) << g::to_string(o.how);
    }
    canopy_test_graph::expect_every_launch_timed(r);
    return r;
}

g::run_result<std::uint32_t> check_color(const g::csr_graph& gr, const g::run_options& o) {
    const g::device_graph dg(gr);
    auto r = g::compiled::color(dg.view(), o);
    const auto val = g::validate_coloring(gr, r.labels);
    EXPECT_TRUE(val.ok) << g::to_string(o.how) << ": " << val.message;
    if (o.how == g::strategy::tasks && o.color_speculative) {
        // Speculative: proper and every vertex coloured (above), and first fit's bound: no
        // vertex takes a colour above its degree, so at most max degree + 1 colours.
        g::edge_id max_degree = 0;
        for (g::vertex_id v = 0; v < gr.num_vertices(); ++v) {
            max_degree = gr.degree(v) > max_degree ? gr.degree(v) : max_degree;
            EXPECT_LE(r.labels[v], gr.degree(v)) << "vertex " << v << ": first fit never exceeds the degree";
        }
        EXPECT_LE(g::count_colors(r.labels), max_degree + 1);
        EXPECT_GE(r.tasks, 1u); // the seeds colour their vertices inline: only re-colourings are tasks
        EXPECT_EQ(r.launches, 1u);
    } else if (o.how == g::strategy::tasks) {
        EXPECT_EQ(r.labels, g::reference_greedy_color(gr)) << "tasks: not the greedy colouring";
        EXPECT_GE(r.tasks, 1u); // seeds and small vertices are coloured in the lane that released them
    } else {
        EXPECT_EQ(r.labels, g::reference_jones_plassmann(gr))
            << g::to_string(o.how) << ": not Jones-Plassmann";
        EXPECT_EQ(r.iterations, g::count_colors(r.labels)); // one colour per iteration
        EXPECT_EQ(r.barriers, o.how == g::strategy::persistent ? r.iterations : 0u);
    }
    canopy_test_graph::expect_every_launch_timed(r);
    return r;
}

g::csr_graph kronecker(unsigned scale) {
    g::kronecker_params p;
    p.scale = scale;
    return g::make_kronecker(p).graph;
}

/// 0 -> 1, 1 -> 1 (a self-loop), 1 -> 2, 2 -> 0, 2 -> 3; 3 is dangling.
g::csr_graph small_directed() { return g::csr_graph({0, 1, 3, 5, 5}, {1, 1, 2, 0, 3}); }

class GraphPageRankColor : public ::testing::TestWithParam<g::strategy> {};

TEST_P(GraphPageRankColor, PageRankOnKroneckerGridAndADirectedGraph) {
    const g::csr_graph graphs[] = {kronecker(7), g::make_grid(9, 13).graph, small_directed()};
    g::pagerank_options fixed; // 20 iterations
    g::pagerank_options tol;
    tol.tolerance = 1e-6;
    tol.iterations = 1000;
    tol.damping = 0.7;
    canopy::test::for_seeds(canopy::test::emu_options("tiny"), 2, [&] {
        for (const auto& gr : graphs) {
            SCOPED_TRACE(::testing::Message() << gr.num_vertices() << " vertices");
            const auto r = check_pagerank(gr, fixed, opts(GetParam()));
            if (GetParam() != g::strategy::tasks) {
                EXPECT_EQ(r.iterations, 20u);
            }
            check_pagerank(gr, tol, opts(GetParam()));
        }
    });
}

// Equal accuracy (pagerank_stopping_for_error): every strategy, given the same L1 error target, stops
// where its own guarantee is at most the target, and the ranks it returns are within the target of the
// double-precision oracle (plus the oracle's own 1e-12s). The guarantee is tight to the rule: the power
// rule's is the target itself, and the tasks' tolerance is within 2% of the largest that keeps it.
TEST_P(GraphPageRankColor, EveryStrategyMeetsTheSameErrorTarget) {
    const g::csr_graph graphs[] = {kronecker(7), g::make_grid(9, 13).graph, small_directed()};
    const bool tasks = GetParam() == g::strategy::tasks;
    canopy::test::for_seeds(canopy::test::emu_options("tiny"), 1, [&] {
        for (const auto& gr : graphs) {
            for (const double target : {1e-3, 1e-5}) {
                SCOPED_TRACE(::testing::Message() << gr.num_vertices() << " vertices, target " << target);
                g::pagerank_options p;
                const g::pagerank_stopping stop =
                    g::pagerank_stopping_for_error(gr, p.damping, target, tasks);
                EXPECT_LE(stop.guarantee, target);
                if (tasks) {
                    const double budget = g::pagerank_tasks_take_budget;
                    EXPECT_EQ(stop.guarantee,
                              g::pagerank_tasks_guarantee(gr, p.damping, stop.tolerance, budget));
                    EXPECT_GT(g::pagerank_tasks_guarantee(gr, p.damping, stop.tolerance * 1.02, budget),
                              target);
                } else {
                    EXPECT_GE(stop.guarantee, target * (1 - 1e-9));
                }
                p.tolerance = stop.tolerance;
                p.error = tasks ? target : 0; // the tasks stop by their measured guarantee
                p.iterations = 1000;
                const g::device_graph dg(gr);
                for (const bool pull : {false, true}) { // tasks: residual push, then block pull
                    if (pull && !tasks) {
                        continue;
                    }
                    SCOPED_TRACE(pull ? "block pull" : "");
                    g::run_options o = opts(GetParam());
                    o.pagerank_pull = pull;
                    const auto r = g::compiled::pagerank(dg.view(), p, o);
                    ASSERT_LT(r.iterations, 1000u) << "the power iteration never reached its tolerance";
                    const double dist = g::l1_distance(g::reference_pagerank(gr, p.damping), r.labels);
                    if (tasks) { // the measured guarantee meets the target and bounds the distance
                        EXPECT_LE(r.guarantee, target);
                        EXPECT_LE(dist, r.guarantee + g::pagerank_oracle_error(p.damping));
                    }
                    EXPECT_LE(dist, target + 1e-11);
                }
            }
        }
    });
    EXPECT_THROW(g::pagerank_stopping_for_error(graphs[0], 0.85, 0, tasks), std::invalid_argument);
    EXPECT_THROW(g::pagerank_stopping_for_error(graphs[0], 0.85, 1e-19, tasks), std::invalid_argument);
}

TEST_P(GraphPageRankColor, ColorOnKroneckerAndGrid) {
    const g::csr_graph graphs[] = {kronecker(8), g::make_grid(9, 13).graph};
    canopy::test::for_seeds(canopy::test::emu_options("tiny"), 2, [&] {
        for (const auto& gr : graphs) {
            SCOPED_TRACE(::testing::Message() << gr.num_vertices() << " vertices");
            check_color(gr, opts(GetParam()));
        }
    });
}

TEST_P(GraphPageRankColor, PageRankAndColorOn4elt) {
    const auto file = canopy_test_graph::metis_graphs_dir / "4elt.graph";
    if (!std::filesystem::exists(file)) {
        GTEST_SKIP() << file << " is absent (tools/deps.sh installs libmetis-doc)";
    }
    const g::csr_graph gr = g::load_graph(file).graph;
    g::pagerank_options p;
    p.tolerance = 1e-2; // the tasks strategy's cost grows as V / tolerance (1e-3: 15 s here)
    canopy::test::for_seeds(canopy::test::emu_options("tiny"), 1, [&] {
        check_pagerank(gr, p, opts(GetParam()));
        check_color(gr, opts(GetParam()));
    });
}

INSTANTIATE_TEST_SUITE_P(Strategies, GraphPageRankColor, ::testing::ValuesIn(g::all_strategies),
                         [](const ::testing::TestParamInfo<g::strategy>& pi) {
                             std::string s = g::to_string(pi.param);
                             for (char& c : s) {
                                 c = c == '-' ? '_' : c;
                             }
                             return s;
                         });

class GraphPageRankColorPolicy : public ::testing::TestWithParam<rt::policy> {};

TEST_P(GraphPageRankColorPolicy, TasksOnTheScopedCacheModel) {
    const g::csr_graph gr = kronecker(6);
    g::pagerank_options p;
    p.tolerance = 1e-5;
    canopy::test::for_seeds(canopy::test::scm_options(), 3, [&] {
        check_pagerank(gr, p, opts(g::strategy::tasks, GetParam()));
        check_color(gr, opts(g::strategy::tasks, GetParam()));
    });
}

// Block pull (pagerank_blocks.hpp) under every policy on the scoped-cache model, where a share read
// from a stale L1 line would leave residual the measure catches: rounds until the measured guarantee
// meets the target, and the ranks within it of the double-precision oracle; a Kronecker graph (hubs: a
// block's adjacency split into notify tasks), a grid and a directed graph with a dangling vertex (the
// pull reads the transpose).
TEST_P(GraphPageRankColorPolicy, PullOnTheScopedCacheModel) {
    const g::csr_graph graphs[] = {kronecker(7), g::make_grid(12, 12).graph, small_directed()};
    g::run_options o = opts(g::strategy::tasks, GetParam());
    o.pagerank_pull = true;
    g::pagerank_options p;
    p.error = 1e-5;
    canopy::test::for_seeds(canopy::test::scm_options(), 2, [&] {
        for (const auto& gr : graphs) {
            const auto r = check_pagerank(gr, p, o);
            const std::uint64_t blocks =
                (gr.num_vertices() + g::detail::pr_block_size - 1) / g::detail::pr_block_size;
            EXPECT_GE(r.tasks, blocks) << "every block's first generation runs";
        }
    });
}

// Speculative colouring (coloring_speculative.hpp) under every policy on the scoped-cache model, where a
// missing seq_cst fence would let both ends of an edge read each other's old colour and keep a conflict
// (tools/mutations.txt: speculative-color-fence-relaxed); a grid (consecutive ids adjacent) and a
// Kronecker graph (hubs).
TEST_P(GraphPageRankColorPolicy, SpeculativeColoringOnTheScopedCacheModel) {
    const g::csr_graph graphs[] = {kronecker(7), g::make_grid(12, 12).graph};
    g::run_options o = opts(g::strategy::tasks, GetParam());
    o.color_speculative = true;
    canopy::test::for_seeds(canopy::test::scm_options(), 3, [&] {
        for (const auto& gr : graphs) {
            check_color(gr, o);
        }
    });
}

INSTANTIATE_TEST_SUITE_P(Policies, GraphPageRankColorPolicy, ::testing::ValuesIn(rt::all_policies),
                         canopy::test::policy_name);

TEST(GraphPageRankColorScoped, FrontierStrategiesOnTheScopedCacheModel) {
    const g::csr_graph gr = kronecker(6);
    canopy::test::for_seeds(canopy::test::scm_options(), 2, [&] {
        for (g::strategy s : {g::strategy::multi_kernel, g::strategy::persistent}) {
            check_pagerank(gr, g::pagerank_options{}, opts(s));
            check_color(gr, opts(s));
        }
    });
}

// The largest-degree-first greedy yardstick: the hub first, then first fit. A star whose centre has the
// largest id takes 2 colours (the centre 0, every leaf 1; an id order would give the leaves 0 and the
// centre 1: also 2, but the centre's colour tells the orders apart); K5 takes 5; a crown graph on 2 x 4
// vertices (K4,4 less a perfect matching) takes 2, where first fit in the order 0, 4, 1, 5, ... takes 4.
TEST(GraphPageRankColorReference, GreedyLargestDegreeFirst) {
    const g::csr_graph star({0, 1, 2, 3, 4, 8}, {4, 4, 4, 4, 0, 1, 2, 3});
    const std::vector<std::uint32_t> c = g::reference_greedy_color_ldf(star);
    EXPECT_EQ(c, (std::vector<std::uint32_t>{1, 1, 1, 1, 0}));
    std::vector<g::edge_id> off{0};
    std::vector<g::vertex_id> tgt;
    for (g::vertex_id u = 0; u < 5; ++u) {
        for (g::vertex_id v = 0; v < 5; ++v) {
            if (u != v) {
                tgt.push_back(v);
            }
        }
        off.push_back(tgt.size());
    }
    EXPECT_EQ(g::count_colors(g::reference_greedy_color_ldf(g::csr_graph(off, tgt))), 5u);
    // Crown: a_i = i (0..3), b_j = 4 + j, a_i ~ b_j for i != j; every degree 3, so LDF is id order.
    off = {0};
    tgt.clear();
    for (g::vertex_id u = 0; u < 8; ++u) {
        for (g::vertex_id j = 0; j < 4; ++j) {
            if (j != u % 4) {
                tgt.push_back(u < 4 ? 4 + j : j);
            }
        }
        off.push_back(tgt.size());
    }
    const g::csr_graph crown(off, tgt);
    const auto cc = g::reference_greedy_color_ldf(crown);
    EXPECT_TRUE(g::validate_coloring(crown, cc).ok);
    EXPECT_EQ(g::count_colors(cc), 2u);
}

// The tasks' order is largest-degree-first (coloring_order.hpp's ldf_before: ties by the hashed
// priority): the star's hub, the largest id, comes first and takes colour 0; and on power-law graphs
// its greedy colouring needs at most 10% more colours than the yardstick's order (ties by the smaller
// id). Not on a grid numbered row by row: id order 2-colours it (a bipartite graph, rows alternating),
// the hashed ties take 4 (docs/graph.md), the price of short dependency chains.
TEST(GraphPageRankColorReference, TheTasksOrderIsLargestDegreeFirst) {
    const g::csr_graph star({0, 1, 2, 3, 4, 8}, {4, 4, 4, 4, 0, 1, 2, 3});
    EXPECT_EQ(g::reference_greedy_color(star), (std::vector<std::uint32_t>{1, 1, 1, 1, 0}));
    const g::csr_graph grid = g::make_grid(9, 13).graph;
    EXPECT_EQ(g::count_colors(g::reference_greedy_color_ldf(grid)), 2u);
    EXPECT_EQ(g::count_colors(g::reference_greedy_color(grid)), 4u);
    for (const g::csr_graph& gr : {kronecker(8), kronecker(10), kronecker(12)}) {
        const std::uint32_t tasks = g::count_colors(g::reference_greedy_color(gr));
        const std::uint32_t ldf = g::count_colors(g::reference_greedy_color_ldf(gr));
        EXPECT_LE(tasks * 10, ldf * 11) << gr.num_vertices() << " vertices: " << tasks << " against " << ldf;
    }
}

// Teeth: every check rejects a wrong answer.
TEST(GraphPageRankColorTeeth, ValidatorRejectsImproperColorings) {
    const g::csr_graph gr = g::make_grid(4, 5).graph;
    std::vector<std::uint32_t> c = g::reference_greedy_color(gr);
    ASSERT_TRUE(g::validate_coloring(gr, c).ok);
    EXPECT_EQ(g::validate_coloring(gr, c).colors, g::count_colors(c));
    EXPECT_EQ(g::reference_jones_plassmann(gr).size(), c.size());
    auto bad = c;
    bad[0] = bad[1]; // 0 and 1 are adjacent in the grid
    const auto r = g::validate_coloring(gr, bad);
    EXPECT_FALSE(r.ok);
    EXPECT_GE(r.conflicts, 2u) << r.message; // both arcs 0->1 and 1->0 (and any other neighbour of 0)
    bad = c;
    bad[7] = g::no_color;
    EXPECT_EQ(g::validate_coloring(gr, bad).uncolored, 1u);
    EXPECT_FALSE(g::validate_coloring(gr, std::vector<std::uint32_t>(3, 0)).ok);
    // Self-loops are ignored.
    const g::csr_graph loop({0, 2, 3}, {0, 1, 0});
    EXPECT_TRUE(g::validate_coloring(loop, std::vector<std::uint32_t>{0, 1}).ok);
}

TEST(GraphPageRankColorTeeth, PageRankChecksRejectPerturbedVectors) {
    const g::csr_graph gr = kronecker(6);
    const auto ref = g::reference_pagerank_fixed(gr, 0.85, 20);
    auto x = g::ranks_to_double(ref.rank);
    auto y = x;
    y[3] = g::rank_to_double(ref.rank[3] + 1); // one ulp
    EXPECT_NE(x, y);                           // the exact comparison sees a single ulp
    const auto exact = g::reference_pagerank(gr, 0.85);
    const double bound = g::pagerank_power_bound(gr, 0.85, ref.last_change);
    ASSERT_LE(g::l1_distance(exact, x), bound);
    y = x;
    y[0] += 1.01 * bound; // off by more than the bound
    EXPECT_GT(g::l1_distance(exact, y), bound);
    // The tasks bound is about 2 tolerance / (1 - d) when nothing dangles, and shrinks with tolerance.
    const g::csr_graph grid = g::make_grid(5, 5).graph;
    EXPECT_NEAR(g::pagerank_tasks_bound(grid, 0.85, 1e-4, 1e6), 2e-4 / (1 - g::damping_quantized(0.85)),
                1e-6);
    EXPECT_LT(g::pagerank_tasks_bound(grid, 0.85, 1e-6, 1e6), g::pagerank_tasks_bound(grid, 0.85, 1e-4, 1e6));
    // The measured guarantee (pagerank_fixed.hpp): with nothing dangling and s = 1 it is Q = (R + L +
    // V ulp) / (1 - d); it grows with the residual left and with |1 - s|; a dangling vertex makes it
    // (|p| / s + 1) Q / (s - Q); s <= Q guarantees nothing.
    const double d = g::damping_quantized(0.85);
    g::pagerank_tasks_measure m;
    m.vertices = 100;
    m.max_degree = 4;
    m.takes = 1000;
    m.rank_abs = m.rank_sum = g::rank_one;
    m.residual_left = g::rank_one / 1000;
    const double q = (1e-3 + (5.0 * 1100 + 100) * g::rank_ulp) / (1 - d);
    EXPECT_NEAR(g::pagerank_tasks_measured_guarantee(m, 0.85), q, 1e-15);
    m.rank_sum = m.rank_abs = g::rank_one - g::rank_one / 100; // s = 0.99: + |p| |1 - s| / s = 0.01
    EXPECT_NEAR(g::pagerank_tasks_measured_guarantee(m, 0.85), q + 0.01, 1e-12);
    m.dangling = 1;
    EXPECT_NEAR(g::pagerank_tasks_measured_guarantee(m, 0.85), 2 * q / (0.99 - q), 1e-12);
    m.residual_left = g::rank_one;
    EXPECT_EQ(g::pagerank_tasks_measured_guarantee(m, 0.85), std::numeric_limits<double>::infinity());
    // 20 iterations are far from converged: the tolerance bound would reject the fixed-iteration
    // result with a much smaller change.
    EXPECT_GT(g::l1_distance(exact, g::ranks_to_double(g::reference_pagerank_fixed(gr, 0.85, 2).rank)),
              g::pagerank_power_bound(gr, 0.85, 0));
}

TEST(GraphPageRankColorTeeth, OptionsAreChecked) {
    const g::csr_graph gr = g::make_grid(3, 3).graph;
    canopy::emu::scoped_options scoped(canopy::test::emu_options("tiny"));
    const g::device_graph dg(gr);
    g::pagerank_options p;
    p.damping = 1.0;
    EXPECT_THROW(g::compiled::pagerank(dg.view(), p), canopy::error);
    p = {};
    p.tolerance = -1;
    EXPECT_THROW(g::compiled::pagerank(dg.view(), p), canopy::error);
    p = {};
    p.iterations = 0;
    EXPECT_THROW(g::compiled::pagerank(dg.view(), p), canopy::error);
    p = {};
    p.error = -1e-4;
    EXPECT_THROW(g::compiled::pagerank(dg.view(), p), canopy::error);
    p = {}; // block pull stops only at an error target
    p.tolerance = 1e-4;
    g::run_options o = opts(g::strategy::tasks);
    o.pagerank_pull = true;
    EXPECT_THROW(g::compiled::pagerank(dg.view(), p, o), canopy::error);
}

// pr_make_blocks against a brute-force reading of its contract: the order is a permutation, block_of
// inverts it, a block's entries are exactly the blocks its out-arcs reach (each once), need counts the
// notifying blocks naming each block, and a block is a connected patch on a grid (breadth-first runs).
TEST(GraphPageRankColorReference, BlocksAreBreadthFirstRunsWithTheirExactAdjacency) {
    const g::csr_graph graphs[] = {kronecker(8), g::make_grid(17, 23).graph, small_directed()};
    for (const auto& gr : graphs) {
        const std::vector<g::edge_id> off(gr.offsets().begin(), gr.offsets().end());
        const std::vector<g::vertex_id> tgt(gr.targets().begin(), gr.targets().end());
        const g::vertex_id n = gr.num_vertices();
        const auto k = g::detail::pr_make_blocks(off, tgt, n);
        const g::vertex_id bs = g::detail::pr_block_size, nb = (n + bs - 1) / bs;
        ASSERT_EQ(k.order.size(), n);
        ASSERT_EQ(k.offsets.size(), nb + 1u);
        std::vector<bool> seen(n, false);
        for (g::vertex_id i = 0; i < n; ++i) {
            ASSERT_FALSE(seen[k.order[i]]) << "vertex " << k.order[i] << " twice in the order";
            seen[k.order[i]] = true;
            EXPECT_EQ(k.block_of[k.order[i]], i / bs);
        }
        std::vector<std::uint32_t> need(nb, 0);
        for (g::vertex_id b = 0; b < nb; ++b) {
            std::set<std::uint32_t> want;
            for (g::vertex_id i = b * bs; i < std::min(n, (b + 1) * bs); ++i) {
                for (g::edge_id e = off[k.order[i]]; e < off[k.order[i] + 1]; ++e) {
                    want.insert(k.block_of[tgt[e]]);
                }
            }
            const std::set<std::uint32_t> got(k.entries.begin() + k.offsets[b],
                                              k.entries.begin() + k.offsets[b + 1]);
            EXPECT_EQ(got, want) << "block " << b;
            EXPECT_EQ(got.size(), k.offsets[b + 1] - k.offsets[b]) << "block " << b << " names a block twice";
            if (k.need[b] != 0) {
                for (std::uint32_t c : got) {
                    ++need[c];
                }
            }
        }
        EXPECT_EQ(k.need, need);
    }
    // On a grid every block but the last is connected: each vertex after the block's first has an
    // arc from an earlier vertex of the same block or the block before (breadth-first order).
    const g::csr_graph grid = g::make_grid(17, 23).graph;
    const std::vector<g::edge_id> off(grid.offsets().begin(), grid.offsets().end());
    const std::vector<g::vertex_id> tgt(grid.targets().begin(), grid.targets().end());
    const auto k = g::detail::pr_make_blocks(off, tgt, grid.num_vertices());
    for (g::vertex_id i = 1; i < grid.num_vertices(); ++i) {
        bool reached = false;
        for (g::edge_id e = off[k.order[i]]; e < off[k.order[i] + 1]; ++e) {
            const g::vertex_id u = tgt[e];
            reached = reached || (k.block_of[u] <= k.block_of[k.order[i]] &&
                                  std::find(k.order.begin(), k.order.begin() + i, u) != k.order.begin() + i);
        }
        EXPECT_TRUE(reached) << "position " << i << ": not reached from an earlier vertex";
    }
}

// Staging has no overflow path, so each graph task set refuses a staging buffer one task short of what
// one lane may spawn in one task, and the message names the number (check_tasks_staging). A run at
// exactly the need goes on (the other tests: the default configuration holds it).
TEST(GraphPageRankColorTeeth, TasksRefuseAStagingBufferTooSmall) {
    const g::csr_graph gr = g::make_grid(3, 3).graph;
    canopy::emu::scoped_options scoped(canopy::test::emu_options("tiny"));
    const g::device_graph dg(gr);
    const auto refuses = [&](unsigned need, bool speculative, const auto& run) {
        g::run_options o;
        o.how = g::strategy::tasks;
        o.tasks = g::run_options::default_tasks_config();
        o.color_speculative = speculative;
        o.tasks.staging_capacity = need - 1;
        try {
            run(o);
            ADD_FAILURE() << "a staging buffer of " << need - 1 << " (need " << need << ") was accepted";
        } catch (const canopy::error& e) {
            EXPECT_NE(std::string(e.what()).find("at least " + std::to_string(need) + " tasks per lane"),
                      std::string::npos)
                << e.what();
        }
    };
    refuses(g::together_staging, false,
            [&](const g::run_options& o) { (void)g::compiled::bfs(dg.view(), 0, o); });
    refuses(g::together_staging, false,
            [&](const g::run_options& o) { (void)g::compiled::pagerank(dg.view(), {}, o); });
    refuses(g::detail::gc_staging, false,
            [&](const g::run_options& o) { (void)g::compiled::color(dg.view(), o); });
    refuses(g::fan_out, true, [&](const g::run_options& o) { (void)g::compiled::color(dg.view(), o); });
}

} // namespace
