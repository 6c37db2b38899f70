// Inter-work-group barriers on the emulator (deterministic scheduler): after each barrier every
// work-group sees every write made before it (by any work-item of any work-group), over many
// consecutive barriers, for the XF barrier, the atomic-counter barrier (both over the participants of
// occupancy discovery) and the cooperative grid sync; the XF barrier over more work-groups than are
// resident deadlocks (watchdog report) and completes with discovery; herd's barrier litmus tests
// behave as their conditions say.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "../common/emu_test.hpp"
#include "../common/test_paths.hpp"
#include "canopy/litmus/expectations.hpp"
#include "canopy/litmus/parser.hpp"
#include "canopy/litmus/runner.hpp"
#include "canopy/platform/grid_sync.hpp"
#include "canopy/platform/platform.hpp"
#include "canopy/sync/atomic_barrier.hpp"
#include "canopy/sync/discovery.hpp"
#include "canopy/sync/grid_sync.hpp"
#include "canopy/sync/persistent.hpp"
#include "canopy/sync/xf_barrier.hpp"

namespace {

enum class kind { xf, atomic, grid };

canopy::emu::options opts(bool scoped) {
    auto o = canopy::test::emu_options("tiny");
    if (scoped) {
        o.memory_model = canopy::emu::memory_model_kind::scoped;
    }
    return o;
}

// `rounds` rounds of: every work-item writes its slot (plain store), barrier, every work-item reads a
// slot another work-group wrote in this round and counts a stale value, barrier (so the next round's
// writes cannot race with this round's reads): 2 * rounds consecutive barriers.
template <class Wait>
void exchange_rounds(unsigned* data, unsigned* errors, unsigned rounds, unsigned group, unsigned groups,
                     const Wait& wait) {
    const unsigned b = canopy::block_dim();
    const unsigned t = canopy::thread_id();
    for (unsigned r = 1; r <= rounds; ++r) {
        canopy::st(&data[group * b + t], r * 65536u + group * b + t);
        wait();
        const unsigned other = (group + 1 + r % groups) % groups; // a different group unless groups == 1
        const unsigned slot = other * b + (t + r) % b;
        if (canopy::ld(&data[slot]) != r * 65536u + slot) {
            canopy::atomic_ref<unsigned, canopy::scope::device>(*errors).fetch_add(1,
                                                                                   std::memory_order_relaxed);
        }
        wait();
    }
}

struct outcome {
    unsigned groups = 0, errors = 0, dirty_words = 0;
};

outcome run_barrier(kind k, unsigned rounds, unsigned block = 32) {
    const unsigned occupancy = canopy::max_resident_blocks<int>(block);
    const unsigned grid = k == kind::grid ? occupancy : 2 * occupancy; // persistent: twice too many
    canopy::device_buffer<unsigned> data(grid * block), err(1);
    data.fill_zero();
    err.fill_zero();
    unsigned* d = data.data();
    unsigned* e = err.data();
    outcome out;
    if (k == kind::grid) {
        canopy::launch_cooperative({.grid = grid, .block = block}, [=] {
            exchange_rounds(d, e, rounds, canopy::block_id(), canopy::grid_dim(),
                            [] { canopy::sync::grid_barrier{}.wait(); });
        });
        out.groups = grid;
    } else {
        canopy::sync::discovery_context ctx(grid);
        canopy::sync::xf_barrier_state xf(grid);
        canopy::sync::atomic_barrier_state ab;
        const auto x = xf.barrier();
        const auto a = ab.barrier();
        const bool use_xf = k == kind::xf;
        out.groups = canopy::sync::launch_persistent({.grid = grid, .block = block}, ctx, [=] {
            exchange_rounds(d, e, rounds, canopy::sync::p_group_id(), canopy::sync::p_num_groups(), [&] {
                if (use_xf) {
                    x.wait();
                } else {
                    a.wait(canopy::sync::p_num_groups());
                }
            });
        });
        // Claim 9: the flags (XF) and the arrival count (atomic) are 0 after every completed episode.
        for (unsigned f : xf.flags()) {
            out.dirty_words += f != 0 ? 1 : 0;
        }
        out.dirty_words += ab.words()[0] != 0 ? 1 : 0;
        if (!use_xf) {
            EXPECT_EQ(ab.words()[1], 2 * rounds) << "one generation per episode";
        }
    }
    out.errors = err.to_vector()[0];
    return out;
}

void check(kind k, bool scoped, unsigned seeds, unsigned rounds) {
    canopy::test::for_seeds(opts(scoped), seeds, [&] {
        const outcome o = run_barrier(k, rounds);
        EXPECT_GE(o.groups, 1u);
        EXPECT_EQ(o.errors, 0u) << "a read after a barrier saw a value from before the write";
        EXPECT_EQ(o.dirty_words, 0u) << "barrier words not back to 0 after the last episode";
    });
}

// 1,000 consecutive barriers on coherent memory (500 rounds); 100 on the scoped-cache model (50
// rounds x 6 seeds), where a too-narrow scope or a missing fence would show as a stale read.
// The race detector's verdict (docs/race-detector.md): every inter-work-group barrier orders the rounds'
// plain writes and reads (each work-item reads another work-group's slot after the barrier and
// overwrites its own after the next) without a heterogeneous race under every model. The XF barrier's
// flags and the atomic barrier's counter are device-scope release/acquire words touched by one master
// and every follower, so each hop is a direct device-scope edge (HRF-direct suffices); the work-group
// barrier around them (block_barrier) hands the result to the other work-items at work-group scope
// after device-scope fences.
void check_race_free(kind k) {
    for (auto m : {canopy::emu::race_check_kind::hrf_direct, canopy::emu::race_check_kind::hrf_indirect,
                   canopy::emu::race_check_kind::rsp}) {
        auto o = opts(false);
        o.race_check = m;
        canopy::test::for_seeds(o, 2, [&] {
            const outcome r = run_barrier(k, 3);
            EXPECT_EQ(r.errors, 0u);
            std::string text;
            for (const auto& rep : canopy::emu::last_report().races) {
                text += canopy::emu::to_string(rep) + "\n";
            }
            EXPECT_EQ(canopy::emu::last_report().distinct_races, 0u) << canopy::emu::to_string(m) << "\n"
                                                                     << text;
        });
    }
}
TEST(BarrierRaces, XfRaceFree) { check_race_free(kind::xf); }
TEST(BarrierRaces, AtomicCounterRaceFree) { check_race_free(kind::atomic); }
TEST(BarrierRaces, GridSyncRaceFree) { check_race_free(kind::grid); }

TEST(XfBarrier, ThousandBarriersEveryWriteVisible) { check(kind::xf, false, 3, 500); }
TEST(XfBarrier, ScopedCacheEveryWriteVisible) { check(kind::xf, true, 6, 50); }
TEST(Barrier, AtomicCounterThousandBarriers) { check(kind::atomic, false, 3, 500); }
TEST(Barrier, AtomicCounterScopedCache) { check(kind::atomic, true, 6, 50); }
TEST(Barrier, GridSyncThousandBarriers) { check(kind::grid, false, 3, 500); }
TEST(Barrier, GridSyncScopedCache) { check(kind::grid, true, 6, 50); }

TEST(Barrier, GridSyncRefusesAGridLargerThanResidency) {
    canopy::emu::scoped_options o(opts(false));
    const unsigned occupancy = canopy::max_resident_blocks<int>(32);
    EXPECT_THROW(
        canopy::launch_cooperative({.grid = occupancy + 1, .block = 32}, [] { canopy::grid_sync(); }),
        canopy::error);
}

// Sorensen §2.3 / claim 1: with one work-group more than the device holds and no discovery, the
// slaves that are resident wait for the master's departure forever (or the master for a slave that
// can never start): the watchdog reports a deadlock at the XF barrier's spin_until.
TEST(XfBarrier, WithoutDiscoveryOverOccupancyDeadlocks) {
    for (bool scoped : {false, true}) {
        auto base = opts(scoped);
        base.watchdog_seconds = 0.5;
        canopy::test::for_seeds(base, 3, [&] {
            const unsigned grid = canopy::max_resident_blocks<int>(32) + 1;
            canopy::sync::xf_barrier_state xf(grid);
            const auto x = xf.barrier();
            try {
                canopy::launch({.grid = grid, .block = 32},
                               [=] { x.wait(canopy::block_id(), canopy::grid_dim()); });
                FAIL() << "an XF barrier over " << grid << " work-groups completed with fewer resident";
            } catch (const canopy::device_error& e) {
                const std::string m = e.what();
                EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
                EXPECT_NE(m.find("spin_until at "), std::string::npos) << m;
                EXPECT_NE(m.find("xf_barrier.hpp"), std::string::npos) << m;
            }
        });
    }
}

// herd's XF-barrier litmus tests (opencl/global_barrier.litmus, global_barrier_mo.litmus: both named
// "global_barrier") and barrier_example.litmus, on the runner, against the verdicts in expectations.cpp.
TEST(Barrier, HerdBarrierLitmus) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(canopy::test::herd_dir()) / "opencl";
    if (!fs::exists(dir / "global_barrier.litmus")) {
        GTEST_SKIP() << "herd's corpus is not at " << dir;
    }
    for (const char* file : {"global_barrier.litmus", "global_barrier_mo.litmus", "barrier_example.litmus"}) {
        SCOPED_TRACE(file);
        const auto t = canopy::litmus::parse_file((dir / file).string());
        canopy::litmus::run_options o;
        // The completing interleaving of 6 work-items is a chain of hand-offs that uniform random order
        // reaches about once in 100,000-300,000 runs (seeds 1..100,000 showed it once under the first
        // schedule format, none of 1..300,000 under the second: luck either way). PCT orders reach such
        // chains (docs/emulator.md), so the seeds cycle through uniform and PCT depths 1..3. A fixed
        // seed range, never a time budget: the verdict must not depend on how fast the machine runs.
        o.seeds = 100000;
        o.seeds_pct_depth = 3;
        o.exhaustive_limit = 1000;
        const auto r = canopy::litmus::run(t, o);
        const auto verdict = canopy::litmus::known_verdict(t.name);
        ASSERT_TRUE(verdict.has_value()) << t.name << " has no verdict";
        const bool seen = r.verdict != "Never";
        if (*verdict == "forbidden") {
            EXPECT_FALSE(seen) << t.name << ": forbidden outcome showed";
        } else if (std::string(file) != "global_barrier.litmus") {
            // The *tyler variant's condition needs both slaves to re-read their flag only after the
            // master's departure stores, ~10 specific steps in a row: allowed, but random scheduling
            // did not reach it in 100,000 runs, so this test checks its barrier-web property below.
            EXPECT_TRUE(seen) << t.name << ": the barrier's completing outcome never showed in " << r.runs
                              << " runs";
            if (!seen) {
                for (const auto& [state, count] : r.outcomes) {
                    std::printf("  %s x%llu\n", state.c_str(), static_cast<unsigned long long>(count));
                }
            }
        }
        // global_barrier.litmus (the one with *tyler): when the master saw both arrivals (2:r0=1, 3:r1=1)
        // and slave work-group 1 then read the departure (4:r4=0), the plain write work-group 0 made
        // before the barrier is visible to work-group 1 after it (5:r5=1): the device-scope barrier web.
        for (const auto& [state, count] : r.outcomes) {
            if (state.find("2:r0=1;") != std::string::npos && state.find("3:r1=1;") != std::string::npos &&
                state.find("4:r4=0;") != std::string::npos && state.find("5:r5=") != std::string::npos) {
                EXPECT_NE(state.find("5:r5=1;"), std::string::npos) << state;
            }
        }
    }
}

} // namespace
