// Sub-group collectives at sizes 32 and 64 against a scalar oracle computed on the host from the same
// per-lane inputs, including a partial last sub-group and lanes that exited.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "../common/emu_test.hpp"
#include "canopy/platform/platform.hpp"

namespace {

struct lane_out {
    unsigned long long ballot;
    int any, all;
    unsigned broadcast, shuffle;
    unsigned scan_sum;
    long long scan_max;
    std::uint64_t xor_scan;
};

// Per-lane inputs, a function of the global id so the host can recompute them.
unsigned input_of(unsigned g) { return (g * 2654435761u) >> 7; }

class Collectives : public ::testing::TestWithParam<unsigned> {};

void run_collectives(unsigned sg, unsigned grid, unsigned block, unsigned exit_mod) {
    canopy::test::for_seeds(canopy::test::emu_options("hrf8", sg), 3, [&] {
        canopy::device_buffer<lane_out> out(grid * block);
        lane_out* p = out.data();
        canopy::launch({.grid = grid, .block = block}, [=] {
            const unsigned g = canopy::global_id();
            const unsigned lane = canopy::lane_id();
            if (exit_mod && lane % exit_mod == exit_mod - 1) {
                return; // exited lanes take no part in collectives
            }
            const unsigned x = input_of(g);
            lane_out o{};
            o.ballot = canopy::ballot(x % 3 == 0);
            o.any = canopy::any(x % 97 == 0);
            o.all = canopy::all(x % 2 == 0 || true);
            o.broadcast = canopy::broadcast(x, 0);
            // shuffle: read from the lane with the next lower id, wrapping, among lanes that exist
            const unsigned base = canopy::subgroup_id() * canopy::subgroup_size();
            const unsigned width = std::min(canopy::subgroup_size(), canopy::block_dim() - base);
            unsigned src = (lane + width - 1) % width;
            if (exit_mod && src % exit_mod == exit_mod - 1) {
                src = (src + width - 1) % width; // skip an exited lane
            }
            o.shuffle = canopy::shuffle(x, src);
            o.scan_sum = canopy::exclusive_sum(x % 1000);
            o.scan_max = canopy::exclusive_scan<long long>(
                x % 5000, -1, [](long long a, long long b) { return a > b ? a : b; });
            o.xor_scan = canopy::exclusive_scan<std::uint64_t>(
                x, 0, [](std::uint64_t a, std::uint64_t b) { return a ^ b; });
            p[g] = o;
        });
        const auto h = out.to_vector();
        // the oracle
        for (unsigned b = 0; b < grid; ++b) {
            for (unsigned base = 0; base < block; base += sg) {
                const unsigned width = std::min(sg, block - base);
                auto live = [&](unsigned l) { return !(exit_mod && l % exit_mod == exit_mod - 1); };
                unsigned long long ballot = 0;
                bool any = false;
                for (unsigned l = 0; l < width; ++l) {
                    const unsigned x = input_of(b * block + base + l);
                    if (live(l) && x % 3 == 0) {
                        ballot |= 1ULL << l;
                    }
                    any = any || (live(l) && x % 97 == 0);
                }
                unsigned sum = 0;
                long long mx = -1;
                std::uint64_t xr = 0;
                for (unsigned l = 0; l < width; ++l) {
                    if (!live(l)) {
                        continue;
                    }
                    const unsigned g = b * block + base + l;
                    const lane_out& o = h[g];
                    SCOPED_TRACE(::testing::Message() << "block " << b << " lane " << l);
                    ASSERT_EQ(o.ballot, ballot);
                    ASSERT_EQ(o.any, any ? 1 : 0);
                    ASSERT_EQ(o.all, 1);
                    ASSERT_EQ(o.broadcast, input_of(b * block + base));
                    unsigned src = (l + width - 1) % width;
                    if (!live(src)) {
                        src = (src + width - 1) % width;
                    }
                    ASSERT_EQ(o.shuffle, input_of(b * block + base + src));
                    ASSERT_EQ(o.scan_sum, sum);
                    ASSERT_EQ(o.scan_max, mx);
                    ASSERT_EQ(o.xor_scan, xr);
                    const unsigned x = input_of(g);
                    sum += x % 1000;
                    mx = std::max<long long>(mx, x % 5000);
                    xr ^= x;
                }
            }
        }
    });
}

TEST_P(Collectives, FullSubgroups) { run_collectives(GetParam(), 3, 128, 0); }
TEST_P(Collectives, PartialLastSubgroup) { run_collectives(GetParam(), 2, 100, 0); }
TEST_P(Collectives, WithExitedLanes) { run_collectives(GetParam(), 2, 128, 5); }

INSTANTIATE_TEST_SUITE_P(SubgroupSize, Collectives, ::testing::Values(32u, 64u),
                         [](const auto& p) { return "size" + std::to_string(p.param); });

TEST(CollectivesAll, AllIsFalseWhenOneLaneSaysNo) {
    canopy::emu::scoped_options o(canopy::test::emu_options("tiny"));
    canopy::device_buffer<int> out(64);
    int* p = out.data();
    canopy::launch({.grid = 1, .block = 64},
                   [=] { p[canopy::thread_id()] = canopy::all(canopy::thread_id() != 40) ? 1 : 0; });
    const auto h = out.to_vector();
    for (unsigned t = 0; t < 64; ++t) {
        EXPECT_EQ(h[t], t < 32 ? 1 : 0) << "work-item " << t; // lane 40 is in the second sub-group
    }
}

TEST(CollectivesAll, DivergentCollectiveIsReported) {
    canopy::emu::scoped_options o(canopy::test::emu_options("tiny"));
    try {
        canopy::launch({.grid = 1, .block = 32}, [=] {
            if (canopy::lane_id() < 16) {
                (void)canopy::ballot(true);
            } else {
                (void)canopy::any(true);
            }
        });
        FAIL() << "a divergent collective completed";
    } catch (const canopy::device_error& e) {
        EXPECT_NE(std::string(e.what()).find("divergent collectives"), std::string::npos) << e.what();
    }
}

TEST(CollectivesAll, CollectiveAgainstBarrierIsReported) {
    canopy::emu::scoped_options o(canopy::test::emu_options("tiny"));
    try {
        canopy::launch({.grid = 1, .block = 32}, [=] {
            if (canopy::lane_id() == 0) {
                canopy::block_barrier();
            } else {
                (void)canopy::ballot(true);
            }
        });
        FAIL() << "a collective and a barrier completed against each other";
    } catch (const canopy::device_error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("block 0: barrier at"), std::string::npos) << m;
        EXPECT_NE(m.find("reached by 1 of 32 work-items"), std::string::npos) << m;
        EXPECT_NE(m.find("ballot"), std::string::npos) << m;
    }
}

} // namespace
