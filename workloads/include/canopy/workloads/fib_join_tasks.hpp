// canopy/workloads/fib_join_tasks.hpp — fib(n) by joins (runtime/join.hpp): the smallest workload whose
// tasks wait for their children. A task for n >= 2 forks a record of two slots and spawns fib(n - 1)
// and fib(n - 2) into them; fib_join_sum, the continuation, adds the two results and completes its own
// parent's slot. fib_sum_task is the same by summing joins (one word per record, no slots). The join tests
// (tests/runtime/test_join.cpp) and canopy_bench_join share it; examples/fib-join is the same program written
// as a user would, against the installed package.
#pragma once

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"

namespace canopy::workloads::checked {

using fib_join_view = runtime::join_view<unsigned long long, 2>;

struct fib_fork_args {
    unsigned n;
    runtime::join_slot to; // where this task's result goes
};
using fib_join_args = fib_fork_args;
using fib_sum_args = fib_fork_args;

/// fib(n) (fib(0) = 0, fib(1) = 1), the sequential oracle; on the device, the subproblem a fork runs
/// inline when its pool is empty (fib_fork_task's InlineWhenEmpty).
CANOPY_HOST_DEVICE inline unsigned long long fib_value(unsigned n) {
    unsigned long long a = 0, b = 1;
    for (unsigned i = 0; i < n; ++i) {
        const unsigned long long c = a + b;
        a = b;
        b = c;
    }
    return a;
}

/// fib(n)'s tree, for either kind of join: a leaf completes its parent's slot with n; an inner node forks
/// a record of two slots and spawns fib(n - 1) and fib(n - 2) into them. `Continuation` runs once both
/// have completed (with their results: fib_join_sum; with their sum: fib_sum_pass). InlineWhenEmpty:
/// a fork that finds the pool empty computes fib(n) in place (fork_or_inline) instead of failing.
/// `cutoff`: fib(n) for n below it is computed in place (the sequential loop) and completes the parent's
/// slot directly, as Cilk's and GTaP's users cut small subproblems off; 2 (the default) cuts only the
/// leaves, which is the plain tree.
template <class View, class Continuation, bool InlineWhenEmpty = false> struct fib_fork_task {
    using payload = fib_fork_args;
    View j;
    unsigned cutoff = 2;
    template <class Ctx> CANOPY_DEVICE void operator()(const fib_fork_args& p, Ctx& ctx) const {
        if (p.n < cutoff || p.n < 2) {
            j.template complete<Continuation>(ctx, p.to, fib_value(p.n));
            return;
        }
        runtime::join_record rec{runtime::join_root};
        if constexpr (InlineWhenEmpty) {
            rec = j.template fork_or_inline<Continuation>(ctx, 2, p.to, [&] { return fib_value(p.n); });
        } else {
            rec = j.fork(ctx, 2, p.to);
        }
        if (!rec.valid()) {
            return; // ran inline, or the pool ran out: the pool's result() reports that after the run
        }
        spawn<fib_fork_task>(ctx, {p.n - 1, rec.slot(0)});
        spawn<fib_fork_task>(ctx, {p.n - 2, rec.slot(1)});
    }
};

template <bool Inline> struct fib_join_sum_t;
/// The continuation the runtime runs inline once its record is resolved (join_continuation.hpp).
using fib_join_sum = fib_join_sum_t<true>;
/// The same continuation, spawned as a task (it opts out of running inline): the path every
/// completion took before a sub-group resolved them, which the tests keep exercising.
using fib_join_sum_spawned = fib_join_sum_t<false>;
struct fib_sum_pass;
using fib_join_task = fib_fork_task<fib_join_view, fib_join_sum>;
using fib_join_task_spawned = fib_fork_task<fib_join_view, fib_join_sum_spawned>;
/// fib(n) by summing joins (runtime/join_sum.hpp): a record is one word, the children's sum; the
/// continuation passes the sum on. fib(47) is the largest that fits a record's 32-bit sum.
using fib_sum_task = fib_fork_task<runtime::join_sum_view, fib_sum_pass>;

template <bool Inline> struct fib_join_sum_t {
    using payload = runtime::join_payload;
    static constexpr bool inline_continuation = Inline;
    fib_join_view j;
    template <class Ctx> CANOPY_DEVICE void operator()(const runtime::join_payload& p, Ctx& ctx) const {
        const auto r = j.take(ctx, p);
        j.template complete<fib_join_sum_t>(ctx, r.to, r.value[0] + r.value[1]);
    }
};

struct fib_sum_pass {
    using payload = runtime::join_payload;
    runtime::join_sum_view j;
    template <class Ctx> CANOPY_DEVICE void operator()(const runtime::join_payload& p, Ctx& ctx) const {
        const runtime::join_sum_result r = j.take(p);
        j.complete<fib_sum_pass>(ctx, r.to, r.sum);
    }
};

} // namespace canopy::workloads::checked
