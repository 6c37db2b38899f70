// PCT order on the deterministic scheduler (emu::options::pct_depth): replayable by seed, and it finds a
// depth-2 ordering bug that a uniform random order practically never hits -- the reason it exists. The
// bug: work-item B must read x in the one-step window in which A has set it, after A's 30 other steps.
// Uniform order runs B at each step with probability about 1/2, so B reads before the window with
// probability about 1 - 2^-30; PCT hits it when A has the higher priority (1/2) and the one change
// point falls on the step that opens the window (1/k): about 1/(2k) per run (Burckhardt et al.'s
// bound 1/(n k^(d-1)) with n = 2, d = 2).
#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "../common/emu_test.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/platform.hpp"

namespace {

constexpr unsigned a_steps = 30;

struct window_run {
    bool hit = false; // B saw the window
    std::uint64_t digest = 0, steps = 0;
};

window_run run_window(unsigned pct_depth, std::uint64_t pct_steps, std::uint64_t seed) {
    auto o = canopy::test::emu_options("tiny", 0, canopy::emu::scheduler_kind::deterministic, seed);
    o.pct_depth = pct_depth;
    o.pct_steps = pct_steps;
    canopy::emu::scoped_options scoped(o);
    canopy::device_buffer<unsigned> mem(3);
    mem.fill_zero();
    unsigned* m = mem.data(); // x, scratch, what B saw
    canopy::launch({.grid = 2, .block = 1}, [=] {
        if (canopy::block_id() == 0) { // A: many steps, then x = 1 for one step only
            for (unsigned i = 0; i < a_steps; ++i) {
                canopy::st(&m[1], i);
            }
            canopy::st(&m[0], 1u);
            canopy::st(&m[0], 0u);
        } else { // B: one read
            canopy::st(&m[2], canopy::ld(&m[0]) + 1);
        }
    });
    const auto h = mem.to_vector();
    return {h[2] == 2, canopy::emu::last_report().digest, canopy::emu::last_report().steps};
}

TEST(Pct, FindsTheDepthTwoWindowThatUniformOrderMisses) {
    constexpr std::uint64_t seeds = 2000;
    const std::uint64_t k = run_window(0, 0, 1).steps; // about one run's length, as canopy stress sets it
    unsigned pct_hits = 0, uniform_hits = 0;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        pct_hits += run_window(2, k, seed).hit ? 1 : 0;
        uniform_hits += run_window(0, 0, seed).hit ? 1 : 0;
    }
    // PCT's guarantee is >= 1/(2k) per run: with k about 35 steps, 2,000 runs expect about 28 hits at
    // least; fewer than 5 would mean the priorities or the change point are not doing their job.
    EXPECT_GE(pct_hits, 5u) << "k = " << k;
    EXPECT_EQ(uniform_hits, 0u);
    std::printf(
        "[ note     ] window hit by PCT (d = 2, k = %llu) in %u of %llu runs, by uniform order in %u\n",
        static_cast<unsigned long long>(k), pct_hits, static_cast<unsigned long long>(seeds), uniform_hits);
}

TEST(Pct, SameSeedSameInterleavingDifferentSeedsDiffer) {
    std::set<std::uint64_t> digests;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const window_run a = run_window(3, 40, seed), b = run_window(3, 40, seed);
        EXPECT_EQ(a.digest, b.digest) << "seed " << seed;
        EXPECT_EQ(a.hit, b.hit) << "seed " << seed;
        digests.insert(a.digest);
    }
    EXPECT_GT(digests.size(), 2u); // priorities and change points vary with the seed
}

TEST(Pct, DepthOneRunsTheHigherPriorityWorkItemToCompletion) {
    // No change points: whichever of A and B has the higher priority runs every step until it is done,
    // so A's window is never interleaved and B sees x = 0 every time, whoever went first.
    for (std::uint64_t seed = 1; seed <= 50; ++seed) {
        EXPECT_FALSE(run_window(1, 0, seed).hit) << "seed " << seed;
    }
}

TEST(Pct, SpinningWorkItemsYieldInsteadOfStarvingTheOneTheyWaitFor) {
    // Every work-group but the last waits for a flag that the last one sets after its own work: a
    // higher-priority spinner must let it run (options::pct_depth's idle-poll demotion); without that
    // the watchdog would report a deadlock.
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        auto o = canopy::test::emu_options("tiny", 0, canopy::emu::scheduler_kind::deterministic, seed);
        o.pct_depth = 3;
        o.pct_steps = 200;
        canopy::emu::scoped_options scoped(o);
        canopy::device_buffer<unsigned> mem(2);
        mem.fill_zero();
        unsigned* m = mem.data();
        canopy::launch({.grid = 4, .block = 32}, [=] {
            canopy::atomic_ref<unsigned, canopy::scope::device> flag(m[0]), seen(m[1]);
            if (canopy::block_id() == 3) {
                if (canopy::thread_id() == 0) {
                    flag.store(1, std::memory_order_release);
                }
                return;
            }
            canopy::spin_until([&] { return flag.load(std::memory_order_acquire) == 1; });
            seen.fetch_add(1, std::memory_order_relaxed);
        });
        EXPECT_EQ(mem.to_vector()[1], 3u * 32u) << "seed " << seed;
    }
}

TEST(Pct, RefusesTheParallelSchedulerAndTimedOrder) {
    auto o = canopy::test::emu_options("tiny", 0, canopy::emu::scheduler_kind::parallel);
    o.pct_depth = 2;
    {
        canopy::emu::scoped_options scoped(o);
        EXPECT_THROW(canopy::launch({.grid = 1, .block = 1}, [] {}), canopy::error);
    }
    o.scheduler = canopy::emu::scheduler_kind::deterministic;
    o.timed = true;
    {
        canopy::emu::scoped_options scoped(o);
        EXPECT_THROW(canopy::launch({.grid = 1, .block = 1}, [] {}), canopy::error);
    }
}

} // namespace
