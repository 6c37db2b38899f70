// Occupancy discovery (Sorensen et al. 2016 §3) on the emulator: participants are co-resident and at
// most the occupancy; the ticket lock finds every resident work-group; ids are dense; the count is the
// number of participating returns; the context reset makes a second launch work. Deterministic
// scheduler, several seeds, on coherent memory and on the scoped-cache model.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "../common/emu_test.hpp"
#include "canopy/platform/platform.hpp"
#include "canopy/sync/discovery.hpp"
#include "canopy/sync/persistent.hpp"
#include "canopy/sync/xf_barrier.hpp"

namespace {

using canopy::sync::discovery_lock;

canopy::emu::options opts(bool scoped, const char* preset = "tiny") {
    auto o = canopy::test::emu_options(preset);
    if (scoped) {
        o.memory_model = canopy::emu::memory_model_kind::scoped;
    }
    return o;
}

struct discovery_run {
    unsigned occupancy = 0, participants = 0, returns = 0;
    std::vector<unsigned> ids;         // per native group: dense id + 1 for participants, 0 otherwise
    std::vector<unsigned> start, stop; // per native group: event-clock stamps (participants only)
    std::vector<unsigned> m;           // the context's M
};

// Launches `factor` x occupancy work-groups; participants stamp an event clock when they start and
// finish their main computation (three XF barriers over the participants, which would deadlock unless
// they are co-resident).
discovery_run discover(discovery_lock lock, unsigned factor, unsigned block = 32) {
    discovery_run r;
    r.occupancy = canopy::max_resident_blocks<int>(block);
    const unsigned grid = factor * r.occupancy;
    canopy::sync::discovery_context ctx(grid, lock);
    canopy::sync::xf_barrier_state xf(grid);
    canopy::device_buffer<unsigned> mem(2 + 3 * grid);
    mem.fill_zero();
    unsigned* m = mem.data(); // [0] clock, [1] participating returns, then ids, start, stop
    const auto bar = xf.barrier();
    const unsigned n = canopy::sync::launch_persistent({.grid = grid, .block = block}, ctx, [=] {
        canopy::atomic_ref<unsigned, canopy::scope::device> clock(m[0]);
        const unsigned me = canopy::block_id();
        if (canopy::thread_id() == 0) {
            canopy::atomic_ref<unsigned, canopy::scope::device>(m[1]).fetch_add(1, std::memory_order_relaxed);
            canopy::st(&m[2 + me], canopy::sync::p_group_id() + 1);
            canopy::st(&m[2 + grid + me], clock.fetch_add(1, std::memory_order_acq_rel) + 1);
        }
        for (int i = 0; i < 3; ++i) {
            bar.wait();
        }
        if (canopy::thread_id() == 0) {
            canopy::st(&m[2 + 2 * grid + me], clock.fetch_add(1, std::memory_order_acq_rel) + 1);
        }
    });
    const auto h = mem.to_vector();
    r.participants = n;
    r.returns = h[1];
    r.ids.assign(h.begin() + 2, h.begin() + 2 + grid);
    r.start.assign(h.begin() + 2 + grid, h.begin() + 2 + 2 * grid);
    r.stop.assign(h.begin() + 2 + 2 * grid, h.end());
    r.m = ctx.dense_ids();
    return r;
}

void check_invariants(const discovery_run& r) {
    ASSERT_GE(r.participants, 1u);
    EXPECT_LE(r.participants, r.occupancy);
    EXPECT_EQ(r.participants, r.returns) << "count differs from the participating returns";
    std::vector<unsigned> dense;
    unsigned last_start = 0, first_stop = ~0u;
    for (std::size_t g = 0; g < r.ids.size(); ++g) {
        if (r.ids[g] != 0) {
            dense.push_back(r.ids[g] - 1);
            EXPECT_EQ(r.m[g], r.ids[g] - 1) << "M disagrees with p_group_id() of native group " << g;
            last_start = std::max(last_start, r.start[g]);
            first_stop = std::min(first_stop, r.stop[g]);
        }
    }
    std::sort(dense.begin(), dense.end());
    ASSERT_EQ(dense.size(), r.participants);
    for (unsigned i = 0; i < dense.size(); ++i) {
        EXPECT_EQ(dense[i], i) << "participating ids are not exactly 0..count-1";
    }
    // Co-resident: some moment lies after every participant started and before any finished.
    EXPECT_LT(last_start, first_stop) << "a participant finished before another started";
}

TEST(Discovery, TicketLockFindsEveryResidentGroup) {
    for (bool scoped : {false, true}) {
        canopy::test::for_seeds(opts(scoped), 8, [&] {
            const auto r = discover(discovery_lock::ticket, 4);
            check_invariants(r);
            EXPECT_EQ(r.participants, r.occupancy) << "the ticket lock missed a resident work-group";
        });
    }
}

TEST(Discovery, TicketLockOnHrf8) {
    canopy::test::for_seeds(opts(false, "hrf8"), 3, [&] {
        const auto r = discover(discovery_lock::ticket, 2, 64);
        check_invariants(r);
        EXPECT_EQ(r.participants, r.occupancy);
    });
}

TEST(Discovery, SpinLockIsSafe) {
    for (bool scoped : {false, true}) {
        canopy::test::for_seeds(opts(scoped), 8,
                                [&] { check_invariants(discover(discovery_lock::spin, 4)); });
    }
}

TEST(Discovery, SecondLaunchNeedsTheReset) {
    canopy::test::for_seeds(opts(false), 3, [&] {
        const unsigned grid = 8;
        canopy::sync::discovery_context ctx(grid);
        canopy::device_buffer<unsigned> ran(1);
        ran.fill_zero();
        unsigned* p = ran.data();
        auto body = [=] {
            if (canopy::thread_id() == 0) {
                canopy::atomic_ref<unsigned, canopy::scope::device>(*p).fetch_add(1,
                                                                                  std::memory_order_relaxed);
            }
        };
        const unsigned first = canopy::sync::launch_persistent({.grid = grid, .block = 32}, ctx, body);
        const unsigned second = canopy::sync::launch_persistent({.grid = grid, .block = 32}, ctx, body);
        EXPECT_GE(first, 1u);
        EXPECT_GE(second, 1u);
        // Without the reset the poll stays closed: every work-group of a third launch exits.
        canopy::launch({.grid = grid, .block = 32},
                       canopy::sync::persistent_kernel<decltype(body)>{ctx.view(), body});
        EXPECT_EQ(ran.to_vector()[0], first + second);
    });
}

TEST(Discovery, PersistentKernelIsCorrectForAnyParticipantCount) {
    // A grid-stride loop over p_global_id / p_global_size covers every element exactly once, with
    // the ticket lock (usually all resident groups) and the spin lock (often fewer).
    for (auto lock : {discovery_lock::ticket, discovery_lock::spin}) {
        canopy::test::for_seeds(opts(false), 4, [&] {
            const unsigned n = 1000;
            canopy::device_buffer<unsigned> out(n);
            out.fill_zero();
            unsigned* o = out.data();
            canopy::sync::discovery_context ctx(16, lock);
            canopy::sync::launch_persistent({.grid = 16, .block = 32}, ctx, [=] {
                for (unsigned i = canopy::sync::p_global_id(); i < n; i += canopy::sync::p_global_size()) {
                    canopy::atomic_ref<unsigned, canopy::scope::device>(o[i]).fetch_add(
                        1, std::memory_order_relaxed);
                }
            });
            const auto h = out.to_vector();
            EXPECT_EQ(std::count(h.begin(), h.end(), 1u), static_cast<long>(n));
        });
    }
}

} // namespace
