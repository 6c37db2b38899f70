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
            if (o.pagerank_pull) { // a round and its measure each; at least a generation a round
                EXPECT_EQ(r.launches, 2 * r.iterations);
                EXPECT_GE(r.generations, r.iterations);
            } else { // the warm push, then a round and its sums each
                EXPECT_EQ(r.launches, 1 + 2 * r.iterations);
                EXPECT_EQ(r.generations, 0u);
            }
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
// meets the target, and the ranks within it of the double-precision oracle. Both kinds of round: a
// Kronecker graph (hubs whose in-arcs span lanes; its block graph dense: a barrier of range tasks) and
// a 30 x 30 grid in blocks of 64 arcs (sparse: notifications); then a directed graph with a dangling
// vertex and one without in-arcs (the pull reads the transpose), and the grid in blocks of one
// sub-group's width of arcs (a lane an arc: vertices span lanes).
TEST_P(GraphPageRankColorPolicy, PullOnTheScopedCacheModel) {
    struct pull_case {
        g::csr_graph graph;
        g::edge_id arcs; // the block budget (0: the default)
        int dense;       // the round kind the layout must choose (-1: either)
    };
    const pull_case cases[] = {{kronecker(7), 0, 1},
                               {g::make_grid(30, 30).graph, 64, 0},
                               {small_directed(), 0, -1},
                               {g::csr_graph({0, 1, 2, 3, 3}, {1, 2, 1}), 0, -1}, // 3 and 0: no in-arcs
                               {g::make_grid(12, 12).graph, 32, -1}};
    g::pagerank_options p;
    p.error = 1e-5;
    canopy::test::for_seeds(canopy::test::scm_options(), 2, [&] {
        const canopy::device_info d = canopy::query_device();
        for (const auto& c : cases) {
            g::run_options o = opts(g::strategy::tasks, GetParam());
            o.pagerank_pull = true;
            o.pagerank_block_arcs = c.arcs == 32 ? d.subgroup_size : c.arcs;
            const g::csr_graph& gr = c.graph;
            SCOPED_TRACE(::testing::Message()
                         << gr.num_vertices() << " vertices, blocks of " << o.pagerank_block_arcs << " arcs");
            const auto r = check_pagerank(gr, p, o);
            const std::vector<g::edge_id> off(gr.offsets().begin(), gr.offsets().end());
            const std::vector<g::vertex_id> tgt(gr.targets().begin(), gr.targets().end());
            const auto k = g::detail::pr_make_layout(
                off, tgt, gr.num_vertices(),
                o.pagerank_block_arcs != 0 ? o.pagerank_block_arcs
                                           : g::detail::pr_default_block_arcs(gr.num_edges(), d, o.block),
                d.subgroup_size);
            EXPECT_GE(r.tasks, k.blocks()) << "every block's first generation runs";
            if (c.dense >= 0) {
                EXPECT_EQ(k.dense(), c.dense == 1) << "the round kind this case is here to run";
            }
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

// pr_pull_arcs on its own: one sub-group sums the in-arcs of every vertex of a run by slices of arcs,
// each vertex's sum delivered once, on the lane holding its last arc; against a sequential sum, for runs
// whose vertices span lanes, fill one, or share one (a hub of 300 arcs beside degrees 1..5), on both
// sub-group widths and several interleavings.
struct pull_arcs_kernel {
    g::csr_view in;
    g::vertex_id v0, v1;
    const std::uint64_t* value; // per source
    std::uint64_t* sum;         // per vertex, written once
    unsigned* calls;            // per vertex
    unsigned* lane;             // per vertex: the lane that delivered it
    CANOPY_DEVICE void operator()() const {
        g::detail::pr_pull_arcs(
            in, v0, v1, [&](g::vertex_id u) { return canopy::ld(&value[u]); },
            [&](g::vertex_id v, std::uint64_t s) {
                canopy::st(&sum[v], s);
                canopy::atomic_ref<unsigned, canopy::scope::device>(calls[v]).fetch_add(
                    1, std::memory_order_relaxed);
                canopy::st(&lane[v], canopy::lane_id());
            });
    }
};

TEST(GraphPageRankColorReference, PullArcsSumsEveryVertexOnceOnTheLaneOfItsLastArc) {
    // Degrees 1..5 round and round, a hub of 300 in the middle, then degrees 1..5 again.
    std::vector<g::edge_id> off{0};
    std::vector<g::vertex_id> src;
    for (g::vertex_id v = 0; v < 120; ++v) {
        const g::edge_id deg = v == 60 ? 300 : 1 + v % 5;
        for (g::edge_id i = 0; i < deg; ++i) {
            src.push_back(static_cast<g::vertex_id>((v * 7 + i * 13) % 120));
        }
        off.push_back(src.size());
    }
    std::vector<std::uint64_t> value(120);
    for (g::vertex_id u = 0; u < 120; ++u) {
        value[u] = std::uint64_t{1} << (u % 40) | (u + 1); // sums must not lose a term
    }
    for (const unsigned width : {32u, 64u}) {
        for (const auto& run :
             {std::pair<g::vertex_id, g::vertex_id>{0, 120}, {0, 7}, {58, 63}, {60, 61}, {3, 4}, {10, 59}}) {
            // Named copies, not a structured binding: clang 14 cannot capture one in the lambda below.
            const g::vertex_id v0 = run.first, v1 = run.second;
            SCOPED_TRACE(::testing::Message()
                         << "width " << width << ", vertices [" << v0 << ", " << v1 << ")");
            canopy::test::for_seeds(canopy::test::emu_options("tiny", width), 3, [&] {
                canopy::device_buffer<g::edge_id> doff(off);
                canopy::device_buffer<g::vertex_id> dsrc(src);
                canopy::device_buffer<std::uint64_t> dval(value), dsum(120);
                canopy::device_buffer<unsigned> dcalls(120), dlane(120);
                dsum.fill_zero();
                dcalls.fill_zero();
                dlane.fill_zero();
                const g::csr_view in{doff.data(), dsrc.data(), nullptr, 120, src.size()};
                canopy::launch(
                    {.grid = 1, .block = width},
                    pull_arcs_kernel{in, v0, v1, dval.data(), dsum.data(), dcalls.data(), dlane.data()});
                const auto sums = dsum.to_vector();
                const auto calls = dcalls.to_vector();
                const auto lanes = dlane.to_vector();
                const g::edge_id a0 = off[v0], s = (off[v1] - a0 + width - 1) / width;
                for (g::vertex_id v = 0; v < 120; ++v) {
                    if (v < v0 || v >= v1) {
                        EXPECT_EQ(calls[v], 0u) << "vertex " << v << " is outside the run";
                        continue;
                    }
                    std::uint64_t want = 0;
                    for (g::edge_id e = off[v]; e < off[v + 1]; ++e) {
                        want += value[src[e]];
                    }
                    EXPECT_EQ(calls[v], 1u) << "vertex " << v;
                    EXPECT_EQ(sums[v], want) << "vertex " << v;
                    EXPECT_EQ(lanes[v], (off[v + 1] - 1 - a0) / s)
                        << "vertex " << v << ": not its last arc's lane";
                }
            });
        }
    }
}

// pr_make_layout against a brute-force reading of its contract: order is a permutation and position its
// inverse; the blocks cut [0, n) into runs, those with in-arcs first and within the arc budget (or one
// vertex), the vertices without in-arcs last, at most a sub-group's width a block; the transpose in new
// ids holds exactly the graph's arcs; a block's entries are exactly the blocks its out-arcs reach (each
// once); need counts the notifying blocks naming each block, active those that notify. And the blocks
// are patches: on a grid, most arcs stay inside their block (grown breadth-first), more than when one
// breadth-first order is cut into runs of the same budget.
// A round after a near miss stops where the measured residual, shrinking at the worst of the last three
// rates plus 0.05, falls under 0.8x what the target allows: worked by hand.
TEST(GraphPageRankColorReference, FollowUpRoundStopsWhereTheMeasuredResidualMeetsTheTarget) {
    using canopy::workloads::graph::detail::pr_followup_stop;
    // Changes 1000, 500, 250, 125 (rates 0.5): r = 0.55; residual 100, allowed 10: want 8, and
    // 100 * 0.55^g <= 8 first at g = 5 (0.55^4 = 0.0915, 0.55^5 = 0.0503).
    const std::vector<std::uint64_t> halving = {0, 1000, 500, 250, 125, 0, 0};
    EXPECT_EQ(pr_followup_stop(halving, 100, 10, 0.85, 1000), 5u);
    // The worst rate counts, neither the latest nor the oldest: 1000, 500, 400, 100 (rates 0.5, 0.8,
    // 0.25): r = 0.85, 100 * 0.85^g <= 8 first at g = 16 (0.85^15 = 0.0874, 0.85^16 = 0.0743).
    const std::vector<std::uint64_t> slow_between = {0, 1000, 500, 400, 100, 0};
    EXPECT_EQ(pr_followup_stop(slow_between, 100, 10, 0.85, 1000), 16u);
    // Already under the target's share: one generation (a round runs at least one). Capped by cap.
    EXPECT_EQ(pr_followup_stop(halving, 7, 10, 0.85, 1000), 1u);
    EXPECT_EQ(pr_followup_stop(halving, 100, 10, 0.85, 3), 3u);
    // No completed rate (a round of one generation): the damping's, 0.85 -> 16 as above.
    EXPECT_EQ(pr_followup_stop({0, 1000, 0}, 100, 10, 0.85, 1000), 16u);
    // A rate that did not fall reads as 1 and is capped at 0.95: 100 * 0.95^g <= 8 first at g = 50.
    EXPECT_EQ(pr_followup_stop({0, 100, 100, 100, 100}, 100, 10, 0.85, 1000), 50u);
}

TEST(GraphPageRankColorReference, BlocksArePatchesWithTheirExactAdjacency) {
    const g::csr_graph graphs[] = {kronecker(8), g::make_grid(17, 23).graph, small_directed(),
                                   g::csr_graph({0, 1, 2, 3, 3}, {1, 2, 1})};
    for (const auto& gr : graphs) {
        const std::vector<g::edge_id> off(gr.offsets().begin(), gr.offsets().end());
        const std::vector<g::vertex_id> tgt(gr.targets().begin(), gr.targets().end());
        const g::vertex_id n = gr.num_vertices();
        for (const g::edge_id budget : {g::edge_id{1}, g::edge_id{64}, g::edge_id{256}}) {
            SCOPED_TRACE(::testing::Message() << n << " vertices, budget " << budget);
            const unsigned lanes = 32;
            const auto k = g::detail::pr_make_layout(off, tgt, n, budget, lanes);
            ASSERT_EQ(k.order.size(), n);
            ASSERT_EQ(k.position.size(), n);
            std::vector<bool> seen(n, false);
            std::vector<g::edge_id> indeg(n, 0);
            for (g::edge_id e = 0; e < gr.num_edges(); ++e) {
                ++indeg[tgt[e]];
            }
            for (g::vertex_id i = 0; i < n; ++i) {
                ASSERT_LT(k.order[i], n);
                ASSERT_FALSE(seen[k.order[i]]) << "vertex " << k.order[i] << " twice in the order";
                seen[k.order[i]] = true;
                EXPECT_EQ(k.position[k.order[i]], i);
                EXPECT_EQ(k.out_degree[i], gr.degree(k.order[i]));
                EXPECT_EQ(k.in_offsets[i + 1] - k.in_offsets[i], indeg[k.order[i]]);
            }
            const std::uint32_t nb = k.blocks();
            ASSERT_EQ(k.block_first.front(), 0u);
            ASSERT_EQ(k.block_first.back(), n);
            std::vector<std::uint32_t> block_of(n);
            for (std::uint32_t b = 0; b < nb; ++b) {
                ASSERT_LT(k.block_first[b], k.block_first[b + 1]) << "block " << b << " is empty";
                const g::edge_id arcs = k.in_offsets[k.block_first[b + 1]] - k.in_offsets[k.block_first[b]];
                for (g::vertex_id i = k.block_first[b]; i < k.block_first[b + 1]; ++i) {
                    block_of[i] = b;
                    EXPECT_EQ(b < k.arc_blocks, indeg[k.order[i]] != 0) << "block " << b << ", vertex " << i;
                }
                if (b < k.arc_blocks) {
                    EXPECT_TRUE(arcs <= budget || k.block_first[b + 1] - k.block_first[b] == 1)
                        << "block " << b << ": " << arcs << " arcs";
                } else {
                    EXPECT_LE(k.block_first[b + 1] - k.block_first[b], lanes);
                }
            }
            // The transpose: every arc u -> v once, as source position[u] of position[v].
            std::multiset<std::pair<g::vertex_id, g::vertex_id>> want, got;
            for (g::vertex_id u = 0; u < n; ++u) {
                for (g::edge_id e = off[u]; e < off[u + 1]; ++e) {
                    want.insert({k.position[u], k.position[tgt[e]]});
                }
            }
            for (g::vertex_id v = 0; v < n; ++v) {
                for (g::edge_id e = k.in_offsets[v]; e < k.in_offsets[v + 1]; ++e) {
                    got.insert({k.in_sources[e], v});
                }
            }
            EXPECT_EQ(got, want);
            std::vector<std::uint32_t> need(nb, 0);
            for (std::uint32_t b = 0; b < nb; ++b) {
                std::set<std::uint32_t> reach;
                for (g::vertex_id i = k.block_first[b]; i < k.block_first[b + 1]; ++i) {
                    for (g::edge_id e = off[k.order[i]]; e < off[k.order[i] + 1]; ++e) {
                        reach.insert(block_of[k.position[tgt[e]]]);
                    }
                }
                const std::set<std::uint32_t> named(k.entries.begin() + k.offsets[b],
                                                    k.entries.begin() + k.offsets[b + 1]);
                EXPECT_EQ(named, reach) << "block " << b;
                EXPECT_EQ(named.size(), k.offsets[b + 1] - k.offsets[b])
                    << "block " << b << " names a block twice";
                if (k.need[b] != 0) {
                    for (std::uint32_t c : named) {
                        ++need[c];
                    }
                }
            }
            EXPECT_EQ(k.need, need);
            EXPECT_EQ(k.active, static_cast<std::uint32_t>(std::count_if(
                                    k.need.begin(), k.need.end(), [](std::uint32_t x) { return x != 0; })));
        }
    }
    // Patches: the share of a grid's arcs whose two ends share a block, against runs of one breadth-first
    // order cut at the same budget (shells, two rows at a time).
    const g::csr_graph grid = g::make_grid(40, 40).graph;
    const std::vector<g::edge_id> off(grid.offsets().begin(), grid.offsets().end());
    const std::vector<g::vertex_id> tgt(grid.targets().begin(), grid.targets().end());
    const g::vertex_id n = grid.num_vertices();
    const g::edge_id budget = 128;
    const auto k = g::detail::pr_make_layout(off, tgt, n, budget, 32);
    std::vector<std::uint32_t> block_of(n);
    for (std::uint32_t b = 0; b < k.blocks(); ++b) {
        for (g::vertex_id i = k.block_first[b]; i < k.block_first[b + 1]; ++i) {
            block_of[k.order[i]] = b;
        }
    }
    std::vector<g::vertex_id> bfs{0};
    std::vector<bool> seen(n, false);
    seen[0] = true;
    for (std::size_t h = 0; h < bfs.size(); ++h) {
        for (g::edge_id e = off[bfs[h]]; e < off[bfs[h] + 1]; ++e) {
            if (!seen[tgt[e]]) {
                seen[tgt[e]] = true;
                bfs.push_back(tgt[e]);
            }
        }
    }
    std::vector<std::uint32_t> cut_of(n);
    g::edge_id arcs = 0;
    std::uint32_t cut = 0;
    for (g::vertex_id v : bfs) {
        if (arcs != 0 && arcs + grid.degree(v) > budget) {
            ++cut;
            arcs = 0;
        }
        cut_of[v] = cut;
        arcs += grid.degree(v);
    }
    g::edge_id inside = 0, inside_cut = 0;
    for (g::vertex_id u = 0; u < n; ++u) {
        for (g::edge_id e = off[u]; e < off[u + 1]; ++e) {
            inside += block_of[u] == block_of[tgt[e]] ? 1 : 0;
            inside_cut += cut_of[u] == cut_of[tgt[e]] ? 1 : 0;
        }
    }
    EXPECT_GT(inside, inside_cut) << inside << " arcs inside grown blocks, " << inside_cut << " inside cuts";
    EXPECT_GT(2 * inside, grid.num_edges()) << "most arcs inside their block";
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
