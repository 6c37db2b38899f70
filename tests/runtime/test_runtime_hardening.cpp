// The runtime's GPU hardening (issue 10): ring capacities that survive the 32-bit index wrap, 64-bit
// layout offsets at MI300X scale, a buffer the device cannot hold refused up front, and a hang turned
// into a report by the bounded spin (the GPU debug build's watchdog, taken here by the emulator's
// spin_limit). Oracles: closed-form offsets, the status word's decoding, the error text.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../common/emu_test.hpp"
#include "canopy/runtime/runtime.hpp"
#include "workloads.hpp"

namespace {

namespace rt = canopy::runtime;

rt::config cfg(rt::policy p = rt::policy::hrf_indirect) {
    rt::config c;
    c.policy = p;
    c.block = 32;
    return c;
}

template <class F> std::string error_of(F f) {
    try {
        f();
    } catch (const canopy::error& e) {
        return e.what();
    }
    return "";
}

TEST(RuntimeConfig, RingCapacitiesMustBePowersOfTwo) {
    canopy::emu::scoped_options o(canopy::test::scm_options());
    struct bad {
        unsigned rt::config::*field;
        unsigned value;
        const char* queue;
        const char* fix;
    };
    for (const bad& b :
         {bad{&rt::config::private_capacity, 3, "private queue capacity 3", "use 2 or 4"},
          bad{&rt::config::workgroup_capacity, 24, "work-group queue capacity 24", "use 16 or 32"},
          bad{&rt::config::device_capacity, 100, "device queue capacity 100", "use 64 or 128"}}) {
        auto c = cfg();
        c.*b.field = b.value;
        const std::string m = error_of([&] { canopy::test::rt::run_fib(c, 5); });
        EXPECT_NE(m.find(b.queue), std::string::npos) << m;
        EXPECT_NE(m.find("not a power of two"), std::string::npos) << m;
        EXPECT_NE(m.find(b.fix), std::string::npos) << m;
    }
    // The staging buffer is not a ring: any capacity is fine.
    auto c = cfg();
    c.staging_capacity = 5;
    EXPECT_EQ(canopy::test::rt::run_fib(c, 10), canopy::test::rt::fib_leaves(10));
}

// Offsets at MI300X scale (304 CUs x 8 work-groups of 256 = 9,728 wave64 sub-groups, UTS-sized
// payloads, staging 1,024 tasks a lane): past 2^32 words, where 32-bit offsets would have wrapped.
TEST(RuntimeLayout, OffsetsAre64BitAtMi300xScale) {
    rt::layout L;
    L.shape = {64, 7};
    L.workgroups = 304 * 8;
    L.subgroups_per_block = 4;
    L.private_capacity = 32;
    L.workgroup_capacity = 16;
    L.device_capacity = 64;
    L.staging_capacity = 1024;
    L.staged_words = 8;
    L.counters = rt::num_counters;
    L.finish();
    using u = unsigned long long;
    const u front = 2 + 64 * 7, sgs = 304ULL * 8 * 4;
    const u wgq = 6 + 4 + 64 * front;                  // status, outstanding, 4 priority words, device queue
    const u req = wgq + u{304 * 8} * (4 + 16 * front); // work-group queues
    const u mb = req + 304 * 8;                        // steal requests
    const u pq = mb + sgs * (1 + front);               // mailboxes
    const u stg = pq + sgs * 32 * front;               // private queues
    const u stats = stg + sgs * 64 * 1024 * 8;         // staging
    const u total = stats + sgs * rt::num_counters;
    EXPECT_EQ(L.workgroup_queues, wgq);
    EXPECT_EQ(L.requests, req);
    EXPECT_EQ(L.mailboxes, mb);
    EXPECT_EQ(L.private_queues, pq);
    EXPECT_EQ(L.staging, stg);
    EXPECT_EQ(L.stats, stats);
    EXPECT_EQ(L.total, total);
    EXPECT_GT(L.total, u{1} << 32) << "the scenario must cross 2^32 words to test anything";
    // The last sub-group's last staging entry (entry-major: lane 63's entry 1023 is the last) and stats
    // row end exactly at the next region.
    EXPECT_EQ(L.staging_at(static_cast<unsigned>(sgs - 1), 63) + 1023ULL * 64 * 8 + 8, L.stats);
    EXPECT_EQ(L.stats_at(static_cast<unsigned>(sgs - 1)) + rt::num_counters, L.total);
}

// Slots stay consecutive across the 32-bit wrap of the unbounded ring indices.
TEST(RuntimeLayout, RingSlotsSurviveTheIndexWrap) {
    rt::layout L;
    L.shape = {32, 1};
    L.workgroups = 1;
    L.subgroups_per_block = 2;
    L.private_capacity = 8;
    L.workgroup_capacity = 4;
    L.device_capacity = 4;
    L.staging_capacity = 1;
    L.staged_words = 2;
    L.counters = 1;
    L.finish();
    const unsigned words = L.shape.words();
    for (unsigned sg = 0; sg < 2; ++sg) {
        const auto last = L.private_at(sg, 0xffffffffu), first = L.private_at(sg, 0u);
        EXPECT_EQ(last, L.private_at(sg, 7)) << "index 2^32-1 is slot 7 of 8";
        EXPECT_EQ(first, L.private_at(sg, 8)) << "index 2^32 (0 again) is slot 0, the one after slot 7";
        EXPECT_EQ(first + 7ULL * words, last);
    }
    static_assert(!canopy::queues::front_queue::valid_capacity(0));
    static_assert(!canopy::queues::front_queue::valid_capacity(12));
    static_assert(canopy::queues::front_queue::valid_capacity(1) &&
                  canopy::queues::front_queue::valid_capacity(1u << 31));
}

TEST(RuntimeMemory, ABufferLargerThanTheDeviceIsRefused) {
    canopy::emu::scoped_options o(canopy::test::scm_options());
    auto c = cfg();
    c.staging_capacity = 1u << 30; // 4 sub-groups x 32 lanes x 2^30 tasks x 2 words: 1 TiB
    const std::string m = error_of([&] { canopy::test::rt::run_fib(c, 5); });
    EXPECT_NE(m.find("more than the device's"), std::string::npos) << m;
    EXPECT_NE(m.find("lower the capacities"), std::string::npos) << m;
}

// A lost task: the outstanding counter says 1, no queue holds anything. Unbounded, every sub-group
// would wait forever (a GPU hangs; the emulator's watchdog reports a deadlock); with the bound, a
// sub-group reports spin_timeout in the status word and every sub-group stops.
TEST(RuntimeHang, BoundedSpinTurnsALostTaskIntoAReport) {
    using task = canopy::test::rt::fib_task;
    using sched_t = rt::scheduler<rt::policy::hrf_indirect, task>;
    auto o = canopy::test::scm_options();
    o.spin_limit = 300;
    canopy::test::for_seeds(o, 3, [&] {
        canopy::device_buffer<unsigned> leaves(1);
        leaves.fill_zero();
        rt::layout L;
        L.shape = {32, rt::payload_words<task>};
        L.workgroups = 2;
        L.subgroups_per_block = 1;
        L.private_capacity = 4;
        L.workgroup_capacity = 4;
        L.device_capacity = 4;
        L.staging_capacity = 2;
        L.staged_words = 1 + rt::payload_words<task>;
        L.counters = rt::num_counters;
        L.finish();
        canopy::device_buffer<unsigned> mem(static_cast<std::size_t>(L.total));
        mem.fill_zero();
        const unsigned one = 1;
        mem.upload_at(L.outstanding, &one, 1);
        const sched_t s{{std::tuple<task>{task{leaves.data()}}, mem.data(), L}};
        canopy::launch({.grid = 2, .block = 32}, rt::detail::plain_kernel<sched_t>{s, 2});
        unsigned status = 0;
        mem.download_at(L.status, &status, 1);
        ASSERT_EQ(status >> 24, static_cast<unsigned>(rt::failure::spin_timeout)) << "status word " << status;
        EXPECT_LT(status & 0xffffffu, 2u) << "the index names a sub-group";
        const std::string m = rt::describe(status, 4, 4, 4, 2);
        EXPECT_NE(m.find("waited past the spin bound"), std::string::npos) << m;
        EXPECT_NE(rt::describe_state(mem, L).find("outstanding tasks 1"), std::string::npos);
    });
}

// A failure stops a sub-group that never runs out of work of its own. The chain's every task spawns its
// successor, so its sub-group always picks from its private queue and looks at the status word only
// every status_poll_fronts-th front (core_base.hpp); the bomb spawns more children than a lane's
// staging holds, which fails the run. Oracle: the error names the staging buffer, and the chain stopped
// within a few polls of the failure (16 links on seeds 1-3; the bound is four polls of 16 fronts): far
// fewer than its cap, which a sub-group that never looked while it had work would run to (and then the
// run would end only because the chain does).
namespace endless {
inline constexpr unsigned cap = 4000; // the chain ends here at the latest: a mutation cannot hang
struct chain {
    struct payload {
        unsigned n;
    };
    unsigned* ran; // links run
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& p, Ctx& ctx) const {
        // Relaxed device-scope RMW: a count the host reads after the run.
        canopy::atomic_ref<unsigned, canopy::scope::device>(*ran).fetch_add(1u, std::memory_order_relaxed);
        if (p.n + 1 < cap) {
            ctx.template spawn<chain>(payload{p.n + 1});
        }
    }
};
struct bomb {
    struct payload {
        unsigned n;
    };
    template <class Ctx> CANOPY_DEVICE void operator()(const payload& p, Ctx& ctx) const {
        for (unsigned i = 0; i < p.n; ++i) {
            ctx.template spawn<bomb>(payload{0});
        }
    }
};
} // namespace endless

TEST(RuntimeHang, AFailureStopsASubGroupThatNeverRunsDry) {
    canopy::test::for_seeds(canopy::test::scm_options(), 3, [&] {
        canopy::device_buffer<unsigned> ran(1);
        ran.fill_zero();
        rt::task_set<endless::chain, endless::bomb> ts{endless::chain{ran.data()}, endless::bomb{}};
        ts.seed<endless::chain>({0});
        auto c = cfg();
        c.staging_capacity = 4;
        ts.seed<endless::bomb>({c.staging_capacity + 1});
        const std::string m = error_of([&] { (void)ts.run(c); });
        EXPECT_NE(m.find("staging buffer of sub-group"), std::string::npos) << m;
        const unsigned links = ran.to_vector()[0];
        EXPECT_LT(links, 64u) << "the chain ran " << links << " of its " << endless::cap
                              << " links after the run failed";
    });
}

} // namespace
