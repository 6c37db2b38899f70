// canopy/workloads/fib_tasks.hpp — Fibonacci-like recursion as tasks: the smallest workload that
// exercises spawning, with a closed-form oracle (the leaf count). The runtime's tests, `canopy stress`,
// canopy_bench_runtime and the GPU codegen check (tests/codegen/compile_runtime.cpp) share this one
// definition.
#pragma once

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"

namespace canopy::workloads::checked {

struct fib_args {
    unsigned n;
};

/// fib(n) spawns fib(n - 1) and fib(n - 2); fib(0) and fib(1) are leaves and count themselves.
struct fib_task {
    using payload = fib_args;
    unsigned* leaves;
    template <class Ctx> CANOPY_DEVICE void operator()(const fib_args& p, Ctx& ctx) const {
        if (p.n < 2) {
            // Relaxed device-scope RMW: a result counter that only the host reads, after the kernel
            // (the launch's completion orders it); no task reads it, so no ordering is needed here.
            atomic_ref<unsigned, scope::device>(*leaves).fetch_add(1, std::memory_order_relaxed);
            return;
        }
        // The free spawn, unqualified (argument-dependent lookup finds canopy::runtime::spawn): the
        // runtime's tests and the GPU codegen check compile the spelling docs/writing-tasks.md teaches.
        spawn<fib_task>(ctx, {p.n - 1});
        spawn<fib_task>(ctx, {p.n - 2});
    }
};

/// Leaves of the fib(n) call tree (fib(0) and fib(1) are leaves): Fibonacci(n + 1).
CANOPY_HOST_DEVICE inline unsigned fib_leaves(unsigned n) {
    unsigned a = 1, b = 1; // L(0), L(1)
    for (unsigned i = 1; i < n; ++i) {
        const unsigned c = a + b;
        a = b;
        b = c;
    }
    return b;
}

} // namespace canopy::workloads::checked
