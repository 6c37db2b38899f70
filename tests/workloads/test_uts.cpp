// UTS (canopy/workloads/uts): SHA-1 and the random stream against the notes' vectors, the child-count
// rules at the root, the published counts on the sequential reference (default, T1, T3, T5), and the
// runtime version exact under every policy on the scoped-cache model (small trees, several seeds) and
// on the parallel scheduler (T1).
#include <cstdint>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "../common/emu_test.hpp"
#include "../common/policy_name.hpp"
#include "canopy/workloads/uts/compiled_runs.hpp"
#include "canopy/workloads/uts/joins.hpp"
#include "canopy/workloads/uts/uts.hpp"

namespace {

namespace uts = canopy::workloads::uts;
namespace rt = canopy::runtime;

std::string hex(const std::uint8_t* b, unsigned n) {
    std::string s;
    char buf[3];
    for (unsigned i = 0; i < n; ++i) {
        std::snprintf(buf, sizeof buf, "%02x", b[i]);
        s += buf;
    }
    return s;
}

std::string sha1_hex(const std::string& msg) {
    std::uint8_t out[20];
    uts::sha1(reinterpret_cast<const std::uint8_t*>(msg.data()), msg.size(), out);
    return hex(out, 20);
}

TEST(UtsSha1, FipsVectors) {
    EXPECT_EQ(sha1_hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    EXPECT_EQ(sha1_hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
    EXPECT_EQ(sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    EXPECT_EQ(sha1_hex(std::string(1000, 'a')), sha1_hex(std::string(1000, 'a'))); // multi-block path runs
    EXPECT_EQ(sha1_hex(std::string(55, 'x')), [] {
        std::uint8_t out[20];
        const std::string m(55, 'x');
        uts::sha1_short(reinterpret_cast<const std::uint8_t*>(m.data()), 55, out);
        return hex(out, 20);
    }());
}

TEST(UtsSha1, StreamVectorsOfTheNotes) {
    struct row {
        int seed;
        int child; // -1: the root
        const char* state;
        int rand;
    };
    const row rows[] = {
        {0, -1, "6768033e216468247bd031a0a2d9876d79818f8f", 2038534031},
        {0, 0, "f6b4e21a6db7135e161960a04c6bd6cab35bd8d3", 861657299},
        {0, 1, "5f9ce39723964a09decdaecdd937b9f50107e514", 17294612},
        {19, -1, "c6988ab70cc9559ae4d6cba254e29a845a85f86b", 1518729323},
        {19, 0, "2fb3131030280c1617a81d6a49c1e29effb19645", 2142344773},
        {42, -1, "a11dabbcec7aab309c890ab3dbc256eaeb582782", 1800939394},
        {42, 0, "7407806c9e18f6e1d4d944809de9c0c94b892757", 1267279703},
    };
    for (const row& r : rows) {
        SCOPED_TRACE(::testing::Message() << "seed " << r.seed << " child " << r.child);
        uts::node_state s = uts::root_state(r.seed);
        if (r.child >= 0) {
            s = uts::child_state(s, static_cast<unsigned>(r.child));
        }
        EXPECT_EQ(hex(s.b, 20), r.state);
        EXPECT_EQ(uts::rng_rand(s), r.rand);
        // Granularity repeats the hash for cost only: the same state.
        if (r.child >= 0) {
            EXPECT_EQ(hex(uts::spawn_state(uts::root_state(r.seed), static_cast<unsigned>(r.child), 7).b, 20),
                      r.state);
        }
    }
    EXPECT_EQ(uts::to_prob(0), 0.0);
    EXPECT_EQ(uts::to_prob(1 << 30), 0.5);
}

int root_children(const uts::params& p) {
    return uts::num_children(p, uts::root_state(p.root_seed), 0, uts::root_type(p));
}

TEST(UtsRules, RootChildCounts) {
    EXPECT_EQ(root_children(uts::sample_params("default")), 13);
    EXPECT_EQ(root_children(uts::sample_params("T1")), 5);
    EXPECT_EQ(root_children(uts::sample_params("T3")), 2000);
}

TEST(UtsRules, ShapesEndTheirTrees) {
    const uts::node_state s = uts::root_state(0);
    uts::params p;
    p.gen_mx = 6;
    p.shape = uts::geo_shape::fixed;
    EXPECT_EQ(uts::num_children(p, s, 6, uts::tree_type::geo), 0); // b_i = 0: p = 1, -0.0
    p.shape = uts::geo_shape::linear;
    EXPECT_EQ(uts::num_children(p, s, 6, uts::tree_type::geo), 0);
    p.shape = uts::geo_shape::cyclic;
    EXPECT_EQ(uts::num_children(p, s, 31, uts::tree_type::geo), 0);
    p.type = uts::tree_type::balanced;
    p.b0 = 3;
    EXPECT_EQ(uts::num_children(p, s, 5, uts::tree_type::balanced), 3);
    EXPECT_EQ(uts::num_children(p, s, 6, uts::tree_type::balanced), 0);
    // A balanced tree of depth 6 and branching 3: (3^7 - 1) / 2 nodes, 3^6 leaves.
    const uts::counts c = uts::traverse_sequential(p);
    EXPECT_EQ(c.nodes, 1093u);
    EXPECT_EQ(c.leaves, 729u);
    EXPECT_EQ(c.depth, 6);
    // HYBRID: GEO below shift depth, BIN from it on.
    uts::params h = uts::sample_params("T4");
    EXPECT_EQ(uts::child_type(h, 7), uts::tree_type::geo);
    EXPECT_EQ(uts::child_type(h, 8), uts::tree_type::bin);
}

TEST(UtsParams, FlagsAndNames) {
    const uts::params p = uts::parse_flags("-t 0 -b 2000 -q 0.124875 -m 8 -r 42");
    EXPECT_EQ(p.type, uts::tree_type::bin);
    EXPECT_EQ(p.b0, 2000.0);
    EXPECT_EQ(p.q, 0.124875);
    EXPECT_EQ(p.m, 8);
    EXPECT_EQ(p.root_seed, 42);
    EXPECT_EQ(p.gen_mx, 6); // default kept
    EXPECT_EQ(uts::to_flags(uts::parse_flags(uts::to_flags(p))), uts::to_flags(p));
    for (const auto& t : uts::sample_trees()) {
        EXPECT_NO_THROW(uts::sample_params(t.name)) << t.name;
    }
}

TEST(UtsParams, BadFlagsAreRejected) {
    EXPECT_THROW(uts::sample_params("T9"), uts::bad_params);
    EXPECT_THROW(uts::parse_flags("-t 4"), uts::bad_params);
    EXPECT_THROW(uts::parse_flags("-a -1"), uts::bad_params);
    EXPECT_THROW(uts::parse_flags("-d 0"), uts::bad_params);
    EXPECT_THROW(uts::parse_flags("-b x"), uts::bad_params);
    EXPECT_THROW(uts::parse_flags("-q 1.5"), uts::bad_params);
    EXPECT_THROW(uts::parse_flags("-m 101"), uts::bad_params);
    EXPECT_THROW(uts::parse_flags("-g 0"), uts::bad_params);
    EXPECT_THROW(uts::parse_flags("-z 1"), uts::bad_params);
    EXPECT_THROW(uts::parse_flags("-t"), uts::bad_params);
    EXPECT_THROW(uts::parse_flags("-r 12abc"), uts::bad_params);
    try {
        uts::parse_flags("-q 2");
        FAIL();
    } catch (const uts::bad_params& e) {
        EXPECT_NE(std::string(e.what()).find("-q"), std::string::npos);
    }
}

void expect_counts(const uts::counts& c, std::uint64_t nodes, int depth, std::uint64_t leaves) {
    EXPECT_EQ(c.nodes, nodes);
    EXPECT_EQ(c.depth, depth);
    EXPECT_EQ(c.leaves, leaves);
}

TEST(UtsReference, DefaultTree) { expect_counts(uts::traverse_sequential(uts::params{}), 1732, 6, 1050); }
TEST(UtsReference, T1) {
    expect_counts(uts::traverse_sequential(uts::sample_params("T1")), 4130071, 10, 3305118);
}
TEST(UtsReference, T3) {
    expect_counts(uts::traverse_sequential(uts::sample_params("T3")), 4112897, 1572, 3599034);
}
TEST(UtsReference, T5) {
    expect_counts(uts::traverse_sequential(uts::sample_params("T5")), 4147582, 20, 2181318);
}

rt::config cfg(rt::policy p, unsigned block = 32) {
    rt::config c;
    c.policy = p;
    c.block = block;
    return c;
}

class UtsRuntimePolicy : public ::testing::TestWithParam<rt::policy> {};

TEST_P(UtsRuntimePolicy, DefaultTreeExactOnTheScopedCacheModel) {
    canopy::test::for_seeds(canopy::test::scm_options(), 6, [&] {
        const auto r = uts::compiled::traverse_runtime(uts::params{}, cfg(GetParam()));
        expect_counts(r.c, 1732, 6, 1050);
        ASSERT_GE(r.stats.total_tasks(), 1732u);
    });
}

TEST_P(UtsRuntimePolicy, DefaultTreeExactOnTheTimedScopedCacheModelOfHrf8) {
    // What the HRF experiment runs: hrf8, the SCM, simulated-time order, SHA-1 compute declared.
    auto o = canopy::test::emu_options("hrf8");
    o.memory_model = canopy::emu::memory_model_kind::scoped;
    o.timed = true;
    canopy::test::for_seeds(o, 2, [&] {
        const auto r = uts::compiled::traverse_runtime(uts::params{}, uts::default_config(GetParam()));
        expect_counts(r.c, 1732, 6, 1050);
        EXPECT_GT(r.stats.cycles_makespan, 0u);
        EXPECT_LE(r.stats.cycles_makespan, r.stats.cycles_total + 1732ull * 6 * uts::sha1_model_cycles);
    });
}

TEST_P(UtsRuntimePolicy, SmallBinomialTreeWithRangesExactOnTheScopedCacheModel) {
    // A BIN root of 40 children goes through range tasks; checked against the sequential reference.
    const uts::params p = uts::parse_flags("-t 0 -b 40 -q 0.24 -m 4 -r 3");
    const uts::counts want = uts::traverse_sequential(p);
    ASSERT_GT(want.nodes, 40u);
    canopy::test::for_seeds(canopy::test::scm_options(), 3, [&] {
        const auto r = uts::compiled::traverse_runtime(p, cfg(GetParam()));
        EXPECT_EQ(r.c, want);
    });
}

TEST_P(UtsRuntimePolicy, SmallGeoHybridTreesExactOnTheScopedCacheModel) {
    // Cyclic and exponentially decreasing GEO shapes and a HYBRID tree, against the sequential reference.
    for (const char* flags : {"-t 1 -a 2 -d 4 -b 3 -r 5", "-t 1 -a 1 -d 5 -b 5 -r 11",
                              "-t 2 -a 0 -d 8 -b 4 -r 1 -q 0.2 -m 4", "-t 3 -d 4 -b 3 -r 2"}) {
        SCOPED_TRACE(flags);
        const uts::params p = uts::parse_flags(flags);
        const uts::counts want = uts::traverse_sequential(p);
        canopy::test::for_seeds(canopy::test::scm_options(), 2, [&] {
            EXPECT_EQ(uts::compiled::traverse_runtime(p, cfg(GetParam())).c, want);
        });
    }
}

// canopy uts --joins: every subtree's counts by joins (uts/joins.hpp), a BIN root's 40 children through
// range records, GEO and HYBRID shapes, against the sequential reference on the scoped-cache model.
TEST_P(UtsRuntimePolicy, JoinModeIsExactOnTheScopedCacheModel) {
    for (const char* flags : {"-t 0 -b 40 -q 0.24 -m 4 -r 3", "-t 1 -a 2 -d 4 -b 3 -r 5",
                              "-t 2 -a 0 -d 8 -b 4 -r 1 -q 0.2 -m 4"}) {
        SCOPED_TRACE(flags);
        const uts::params p = uts::parse_flags(flags);
        const uts::counts want = uts::traverse_sequential(p);
        canopy::test::for_seeds(canopy::test::scm_options(), 2, [&] {
            EXPECT_EQ(uts::compiled::traverse_runtime_joins(p, cfg(GetParam()), 4096).c, want);
        });
    }
}

INSTANTIATE_TEST_SUITE_P(Policies, UtsRuntimePolicy, ::testing::ValuesIn(rt::all_policies),
                         canopy::test::policy_name);

TEST(UtsJoins, TooFewRecordsIsReportedNamingTheFlag) {
    canopy::emu::scoped_options so(canopy::test::emu_options("tiny"));
    try {
        (void)uts::compiled::traverse_runtime_joins(uts::params{}, cfg(rt::policy::hrf_indirect), 4);
        ADD_FAILURE() << "the default tree by joins with 4 records succeeded";
    } catch (const canopy::error& e) {
        EXPECT_NE(std::string(e.what()).find("--join-records"), std::string::npos) << e.what();
    }
}

// A join's result packs leaves and depth into one word (uts/joins.hpp): sums and maxima exact up to
// the fields' limits, and a field that overflows marks the depth, which every later sum keeps, instead
// of wrapping into a wrong count. The oracle is the arithmetic itself.
TEST(UtsJoins, SubtreeCountsSumExactlyAndMarkAnOverflow) {
    const uts::subtree_counts a = uts::add_counts(uts::leaf_counts(7), uts::leaf_counts(3));
    EXPECT_EQ(a.nodes, 2u);
    EXPECT_EQ(uts::leaves_of(a), 2u);
    EXPECT_EQ(uts::depth_of(a), 7u);
    const uts::subtree_counts edge{0, (uts::max_leaves - 1) << uts::depth_bits | 4};
    EXPECT_EQ(uts::leaves_of(uts::add_counts(edge, uts::leaf_counts(4))), uts::max_leaves)
        << "the largest leaf count does not fit";
    const uts::subtree_counts full{5, uts::max_leaves << uts::depth_bits | 9};
    const uts::subtree_counts over = uts::add_counts(full, uts::leaf_counts(2));
    EXPECT_EQ(uts::depth_of(over), uts::counts_overflow) << "a leaf count past 2^40 - 1 wrapped";
    EXPECT_EQ(uts::depth_of(uts::add_counts(uts::leaf_counts(1), over)), uts::counts_overflow)
        << "an overflow was lost in a later sum";
    EXPECT_EQ(uts::depth_of(uts::leaf_counts((1 << 24) - 2)), (1u << 24) - 2);
    EXPECT_EQ(uts::depth_of(uts::leaf_counts(1 << 24)), uts::counts_overflow)
        << "a depth past 2^24 - 2 wrapped";
}

TEST(UtsJoins, DefaultTreeByJoinsMatchesTheAtomicCounts) {
    canopy::emu::scoped_options so(canopy::test::emu_options("tiny"));
    expect_counts(uts::compiled::traverse_runtime_joins(uts::params{}, cfg(rt::policy::steal_emulated)).c,
                  1732, 6, 1050);
}

TEST(UtsRuntimeParallel, T1ExactOnTheParallelScheduler) {
    auto o = canopy::test::emu_options("tiny", 0, canopy::emu::scheduler_kind::parallel);
    o.memory_model = canopy::emu::memory_model_kind::coherent;
    o.watchdog_seconds = 30.0;
    canopy::emu::scoped_options scoped(o);
    const auto r =
        uts::compiled::traverse_runtime(uts::sample_params("T1"), cfg(rt::policy::hrf_indirect, 64));
    expect_counts(r.c, 4130071, 10, 3305118);
    EXPECT_EQ(r.stats.tasks_spawned + 1, r.stats.total_tasks());
}

TEST(UtsRuntimeParallel, T3AndT5ExactOnTheParallelScheduler) {
    auto o = canopy::test::emu_options("tiny", 0, canopy::emu::scheduler_kind::parallel);
    o.memory_model = canopy::emu::memory_model_kind::coherent;
    o.watchdog_seconds = 30.0;
    canopy::emu::scoped_options scoped(o);
    expect_counts(uts::compiled::traverse_runtime(uts::sample_params("T3"),
                                                  uts::default_config(rt::policy::steal_emulated))
                      .c,
                  4112897, 1572, 3599034);
    expect_counts(
        uts::compiled::traverse_runtime(uts::sample_params("T5"), uts::default_config(rt::policy::hrf_direct))
            .c,
        4147582, 20, 2181318);
}

} // namespace
