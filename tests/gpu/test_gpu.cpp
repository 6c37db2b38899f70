// canopy_gpu_tests — the tests that can run on a real GPU: written against platform/, the runtime and
// the workloads only (no emulator header), so that one source builds for every backend. On the hip and
// cuda presets (CANOPY_GPU_TESTS=ON) tools/gpu-check.sh runs them on the GPU; on cpu, ctest runs the same
// file on the emulator (its default options: the deterministic scheduler on the tiny device), so the
// tests themselves are checked by CI on every submission. Sizes follow the backend: a GPU gets the
// published UTS trees and Kronecker 14, the emulator small ones.
//
// Every check compares a computed result with an oracle the host computes independently: a permutation
// of tickets, a closed form (lane sums, Fibonacci), the published UTS counts or the sequential reference
// traversal, and for graphs the sequential oracles plus Graph500's validation rules, the proved PageRank
// error bound and a proper-colouring check.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/checked_tasks.hpp"
#include "canopy/workloads/graph/coloring.hpp"
#include "canopy/workloads/graph/coloring_reference.hpp"
#include "canopy/workloads/graph/generate.hpp"
#include "canopy/workloads/graph/pagerank.hpp"
#include "canopy/workloads/graph/pagerank_reference.hpp"
#include "canopy/workloads/graph/reference.hpp"
#include "canopy/workloads/graph/strategies.hpp"
#include "canopy/workloads/graph/validate.hpp"
#include "canopy/workloads/graph/weights.hpp"
#include "canopy/workloads/uts/params.hpp"
#include "canopy/workloads/uts/reference.hpp"
#include "canopy/workloads/uts/runtime.hpp"

namespace {

namespace rt = canopy::runtime;
namespace g = canopy::workloads::graph;
namespace uts = canopy::workloads::uts;
namespace checked = canopy::workloads::checked;

#if defined(CANOPY_BACKEND_CPU)
constexpr bool emulated = true;
#else
constexpr bool emulated = false;
#endif

// ---- platform -------------------------------------------------------------------------------------

struct device_tickets {
    unsigned* counter;
    unsigned* olds;
    CANOPY_DEVICE void operator()() const {
        // Relaxed, device scope: atomicity alone makes the old values a permutation.
        olds[canopy::global_id()] = canopy::atomic_ref<unsigned, canopy::scope::device>(*counter).fetch_add(
            1, std::memory_order_relaxed);
    }
};

struct workgroup_tickets {
    unsigned* counters; // one per work-group: a work-group-scope atomic shared only inside its group
    unsigned* olds;
    CANOPY_DEVICE void operator()() const {
        olds[canopy::global_id()] =
            canopy::atomic_ref<unsigned, canopy::scope::workgroup>(counters[canopy::block_id()])
                .fetch_add(1, std::memory_order_relaxed);
    }
};

TEST(GpuPlatform, AtomicTicketsAreAPermutationAtDeviceAndWorkGroupScope) {
    const unsigned grid = emulated ? 4 : 528, block = 256, n = grid * block;
    canopy::device_buffer<unsigned> counter(grid), olds(n);
    counter.fill_zero();
    canopy::launch({.grid = grid, .block = block}, device_tickets{counter.data(), olds.data()});
    canopy::device_synchronize();
    std::vector<unsigned> o = olds.to_vector();
    std::sort(o.begin(), o.end());
    std::vector<unsigned> want(n);
    std::iota(want.begin(), want.end(), 0u);
    EXPECT_EQ(o, want) << "device-scope fetch_add: tickets lost or repeated";
    EXPECT_EQ(counter.to_vector()[0], n);

    counter.fill_zero();
    canopy::launch({.grid = grid, .block = block}, workgroup_tickets{counter.data(), olds.data()});
    canopy::device_synchronize();
    o = olds.to_vector();
    const std::vector<unsigned> per = counter.to_vector();
    for (unsigned b = 0; b < grid; ++b) {
        std::vector<unsigned> mine(o.begin() + b * block, o.begin() + (b + 1) * block);
        std::sort(mine.begin(), mine.end());
        std::vector<unsigned> w(block);
        std::iota(w.begin(), w.end(), 0u);
        ASSERT_EQ(mine, w) << "work-group " << b << ": work-group-scope fetch_add";
        ASSERT_EQ(per[b], block);
    }
}

struct collectives {
    unsigned* out; // 4 words per work-item
    CANOPY_DEVICE void operator()() const {
        const unsigned l = canopy::lane_id();
        const unsigned F = canopy::subgroup_size();
        unsigned* o = out + 4 * canopy::global_id();
        o[0] = canopy::exclusive_sum(l + 1);
        o[1] = canopy::broadcast(7 * (l + 1), 3 % F);
        o[2] = canopy::any(l == 5) ? 1u : 0u;
        o[3] = F;
    }
};

TEST(GpuPlatform, SubGroupCollectivesMatchTheirClosedForms) {
    const unsigned grid = emulated ? 2 : 132, block = 128, n = grid * block;
    canopy::device_buffer<unsigned> out(4 * n);
    canopy::launch({.grid = grid, .block = block}, collectives{out.data()});
    canopy::device_synchronize();
    const std::vector<unsigned> o = out.to_vector();
    const unsigned F = o[3];
    ASSERT_TRUE(F == 32 || F == 64 || (emulated && F >= 1)) << "sub-group size " << F;
    for (unsigned i = 0; i < n; ++i) {
        const unsigned l = (i % block) % F; // block is a multiple of F
        ASSERT_EQ(o[4 * i], l * (l + 1) / 2) << "exclusive_sum, work-item " << i;
        ASSERT_EQ(o[4 * i + 1], 7 * (3 % F + 1)) << "broadcast, work-item " << i;
        ASSERT_EQ(o[4 * i + 2], F > 5 ? 1u : 0u) << "any, work-item " << i;
        ASSERT_EQ(o[4 * i + 3], F);
    }
}

// ---- runtime --------------------------------------------------------------------------------------

struct core_case {
    rt::policy policy;
    rt::queue_design queues;
    unsigned device_rings; // ring core: 1 (one ring) or 0 (one per 8 work-groups)
};

std::vector<core_case> cores() {
    std::vector<core_case> v;
    for (rt::policy p : {rt::policy::hrf_direct, rt::policy::hrf_indirect, rt::policy::steal_emulated}) {
        v.push_back({p, rt::queue_design::ring, 0});
        v.push_back({p, rt::queue_design::ring, 1});
        v.push_back({p, rt::queue_design::locked, 0});
    }
    return v;
}

std::string name(const core_case& k) {
    return std::string(rt::to_string(k.policy)) + " " + rt::to_string(k.queues) +
           (k.queues == rt::queue_design::ring ? " rings=" + std::to_string(k.device_rings) : "");
}

/// The runtime configuration of a core case, with the queue capacities both runtime tests use.
rt::config config_of(const core_case& k) {
    rt::config c;
    c.policy = k.policy;
    c.queues = k.queues;
    c.device_rings = k.device_rings;
    c.private_capacity = 64;
    c.device_capacity = 256;
    return c;
}

TEST(GpuRuntime, FibIsExactUnderEveryPolicyAndCore) {
    const unsigned n = emulated ? 11 : 22;
    for (const core_case& k : cores()) {
        SCOPED_TRACE(name(k));
        canopy::device_buffer<unsigned> leaves(1);
        leaves.fill_zero();
        rt::task_set<checked::fib_task> ts{checked::fib_task{leaves.data()}};
        ts.seed<checked::fib_task>({n});
        const rt::stats s = ts.run(config_of(k));
        const unsigned want = checked::fib_leaves(n); // Fibonacci(n + 1), by recurrence on the host
        EXPECT_EQ(leaves.to_vector()[0], want);
        EXPECT_EQ(s.total_tasks(), 2ull * want - 1);
    }
}

TEST(GpuRuntime, EveryTaskOfATreeRunsExactlyOnce) {
    // run_tree: every task checks its payload's checksum and records its id (checked_tasks.hpp).
    const unsigned n = emulated ? 600 : 200000;
    for (const core_case& k : cores()) {
        for (bool unbalanced : {false, true}) {
            SCOPED_TRACE(name(k) + (unbalanced ? " unbalanced" : " balanced"));
            rt::config c = config_of(k);
            c.staging_capacity = 64;
            unsigned tasks = n;
            if (unbalanced) {
                // One task spawns all the others: a staging buffer of that many tasks per lane, so a
                // plain grid of a few work-groups keeps the staging memory small.
                tasks = 320;
                c.staging_capacity = tasks;
                c.persistent = false;
                c.grid = emulated ? 4 : 64;
            }
            const auto r = checked::run_tree(c, tasks, unbalanced ? 0 : 3, unbalanced);
            EXPECT_TRUE(r.exactly_once()) << "bad checksums " << r.bad_checksum << ", bad ids " << r.bad_id;
        }
    }
}

// ---- UTS ------------------------------------------------------------------------------------------

TEST(GpuUts, TreesMatchThePublishedCounts) {
    // On a GPU: the published T1, T3 and T5, and T2L (97 M nodes) and T1XL (1.6 G nodes) under the default
    // core; T1 under every policy and core. The emulator: the default tree (1,732 nodes) likewise.
    const std::vector<std::string> trees = emulated
                                               ? std::vector<std::string>{"default"}
                                               : std::vector<std::string>{"T1", "T3", "T5", "T2L", "T1XL"};
    for (const std::string& t : trees) {
        SCOPED_TRACE(t);
        const uts::sample_tree* s = uts::find_sample_tree(t);
        ASSERT_NE(s, nullptr);
        ASSERT_TRUE(s->expected.known());
        const auto r =
            uts::traverse_runtime(uts::sample_params(t), uts::default_config(rt::policy::hrf_indirect));
        EXPECT_EQ(r.c.nodes, s->expected.nodes);
        EXPECT_EQ(r.c.leaves, s->expected.leaves);
        EXPECT_EQ(r.c.depth, s->expected.depth);
    }
    const std::string t = emulated ? "default" : "T1";
    const uts::counts want{uts::find_sample_tree(t)->expected.nodes,
                           uts::find_sample_tree(t)->expected.leaves,
                           uts::find_sample_tree(t)->expected.depth};
    for (const core_case& k : cores()) {
        SCOPED_TRACE(t + " " + name(k));
        rt::config c = uts::default_config(k.policy);
        c.queues = k.queues;
        c.device_rings = k.device_rings;
        EXPECT_EQ(uts::traverse_runtime(uts::sample_params(t), c).c, want);
    }
}

TEST(GpuUts, UnpublishedTreesMatchTheSequentialReference) {
    // T2 and T4 carry no published counts: the host's sequential traversal is the oracle (on the
    // emulator, a small binomial and a small hybrid tree).
    const std::vector<std::string> flags =
        emulated
            ? std::vector<std::string>{"-t 0 -b 200 -q 0.2 -m 4 -r 3", "-t 2 -a 0 -d 5 -b 4 -r 1 -q 0.2 -m 3"}
            : std::vector<std::string>{uts::find_sample_tree("T2")->flags,
                                       uts::find_sample_tree("T4")->flags};
    for (const std::string& f : flags) {
        SCOPED_TRACE(f);
        const uts::params p = uts::parse_flags(uts::split_flags(f));
        EXPECT_EQ(uts::traverse_runtime(p, uts::default_config(rt::policy::hrf_indirect)).c,
                  uts::traverse_sequential(p));
    }
}

// ---- graphs ---------------------------------------------------------------------------------------

g::run_options graph_options(g::strategy s) {
    g::run_options o;
    o.how = s;
    return o;
}

TEST(GpuGraph, BfsAndSsspMatchTheOraclesAndGraph500Rules) {
    g::kronecker_params kp;
    kp.scale = emulated ? 8 : 14;
    const g::csr_graph gr = g::make_kronecker(kp).graph;
    const g::csr_graph weighted = g::with_hash_weights(gr);
    const g::vertex_id source = gr.max_degree_vertex();
    const g::device_graph dg(gr), dw(weighted);
    const g::bfs_result bref = g::reference_bfs(gr, source);
    const g::sssp_result sref = g::reference_sssp(weighted, source);
    for (g::strategy s : g::all_strategies) {
        SCOPED_TRACE(g::to_string(s));
        const auto b = g::run<g::bfs_problem>(dg.view(), source, graph_options(s));
        EXPECT_TRUE(g::compare_levels(bref.level, b.labels).ok())
            << g::compare_levels(bref.level, b.labels).summary();
        EXPECT_TRUE(g::validate_bfs(gr, source, b.labels).ok())
            << g::validate_bfs(gr, source, b.labels).summary();
        const auto d = g::run<g::sssp_problem>(dw.view(), source, graph_options(s));
        EXPECT_TRUE(g::compare_distances(sref.distance, d.labels).ok())
            << g::compare_distances(sref.distance, d.labels).summary();
        EXPECT_TRUE(g::validate_sssp(weighted, source, d.labels).ok())
            << g::validate_sssp(weighted, source, d.labels).summary();
    }
}

TEST(GpuGraph, PageRankWithinItsBoundAndColouringProper) {
    g::kronecker_params kp;
    kp.scale = emulated ? 7 : 14;
    const g::csr_graph gr = g::make_kronecker(kp).graph;
    const g::device_graph dg(gr);
    g::pagerank_options p;
    const std::vector<double> exact = g::reference_pagerank(gr, p.damping);
    for (g::strategy s : g::all_strategies) {
        SCOPED_TRACE(g::to_string(s));
        const auto r = g::run_pagerank(dg.view(), p, graph_options(s));
        if (s == g::strategy::tasks) {
            EXPECT_LE(g::l1_distance(exact, r.labels),
                      g::pagerank_tasks_bound(gr, p.damping, g::pagerank_tasks_default_tolerance));
        } else {
            // Fixed point: bit-identical to the host's fixed-point power iteration.
            const g::pagerank_fixed_result ref =
                g::reference_pagerank_fixed(gr, p.damping, p.iterations, p.tolerance);
            EXPECT_EQ(r.labels, g::ranks_to_double(ref.rank));
        }
        const auto c = g::run_color(dg.view(), graph_options(s));
        const auto v = g::validate_coloring(gr, c.labels);
        EXPECT_TRUE(v.ok) << v.message;
        EXPECT_EQ(c.labels,
                  s == g::strategy::tasks ? g::reference_greedy_color(gr) : g::reference_jones_plassmann(gr));
    }
}

} // namespace
