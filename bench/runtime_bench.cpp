// canopy_bench_runtime: the task runtime's policies side by side on the emulator, in one run.
//
// For each policy: fib(n) tasks per second (host wall time, parallel scheduler, coherent memory) relative to
// hrf-direct measured in the same run; and on the deterministic scheduler with the scoped-cache model:
// simulated cycles (busiest CU) relative to hrf-direct, atomics and fences by scope, flushes,
// invalidations, remote ops, donations and steals. Results are verified (leaf count against the closed
// form); a mismatch exits 1. `--quick`: small sizes (smoke test).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "canopy/emulator/options.hpp"
#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/fib_tasks.hpp"

#ifndef CANOPY_BENCH_BUILD_TYPE
#    define CANOPY_BENCH_BUILD_TYPE "unknown"
#endif

namespace {

namespace rt = canopy::runtime;

using canopy::workloads::checked::fib_task;

bool run_fib(rt::policy p, unsigned n, unsigned block, rt::stats& s) {
    canopy::device_buffer<unsigned> leaves(1);
    leaves.fill_zero();
    rt::task_set<fib_task> ts{fib_task{leaves.data()}};
    ts.seed<fib_task>({n});
    rt::config c;
    c.policy = p;
    c.block = block;
    c.private_capacity = 64;
    s = ts.run(c);
    return leaves.to_vector()[0] == canopy::workloads::checked::fib_leaves(n);
}

std::uint64_t by_scope(const std::array<std::array<std::uint64_t, 6>, 4>& a, unsigned scope) {
    std::uint64_t n = 0;
    for (auto v : a[scope]) {
        n += v;
    }
    return n;
}

} // namespace

int main(int argc, char** argv) {
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        quick = quick || std::strcmp(argv[i], "--quick") == 0;
    }
    const unsigned n_par = quick ? 14 : 20, n_scm = quick ? 10 : 14, reps = quick ? 1 : 3;
    std::printf("canopy_bench_runtime (build %s): fib(%u) parallel/coherent, fib(%u) deterministic/SCM\n",
                CANOPY_BENCH_BUILD_TYPE, n_par, n_scm);
    int rc = 0;

    // ---- throughput: parallel scheduler, coherent memory, preset "hrf8" ----
    double base = 0;
    std::printf("\n%-15s %12s %10s %8s %8s %8s\n", "policy", "tasks/s", "vs direct", "donat.", "steals",
                "partial");
    for (rt::policy p : rt::all_policies) {
        canopy::emu::options o;
        o.device = canopy::emu::preset("hrf8");
        o.scheduler = canopy::emu::scheduler_kind::parallel;
        o.threads = 2;
        canopy::emu::scoped_options so(o);
        double best = 0;
        rt::stats s;
        (void)run_fib(p, n_par, 64,
                      s); // warm-up: fiber stacks and first-touch memory are not the policy's cost
        for (unsigned r = 0; r < reps; ++r) {
            if (!run_fib(p, n_par, 64, s)) {
                std::printf("FAIL: %s fib(%u) leaf count\n", rt::to_string(p), n_par);
                rc = 1;
            }
            const double tps = static_cast<double>(s.total_tasks()) / s.seconds;
            best = tps > best ? tps : best;
        }
        base = p == rt::policy::hrf_direct ? best : base;
        std::printf("%-15s %12.0f %10.2f %8llu %8llu %8llu\n", rt::to_string(p), best, best / base,
                    static_cast<unsigned long long>(s.donations()),
                    static_cast<unsigned long long>(s.steals_received),
                    static_cast<unsigned long long>(s.partial_fronts));
    }

    // ---- the memory system: deterministic scheduler with the scoped-cache model, preset "tiny" ----
    std::uint64_t base_cycles = 0;
    std::printf("\n%-15s %12s %10s %10s %10s %10s %10s %10s %8s %8s\n", "policy", "cycles(max)", "vs direct",
                "atom.SG", "atom.WG", "atom.DV", "fence.SG", "fence.DV", "flushes", "remote");
    for (rt::policy p : rt::all_policies) {
        canopy::emu::options o;
        o.device = canopy::emu::preset("tiny");
        o.memory_model = canopy::emu::memory_model_kind::scoped;
        canopy::emu::scoped_options so(o);
        rt::stats s;
        if (!run_fib(p, n_scm, 32, s)) {
            std::printf("FAIL: %s fib(%u) leaf count on the SCM\n", rt::to_string(p), n_scm);
            rc = 1;
        }
        base_cycles = p == rt::policy::hrf_direct ? s.cycles_max_cu : base_cycles;
        std::printf(
            "%-15s %12llu %10.2f %10llu %10llu %10llu %10llu %10llu %8llu %8llu\n", rt::to_string(p),
            static_cast<unsigned long long>(s.cycles_max_cu),
            base_cycles ? static_cast<double>(s.cycles_max_cu) / static_cast<double>(base_cycles) : 0.0,
            static_cast<unsigned long long>(by_scope(s.atomics, 0)),
            static_cast<unsigned long long>(by_scope(s.atomics, 1)),
            static_cast<unsigned long long>(by_scope(s.atomics, 2)),
            static_cast<unsigned long long>(by_scope(s.fences, 0)),
            static_cast<unsigned long long>(by_scope(s.fences, 2)),
            static_cast<unsigned long long>(s.flushes), static_cast<unsigned long long>(s.remote_ops));
    }
    return rc;
}
