// Forward progress as a GPU gives it: resident work-groups are scheduled fairly, nothing else is
// promised. Sorensen et al. Figure 1 (block A waits for a flag block B sets) completes when both are
// resident, and deadlocks - reported by the watchdog with A's wait site - when only one fits.
#include <gtest/gtest.h>

#include <string>

#include "../common/emu_test.hpp"
#include "canopy/platform/platform.hpp"

namespace {

unsigned spin_line = 0; // the line of the spin_until in sorensen_figure1, for the report check

void sorensen_figure1() {
    canopy::device_buffer<unsigned> flag(1);
    flag.fill_zero();
    unsigned* f = flag.data();
    unsigned* line = &spin_line;
    canopy::launch({.grid = 2, .block = 32}, [=] {
        canopy::atomic_ref<unsigned, canopy::scope::device> r(*f);
        if (canopy::block_id() == 0) { // block A
            if (canopy::thread_id() == 0) {
                *line = __LINE__ + 1; // the next line is A's wait site
                canopy::spin_until([&] { return r.load(std::memory_order_acquire) == 1; });
            }
        } else if (canopy::thread_id() == 0) { // block B
            r.store(1, std::memory_order_release);
        }
    });
}

TEST(ForwardProgress, SorensenFigure1CompletesWhenBothResident) {
    for (auto k : {canopy::emu::scheduler_kind::deterministic, canopy::emu::scheduler_kind::parallel}) {
        canopy::test::for_seeds(canopy::test::emu_options("tiny", 0, k), 5, [] { sorensen_figure1(); });
    }
}

canopy::emu::options one_resident_block(canopy::emu::scheduler_kind k) {
    auto o = canopy::test::emu_options("tiny", 0, k);
    o.device.compute_units = 1;
    o.device.blocks_per_cu = 1;
    o.watchdog_seconds = 0.5;
    return o;
}

void expect_figure1_deadlock(canopy::emu::scheduler_kind k) {
    canopy::emu::scoped_options o(one_resident_block(k));
    try {
        sorensen_figure1();
        FAIL() << "block A finished although block B could never become resident";
    } catch (const canopy::device_error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
        EXPECT_NE(
            m.find("block 0 (CU 0) work-item 0: spin_until at tests/emulator/test_forward_progress.cpp:" +
                   std::to_string(spin_line)),
            std::string::npos)
            << m;
        EXPECT_NE(m.find("work-groups 1-1 not resident"), std::string::npos) << m;
    }
}

TEST(ForwardProgress, SorensenFigure1DeadlocksWithOneResidentBlock) {
    expect_figure1_deadlock(canopy::emu::scheduler_kind::deterministic);
}
TEST(ForwardProgress, SorensenFigure1DeadlockParallelWatchdog) {
    expect_figure1_deadlock(canopy::emu::scheduler_kind::parallel);
}

// The test of residency itself: never more work-groups at once than the device holds.
TEST(ForwardProgress, ResidencyNeverExceedsTheDevice) {
    unsigned seen_full = 0;
    canopy::test::for_seeds(canopy::test::emu_options("tiny"), 6, [&] {
        canopy::device_buffer<unsigned> c(2);
        c.fill_zero();
        unsigned* p = c.data();
        canopy::launch({.grid = 24, .block = 64}, [=] {
            canopy::atomic_ref<unsigned> now(p[0]), most(p[1]);
            if (canopy::thread_id() == 0) {
                most.fetch_max(now.fetch_add(1) + 1);
            }
            canopy::block_barrier();
            if (canopy::thread_id() == 0) {
                now.fetch_sub(1);
            }
        });
        const auto h = c.to_vector();
        ASSERT_EQ(h[0], 0u);
        ASSERT_LE(h[1], canopy::max_resident_blocks<int>(64));
        seen_full += h[1] == canopy::max_resident_blocks<int>(64) ? 1 : 0;
    });
    EXPECT_GT(seen_full, 0u) << "the emulator never had all slots resident at once";
}

// An all-to-all flag exchange among 8 co-resident work-groups of 256 work-items: work-item t of every
// work-group publishes a value with a device-scope release and then waits for work-item t of every
// other work-group (acquire), checking the value it published.
void all_to_all(canopy::emu::scheduler_kind k, unsigned seeds) {
    constexpr unsigned groups = 8, block = 256;
    canopy::test::for_seeds(canopy::test::emu_options("hrf8", 0, k), seeds, [&] {
        canopy::device_buffer<unsigned> flags(groups * block), data(groups * block), bad(1);
        flags.fill_zero();
        data.fill_zero();
        bad.fill_zero();
        unsigned *pf = flags.data(), *pd = data.data(), *pb = bad.data();
        canopy::launch({.grid = groups, .block = block}, [=] {
            const unsigned b = canopy::block_id(), t = canopy::thread_id();
            canopy::st(&pd[b * block + t], 1000 * b + t + 1);
            canopy::atomic_ref<unsigned, canopy::scope::device>(pf[b * block + t])
                .store(1, std::memory_order_release);
            for (unsigned c = 0; c < groups; ++c) {
                canopy::atomic_ref<unsigned, canopy::scope::device> r(pf[c * block + t]);
                canopy::spin_until([&] { return r.load(std::memory_order_acquire) == 1; });
                if (canopy::ld(&pd[c * block + t]) != 1000 * c + t + 1) {
                    canopy::atomic_ref<unsigned>(*pb).fetch_add(1);
                }
            }
        });
        ASSERT_EQ(bad.to_vector()[0], 0u);
    });
}

TEST(ForwardProgress, AllToAllFlagsDeterministic) {
    all_to_all(canopy::emu::scheduler_kind::deterministic, 2);
}
TEST(ForwardProgress, AllToAllFlagsParallel) { all_to_all(canopy::emu::scheduler_kind::parallel, 3); }

} // namespace
