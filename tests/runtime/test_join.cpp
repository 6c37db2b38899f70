// Joins (runtime/join.hpp): fib(n) computed by joins, checked against the closed form, under every policy
// on both cores, on the coherent and the scoped-cache model, several seeds; every record back on the
// free list after the run (each continuation ran exactly once and freed its record); race-free under
// each policy's own model; a pool too small or a fork too wide reported, never a hang.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "../common/emu_test.hpp"
#include "canopy/runtime/join.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/fib_join_tasks.hpp"
#include "canopy/workloads/mergesort_join_tasks.hpp"
#include "canopy/workloads/nqueens_join_tasks.hpp"

namespace {

namespace rt = canopy::runtime;

using result_t = unsigned long long;
using canopy::workloads::checked::fib_join_args;
using canopy::workloads::checked::fib_join_sum;
using canopy::workloads::checked::fib_join_sum_spawned;
using canopy::workloads::checked::fib_join_task;
using canopy::workloads::checked::fib_join_task_spawned;
using canopy::workloads::checked::fib_join_view;
using canopy::workloads::checked::fib_sum_args;
using canopy::workloads::checked::fib_sum_pass;
using canopy::workloads::checked::fib_sum_task;
using view_t = fib_join_view;
/// fib by joins whose forks run inline when the pool is empty (fork_or_inline).
using fib_join_task_inline_when_empty =
    canopy::workloads::checked::fib_fork_task<fib_join_view, fib_join_sum, true>;

/// A three-way fork nested under two-way ones: trib(n) = trib(n-1) + trib(n-2) + trib(n-3), whose
/// continuation forks again (a second join in the same task: nesting, R4) before it completes.
struct trib_args {
    unsigned n;
    rt::join_slot to;
};
using tview_t = rt::join_view<result_t, 3>;
struct trib_sum;
struct trib_again;
struct trib_join {
    using payload = trib_args;
    tview_t j;
    template <class Ctx> CANOPY_DEVICE void operator()(const trib_args& p, Ctx& ctx) const {
        if (p.n < 3) {
            j.complete<trib_sum>(ctx, p.to, result_t{p.n == 2 ? 1u : 0u});
            return;
        }
        const rt::join_record rec = j.fork(ctx, 3, p.to); // trib_sum's fork is the one without a context
        if (!rec.valid()) {
            return;
        }
        for (unsigned i = 1; i <= 3; ++i) {
            spawn<trib_join>(ctx, {p.n - i, rec.slot(i - 1)});
        }
    }
};
/// Adds the three results, then (nesting) forks one more child that returns the sum unchanged, and
/// only that child's continuation completes the parent.
struct trib_sum {
    using payload = rt::join_payload;
    tview_t j;
    template <class Ctx> CANOPY_DEVICE void operator()(const rt::join_payload& p, Ctx& ctx) const {
        const auto r = j.take(p);
        const result_t sum = r.value[0] + r.value[1] + r.value[2];
        if (r.n == 1) { // the echo's record: pass its value on
            j.complete<trib_sum>(ctx, r.to, r.value[0]);
            return;
        }
        const rt::join_record again = j.fork(1, r.to);
        if (!again.valid()) {
            return;
        }
        spawn<trib_again>(ctx, {sum, again.slot(0)});
    }
};
struct echo_args {
    result_t v;
    rt::join_slot to;
};
struct trib_again {
    using payload = echo_args;
    tview_t j;
    template <class Ctx> CANOPY_DEVICE void operator()(const echo_args& p, Ctx& ctx) const {
        j.complete<trib_sum>(ctx, p.to, p.v);
    }
};

/// Summing joins whose children hand data over outside the record (join_sum.hpp's release argument):
/// an in-place tree reduction over the 2^D leaves of a complete binary tree laid out as a heap (node k,
/// children 2k and 2k + 1). Leaf k writes val[k] (plain); node k's continuation reads val[2k] and
/// val[2k + 1] (plain), writes their sum to val[k] and completes its parent. Only a child's release and
/// the continuation's acquire order those plain accesses, so the race detector sees a missing one. The
/// summed value carries the continuation's node: a right child adds its parent's id, a left child 0.
struct heap_args {
    unsigned node;
    rt::join_slot to;
};
struct heap_view {
    rt::join_sum_view j;
    unsigned* val;   // per node
    unsigned leaves; // 2^D: nodes [leaves, 2 leaves) are the leaves
};
CANOPY_HOST_DEVICE inline unsigned heap_leaf_value(unsigned k) { return (k * 7u) % 13u + 1u; }
CANOPY_HOST_DEVICE inline unsigned heap_to_parent(unsigned k) { return (k & 1u) != 0 ? k >> 1 : 0u; }
struct heap_sum;
struct heap_task {
    using payload = heap_args;
    heap_view v;
    template <class Ctx> CANOPY_DEVICE void operator()(const heap_args& p, Ctx& ctx) const {
        if (p.node >= v.leaves) {
            canopy::st(&v.val[p.node], heap_leaf_value(p.node));
            v.j.complete<heap_sum>(ctx, p.to, heap_to_parent(p.node));
            return;
        }
        const rt::join_record rec = v.j.fork(2, p.to);
        if (!rec.valid()) {
            return;
        }
        spawn<heap_task>(ctx, {2 * p.node, rec.slot(0)});
        spawn<heap_task>(ctx, {2 * p.node + 1, rec.slot(1)});
    }
};
struct heap_sum {
    using payload = rt::join_payload;
    heap_view v;
    template <class Ctx> CANOPY_DEVICE void operator()(const rt::join_payload& p, Ctx& ctx) const {
        const rt::join_sum_result r = v.j.take(p);
        const unsigned k = r.sum; // the node whose children both completed
        const unsigned sum = canopy::ld(&v.val[2 * k]) + canopy::ld(&v.val[2 * k + 1]);
        canopy::st(&v.val[k], sum);
        v.j.complete<heap_sum>(ctx, r.to, k == 1 ? sum : heap_to_parent(k));
    }
};

/// The reduction over 2^depth leaves: every node's value against the sequential sums, and the root's.
void expect_heap_reduction(const rt::config& c, unsigned depth) {
    const unsigned leaves = 1u << depth;
    rt::join_sum_pool pool(leaves);
    canopy::device_buffer<unsigned> val(std::vector<unsigned>(2 * leaves, 0u));
    const heap_view v{pool.view(), val.data(), leaves};
    rt::task_set<heap_task, heap_sum> ts{heap_task{v}, heap_sum{v}};
    ts.seed<heap_task>(heap_args{1, rt::join_root_slot});
    ts.run(c);
    std::vector<unsigned> want(2 * leaves, 0u);
    for (unsigned k = 2 * leaves - 1; k >= 1; --k) {
        want[k] = k >= leaves ? heap_leaf_value(k) : want[2 * k] + want[2 * k + 1];
    }
    EXPECT_EQ(pool.result(), want[1]);
    EXPECT_TRUE(val.to_vector() == want) << "a node's sum differs from the sequential reduction";
    EXPECT_EQ(pool.free_records(), leaves) << "a summing continuation did not run exactly once";
}

result_t fib(unsigned n) { return canopy::workloads::checked::fib_value(n); }

result_t trib(unsigned n) {
    result_t t[3] = {0, 0, 1};
    if (n < 3) {
        return t[n];
    }
    for (unsigned i = 3; i <= n; ++i) {
        const result_t x = t[0] + t[1] + t[2];
        t[0] = t[1];
        t[1] = t[2];
        t[2] = x;
    }
    return t[2];
}

rt::config cfg(rt::policy p, rt::queue_design core) {
    rt::config c;
    c.policy = p;
    c.queues = core;
    c.block = 32;
    return c;
}

/// fib(n) by joins with a pool of `capacity`; the free records after the run in *free_after, the run's
/// stats in *stats. Fork / Cont: the continuation run inline (the default) or spawned.
template <class Fork = fib_join_task, class Cont = fib_join_sum>
result_t run_fib_join(const rt::config& c, unsigned n, unsigned capacity, unsigned* free_after = nullptr,
                      rt::stats* stats = nullptr, unsigned* stranded = nullptr) {
    rt::join_pool<result_t, 2> pool(capacity);
    rt::task_set<Fork, Cont> ts{Fork{pool.view()}, Cont{pool.view()}};
    ts.template seed<Fork>(fib_join_args{n, rt::join_root_slot});
    const rt::stats s = ts.run(c);
    if (free_after != nullptr) {
        *free_after = pool.free_records();
    }
    if (stranded != nullptr) {
        *stranded = pool.stranded_records();
    }
    if (stats != nullptr) {
        *stats = s;
    }
    return pool.result();
}

/// The spawned-continuation path (fib_join_sum_spawned): each child counts down alone and the last
/// spawns the continuation, which acquires the count itself.
result_t run_fib_join_spawned(const rt::config& c, unsigned n, unsigned capacity,
                              unsigned* free_after = nullptr) {
    return run_fib_join<fib_join_task_spawned, fib_join_sum_spawned>(c, n, capacity, free_after);
}

/// fib(n) by summing joins with a pool of `capacity`; the free records after the run in *free_after.
result_t run_sum_fib(const rt::config& c, unsigned n, unsigned capacity, unsigned* free_after = nullptr) {
    rt::join_sum_pool pool(capacity);
    rt::task_set<fib_sum_task, fib_sum_pass> ts{fib_sum_task{pool.view()}, fib_sum_pass{pool.view()}};
    ts.seed<fib_sum_task>(fib_sum_args{n, rt::join_root_slot});
    ts.run(c);
    if (free_after != nullptr) {
        *free_after = pool.free_records();
    }
    return pool.result();
}

/// n random keys with duplicates (seeded), and std::sort's order of them: the oracle.
std::vector<unsigned> random_keys(unsigned n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<unsigned> k(n);
    for (auto& x : k) {
        x = static_cast<unsigned>(rng() % (n / 3 + 1));
    }
    return k;
}

/// Mergesort by joins (leaves of 16 keys, merges above 128 keys cut into pieces: nested joins) against
/// std::sort, every record freed.
void expect_sorted_by_joins(const rt::config& c, unsigned n, unsigned seed) {
    namespace ck = canopy::workloads::checked;
    std::vector<unsigned> keys = random_keys(n, seed);
    const ck::sort_outcome o = ck::mergesort_by_joins(keys, c, 16, 128);
    std::sort(keys.begin(), keys.end());
    EXPECT_TRUE(o.keys == keys) << "mergesort by joins differs from std::sort (" << n << " keys)";
    EXPECT_EQ(o.free_records, o.capacity) << "a continuation did not run exactly once";
}

class JoinPolicy : public ::testing::TestWithParam<std::tuple<rt::policy, rt::queue_design>> {};

TEST_P(JoinPolicy, FibByJoinsIsExactAndFreesEveryRecord) {
    const rt::policy p = std::get<0>(GetParam());
    const rt::queue_design core = std::get<1>(GetParam());
    for (const auto model :
         {canopy::emu::memory_model_kind::coherent, canopy::emu::memory_model_kind::scoped}) {
        auto o = canopy::test::emu_options("tiny");
        o.memory_model = model;
        canopy::test::for_seeds(o, 3, [&] {
            unsigned free_after = 0, stranded = 0;
            rt::stats st;
            EXPECT_EQ(run_fib_join(cfg(p, core), 16, 4096, &free_after, &st, &stranded), fib(16));
            EXPECT_EQ(free_after, 4096u) << "a continuation did not run exactly once";
            // The ring core hands a freed record to a lane of its sub-group for its next fork
            // (core_base::reserve_records; not under steal-rsp), and what lanes still hold at the end
            // is counted free: 4,096 records are 32 per lane of tiny's 128, so it does.
            if (core == rt::queue_design::ring && p != rt::policy::steal_rsp) {
                EXPECT_GT(stranded, 0u) << "no freed record was reserved for a lane's next fork";
            } else {
                EXPECT_EQ(stranded, 0u);
            }
            // fib(16)'s tree: 2 F(17) - 1 = 3,193 nodes and F(17) - 1 = 1,596 joins, each continuation
            // run exactly once, inline by the sub-group that resolved its record: only the 3,192
            // children were spawned. Spawned continuations are spawned tasks too.
            EXPECT_EQ(st.total_tasks(), 3193u + 1596u);
            EXPECT_EQ(st.tasks_spawned, 3192u) << "a continuation went through the rings";
            // The ring core resolves records whose children all ran in the sub-group that opened them
            // at work-group scope (join_continuation.hpp); the locked core has no local tag.
            if (core == rt::queue_design::ring) {
                EXPECT_GT(st.joins_local, 0u) << "no record was resolved in its own sub-group";
            } else {
                EXPECT_EQ(st.joins_local, 0u);
            }
            EXPECT_EQ((run_fib_join<fib_join_task_spawned, fib_join_sum_spawned>(cfg(p, core), 16, 4096,
                                                                                 &free_after, &st)),
                      fib(16));
            EXPECT_EQ(free_after, 4096u) << "a spawned continuation did not run exactly once";
            EXPECT_EQ(st.total_tasks(), 3193u + 1596u);
            EXPECT_EQ(st.tasks_spawned, 3192u + 1596u) << "a spawned continuation ran inline";
        });
    }
}

// Race-free under the policy's own model (runtime tests' table: hrf-direct under every model, the
// work-group-queue policies under hrf-indirect, steal-rsp under rsp), with the joins' own accesses
// (slots, counts, free list) in the detector's view.
TEST_P(JoinPolicy, FibByJoinsIsRaceFreeUnderThePolicysModel) {
    const rt::policy p = std::get<0>(GetParam());
    const rt::queue_design core = std::get<1>(GetParam());
    using K = canopy::emu::race_check_kind;
    const K model = p == rt::policy::steal_rsp    ? K::rsp
                    : p == rt::policy::hrf_direct ? K::hrf_direct
                                                  : K::hrf_indirect;
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
        auto o = canopy::test::emu_options("tiny");
        o.memory_model = canopy::emu::memory_model_kind::scoped;
        o.race_check = model;
        o.seed = seed;
        canopy::emu::scoped_options so(o);
        SCOPED_TRACE(::testing::Message() << "emulator seed " << seed);
        EXPECT_EQ(run_fib_join(cfg(p, core), 12, 1024), fib(12));
        EXPECT_EQ(canopy::emu::last_report().race_check, model);
        EXPECT_EQ(canopy::emu::last_report().distinct_races, 0u)
            << "joins race under " << canopy::emu::to_string(model);
        EXPECT_EQ(run_fib_join_spawned(cfg(p, core), 12, 1024), fib(12));
        EXPECT_EQ(canopy::emu::last_report().distinct_races, 0u)
            << "joins with spawned continuations race under " << canopy::emu::to_string(model);
        // A pool of 16 records, far below fib(12)'s 232 joins: its never-used records run out at once
        // and every later fork takes a freed one (fork_or_inline runs the rest inline), so the free
        // list's push and pop, which a pool large enough never reaches, are in the detector's view.
        unsigned free_after = 0;
        EXPECT_EQ(
            (run_fib_join<fib_join_task_inline_when_empty, fib_join_sum>(cfg(p, core), 12, 16, &free_after)),
            fib(12));
        EXPECT_EQ(free_after, 16u);
        EXPECT_EQ(canopy::emu::last_report().distinct_races, 0u)
            << "joins on recycled records race under " << canopy::emu::to_string(model);
    }
}

// Summing joins (join_sum.hpp) and mergesort (two kinds of record: a sort's two halves, a merge's
// pieces) on the scoped-cache model, the model whose stale lines a missing release or acquire exposes.
TEST_P(JoinPolicy, SummingJoinsAndMergesortAreExactOnTheScopedCacheModel) {
    const rt::policy p = std::get<0>(GetParam());
    const rt::queue_design core = std::get<1>(GetParam());
    auto o = canopy::test::emu_options("tiny");
    o.memory_model = canopy::emu::memory_model_kind::scoped;
    canopy::test::for_seeds(o, 2, [&] {
        unsigned free_after = 0;
        EXPECT_EQ(run_sum_fib(cfg(p, core), 15, 2048, &free_after), fib(15));
        EXPECT_EQ(free_after, 2048u) << "a summing continuation did not run exactly once";
        expect_heap_reduction(cfg(p, core), 8);
        expect_sorted_by_joins(cfg(p, core), 1500, 7);
    });
}

TEST_P(JoinPolicy, SummingJoinsAndMergesortAreRaceFreeUnderThePolicysModel) {
    const rt::policy p = std::get<0>(GetParam());
    const rt::queue_design core = std::get<1>(GetParam());
    using K = canopy::emu::race_check_kind;
    const K model = p == rt::policy::steal_rsp    ? K::rsp
                    : p == rt::policy::hrf_direct ? K::hrf_direct
                                                  : K::hrf_indirect;
    auto o = canopy::test::emu_options("tiny");
    o.memory_model = canopy::emu::memory_model_kind::scoped;
    o.race_check = model;
    o.seed = 3;
    canopy::emu::scoped_options so(o);
    SCOPED_TRACE(::testing::Message() << "emulator seed " << o.seed);
    EXPECT_EQ(run_sum_fib(cfg(p, core), 10, 512), fib(10));
    EXPECT_EQ(canopy::emu::last_report().distinct_races, 0u) << "summing joins race";
    expect_heap_reduction(cfg(p, core), 7);
    EXPECT_EQ(canopy::emu::last_report().distinct_races, 0u) << "summing joins' plain hand-offs race";
    expect_sorted_by_joins(cfg(p, core), 400, 11);
    EXPECT_EQ(canopy::emu::last_report().distinct_races, 0u) << "mergesort by joins races";
}

INSTANTIATE_TEST_SUITE_P(
    AllPolicies, JoinPolicy,
    ::testing::Combine(::testing::Values(rt::policy::hrf_direct, rt::policy::hrf_indirect,
                                         rt::policy::steal_emulated, rt::policy::steal_rsp),
                       ::testing::Values(rt::queue_design::ring, rt::queue_design::locked)),
    [](const auto& i) {
        std::string s =
            std::string(rt::to_string(std::get<0>(i.param))) + "_" + rt::to_string(std::get<1>(i.param));
        for (char& ch : s) {
            ch = ch == '-' ? '_' : ch;
        }
        return s;
    });

// fib(20) on the coherent model: a deeper recursion than fib(16) (10,945 inner nodes, so as many joins;
// examples/fib-join runs fib(30) in CI, on the parallel scheduler).
// N-queens by summing joins (nqueens_join_tasks.hpp, canopy_bench_join's GTaP benchmark): the sequential
// count against OEIS A000170 on the host, then the tasks against both for N = 1..8, on the scoped-cache
// model (a fork of up to N children; with a cut-off of 5 rows from N = 7 on, and none below).
TEST(Join, NQueensBySummingJoinsMatchesThePublishedCounts) {
    namespace ck = canopy::workloads::checked;
    for (unsigned n = 1; n <= 12; ++n) {
        EXPECT_EQ(ck::nqueens_count(n, 0, 0, 0, 0), ck::nqueens_published[n]) << n << "-queens, sequential";
    }
    auto o = canopy::test::emu_options("tiny");
    o.memory_model = canopy::emu::memory_model_kind::scoped;
    canopy::test::for_seeds(o, 2, [&] {
        for (unsigned n = 1; n <= 8; ++n) {
            rt::join_sum_pool pool(4096);
            rt::task_set<ck::nqueens_place, ck::nqueens_total> ts{
                ck::nqueens_place{pool.view(), n > 6 ? 5u : 0u}, ck::nqueens_total{pool.view()}};
            ts.seed<ck::nqueens_place>({n, 0u, 0u, 0u, 0u, rt::join_root_slot});
            ts.run(cfg(rt::policy::hrf_indirect, rt::queue_design::ring));
            EXPECT_EQ(pool.result(), ck::nqueens_published[n]) << n << "-queens by summing joins";
            EXPECT_EQ(pool.free_records(), 4096u) << n << "-queens: a record was not freed";
        }
    });
}

// The open-record peak (join_pool::track_peak): off, it reads 0; on, fib(12)'s run must have held at
// least the deepest leaf's ancestors' records at once (fib(12)'s deepest path opens 11: fib(12) down to
// fib(2)) and at most every join (F(13) - 1 = 232); a second run after reset() measures again.
TEST(Join, PeakOpenRecordsIsMeasuredWhenTracked) {
    canopy::emu::scoped_options so(canopy::test::emu_options("tiny"));
    rt::join_pool<result_t, 2> pool(1024);
    const auto run = [&] {
        rt::task_set<fib_join_task, fib_join_sum> ts{fib_join_task{pool.view()}, fib_join_sum{pool.view()}};
        ts.seed<fib_join_task>(fib_join_args{12, rt::join_root_slot});
        ts.run(cfg(rt::policy::hrf_indirect, rt::queue_design::ring));
        return pool.result();
    };
    EXPECT_EQ(run(), fib(12));
    EXPECT_EQ(pool.peak_open(), 0u) << "not tracked, yet counted";
    pool.reset();
    pool.track_peak(true);
    EXPECT_EQ(run(), fib(12));
    const unsigned peak = pool.peak_open();
    EXPECT_GE(peak, 11u);
    EXPECT_LE(peak, 232u);
    pool.reset();
    EXPECT_EQ(pool.peak_open(), 0u) << "reset() keeps the last run's peak";
    EXPECT_EQ(run(), fib(12));
    EXPECT_GE(pool.peak_open(), 11u);
}

TEST(Join, Fib20IsExact) {
    canopy::emu::scoped_options so(canopy::test::emu_options("tiny"));
    unsigned free_after = 0;
    EXPECT_EQ(run_fib_join(cfg(rt::policy::hrf_indirect, rt::queue_design::ring), 20, 1u << 16, &free_after),
              6765u);
    EXPECT_EQ(free_after, 1u << 16);
}

// The free list's stripes grow with the pool (runtime/join.hpp: 32 stacks queued a GPU's lanes). Pools
// of sizes that are no multiple of the stripe count, and of the largest stripe count, each start with
// every record on a stack and end with every record freed, both kinds of pool.
TEST(Join, StripesGrowWithThePoolAndHoldEveryRecord) {
    static_assert(rt::join_stripes_for(1) == 32 && rt::join_stripes_for(1023) == 32);
    static_assert(rt::join_stripes_for(1024) == 64 && rt::join_stripes_for(1u << 18) == 8192);
    static_assert(rt::join_stripes_for(0xfffffffeu) == 8192);
    canopy::emu::scoped_options so(canopy::test::emu_options("tiny"));
    for (const unsigned capacity : {1000u, 5000u, (1u << 17) + 3u}) {
        SCOPED_TRACE(capacity);
        unsigned free_after = 0;
        EXPECT_EQ(
            run_fib_join(cfg(rt::policy::hrf_indirect, rt::queue_design::ring), 16, capacity, &free_after),
            987u);
        EXPECT_EQ(free_after, capacity);
        EXPECT_EQ(
            run_sum_fib(cfg(rt::policy::steal_emulated, rt::queue_design::ring), 16, capacity, &free_after),
            987u);
        EXPECT_EQ(free_after, capacity);
    }
}

TEST(Join, NestedJoinsInAContinuation) {
    canopy::test::for_seeds(canopy::test::emu_options("tiny"), 3, [&] {
        rt::join_pool<result_t, 3> pool(4096);
        rt::task_set<trib_join, trib_sum, trib_again> ts{trib_join{pool.view()}, trib_sum{pool.view()},
                                                         trib_again{pool.view()}};
        ts.seed<trib_join>(trib_args{14, rt::join_root_slot});
        ts.run(cfg(rt::policy::hrf_indirect, rt::queue_design::ring));
        EXPECT_EQ(pool.result(), trib(14));
        EXPECT_EQ(pool.free_records(), 4096u);
    });
}

// A pool smaller than the open joins: reported after the run (the run drains: nothing waits on a
// join), naming the fix. A mutation that retried the pop forever would hang: the watchdog fails it.
TEST(Join, ExhaustedPoolIsReportedNotHung) {
    canopy::emu::scoped_options so(canopy::test::emu_options("tiny"));
    try {
        (void)run_fib_join(cfg(rt::policy::hrf_indirect, rt::queue_design::ring), 16, 4);
        ADD_FAILURE() << "fib(16) with 4 join records succeeded";
    } catch (const canopy::error& e) {
        EXPECT_NE(std::string(e.what()).find("ran out"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("larger capacity"), std::string::npos) << e.what();
    }
}

// A pool run twice without reset() completes its root twice: the error names `reset_name`, not the
// user's tasks, and after reset() the same pool and task set give the exact result again (fib(12)).
template <class Pool, class Task, class Cont, class Args>
void expect_second_run_names_reset(Pool& pool, const char* reset_name) {
    rt::task_set<Task, Cont> ts{Task{pool.view()}, Cont{pool.view()}};
    ts.template seed<Task>(Args{12, rt::join_root_slot});
    const rt::config c = cfg(rt::policy::hrf_indirect, rt::queue_design::ring);
    ts.run(c);
    EXPECT_EQ(pool.result(), fib(12));
    ts.run(c);
    try {
        (void)pool.result();
        ADD_FAILURE() << "a second run without reset() was not reported";
    } catch (const canopy::error& e) {
        EXPECT_NE(std::string(e.what()).find("completed 2 times"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(reset_name), std::string::npos) << e.what();
    }
    pool.reset();
    ts.run(c);
    EXPECT_EQ(pool.result(), fib(12));
    EXPECT_EQ(pool.free_records(), pool.capacity());
}

TEST(Join, ASecondRunWithoutResetNamesReset) {
    canopy::emu::scoped_options so(canopy::test::emu_options("tiny"));
    rt::join_pool<result_t, 2> pool(1024);
    expect_second_run_names_reset<decltype(pool), fib_join_task, fib_join_sum, fib_join_args>(
        pool, "join_pool::reset()");
}

// The same for a summing pool (join_sum_pool shares join_pool's checks: join.hpp's join_pool_common).
TEST(Join, ASecondSummingRunWithoutResetNamesReset) {
    canopy::emu::scoped_options so(canopy::test::emu_options("tiny"));
    rt::join_sum_pool pool(1024);
    expect_second_run_names_reset<decltype(pool), fib_sum_task, fib_sum_pass, fib_sum_args>(
        pool, "join_sum_pool::reset()");
}

struct wide_task {
    using payload = fib_join_args;
    view_t j;
    template <class Ctx> CANOPY_DEVICE void operator()(const fib_join_args& p, Ctx&) const {
        (void)j.fork(3, p.to); // K = 2
    }
};

TEST(Join, TooWideAForkIsReported) {
    canopy::emu::scoped_options so(canopy::test::emu_options("tiny"));
    rt::join_pool<result_t, 2> pool(8);
    rt::task_set<wide_task> ts{wide_task{pool.view()}};
    ts.seed<wide_task>(fib_join_args{0, rt::join_root_slot});
    ts.run(cfg(rt::policy::hrf_indirect, rt::queue_design::ring));
    try {
        (void)pool.result();
        ADD_FAILURE() << "a fork of 3 on records of 2 slots was not reported";
    } catch (const canopy::error& e) {
        EXPECT_NE(std::string(e.what()).find("more than 2 children"), std::string::npos) << e.what();
    }
}

TEST(Join, BadCapacityIsAUsageError) {
    EXPECT_THROW((rt::join_pool<result_t, 2>(0)), canopy::error);
    EXPECT_THROW(rt::join_sum_pool(0), canopy::error);
    // One record more than a join_slot can name: refused before any device memory is allocated,
    // naming the limit.
    try {
        rt::join_sum_pool too_many(rt::join_max_records + 1u);
        ADD_FAILURE() << "a pool of join_max_records + 1 records was accepted";
    } catch (const canopy::error& e) {
        EXPECT_NE(std::string(e.what()).find(std::to_string(rt::join_max_records)), std::string::npos)
            << e.what();
    }
}

// A join_slot is one payload word that names its record and slot for every record a pool can hold,
// and no slot of any record is the root's.
TEST(Join, ASlotIsOneWordNamingItsRecordAndSlot) {
    static_assert(sizeof(rt::join_slot) == 4, "a join_slot costs a payload one word");
    EXPECT_TRUE(rt::join_root_slot.root());
    EXPECT_EQ(rt::join_root_slot.record(), rt::join_root);
    const unsigned last_slot = (1u << rt::join_slot_bits) - 1u;
    for (const unsigned idx : {0u, 1u, 12345u, rt::join_max_records - 1u}) {
        for (const unsigned i : {0u, 1u, last_slot}) {
            const rt::join_slot to = rt::join_record{idx}.slot(i);
            EXPECT_FALSE(to.root()) << idx << " " << i;
            EXPECT_EQ(to.record(), idx);
            EXPECT_EQ(to.slot(), i);
        }
    }
}

// fib(20) by summing joins: 6,764 records forked and freed (examples/nqueens runs summing joins in
// the install tests; canopy_bench_join fib(24)).
TEST(Join, SummingFib20IsExact) {
    canopy::emu::scoped_options so(canopy::test::emu_options("tiny"));
    unsigned free_after = 0;
    EXPECT_EQ(run_sum_fib(cfg(rt::policy::hrf_indirect, rt::queue_design::ring), 20, 1u << 14, &free_after),
              fib(20));
    EXPECT_EQ(free_after, 1u << 14);
}

// A pool far smaller than the open joins, with fork_or_inline: a fork that finds it empty computes its
// subtree in place, so fib(24) still completes exactly (both pool kinds), the pool counts the inlined
// forks, and result() reports no failure; with enough records nothing runs inline. A mutation that
// dropped the inline completion would leave the root never completed (result() throws).
TEST(Join, TooSmallPoolRunsInlineAndCompletesExactly) {
    using inline_join = fib_join_task_inline_when_empty;
    using inline_sum = canopy::workloads::checked::fib_fork_task<rt::join_sum_view, fib_sum_pass, true>;
    canopy::test::for_seeds(canopy::test::emu_options("tiny"), 2, [&] {
        for (const unsigned capacity : {8u, 1u << 12}) {
            SCOPED_TRACE(::testing::Message() << capacity << " records");
            rt::join_pool<result_t, 2> pool(capacity);
            rt::task_set<inline_join, fib_join_sum> ts{inline_join{pool.view()}, fib_join_sum{pool.view()}};
            ts.seed<inline_join>(fib_join_args{24, rt::join_root_slot});
            ts.run(cfg(rt::policy::hrf_indirect, rt::queue_design::ring));
            EXPECT_EQ(pool.result(), fib(24));
            EXPECT_EQ(pool.free_records(), capacity);
            if (capacity == 8) {
                EXPECT_GT(pool.inlined(), 0u) << "8 records cannot hold fib(24)'s open joins";
            } else {
                EXPECT_EQ(pool.inlined(), 0u);
            }
            rt::join_sum_pool sums(capacity);
            rt::task_set<inline_sum, fib_sum_pass> st{inline_sum{sums.view()}, fib_sum_pass{sums.view()}};
            st.seed<inline_sum>(fib_sum_args{24, rt::join_root_slot});
            st.run(cfg(rt::policy::hrf_indirect, rt::queue_design::ring));
            EXPECT_EQ(sums.result(), fib(24));
            EXPECT_EQ(sums.inlined() > 0, capacity == 8);
        }
    });
}

TEST(Join, SummingPoolExhaustionIsReported) {
    canopy::emu::scoped_options so(canopy::test::emu_options("tiny"));
    try {
        (void)run_sum_fib(cfg(rt::policy::hrf_indirect, rt::queue_design::ring), 16, 4);
        ADD_FAILURE() << "fib(16) with 4 summing records succeeded";
    } catch (const canopy::error& e) {
        EXPECT_NE(std::string(e.what()).find("ran out"), std::string::npos) << e.what();
    }
}

// A join record's count is a device-scope atomic in one device's memory, so a task set with join
// continuations refuses several devices before anything runs (the root is never completed).
TEST(Join, SeveralDevicesAreRefusedBeforeTheRun) {
    canopy::emu::scoped_options so(canopy::test::emu_options("tiny"));
    rt::config c = cfg(rt::policy::hrf_indirect, rt::queue_design::ring);
    c.devices = 2;
    rt::join_pool<result_t, 2> pool(64);
    rt::task_set<fib_join_task, fib_join_sum> ts{fib_join_task{pool.view()}, fib_join_sum{pool.view()}};
    ts.seed<fib_join_task>(fib_join_args{8, rt::join_root_slot});
    try {
        (void)ts.run(c);
        ADD_FAILURE() << "joins ran over two devices";
    } catch (const canopy::error& e) {
        EXPECT_NE(std::string(e.what()).find("config::devices = 1"), std::string::npos) << e.what();
    }
    EXPECT_EQ(pool.free_records(), 64u) << "a record was taken before the refusal";
}

// A record's sum must stay below 2^32 (join_sum.hpp): two children of 2^31 carry into the count, the
// continuation never runs, and the root is reported as never completed, naming 64-bit joins.
struct big_child {
    using payload = fib_sum_args;
    rt::join_sum_view j;
    template <class Ctx> CANOPY_DEVICE void operator()(const fib_sum_args& p, Ctx& ctx) const {
        if (p.n == 0) {
            j.complete<fib_sum_pass>(ctx, p.to, 1u << 31);
            return;
        }
        const rt::join_record rec = j.fork(2, p.to);
        if (rec.valid()) {
            spawn<big_child>(ctx, {0u, rec.slot(0)});
            spawn<big_child>(ctx, {0u, rec.slot(1)});
        }
    }
};

TEST(Join, SummingOverflowIsReportedNotWrapped) {
    canopy::emu::scoped_options so(canopy::test::emu_options("tiny"));
    rt::join_sum_pool pool(8);
    rt::task_set<big_child, fib_sum_pass> ts{big_child{pool.view()}, fib_sum_pass{pool.view()}};
    ts.seed<big_child>(fib_sum_args{1, rt::join_root_slot});
    ts.run(cfg(rt::policy::hrf_indirect, rt::queue_design::ring));
    try {
        (void)pool.result();
        ADD_FAILURE() << "a record summing 2^32 completed";
    } catch (const canopy::error& e) {
        EXPECT_NE(std::string(e.what()).find("2^32"), std::string::npos) << e.what();
    }
}

// A larger sort on the coherent model: 20,000 keys, merges of up to 10,000 keys in 8 pieces.
TEST(Join, MergesortOf20000KeysEqualsStdSort) {
    canopy::emu::scoped_options so(canopy::test::emu_options("tiny"));
    expect_sorted_by_joins(cfg(rt::policy::steal_emulated, rt::queue_design::ring), 20000, 5);
}

} // namespace
