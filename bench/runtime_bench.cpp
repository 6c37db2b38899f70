// canopy_bench_runtime: the task runtime's policies side by side on the emulator, in one run.
//
// For each policy: fib(n) tasks per second (host wall time, parallel scheduler, coherent memory) relative to
// hrf-direct measured in the same run; and on the deterministic scheduler with the scoped-cache model:
// simulated cycles (busiest CU) relative to hrf-direct, atomics and fences by scope, flushes,
// invalidations, remote ops, donations and steals. Results are verified (leaf count against the closed
// form); a mismatch exits 1. And what one launch costs on the timed scoped-cache model (hrf8): the runtime
// with no task and with one, against a frontier kernel of one vertex (the multi-kernel strategy's
// launch). `--quick`: small sizes (smoke test).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "canopy/emulator/launch.hpp"
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

/// A multi-kernel strategy's launch over a frontier of one vertex (docs/graph.md): one work-group;
/// work-item 0 reads the frontier's vertex, its two row offsets and its one neighbour's label, and
/// writes that label; the others find themselves past the frontier's end. What a level-synchronous
/// loop pays per launch apart from the launch itself.
struct one_vertex_frontier {
    const unsigned* frontier;
    const unsigned* offsets;
    const unsigned* targets;
    unsigned* labels;
    unsigned size;
    CANOPY_DEVICE void operator()() const {
        const unsigned i = canopy::block_id() * canopy::block_dim() + canopy::thread_id();
        if (i >= size) {
            return;
        }
        const unsigned v = canopy::ld(frontier + i);
        for (unsigned a = canopy::ld(offsets + v); a < canopy::ld(offsets + v + 1); ++a) {
            const unsigned u = canopy::ld(targets + a);
            if (canopy::ld(labels + u) == ~0u) {
                canopy::st(labels + u, 1u);
            }
        }
    }
};

std::uint64_t frontier_kernel_cycles() {
    canopy::device_buffer<unsigned> words(8);
    // frontier {0}; offsets {0, 1, 1}; one arc, 0 -> 1; labels {0, unreached}
    const std::vector<unsigned> init{0, 0, 1, 1, 1, 0, ~0u, 0};
    words.upload(init);
    unsigned* w = words.data();
    canopy::launch({.grid = 1, .block = 64}, one_vertex_frontier{w, w + 1, w + 4, w + 5, 1});
    canopy::device_synchronize();
    return canopy::emu::last_report().memory.cycles_makespan;
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

    // ---- one launch on the timed scoped-cache model (hrf8): what the runtime costs around its tasks ----
    {
        canopy::emu::options o;
        o.device = canopy::emu::preset("hrf8");
        o.memory_model = canopy::emu::memory_model_kind::scoped;
        o.timed = true;
        canopy::emu::scoped_options so(o);
        const std::uint64_t frontier = frontier_kernel_cycles();
        std::printf("\none launch, timed scoped-cache model, hrf8 (makespan in cycles; the launch cost L is "
                    "charged apart)\n%-44s %10s %12s\n",
                    "launch", "cycles", "vs frontier");
        std::printf("%-44s %10llu %12.2f\n", "frontier kernel, one vertex (multi-kernel)",
                    static_cast<unsigned long long>(frontier), 1.0);
        for (unsigned seeds = 0; seeds < 2; ++seeds) {
            canopy::device_buffer<unsigned> leaves(1);
            leaves.fill_zero();
            rt::task_set<fib_task> ts{fib_task{leaves.data()}};
            if (seeds != 0) {
                ts.seed<fib_task>({1});
            }
            rt::config c;
            c.block = 64;
            const rt::stats s = ts.run(c);
            if (leaves.to_vector()[0] != seeds) {
                std::printf("FAIL: runtime launch with %u seed(s): %u leaves\n", seeds,
                            leaves.to_vector()[0]);
                rc = 1;
            }
            std::printf(
                "%-44s %10llu %12.2f\n",
                seeds == 0 ? "runtime, no task (ring core, hrf-indirect)" : "runtime, one task, fib(1)",
                static_cast<unsigned long long>(s.cycles_makespan),
                frontier ? static_cast<double>(s.cycles_makespan) / static_cast<double>(frontier) : 0.0);
        }
    }
    return rc;
}
