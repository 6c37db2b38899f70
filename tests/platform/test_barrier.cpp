// block_barrier: after each barrier every work-item sees what the whole work-group wrote before it.
#include <gtest/gtest.h>

#include "../common/emu_test.hpp"
#include "canopy/platform/platform.hpp"

namespace {

// Each round, work-item t writes round*1000+t into its slot, waits, and reads its right neighbour's
// slot: a barrier that lets anyone through early shows up as a value from the previous round.
void rotate_rounds(const canopy::emu::options& o, unsigned grid, unsigned block, unsigned rounds) {
    canopy::test::for_seeds(o, 4, [&] {
        canopy::device_buffer<unsigned> errors(1);
        errors.fill_zero();
        unsigned* err = errors.data();
        canopy::launch({.grid = grid, .block = block}, [=] {
            CANOPY_SHARED(unsigned[1024], slot);
            const unsigned t = canopy::thread_id();
            const unsigned n = canopy::block_dim();
            for (unsigned r = 1; r <= rounds; ++r) {
                canopy::st(&slot[t], r * 1000 + t);
                canopy::block_barrier();
                const unsigned got = canopy::ld(&slot[(t + 1) % n]);
                if (got != r * 1000 + (t + 1) % n) {
                    canopy::atomic_ref<unsigned>(*err).fetch_add(1, std::memory_order_relaxed);
                }
                canopy::block_barrier(); // nobody overwrites a slot before its reader has read it
            }
        });
        ASSERT_EQ(errors.to_vector()[0], 0u);
    });
}

TEST(BlockBarrier, RoundsSeeEveryWrite32) { rotate_rounds(canopy::test::emu_options("tiny"), 3, 96, 6); }
TEST(BlockBarrier, RoundsSeeEveryWrite64) { rotate_rounds(canopy::test::emu_options("hrf8"), 4, 256, 4); }
TEST(BlockBarrier, ParallelScheduler) {
    auto o = canopy::test::emu_options("hrf8", 0, canopy::emu::scheduler_kind::parallel);
    rotate_rounds(o, 16, 256, 8);
}

// The test can fail: without the first barrier a reader can overtake the writer it reads.
TEST(BlockBarrier, MissingBarrierIsCaught) {
    bool caught = false;
    canopy::test::for_seeds(canopy::test::emu_options("tiny"), 8, [&] {
        canopy::device_buffer<unsigned> errors(1);
        errors.fill_zero();
        unsigned* err = errors.data();
        canopy::launch({.grid = 1, .block = 64}, [=] {
            CANOPY_SHARED(unsigned[64], slot);
            const unsigned t = canopy::thread_id();
            canopy::st(&slot[t], 7 + t);
            if (canopy::ld(&slot[(t + 1) % 64]) != 7 + (t + 1) % 64) { // no barrier: a race
                canopy::atomic_ref<unsigned>(*err).fetch_add(1, std::memory_order_relaxed);
            }
        });
        caught = caught || errors.to_vector()[0] > 0;
    });
    EXPECT_TRUE(caught) << "the deterministic scheduler never let a reader overtake a writer";
}

TEST(BlockBarrier, DivergentBarrierIsReportedNotHung) {
    canopy::emu::scoped_options o(canopy::test::emu_options("hrf8"));
    try {
        canopy::launch({.grid = 4, .block = 64}, [=] {
            if (canopy::block_id() == 3 && canopy::thread_id() >= 37) {
                return; // 27 work-items leave early: the barrier below can never complete
            }
            canopy::block_barrier();
        });
        FAIL() << "a divergent barrier completed";
    } catch (const canopy::device_error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("block 3: barrier at"), std::string::npos) << m;
        EXPECT_NE(m.find("reached by 37 of 64 work-items"), std::string::npos) << m;
        EXPECT_NE(m.find("seed"), std::string::npos) << m;
    }
}

TEST(BlockBarrier, TwoDifferentBarriersAreReported) {
    canopy::emu::scoped_options o(canopy::test::emu_options("tiny"));
    try {
        canopy::launch({.grid = 1, .block = 32}, [=] {
            if (canopy::thread_id() % 2) {
                canopy::block_barrier();
            } else {
                canopy::block_barrier();
            }
        });
        FAIL() << "divergent barriers completed";
    } catch (const canopy::device_error& e) {
        EXPECT_NE(std::string(e.what()).find("divergent barriers"), std::string::npos) << e.what();
    }
}

} // namespace
