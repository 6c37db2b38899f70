// Timed (discrete-event) scheduling: work-items run in order of their simulated clocks, collectives
// and barriers complete at the latest arrival's clock, and the makespan is the latest finishing clock.
// The oracles are the declared costs themselves (model_cycles): a waiter cannot observe an event
// before the simulated time it happened at, and the makespan is bounded by the critical path plus one
// cycle per scheduling step.
#include <gtest/gtest.h>

#include <string>

#include "../common/emu_test.hpp"
#include "canopy/emulator/launch.hpp"
#include "canopy/platform/platform.hpp"

namespace {

canopy::emu::options timed(const char* preset = "tiny") {
    auto o = canopy::test::emu_options(preset);
    o.timed = true;
    return o;
}

TEST(Timed, SpinningWaiterSeesTheFlagOnlyAfterItsSimulatedTime) {
    // Block 1 computes for 200,000 cycles, then raises a flag; block 0 spins on it. In simulated-time
    // order the waiter's clock when it sees the flag is at least the producer's: it polls in step.
    static constexpr unsigned work = 200000;
    canopy::test::for_seeds(timed(), 5, [] {
        canopy::device_buffer<unsigned long long> out(2);
        out.fill_zero();
        unsigned long long* o = out.data();
        canopy::device_buffer<unsigned> flag(1);
        flag.fill_zero();
        unsigned* f = flag.data();
        canopy::launch({.grid = 2, .block = 32}, [=] {
            canopy::atomic_ref<unsigned, canopy::scope::device> r(*f);
            if (canopy::thread_id() != 0) {
                return;
            }
            if (canopy::block_id() == 1) {
                canopy::model_cycles(work);
                o[1] = canopy::emu::self().clock;
                r.store(1, std::memory_order_release);
            } else {
                canopy::spin_until([&] { return r.load(std::memory_order_acquire) == 1; });
                o[0] = canopy::emu::self().clock;
            }
        });
        const auto v = out.to_vector();
        EXPECT_GE(v[1], work);
        EXPECT_GE(v[0], v[1]) << "the waiter saw the flag before the producer's time";
        // ... and not much later: it polled in step (each poll costs at least one cycle).
        EXPECT_LT(v[0], v[1] + 1000);
        EXPECT_GE(canopy::emu::last_report().memory.cycles_makespan, v[0]);
    });
}

TEST(Timed, CollectivesAndBarriersCompleteAtTheLatestArrival) {
    // Lane i computes 1000*i cycles, then every lane meets at a sub-group ballot and a block barrier:
    // every lane leaves at (at least) the slowest lane's clock, so all report the same clock.
    canopy::test::for_seeds(timed(), 3, [] {
        constexpr unsigned block = 64;
        canopy::device_buffer<unsigned long long> out(2 * block + 1);
        unsigned long long* o = out.data();
        canopy::launch({.grid = 1, .block = block}, [=] {
            const unsigned t = canopy::thread_id();
            canopy::model_cycles(1000 * t);
            (void)canopy::ballot(true);
            o[t] = canopy::emu::self().clock;
            canopy::block_barrier();
            o[block + t] = canopy::emu::self().clock;
            if (t == 0) {
                o[2 * block] = canopy::subgroup_size();
            }
        });
        const auto v = out.to_vector();
        const auto sg = static_cast<unsigned>(v[2 * block]);
        for (unsigned t = 0; t < block; ++t) {
            const unsigned last_lane = (t / sg) * sg + sg - 1; // the slowest lane of t's sub-group
            EXPECT_GE(v[t], 1000ull * last_lane) << "lane " << t << " left the ballot early";
            EXPECT_GE(v[block + t], 1000ull * (block - 1)) << "work-item " << t << " left the barrier early";
            EXPECT_EQ(v[block + t], v[block]) << "work-items left the barrier at different clocks";
        }
    });
}

TEST(Timed, RealDeadlockIsStillReported) {
    // Timed order must not hide a deadlock: a flag nobody sets.
    auto o = timed();
    o.watchdog_steps = 20000;
    canopy::emu::scoped_options so(o);
    canopy::device_buffer<unsigned> flag(1);
    flag.fill_zero();
    unsigned* f = flag.data();
    try {
        canopy::launch({.grid = 2, .block = 32}, [=] {
            canopy::atomic_ref<unsigned, canopy::scope::device> r(*f);
            canopy::spin_until([&] { return r.load(std::memory_order_acquire) == 1; });
        });
        FAIL() << "a wait for a flag nobody sets finished";
    } catch (const canopy::device_error& e) {
        EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos) << e.what();
    }
}

TEST(Timed, SameSeedSameMakespan) {
    // Replay: the timed order is a function of the seed (ties) alone.
    auto run = [](std::uint64_t seed) {
        auto o = timed();
        o.seed = seed;
        canopy::emu::scoped_options so(o);
        canopy::device_buffer<unsigned> c(1);
        c.fill_zero();
        unsigned* p = c.data();
        canopy::launch({.grid = 4, .block = 32}, [=] {
            canopy::model_cycles(10 * canopy::global_id());
            canopy::atomic_ref<unsigned, canopy::scope::device>(*p).fetch_add(1, std::memory_order_relaxed);
        });
        return std::make_pair(canopy::emu::last_report().memory.cycles_makespan,
                              canopy::emu::last_report().digest);
    };
    EXPECT_EQ(run(7), run(7));
    EXPECT_GE(run(7).first, 10u * 127);
}

} // namespace

namespace {

TEST(Timed, LaunchTotalsAddUpEveryLaunchAndKeepThePerLaunchCostApart) {
    // Three launches of known compute (10,000, 20,000 and 30,000 cycles on one work-item): the totals
    // count three launches, their makespans add up to each launch's own report, and the per-launch
    // cost is the options' (not added into the makespans: the host loop pays it between launches).
    auto o = timed();
    o.costs.launch = 7777;
    canopy::test::for_seeds(o, 2, [] {
        canopy::emu::reset_launch_totals();
        unsigned long long sum = 0;
        for (unsigned k = 1; k <= 3; ++k) {
            canopy::launch({.grid = 1, .block = 32}, [=] {
                if (canopy::thread_id() == 0) {
                    canopy::model_cycles(10000u * k);
                }
            });
            const unsigned long long m = canopy::emu::last_report().memory.cycles_makespan;
            EXPECT_GE(m, 10000ull * k);
            sum += m;
        }
        const auto& t = canopy::emu::launch_totals();
        EXPECT_EQ(t.launches, 3u);
        EXPECT_EQ(t.cycles_makespan, sum);
        EXPECT_EQ(t.launch_cost, 7777u);
        EXPECT_EQ(t.cycles(7777), sum + 3 * 7777);
        canopy::emu::reset_launch_totals();
        EXPECT_EQ(canopy::emu::launch_totals().launches, 0u);
    });
}

} // namespace
