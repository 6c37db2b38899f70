// Replay: the deterministic scheduler's interleaving is a function of its seed alone.
#include <gtest/gtest.h>

#include <set>

#include "../common/emu_test.hpp"
#include "canopy/platform/platform.hpp"

namespace {

struct result {
    std::uint64_t digest;
    std::vector<unsigned> order;
};

// The order in which work-items win a ticket is a visible trace of the interleaving.
result run_once(std::uint64_t seed) {
    canopy::emu::scoped_options o(
        canopy::test::emu_options("tiny", 0, canopy::emu::scheduler_kind::deterministic, seed));
    canopy::device_buffer<unsigned> ticket(1), order(128);
    ticket.fill_zero();
    unsigned *pt = ticket.data(), *po = order.data();
    canopy::launch({.grid = 2, .block = 64}, [=] {
        const unsigned my = canopy::atomic_ref<unsigned>(*pt).fetch_add(1, std::memory_order_relaxed);
        canopy::st(&po[my], canopy::global_id());
    });
    return {canopy::emu::last_report().digest, order.to_vector()};
}

TEST(Replay, SameSeedSameInterleaving) {
    for (std::uint64_t seed : {1ULL, 7ULL, 123456789ULL}) {
        const result a = run_once(seed), b = run_once(seed);
        EXPECT_EQ(a.digest, b.digest) << "seed " << seed;
        EXPECT_EQ(a.order, b.order) << "seed " << seed;
    }
}

TEST(Replay, DifferentSeedsDifferentInterleavings) {
    std::set<std::uint64_t> digests;
    std::set<std::vector<unsigned>> orders;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
        const result r = run_once(seed);
        digests.insert(r.digest);
        orders.insert(r.order);
    }
    EXPECT_EQ(digests.size(), 10u);
    EXPECT_EQ(orders.size(), 10u);
}

TEST(Replay, ReportDescribesTheLaunch) {
    run_once(3);
    const auto& r = canopy::emu::last_report();
    EXPECT_EQ(r.seed, 3u);
    EXPECT_EQ(r.grid, 2u);
    EXPECT_EQ(r.block, 64u);
    EXPECT_EQ(r.resident_slots, 4u);
    EXPECT_GT(r.steps, 128u);
}

} // namespace
