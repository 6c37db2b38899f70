// canopy_gpu_tests: the task runtime under every policy and core (fib, checksummed trees) (gpu_cases.hpp says
// what the binary holds and why).
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/checked_tasks.hpp"
#include "canopy/workloads/fib_join_tasks.hpp"
#include "canopy/workloads/mergesort_join_tasks.hpp"
#include "gpu_cases.hpp"

namespace {

using namespace canopy_gpu_tests;
namespace checked = canopy::workloads::checked;

TEST(GpuRuntime, FibIsExactUnderEveryPolicyAndCore) {
    const unsigned n = emulated ? 11 : 22;
    for (const core_case& k : cores()) {
        SCOPED_TRACE(name(k));
        canopy::device_buffer<unsigned> leaves(1);
        leaves.fill_zero();
        rt::task_set<checked::fib_task> ts{checked::fib_task{leaves.data()}};
        ts.seed<checked::fib_task>({n});
        const rt::stats s = ts.run(config_of(k));
        const unsigned want = checked::fib_leaves(n); // Fibonacci(n + 1), by recurrence on the host
        EXPECT_EQ(leaves.to_vector()[0], want);
        EXPECT_EQ(s.total_tasks(), 2ull * want - 1);
    }
}

// Joins (runtime/join.hpp): fib by a record per inner node and a continuation that adds, under every
// policy and core, then by summing joins; every record back on the free lists (each continuation ran
// exactly once).
TEST(GpuRuntime, FibByJoinsIsExactUnderEveryPolicyAndCore) {
    const unsigned n = emulated ? 11 : 24;
    for (const core_case& k : cores()) {
        SCOPED_TRACE(name(k));
        rt::join_pool<unsigned long long, 2> pool(1u << 16);
        rt::task_set<checked::fib_join_task, checked::fib_join_sum> ts{checked::fib_join_task{pool.view()},
                                                                       checked::fib_join_sum{pool.view()}};
        ts.seed<checked::fib_join_task>({n, rt::join_root_slot});
        (void)ts.run(config_of(k));
        EXPECT_EQ(pool.result(), checked::fib_value(n));
        EXPECT_EQ(pool.free_records(), pool.capacity());
        // The same by summing joins (join_sum.hpp: one 64-bit word per record, one RMW per child).
        rt::join_sum_pool sums(1u << 16);
        rt::task_set<checked::fib_sum_task, checked::fib_sum_pass> us{checked::fib_sum_task{sums.view()},
                                                                      checked::fib_sum_pass{sums.view()}};
        us.seed<checked::fib_sum_task>({n, rt::join_root_slot});
        (void)us.run(config_of(k));
        EXPECT_EQ(sums.result(), checked::fib_value(n));
        EXPECT_EQ(sums.free_records(), sums.capacity());
    }
}

// Mergesort by joins (two kinds of record: a sort's halves, a merge's pieces; keys passed by reference)
// against std::sort, under every policy and core.
TEST(GpuRuntime, MergesortByJoinsEqualsStdSortUnderEveryPolicyAndCore) {
    const unsigned n = emulated ? 700 : 1000000;
    std::vector<unsigned> keys(n);
    unsigned x = 12345;
    for (auto& k : keys) {
        x = x * 1103515245u + 12345u;
        k = (x >> 8) % (n / 2 + 1);
    }
    std::vector<unsigned> want = keys;
    std::sort(want.begin(), want.end());
    for (const core_case& k : cores()) {
        SCOPED_TRACE(name(k));
        const checked::sort_outcome o =
            checked::mergesort_by_joins(keys, config_of(k), 16, emulated ? 64 : 4096);
        EXPECT_TRUE(o.keys == want);
        EXPECT_EQ(o.free_records, o.capacity);
    }
}

TEST(GpuRuntime, EveryTaskOfATreeRunsExactlyOnce) {
    // run_tree: every task checks its payload's checksum and records its id (checked_tasks.hpp).
    const unsigned n = emulated ? 600 : 200000;
    for (const core_case& k : cores()) {
        for (bool unbalanced : {false, true}) {
            SCOPED_TRACE(name(k) + (unbalanced ? " unbalanced" : " balanced"));
            rt::config c = config_of(k);
            c.staging_capacity = 64;
            unsigned tasks = n;
            if (unbalanced) {
                // One task spawns all the others: a staging buffer of that many tasks per lane, so a
                // plain grid of a few work-groups keeps the staging memory small.
                tasks = 320;
                c.staging_capacity = tasks;
                c.persistent = false;
                c.grid = emulated ? 4 : 64;
            }
            const auto r = checked::run_tree(c, tasks, unbalanced ? 0 : 3, unbalanced);
            EXPECT_TRUE(r.exactly_once()) << "bad checksums " << r.bad_checksum << ", bad ids " << r.bad_id;
        }
    }
}

} // namespace
