// The parallel scheduler (several OS threads) on what CI runs under ThreadSanitizer: canopy_tsan_tests
// (cpu-tsan preset, ctest label `tsan`) is this file alone, so the TSan step builds one test file; the
// normal builds run it too, in canopy_tests. Each test checks its result against an oracle (counts):
// many-work-group launches (every work-item once, per work-group counts after a block barrier), plain
// data published by release/acquire flags between work-groups, mutexes, inter-work-group barriers, and
// the task runtime on small UTS trees under every policy, against the sequential traversal.
//
// What TSan checks here: the emulator itself (workers, admission, the watchdog, fibers switching on
// several OS threads), and the happens-before that canopy's acquire/release atomics give *plain* C++
// accesses (the `plain` arrays below). `ld`/`st` are relaxed atomics in the emulator, invisible to TSan
// as races; and neither gcc's nor clang's TSan models std::atomic_thread_fence, so data published only
// through canopy::fence (spin_mutex, the XF and atomic barriers) is accessed with ld/st here: there TSan
// checks the primitive's own atomics and the emulator, not the publication (docs/emulator.md).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../common/emu_test.hpp"
#include "../common/policy_name.hpp"
#include "canopy/platform/platform.hpp"
#include "canopy/sync/atomic_barrier.hpp"
#include "canopy/sync/discovery.hpp"
#include "canopy/sync/mutex.hpp"
#include "canopy/sync/persistent.hpp"
#include "canopy/sync/xf_barrier.hpp"
#include "canopy/workloads/uts/compiled_runs.hpp"
#include "canopy/workloads/uts/uts.hpp"

namespace {

using canopy::scope;
namespace emu = canopy::emu;
namespace rt = canopy::runtime;
namespace uts = canopy::workloads::uts;

emu::options parallel(const char* device = "tiny") {
    auto o = canopy::test::emu_options(device, 0, emu::scheduler_kind::parallel); // 2 OS threads
    o.memory_model = emu::memory_model_kind::coherent;
    o.watchdog_seconds = 30.0; // TSan slows everything down ~10x: no false deadlock reports
    return o;
}

// 2,048 work-groups of 64 on "tiny" (4 resident at once): 131,072 work-items per launch, each a fiber
// on one of two OS threads. Every work-item writes its own element with a plain store (the launch's end
// orders it before the host's read), and counts itself in its work-group's counter; after a block
// barrier work-item 0 checks that the whole group counted.
TEST(ParallelTsan, ManyWorkGroupsRunEveryWorkItemOnce) {
    constexpr unsigned grid = 2048, block = 64, launches = 3;
    emu::scoped_options s(parallel());
    std::vector<unsigned> plain(grid * block), group_ok(grid);
    canopy::device_buffer<unsigned> counts(grid);
    for (unsigned l = 1; l <= launches; ++l) {
        counts.fill_zero();
        unsigned* p = plain.data();
        unsigned* ok = group_ok.data();
        unsigned* c = counts.data();
        canopy::launch({.grid = grid, .block = block}, [=] {
            const unsigned b = canopy::block_id();
            p[canopy::global_id()] = l * 1'000'000 + canopy::global_id();
            canopy::atomic_ref<unsigned, scope::workgroup>(c[b]).fetch_add(1, std::memory_order_relaxed);
            canopy::block_barrier();
            if (canopy::thread_id() == 0) {
                ok[b] = canopy::atomic_ref<unsigned, scope::workgroup>(c[b]).load(std::memory_order_relaxed);
            }
        });
        for (unsigned i = 0; i < grid * block; ++i) {
            ASSERT_EQ(plain[i], l * 1'000'000 + i) << "launch " << l;
        }
        for (unsigned b = 0; b < grid; ++b) {
            ASSERT_EQ(group_ok[b], block) << "launch " << l << " work-group " << b;
        }
        EXPECT_EQ(emu::last_report().threads, 2u);
    }
}

// A launch that fails: one work-item throws while the others wait for a flag that is never set. The
// launch unwinds every started work-item on both workers (each throws from its wait), reports the
// throw, and the next launch runs normally: under TSan, unwound work-items park their carriers too.
TEST(ParallelTsan, FailedLaunchUnwindsAndTheNextOneRuns) {
    emu::scoped_options s(parallel());
    canopy::device_buffer<unsigned> flag(1);
    flag.fill_zero();
    unsigned* f = flag.data();
    try {
        canopy::launch({.grid = 16, .block = 32}, [=] {
            if (canopy::block_id() == 3 && canopy::thread_id() == 5) {
                throw std::runtime_error("kernel failure on purpose");
            }
            canopy::atomic_ref<unsigned, scope::device> r(*f);
            canopy::spin_until([&] { return r.load(std::memory_order_acquire) == 1; });
        });
        FAIL() << "the launch did not fail";
    } catch (const canopy::device_error& e) {
        EXPECT_NE(std::string(e.what()).find("kernel failure on purpose"), std::string::npos) << e.what();
    }
    canopy::device_buffer<unsigned> n(1);
    n.fill_zero();
    unsigned* pn = n.data();
    canopy::launch({.grid = 16, .block = 32}, [=] {
        canopy::atomic_ref<unsigned, scope::device>(*pn).fetch_add(1, std::memory_order_relaxed);
    });
    EXPECT_EQ(n.to_vector()[0], 16u * 32u);
}

// An all-to-all exchange among 8 co-resident work-groups ("hrf8"): work-item t of every work-group
// writes a plain value, publishes it with a device-scope release store of its flag, then acquires
// every other group's flag for t and reads the plain value there. TSan reports a race if canopy's
// release/acquire did not order the plain write before the plain read across OS threads.
TEST(ParallelTsan, ReleaseAcquireFlagsPublishPlainData) {
    constexpr unsigned groups = 8, block = 64;
    emu::scoped_options s(parallel("hrf8"));
    for (int rep = 0; rep < 3; ++rep) {
        std::vector<unsigned> plain(groups * block, 0);
        canopy::device_buffer<unsigned> flags(groups * block), bad(1);
        flags.fill_zero();
        bad.fill_zero();
        unsigned *pf = flags.data(), *pd = plain.data(), *pb = bad.data();
        canopy::launch({.grid = groups, .block = block}, [=] {
            const unsigned b = canopy::block_id(), t = canopy::thread_id();
            pd[b * block + t] = 1000 * b + t + 1;
            canopy::atomic_ref<unsigned, scope::device>(pf[b * block + t])
                .store(1, std::memory_order_release);
            for (unsigned c = 0; c < groups; ++c) {
                canopy::atomic_ref<unsigned, scope::device> r(pf[c * block + t]);
                canopy::spin_until([&] { return r.load(std::memory_order_acquire) == 1; });
                if (pd[c * block + t] != 1000 * c + t + 1) {
                    canopy::atomic_ref<unsigned, scope::device>(*pb).fetch_add(1, std::memory_order_relaxed);
                }
            }
        });
        ASSERT_EQ(bad.to_vector()[0], 0u);
    }
}

// 4 single-work-item work-groups (2 per OS thread) each take the mutex `iters` times and increment a counter
// inside. `plain_counter`: the counter is a plain C++ int, so TSan checks that lock() acquires what the
// previous unlock() released (ticket_mutex: acquire load / release store). Otherwise ld/st (for the
// mutexes that acquire with a fence, which TSan does not model). An atomic flag counts overlaps.
template <class Mutex> void expect_exclusion(bool plain_counter, unsigned iters) {
    constexpr unsigned groups = 4;
    emu::scoped_options s(parallel());
    canopy::device_buffer<Mutex> mutex(1);
    mutex.fill_zero(); // zero = unlocked, for every canopy mutex
    canopy::device_buffer<unsigned> mem(3);
    mem.fill_zero();
    unsigned host_counter = 0;
    Mutex* m = mutex.data();
    unsigned* p = mem.data(); // p[0] counter (ld/st), p[1] inside flag, p[2] overlaps
    unsigned* hc = &host_counter;
    canopy::launch({.grid = groups, .block = 1}, [=] {
        canopy::atomic_ref<unsigned, scope::device> inside(p[1]), overlaps(p[2]);
        for (unsigned k = 0; k < iters; ++k) {
            m->lock();
            if (inside.fetch_add(1, std::memory_order_relaxed) != 0) {
                overlaps.fetch_add(1, std::memory_order_relaxed);
            }
            if (plain_counter) {
                ++*hc;
            } else {
                canopy::st(&p[0], canopy::ld(&p[0]) + 1);
            }
            inside.fetch_sub(1, std::memory_order_relaxed);
            m->unlock();
        }
    });
    const auto h = mem.to_vector();
    EXPECT_EQ(h[2], 0u) << "critical sections overlapped";
    EXPECT_EQ(plain_counter ? host_counter : h[0], groups * iters);
}

TEST(ParallelTsan, TicketMutexPublishesAPlainCounter) {
    // FIFO hand-offs between OS threads: slow on a loaded machine, so fewer rounds.
    expect_exclusion<canopy::sync::ticket_mutex<scope::device>>(true, 300);
}
TEST(ParallelTsan, SpinMutexExcludes) {
    expect_exclusion<canopy::sync::spin_mutex<scope::device>>(false, 2000);
}
TEST(ParallelTsan, SleepingMutexExcludes) {
    expect_exclusion<canopy::sync::sleeping_mutex<scope::device>>(false, 2000);
}

// Persistent work-groups (occupancy discovery) through `rounds` rounds of: write my slot, inter-work-group
// barrier, read another group's slot of this round, barrier. Counts stale reads (the oracle: none).
unsigned barrier_rounds(bool use_xf, unsigned rounds) {
    constexpr unsigned block = 32;
    const unsigned grid = 2 * canopy::max_resident_blocks<int>(block); // discovery keeps the resident ones
    canopy::device_buffer<unsigned> data(grid * block), err(1);
    data.fill_zero();
    err.fill_zero();
    unsigned* d = data.data();
    unsigned* e = err.data();
    canopy::sync::discovery_context ctx(grid);
    canopy::sync::xf_barrier_state xf(grid);
    canopy::sync::atomic_barrier_state ab;
    const auto x = xf.barrier();
    const auto a = ab.barrier();
    const unsigned groups = canopy::sync::launch_persistent({.grid = grid, .block = block}, ctx, [=] {
        const unsigned g = canopy::sync::p_group_id(), n = canopy::sync::p_num_groups();
        const unsigned t = canopy::thread_id();
        const auto wait = [&] {
            if (use_xf) {
                x.wait();
            } else {
                a.wait(n);
            }
        };
        for (unsigned r = 1; r <= rounds; ++r) {
            canopy::st(&d[g * block + t], r * 65536u + g * block + t);
            wait();
            const unsigned slot = (g + 1 + r % n) % n * block + (t + r) % block;
            if (canopy::ld(&d[slot]) != r * 65536u + slot) {
                canopy::atomic_ref<unsigned, scope::device>(*e).fetch_add(1, std::memory_order_relaxed);
            }
            wait();
        }
    });
    EXPECT_GE(groups, 1u);
    return err.to_vector()[0];
}

TEST(ParallelTsan, XfBarrierRounds) {
    emu::scoped_options s(parallel());
    EXPECT_EQ(barrier_rounds(true, 100), 0u);
}
TEST(ParallelTsan, AtomicBarrierRounds) {
    emu::scoped_options s(parallel());
    EXPECT_EQ(barrier_rounds(false, 100), 0u);
}

// The task runtime (a persistent kernel: queues, donation, stealing) on small UTS trees, every policy,
// each traversal's counts against the sequential reference's.
class ParallelTsanUts : public ::testing::TestWithParam<rt::policy> {};

TEST_P(ParallelTsanUts, SmallTreesExact) {
    emu::scoped_options s(parallel());
    // UTS's default tree (GEO, 1,732 nodes) and a BIN root of 40 children (range tasks).
    for (const uts::params& p : {uts::params{}, uts::parse_flags("-t 0 -b 40 -q 0.24 -m 4 -r 3")}) {
        SCOPED_TRACE(uts::to_flags(p));
        const uts::counts want = uts::traverse_sequential(p);
        ASSERT_GT(want.nodes, 40u);
        rt::config c;
        c.policy = GetParam();
        c.block = 64;
        const auto r = uts::compiled::traverse_runtime(p, c);
        EXPECT_EQ(r.c, want);
        EXPECT_EQ(r.stats.tasks_spawned + 1, r.stats.total_tasks());
    }
}

INSTANTIATE_TEST_SUITE_P(Policies, ParallelTsanUts, ::testing::ValuesIn(rt::all_policies),
                         canopy::test::policy_name);

} // namespace
