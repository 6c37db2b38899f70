// Occupancy discovery (Sorensen et al. 2016 §3) on the emulator: participants are co-resident and at
// most the occupancy; the counter protocol (the default) and the ticket lock find every resident
// work-group; ids are dense; the count is the number of participating returns and every participant
// sees the same one; the context reset makes a second launch work. Deterministic scheduler, several
// seeds, on coherent memory and on the scoped-cache model, every launch under the watchdog (a deadlock
// report fails the test).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "../common/emu_test.hpp"
#include "canopy/platform/platform.hpp"
#include "canopy/sync/discovery.hpp"
#include "canopy/sync/persistent.hpp"
#include "canopy/sync/xf_barrier.hpp"

namespace {

using canopy::sync::discovery_protocol;

canopy::emu::options opts(bool scoped, const char* preset = "tiny", bool timed = false) {
    auto o = canopy::test::emu_options(preset);
    if (scoped) {
        o.memory_model = canopy::emu::memory_model_kind::scoped;
    }
    o.timed = timed;
    return o;
}

struct discovery_run {
    unsigned occupancy = 0, participants = 0, returns = 0;
    std::vector<unsigned> ids;         // per native group: dense id + 1 for participants, 0 otherwise
    std::vector<unsigned> counts;      // per native group: p_num_groups() seen by participants
    std::vector<unsigned> start, stop; // per native group: event-clock stamps (participants only)
    std::vector<unsigned> m;           // the context's M
};

// Launches `factor` x occupancy work-groups (`shared` bytes of dynamic shared memory each, to limit
// residency); participants stamp an event clock when they start and finish their main computation
// (three XF barriers over the participants, which would deadlock unless they are co-resident).
discovery_run discover(discovery_protocol protocol, unsigned factor, unsigned block = 32,
                       std::size_t shared = 0) {
    discovery_run r;
    r.occupancy = canopy::max_resident_blocks<int>(block, shared);
    const unsigned grid = factor * r.occupancy;
    canopy::sync::discovery_context ctx(grid, protocol);
    canopy::sync::xf_barrier_state xf(grid);
    canopy::device_buffer<unsigned> mem(2 + 4 * grid);
    mem.fill_zero();
    unsigned* m = mem.data(); // [0] clock, [1] participating returns, then ids, start, stop, counts
    const auto bar = xf.barrier();
    const canopy::launch_config cfg{.grid = grid, .block = block, .shared_bytes = shared};
    const unsigned n = canopy::sync::launch_persistent(cfg, ctx, [=] {
        canopy::atomic_ref<unsigned, canopy::scope::device> clock(m[0]);
        const unsigned me = canopy::block_id();
        if (canopy::thread_id() == 0) {
            canopy::atomic_ref<unsigned, canopy::scope::device>(m[1]).fetch_add(1, std::memory_order_relaxed);
            canopy::st(&m[2 + me], canopy::sync::p_group_id() + 1);
            canopy::st(&m[2 + grid + me], clock.fetch_add(1, std::memory_order_acq_rel) + 1);
            canopy::st(&m[2 + 3 * grid + me], canopy::sync::p_num_groups());
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
    r.stop.assign(h.begin() + 2 + 2 * grid, h.begin() + 2 + 3 * grid);
    r.counts.assign(h.begin() + 2 + 3 * grid, h.end());
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
            EXPECT_EQ(r.counts[g], r.participants) << "p_num_groups() of native group " << g;
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

// ---- the counter protocol (the default) ----

// Full recall with the grid at the occupancy (every launched work-group joins: the close is immediate)
// and at 3 x the occupancy (the quiet window closes it), on every preset a unit test can afford.
void counter_full_recall(const char* preset, unsigned block, unsigned seeds, std::size_t shared = 0) {
    for (bool scoped : {false, true}) {
        for (unsigned factor : {1u, 3u}) {
            SCOPED_TRACE(::testing::Message()
                         << (scoped ? "scoped" : "coherent") << ", grid " << factor << " x occupancy");
            canopy::test::for_seeds(opts(scoped, preset), seeds, [&] {
                const auto r = discover(discovery_protocol::counter, factor, block, shared);
                check_invariants(r);
                EXPECT_EQ(r.participants, r.occupancy) << "the counter protocol missed a resident work-group";
            });
        }
    }
}

TEST(Discovery, CounterFindsEveryResidentGroupOnTiny) { counter_full_recall("tiny", 32, 8); }
TEST(Discovery, CounterFindsEveryResidentGroupOnHrf8) { counter_full_recall("hrf8", 64, 4); }
TEST(Discovery, CounterFindsEveryResidentGroupOnWide) { counter_full_recall("wide", 32, 4); }
TEST(Discovery, CounterFindsEveryResidentGroupOnH100) {
    // 132 SMs; 100 KiB of shared memory per work-group leaves 2 resident per SM (264 work-groups of 32
    // work-items: the fibers a unit test can afford; the bench runs the realistic 2,112).
    counter_full_recall("h100", 32, 3, 100 * 1024);
}

TEST(Discovery, CounterInTimedOrder) {
    // The configuration bench/discovery_bench.cpp measures: simulated-time order on the scoped-cache
    // model. Timed order explores fewer interleavings; the invariants must hold in it too.
    for (unsigned factor : {1u, 3u}) {
        canopy::test::for_seeds(opts(true, "hrf8", true), 3, [&] {
            const auto r = discover(discovery_protocol::counter, factor, 64);
            check_invariants(r);
            EXPECT_EQ(r.participants, r.occupancy);
        });
    }
}

TEST(Discovery, CounterLateJoinersDoNotChangeTheCount) {
    // An empty body: a participant that closes the poll exits at once, so a non-resident work-group
    // takes its slot and joins (a fetch_add on the closed word) while other participants are still
    // reading the count. Every participant must report the count frozen at the close.
    for (bool scoped : {false, true}) {
        canopy::test::for_seeds(opts(scoped), 8, [&] {
            const unsigned block = 32;
            const unsigned occupancy = canopy::max_resident_blocks<int>(block);
            const unsigned grid = 8 * occupancy;
            canopy::sync::discovery_context ctx(grid);
            canopy::device_buffer<unsigned> seen(grid + 1);
            seen.fill_zero();
            unsigned* c = seen.data(); // [native id]: p_num_groups() + 1; [grid]: participating returns
            const unsigned n = canopy::sync::launch_persistent({.grid = grid, .block = block}, ctx, [=] {
                if (canopy::thread_id() == 0) {
                    canopy::st(&c[canopy::block_id()], canopy::sync::p_num_groups() + 1);
                    canopy::atomic_ref<unsigned, canopy::scope::device>(c[grid]).fetch_add(
                        1, std::memory_order_relaxed);
                }
            });
            const auto h = seen.to_vector();
            EXPECT_EQ(h[grid], n) << "count differs from the participating returns";
            EXPECT_LE(n, occupancy);
            for (unsigned g = 0; g < grid; ++g) {
                if (h[g] != 0) {
                    EXPECT_EQ(h[g] - 1, n) << "native group " << g << " saw another participant count";
                }
            }
        });
    }
}

TEST(Discovery, CounterQuietWindowStaysUnderTheWatchdog) {
    // The quiet window is the one stretch where every participant only polls and nothing changes, so
    // the deterministic watchdog counts it as idle: N participants x delay polls x 2 steps. Work-groups
    // of one work-item give the watchdog its smallest bound (10,000 + 64 per live work-item); with the
    // grid oversubscribed the window must elapse in full, on every seed, without a deadlock report.
    for (bool scoped : {false, true}) {
        canopy::test::for_seeds(opts(scoped, "wide"), 4, [&] {
            const unsigned occupancy = canopy::max_resident_blocks<int>(1);
            canopy::sync::discovery_context ctx(4 * occupancy);
            const unsigned n =
                canopy::sync::launch_persistent({.grid = 4 * occupancy, .block = 1}, ctx, [] {});
            EXPECT_EQ(n, occupancy);
        });
    }
}

TEST(Discovery, ContextSizedForFewerGroups) {
    // Work-groups beyond the context's max_groups never participate, and the counter protocol closes
    // as soon as all max_groups of them joined (it does not wait for the others).
    for (auto protocol : {discovery_protocol::counter, discovery_protocol::ticket}) {
        canopy::test::for_seeds(opts(true), 4, [&] {
            const unsigned occupancy = canopy::max_resident_blocks<int>(32);
            const unsigned max_groups = occupancy / 2;
            canopy::sync::discovery_context ctx(max_groups, protocol);
            canopy::device_buffer<unsigned> ran(occupancy);
            ran.fill_zero();
            unsigned* r = ran.data();
            auto body = [=] {
                if (canopy::thread_id() == 0) {
                    canopy::st(&r[canopy::block_id()], 1u);
                }
            };
            canopy::launch({.grid = occupancy, .block = 32},
                           canopy::sync::persistent_kernel<decltype(body)>{ctx.view(), body});
            EXPECT_EQ(ctx.participants(), max_groups);
            const auto h = ran.to_vector();
            for (unsigned g = 0; g < occupancy; ++g) {
                EXPECT_EQ(h[g], g < max_groups ? 1u : 0u) << "native group " << g;
            }
        });
    }
}

TEST(Discovery, TicketLockFindsEveryResidentGroup) {
    for (bool scoped : {false, true}) {
        canopy::test::for_seeds(opts(scoped), 8, [&] {
            const auto r = discover(discovery_protocol::ticket, 4);
            check_invariants(r);
            EXPECT_EQ(r.participants, r.occupancy) << "the ticket lock missed a resident work-group";
        });
    }
}

TEST(Discovery, TicketLockOnHrf8) {
    canopy::test::for_seeds(opts(false, "hrf8"), 3, [&] {
        const auto r = discover(discovery_protocol::ticket, 2, 64);
        check_invariants(r);
        EXPECT_EQ(r.participants, r.occupancy);
    });
}

TEST(Discovery, SpinLockIsSafe) {
    for (bool scoped : {false, true}) {
        canopy::test::for_seeds(opts(scoped), 8,
                                [&] { check_invariants(discover(discovery_protocol::spin, 4)); });
    }
}

TEST(Discovery, SecondLaunchNeedsTheReset) {
    for (auto protocol : {discovery_protocol::counter, discovery_protocol::ticket}) {
        canopy::test::for_seeds(opts(false), 3, [&] {
            const unsigned grid = 8;
            canopy::sync::discovery_context ctx(grid, protocol);
            canopy::device_buffer<unsigned> ran(1);
            ran.fill_zero();
            unsigned* p = ran.data();
            auto body = [=] {
                if (canopy::thread_id() == 0) {
                    canopy::atomic_ref<unsigned, canopy::scope::device>(*p).fetch_add(
                        1, std::memory_order_relaxed);
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
}

TEST(Discovery, PersistentKernelIsCorrectForAnyParticipantCount) {
    // A grid-stride loop over p_global_id / p_global_size covers every element exactly once, with
    // the counter and the ticket lock (usually all resident groups) and the spin lock (often fewer).
    for (auto protocol :
         {discovery_protocol::counter, discovery_protocol::ticket, discovery_protocol::spin}) {
        canopy::test::for_seeds(opts(false), 4, [&] {
            const unsigned n = 1000;
            canopy::device_buffer<unsigned> out(n);
            out.fill_zero();
            unsigned* o = out.data();
            canopy::sync::discovery_context ctx(16, protocol);
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
