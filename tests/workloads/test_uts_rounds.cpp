// UTS in scale-out rounds (canopy/workloads/uts/rounds.hpp, balance.hpp): the balance plan's arithmetic
// against its definition, a round that hands back what it does not run, and the MPI driver's schedule
// in one process (several ranks, rounds, moves) exact against the sequential reference, on the
// scoped-cache model under every policy. The MPI transport itself is tested by mpirun (tests/cli).
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../common/emu_test.hpp"
#include "../common/policy_name.hpp"
#include "canopy/workloads/uts/compiled_runs.hpp"
#include "canopy/workloads/uts/uts.hpp"

namespace {

namespace uts = canopy::workloads::uts;
namespace rt = canopy::runtime;

// Applies a plan to sizes, checking each move goes from a rank above its share to one below.
std::vector<std::uint64_t> after(std::vector<std::uint64_t> sizes,
                                 const std::vector<uts::frontier_move>& moves) {
    for (const auto& m : moves) {
        EXPECT_NE(m.from, m.to);
        EXPECT_GT(m.nodes, 0u);
        EXPECT_GE(sizes[m.from], m.nodes);
        sizes[m.from] -= m.nodes;
        sizes[m.to] += m.nodes;
    }
    return sizes;
}

TEST(UtsBalance, PlanLeavesEveryRankWithinOneNodeOfTheMean) {
    EXPECT_TRUE(uts::balance_plan({}).empty());
    EXPECT_TRUE(uts::balance_plan({7}).empty());
    EXPECT_TRUE(uts::balance_plan({3, 3, 3}).empty());
    // The root's round: everything on rank 0.
    const std::vector<uts::frontier_move> first = uts::balance_plan({10, 0, 0, 0});
    const std::vector<uts::frontier_move> want = {{0, 1, 3}, {0, 2, 2}, {0, 3, 2}};
    EXPECT_EQ(first, want);
    std::mt19937_64 gen(7);
    for (int trial = 0; trial < 2000; ++trial) {
        const std::size_t n = 1 + gen() % 9;
        std::vector<std::uint64_t> sizes(n);
        std::uint64_t total = 0;
        for (auto& s : sizes) {
            s = gen() % 4 == 0 ? 0 : gen() % 1000;
            total += s;
        }
        const auto moves = uts::balance_plan(sizes);
        const auto got = after(sizes, moves);
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < n; ++i) {
            sum += got[i];
            // rank i's share: total / n, one more for the first total % n ranks
            EXPECT_EQ(got[i], total / n + (i < total % n ? 1 : 0)) << "trial " << trial << " rank " << i;
        }
        EXPECT_EQ(sum, total);
        // No rank both sends and receives.
        for (const auto& a : moves) {
            for (const auto& b : moves) {
                EXPECT_NE(a.from, b.to);
            }
        }
    }
}

rt::config cfg(rt::policy p) {
    rt::config c = uts::default_config(p, 32);
    return c;
}

TEST(UtsRounds, ARoundRunsItsBudgetAndHandsBackTheRest) {
    const uts::params p; // the default tree: 1,732 nodes
    canopy::test::for_seeds(canopy::test::emu_options("tiny"), 3, [&] {
        const auto r =
            uts::compiled::traverse_round(p, cfg(rt::policy::hrf_indirect), {uts::root_payload(p)}, 100);
        // The budget is counted when a node asks to run: exactly 100 ran, the rest waits.
        EXPECT_EQ(r.c.nodes, 100u);
        EXPECT_FALSE(r.frontier.empty());
        // Rounds to the end, on one rank, add up to the tree.
        uts::counts total = r.c;
        std::vector<uts::node_payload> f = r.frontier;
        unsigned rounds = 1;
        while (!f.empty()) {
            ASSERT_LT(rounds, 100u) << "rounds of 100 nodes must end a 1,732-node tree";
            const auto next = uts::compiled::traverse_round(p, cfg(rt::policy::hrf_indirect), f, 100);
            uts::add_counts(total, next.c);
            f = next.frontier;
            ++rounds;
        }
        EXPECT_EQ(total, uts::traverse_sequential(p));
        EXPECT_GE(rounds, 18u); // 1,732 / 100
    });
}

TEST(UtsRounds, AFullHandBackBufferRunsTheNodeInsteadOfLosingIt) {
    const uts::params p;
    const auto r =
        uts::compiled::traverse_round(p, cfg(rt::policy::hrf_indirect), {uts::root_payload(p)}, 10, 3);
    EXPECT_EQ(r.frontier.size(), 3u);
    EXPECT_GT(r.c.nodes, 10u); // the nodes that found the buffer full ran
    uts::counts total = r.c;
    std::vector<uts::node_payload> f = r.frontier;
    while (!f.empty()) {
        const auto next = uts::compiled::traverse_round(p, cfg(rt::policy::hrf_indirect), f, 10, 3);
        uts::add_counts(total, next.c);
        f = next.frontier;
    }
    EXPECT_EQ(total, uts::traverse_sequential(p));
}

TEST(UtsRounds, ARoundTakesAtMostHalfItsHandBackBufferOfSeeds) {
    const uts::params p;
    const auto first =
        uts::compiled::traverse_round(p, cfg(rt::policy::hrf_indirect), {uts::root_payload(p)}, 50);
    ASSERT_GT(first.frontier.size(), 4u);
    // Capacity 4: the device takes 2 seeds; the others come back untouched, after what it handed back.
    const auto r = uts::compiled::traverse_round(p, cfg(rt::policy::hrf_indirect), first.frontier, 1000, 4);
    const std::size_t untaken = first.frontier.size() - 2;
    ASSERT_GE(r.frontier.size(), untaken);
    EXPECT_LE(r.frontier.size(), untaken + 4);
    for (std::size_t i = 0; i < untaken; ++i) {
        const auto& want = first.frontier[2 + i];
        const auto& got = r.frontier[r.frontier.size() - untaken + i];
        EXPECT_EQ(0, std::memcmp(&want, &got, sizeof want)) << "seed " << 2 + i;
    }
}

TEST(UtsRounds, EmptyFrontierAndZeroBudget) {
    const uts::params p;
    const auto r = uts::compiled::traverse_round(p, cfg(rt::policy::hrf_indirect), {}, 10);
    EXPECT_EQ(r.c.nodes, 0u);
    EXPECT_TRUE(r.frontier.empty());
    EXPECT_THROW(uts::compiled::traverse_round(p, cfg(rt::policy::hrf_indirect), {uts::root_payload(p)}, 0),
                 canopy::error);
    EXPECT_THROW(
        uts::compiled::traverse_round(p, cfg(rt::policy::hrf_indirect), {uts::root_payload(p)}, 1, 0),
        canopy::error);
    EXPECT_THROW(uts::compiled::traverse_ranks_in_process(p, cfg(rt::policy::hrf_indirect), 0),
                 canopy::error);
}

class UtsRanksPolicy : public ::testing::TestWithParam<rt::policy> {};

TEST_P(UtsRanksPolicy, SeveralRanksInOneProcessAreExactOnTheScopedCacheModel) {
    // A BIN tree (181 nodes; heavy-tailed subtrees, the hardest to balance) over 4 ranks, a GEO tree
    // (198) over 3, with rounds of 16 nodes so that nodes move between ranks many times, and the
    // default tree (1,732) on one rank.
    struct row {
        const char* flags;
        unsigned ranks;
        std::uint64_t budget;
    };
    for (const row& w : {row{"-t 0 -b 60 -q 0.2 -m 4 -r 9", 4, 16}, row{"-t 1 -a 3 -d 6 -b 4 -r 5", 3, 16},
                         row{"", 1, 300}}) {
        SCOPED_TRACE(w.flags);
        const uts::params p = uts::parse_flags(w.flags);
        const uts::counts want = uts::traverse_sequential(p);
        canopy::test::for_seeds(canopy::test::scm_options(), 2, [&] {
            const auto r = uts::compiled::traverse_ranks_in_process(p, cfg(GetParam()), w.ranks, w.budget);
            EXPECT_EQ(r.c, want);
            ASSERT_EQ(r.nodes_per_rank.size(), w.ranks);
            std::uint64_t sum = 0;
            for (const auto n : r.nodes_per_rank) {
                sum += n;
                if (w.ranks > 1) {
                    EXPECT_GT(n, 0u) << "every rank ran some of the tree";
                }
            }
            EXPECT_EQ(sum, want.nodes);
            EXPECT_GE(r.rounds, static_cast<unsigned>(want.nodes / (w.budget * w.ranks)));
            if (w.ranks > 1) {
                EXPECT_GT(r.moved, 0u);
            } else {
                EXPECT_EQ(r.moved, 0u);
            }
        });
    }
}

INSTANTIATE_TEST_SUITE_P(Policies, UtsRanksPolicy, ::testing::ValuesIn(rt::all_policies),
                         canopy::test::policy_name);

} // namespace
