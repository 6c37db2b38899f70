// canopy_bench_join: what a join costs. fib(n) by joins (canopy/workloads/fib_join_tasks.hpp: a record
// per inner node, a continuation that adds the two results) against fib(n) spawn-only with an atomic
// leaf counter (fib_tasks.hpp, canopy_bench_runtime's workload), in the same run, every policy:
//   - tasks/s on the emulator's parallel scheduler (coherent memory, hrf8): an emulator ratio, stated as
//     such (host wall time of the emulated launch, best of --repeat);
//   - simulated cycles per task on the timed scoped-cache model (hrf8, the busiest CU's cycles over the
//     launch's makespan), and device-scope atomics per task.
// Both results are checked (fib(n) against the loop; the leaf count against the closed form); a
// mismatch exits 1. A join run executes fib's 2 F(n+1) - 1 tasks plus one continuation per inner node
// (F(n+1) - 1), so "tasks" below counts both, and the ratio per fib node is printed too. Summing joins
// (join_sum.hpp: one word per record, no slots) are a third column.
// Then mergesort of --keys random keys by joins (mergesort_join_tasks.hpp) against std::sort of the same
// keys in the same run: host seconds, an emulator ratio (the emulator runs the device's loads and stores
// one by one), stated as such; the result must equal std::sort's. And fib(--n-timed) by joins with a
// cut-off of 2 (the plain tree), 4, 6, 8 and 10 on the timed model (hrf-indirect): what running the
// bottom levels in place saves.
//   canopy_bench_join [--n N] [--n-timed N] [--seeds S] [--repeat R] [--keys K] [--queens Q] [--quick]
// Built for a GPU backend (cuda, hip) it measures the device instead, in one command, the figures GTaP
// publishes (notes/peers.md: fib(32) in 1.95 ms and n-queens 16 in 115.7 ms on a GH200): fib(N) spawn-
// only, by joins and by summing joins, n-queens(Q) by summing joins and UTS (a sample tree) by joins and
// by atomic counts, each policy the GPU runs, best of --repeat, kernel time from GPU events
// (stats::device_ms), every result checked against its oracle:
//   canopy_bench_join [--n N (32)] [--queens Q (16)] [--uts TREE (T1)] [--repeat R (3)] [--quick]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/fib_join_tasks.hpp"
#include "canopy/workloads/fib_tasks.hpp"
#include "canopy/workloads/nqueens_join_tasks.hpp"
#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/emulator/launch.hpp"
#    include "canopy/emulator/options.hpp"
#    include "canopy/workloads/mergesort_join_tasks.hpp"
#else
#    include "canopy/workloads/uts/compiled_runs.hpp"
#endif

#ifndef CANOPY_BENCH_BUILD_TYPE
#    define CANOPY_BENCH_BUILD_TYPE "unknown"
#endif

namespace {

namespace rt = canopy::runtime;
namespace ck = canopy::workloads::checked;

/// The emulator's runs: hrf8's shape (64-lane blocks); a GPU's: the runtime's defaults.
rt::config config(rt::policy p) {
    rt::config c;
    c.policy = p;
#if defined(CANOPY_BACKEND_CPU)
    c.block = 64;
    c.private_capacity = 64;
#endif
    return c;
}

/// fib's runs: a fib task spawns at most 2 children, so its staging needs 2 tasks a lane. Sized so, the
/// spawn-only and the join runs both fit in the work-group's shared memory beside hrf8's residency
/// (config::staging_in_shared; at the default 16 only the spawn-only run's narrower payload would, and
/// the comparison would be of two staging places). `shared` false: staging in the run's buffer.
rt::config fib_config(rt::policy p, bool shared) {
    rt::config c = config(p);
    c.staging_capacity = 2;
    c.staging_in_shared = shared;
    return c;
}

/// Join records of every pool here: 2^18 on the emulator; on a GPU, whose 100,000 lanes run breadth
/// first, 2^21 (fib(32) by joins: 64 MB).
#if defined(CANOPY_BACKEND_CPU)
constexpr unsigned join_records = 1u << 18;
#else
constexpr unsigned join_records = 1u << 21;
#endif

/// n-queens(n) by summing joins, the last 5 rows of a board counted in one task (n > 6). False on a count
/// other than the sequential one and the published one, or a record not freed.
bool by_queens(rt::policy p, unsigned n, rt::stats& s) {
    rt::join_sum_pool pool(join_records);
    rt::task_set<ck::nqueens_place, ck::nqueens_total> ts{ck::nqueens_place{pool.view(), n > 6 ? 5u : 0u},
                                                          ck::nqueens_total{pool.view()}};
    ts.seed<ck::nqueens_place>({n, 0u, 0u, 0u, 0u, rt::join_root_slot});
    s = ts.run(config(p));
    const unsigned long long got = pool.result();
    return got == ck::nqueens_count(n, 0, 0, 0, 0) && got == ck::nqueens_published[n] &&
           pool.free_records() == pool.capacity();
}

/// Spawn-only fib(n): leaves counted by a device-scope atomic. False on a wrong count.
bool spawn_only(rt::policy p, unsigned n, rt::stats& s, bool shared = true) {
    canopy::device_buffer<unsigned> leaves(1);
    leaves.fill_zero();
    rt::task_set<ck::fib_task> ts{ck::fib_task{leaves.data()}};
    ts.seed<ck::fib_task>({n});
    s = ts.run(fib_config(p, shared));
    return leaves.to_vector()[0] == ck::fib_leaves(n);
}

/// fib(n) by joins, fib(m) for m < cutoff computed in place (2: the plain tree). False on a wrong result
/// or a record not freed.
bool by_joins(rt::policy p, unsigned n, rt::stats& s, unsigned cutoff = 2, bool shared = true) {
    rt::join_pool<unsigned long long, 2> pool(join_records);
    rt::task_set<ck::fib_join_task, ck::fib_join_sum> ts{ck::fib_join_task{pool.view(), cutoff},
                                                         ck::fib_join_sum{pool.view()}};
    ts.seed<ck::fib_join_task>({n, rt::join_root_slot});
    s = ts.run(fib_config(p, shared));
    return pool.result() == ck::fib_value(n) && pool.free_records() == pool.capacity();
}

bool by_sums(rt::policy p, unsigned n, rt::stats& s) {
    rt::join_sum_pool pool(join_records);
    rt::task_set<ck::fib_sum_task, ck::fib_sum_pass> ts{ck::fib_sum_task{pool.view()},
                                                        ck::fib_sum_pass{pool.view()}};
    ts.seed<ck::fib_sum_task>({n, rt::join_root_slot});
    s = ts.run(fib_config(p, true));
    return pool.result() == ck::fib_value(n) && pool.free_records() == pool.capacity();
}

#if defined(CANOPY_BACKEND_CPU)
/// The emulator runs' two settings: hrf8 on the parallel scheduler (2 threads, coherent memory: host
/// throughput), and hrf8 on the timed scoped-cache model (simulated cycles).
canopy::emu::options parallel_hrf8() {
    canopy::emu::options o;
    o.device = canopy::emu::preset("hrf8");
    o.scheduler = canopy::emu::scheduler_kind::parallel;
    o.threads = 2;
    return o;
}
canopy::emu::options timed_hrf8() {
    canopy::emu::options o;
    o.device = canopy::emu::preset("hrf8");
    o.memory_model = canopy::emu::memory_model_kind::scoped;
    o.timed = true;
    return o;
}

std::uint64_t device_atomics(const rt::stats& s) {
    std::uint64_t n = 0;
    for (auto v : s.atomics[2]) { // [scope device][order]
        n += v;
    }
    return n;
}

#endif

} // namespace

#if defined(CANOPY_BACKEND_CPU)
int main(int argc, char** argv) {
    unsigned n = 24, n_timed = 16, reps = 3, keys = 1000000, queens = 9, seeds = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick") {
            n = 16;
            n_timed = 10;
            reps = 1;
            keys = 20000;
            queens = 7;
        } else if ((a == "--n" || a == "--n-timed" || a == "--repeat" || a == "--keys" || a == "--queens" ||
                    a == "--seeds") &&
                   i + 1 < argc) {
            const unsigned v = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
            (a == "--n"         ? n
             : a == "--n-timed" ? n_timed
             : a == "--keys"    ? keys
             : a == "--queens"  ? queens
             : a == "--seeds"   ? seeds
                                : reps) = v;
        } else {
            std::fprintf(
                stderr,
                "usage: canopy_bench_join [--n N (24)] [--n-timed N (16)] [--seeds S (1)] [--repeat R (3)] "
                "[--keys K (1000000)] [--queens Q (9)] [--quick]\n");
            return 2;
        }
    }
    if (n < 2 || n > 32 || n_timed < 2 || n_timed > 24 || reps == 0 || keys == 0 || keys > (1u << 26) ||
        queens < 1 || queens > 16 || seeds < 1 || seeds > 100) {
        std::fprintf(stderr,
                     "canopy_bench_join: --n in 2..32, --n-timed in 2..24, --seeds in 1..100, --repeat >= "
                     "1, --keys in 1..2^26, --queens in 1..16\n");
        return 2;
    }
    int rc = 0;
    std::printf("canopy_bench_join (%s build): fib(%u) by joins against spawn-only with an atomic counter\n",
                CANOPY_BENCH_BUILD_TYPE, n);
    std::printf("\nemulator throughput (parallel scheduler, 2 threads, coherent memory, hrf8; an emulator "
                "ratio, not a GPU's)\n%-15s %14s %14s %12s %16s %14s %12s\n",
                "policy", "spawn tasks/s", "join tasks/s", "join/spawn", "fib nodes: j/s", "sum tasks/s",
                "sum/spawn");
    for (rt::policy p : rt::all_policies) {
        canopy::emu::scoped_options so(parallel_hrf8());
        double best_s = 0, best_j = 0, nodes_j = 0, best_u = 0; // spawn-only tasks are fib nodes
        rt::stats s;
        (void)spawn_only(p, n, s); // warm-up: fiber stacks and first-touch memory
        for (unsigned r = 0; r < reps; ++r) {
            if (!spawn_only(p, n, s)) {
                std::printf("FAIL: %s spawn-only fib(%u)\n", rt::to_string(p), n);
                rc = 1;
            }
            const double t = static_cast<double>(s.total_tasks()) / s.seconds;
            best_s = t > best_s ? t : best_s;
            if (!by_joins(p, n, s)) {
                std::printf("FAIL: %s fib(%u) by joins\n", rt::to_string(p), n);
                rc = 1;
            }
            const double tj = static_cast<double>(s.total_tasks()) / s.seconds;
            if (tj > best_j) {
                best_j = tj;
                nodes_j = static_cast<double>(2 * ck::fib_leaves(n) - 1) / s.seconds; // fib nodes only
            }
            if (!by_sums(p, n, s)) {
                std::printf("FAIL: %s fib(%u) by summing joins\n", rt::to_string(p), n);
                rc = 1;
            }
            const double tu = static_cast<double>(s.total_tasks()) / s.seconds;
            best_u = tu > best_u ? tu : best_u;
        }
        std::printf("%-15s %14.0f %14.0f %12.2f %16.2f %14.0f %12.2f\n", rt::to_string(p), best_s, best_j,
                    best_j / best_s, nodes_j / best_s, best_u, best_u / best_s);
    }

    std::printf(
        "\ntimed scoped-cache model, hrf8, fib(%u): cycles are the launch's makespan, the mean over the "
        "deterministic scheduler's seeds 1..%u (--seeds: one seed's schedule moves by several %% with any "
        "change to the code)\n%-15s %12s %12s %10s %12s %12s %10s %10s %12s %10s\n",
        n_timed, seeds, "policy", "spawn cyc", "join cyc", "j/s", "spawn c/task", "join c/task", "dev.at/t s",
        "dev.at/t j", "sum cyc", "dev.at/t u");
    for (rt::policy p : rt::all_policies) {
        // Sums over the seeds: cycles, device atomics and tasks of each run (spawn-only, joins, sums).
        double cyc[3] = {}, atomics[3] = {}, tasks[3] = {};
        for (unsigned seed = 1; seed <= seeds; ++seed) {
            canopy::emu::options o = timed_hrf8();
            o.seed = seed;
            canopy::emu::scoped_options so(o);
            rt::stats st[3];
            if (!spawn_only(p, n_timed, st[0]) || !by_joins(p, n_timed, st[1]) ||
                !by_sums(p, n_timed, st[2])) {
                std::printf("FAIL: %s fib(%u) on the timed SCM, emulator seed %u\n", rt::to_string(p),
                            n_timed, seed);
                rc = 1;
            }
            for (unsigned k = 0; k < 3; ++k) {
                cyc[k] += static_cast<double>(st[k].cycles_makespan);
                atomics[k] += static_cast<double>(device_atomics(st[k]));
                tasks[k] += static_cast<double>(st[k].total_tasks());
            }
        }
        const auto per = [](double a, double b) { return b != 0 ? a / b : 0.0; };
        std::printf("%-15s %12.0f %12.0f %10.2f %12.1f %12.1f %10.2f %10.2f %12.0f %10.2f\n",
                    rt::to_string(p), cyc[0] / seeds, cyc[1] / seeds, per(cyc[1], cyc[0]),
                    per(cyc[0], tasks[0]), per(cyc[1], tasks[1]), per(atomics[0], tasks[0]),
                    per(atomics[1], tasks[1]), cyc[2] / seeds, per(atomics[2], tasks[2]));
    }
    {
        // Where staging lives (config::staging_in_shared), the same runs both ways in the same build.
        std::printf(
            "\ntimed scoped-cache model, hrf8, fib(%u): staging in the device buffer (through the L1) "
            "against the work-group's shared memory, mean over seeds 1..%u\n%-15s %12s %12s %8s %12s "
            "%12s %8s\n",
            n_timed, seeds, "policy", "spawn: L1", "spawn: LDS", "L1/LDS", "join: L1", "join: LDS", "L1/LDS");
        for (rt::policy p : rt::all_policies) {
            double cyc[2][2] = {}; // [spawn-only, joins][L1, LDS]
            for (unsigned seed = 1; seed <= seeds; ++seed) {
                for (unsigned where = 0; where < 2; ++where) {
                    canopy::emu::options o = timed_hrf8();
                    o.seed = seed;
                    canopy::emu::scoped_options so(o);
                    const bool shared = where == 1;
                    rt::stats st[2];
                    if (!spawn_only(p, n_timed, st[0], shared) || !by_joins(p, n_timed, st[1], 2, shared)) {
                        std::printf("FAIL: %s fib(%u), staging %s, emulator seed %u\n", rt::to_string(p),
                                    n_timed, shared ? "in shared memory" : "in the buffer", seed);
                        rc = 1;
                    }
                    for (unsigned k = 0; k < 2; ++k) {
                        cyc[k][where] += static_cast<double>(st[k].cycles_makespan);
                    }
                }
            }
            std::printf("%-15s %12.0f %12.0f %8.2f %12.0f %12.0f %8.2f\n", rt::to_string(p),
                        cyc[0][0] / seeds, cyc[0][1] / seeds, cyc[0][0] / cyc[0][1], cyc[1][0] / seeds,
                        cyc[1][1] / seeds, cyc[1][0] / cyc[1][1]);
        }
    }
    {
        // The cut-off (fib_fork_task::cutoff): fib(m) for m below it computed in place, the tree's
        // bottom levels gone; against the plain tree (cut-off 2) and the spawn-only tree in the same run.
        std::printf("\ntimed scoped-cache model, hrf8, hrf-indirect, fib(%u) by joins with a cut-off: fib(m) "
                    "for m < cut-off computed in place\n%-8s %12s %10s %12s %12s %14s\n",
                    n_timed, "cut-off", "join cyc", "tasks", "/ plain", "/ spawn-only", "dev.at/task");
        canopy::emu::scoped_options so(timed_hrf8());
        rt::stats ss;
        if (!spawn_only(rt::policy::hrf_indirect, n_timed, ss)) {
            std::printf("FAIL: spawn-only fib(%u)\n", n_timed);
            rc = 1;
        }
        std::uint64_t plain = 0;
        for (unsigned cut : {2u, 4u, 6u, 8u, 10u}) {
            rt::stats sc;
            if (!by_joins(rt::policy::hrf_indirect, n_timed, sc, cut)) {
                std::printf("FAIL: fib(%u) by joins, cut-off %u\n", n_timed, cut);
                rc = 1;
            }
            plain = cut == 2 ? sc.cycles_makespan : plain;
            std::printf("%-8u %12llu %10llu %12.2f %12.2f %14.2f\n", cut,
                        static_cast<unsigned long long>(sc.cycles_makespan),
                        static_cast<unsigned long long>(sc.total_tasks()),
                        plain ? static_cast<double>(sc.cycles_makespan) / static_cast<double>(plain) : 0.0,
                        ss.cycles_makespan ? static_cast<double>(sc.cycles_makespan) /
                                                 static_cast<double>(ss.cycles_makespan)
                                           : 0.0,
                        sc.total_tasks()
                            ? static_cast<double>(device_atomics(sc)) / static_cast<double>(sc.total_tasks())
                            : 0.0);
        }
    }
    {
        std::printf("\nmergesort of %u random keys by joins (leaves of 32, merges above 4096 keys in up to 8 "
                    "pieces) against std::sort\n(parallel scheduler, 2 threads, coherent memory, hrf8: host "
                    "seconds, an emulator ratio, not a GPU's)\n%-15s %12s %12s %12s %10s\n",
                    keys, "policy", "joins s", "std::sort s", "sort/joins", "tasks");
        std::mt19937 rng(2026);
        std::vector<unsigned> input(keys);
        for (auto& k : input) {
            k = static_cast<unsigned>(rng());
        }
        double sort_s = 1e30;
        std::vector<unsigned> want;
        for (unsigned r = 0; r < reps; ++r) {
            want = input;
            const auto t0 = std::chrono::steady_clock::now();
            std::sort(want.begin(), want.end());
            sort_s = std::min(sort_s,
                              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        for (rt::policy p : rt::all_policies) {
            canopy::emu::scoped_options so(parallel_hrf8());
            double best = 1e30;
            unsigned long long tasks = 0;
            for (unsigned r = 0; r < reps; ++r) {
                const auto t0 = std::chrono::steady_clock::now();
                const ck::sort_outcome out = ck::mergesort_by_joins(input, config(p), 32, 4096);
                const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                best = std::min(best, t);
                tasks = out.stats.total_tasks();
                if (out.keys != want || out.free_records != out.capacity) {
                    std::printf("FAIL: %s mergesort of %u keys\n", rt::to_string(p), keys);
                    rc = 1;
                }
            }
            std::printf("%-15s %12.3f %12.4f %12.4f %10llu\n", rt::to_string(p), best, sort_s, sort_s / best,
                        tasks);
        }
    }
    {
        std::printf("\n%u-queens by summing joins (parallel scheduler, 2 threads, coherent memory, hrf8: "
                    "host seconds, an emulator ratio, not a GPU's)\n%-15s %12s %10s %14s\n",
                    queens, "policy", "seconds", "tasks", "tasks/s");
        for (rt::policy p : rt::all_policies) {
            canopy::emu::scoped_options so(parallel_hrf8());
            rt::stats sq;
            double best = 1e30;
            for (unsigned r = 0; r < reps; ++r) {
                if (!by_queens(p, queens, sq)) {
                    std::printf("FAIL: %s %u-queens by summing joins\n", rt::to_string(p), queens);
                    rc = 1;
                }
                best = std::min(best, sq.seconds);
            }
            std::printf("%-15s %12.4f %10llu %14.0f\n", rt::to_string(p), best,
                        static_cast<unsigned long long>(sq.total_tasks()),
                        static_cast<double>(sq.total_tasks()) / best);
        }
    }
    std::printf("\n%s\n", rc == 0 ? "OK: every result matched its oracle" : "FAILED");
    return rc;
}
#else
namespace {

/// The best (least) kernel time of `reps` runs of `run` (each returning false on a wrong result), in ms;
/// the tasks of the last run in *tasks. A wrong result sets *ok false.
template <class Run> double best_ms(unsigned reps, Run&& run, unsigned long long* tasks, bool* ok) {
    double best = 1e30;
    for (unsigned r = 0; r < reps; ++r) {
        rt::stats s;
        if (!run(s)) {
            *ok = false;
        }
        best = std::min(best, s.device_ms);
        *tasks = s.total_tasks();
    }
    return best;
}

} // namespace

int main(int argc, char** argv) {
    unsigned n = 32, queens = 16, reps = 3;
    std::string tree = "T1";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick") {
            n = 24;
            queens = 12;
            reps = 1;
        } else if ((a == "--n" || a == "--queens" || a == "--repeat") && i + 1 < argc) {
            const unsigned v = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
            (a == "--n" ? n : a == "--queens" ? queens : reps) = v;
        } else if (a == "--uts" && i + 1 < argc) {
            tree = argv[++i];
        } else {
            std::fprintf(stderr, "usage: canopy_bench_join [--n N (32)] [--queens Q (16)] [--uts TREE (T1)] "
                                 "[--repeat R (3)] [--quick]\n");
            return 2;
        }
    }
    namespace uts = canopy::workloads::uts;
    const uts::sample_tree* sample = uts::find_sample_tree(tree);
    if (n < 2 || n > 36 || queens < 1 || queens > 16 || reps == 0 || sample == nullptr ||
        !sample->expected.known()) {
        std::fprintf(stderr,
                     "canopy_bench_join: --n in 2..36, --queens in 1..16, --repeat >= 1, --uts a sample "
                     "tree with published counts (T1, T3, T5, ...)\n");
        return 2;
    }
    const uts::params tp = uts::sample_params(tree);
    std::printf(
        "canopy_bench_join (%s backend, %s build): kernel ms (%s), best of %u; GTaP (GH200, published, "
        "not measured here): fib(32) 1.95 ms, 16-queens 115.7 ms\n",
        CANOPY_BACKEND_NAME, CANOPY_BENCH_BUILD_TYPE, canopy::device_clock, reps);
    std::printf("%-15s %12s %12s %9s %12s %12s %12s %12s %12s %9s %14s\n", "policy", "fib spawn ms",
                "fib join ms", "j/s", "fib sum ms", "join task/s", "queens ms", "uts join ms", "uts atom ms",
                "j/a", "queens task/s");
    int rc = 0;
    try {
        for (rt::policy p : rt::all_policies) {
            if (!rt::policy_available(p)) {
                continue;
            }
            bool ok = true;
            unsigned long long ts = 0, tj = 0, tu = 0, tq = 0, tuj = 0, tua = 0;
            const double spawn = best_ms(
                reps, [&](rt::stats& s) { return spawn_only(p, n, s); }, &ts, &ok);
            const double join = best_ms(
                reps, [&](rt::stats& s) { return by_joins(p, n, s); }, &tj, &ok);
            const double sum = best_ms(
                reps, [&](rt::stats& s) { return by_sums(p, n, s); }, &tu, &ok);
            const double q = best_ms(
                reps, [&](rt::stats& s) { return by_queens(p, queens, s); }, &tq, &ok);
            const auto uts_run = [&](bool joins, rt::stats& s) {
                const uts::runtime_result r = joins ? uts::compiled::traverse_runtime_joins(tp, config(p))
                                                    : uts::compiled::traverse_runtime(tp, config(p));
                s = r.stats;
                return r.c.nodes == sample->expected.nodes && r.c.leaves == sample->expected.leaves &&
                       r.c.depth == sample->expected.depth;
            };
            const double uj = best_ms(
                reps, [&](rt::stats& s) { return uts_run(true, s); }, &tuj, &ok);
            const double ua = best_ms(
                reps, [&](rt::stats& s) { return uts_run(false, s); }, &tua, &ok);
            std::printf("%-15s %12.3f %12.3f %9.2f %12.3f %12.3g %12.3f %12.3f %12.3f %9.2f %14.3g\n",
                        rt::to_string(p), spawn, join, join / spawn, sum,
                        static_cast<double>(tj) / join * 1e3, q, uj, ua, uj / ua,
                        static_cast<double>(tq) / q * 1e3);
            if (!ok) {
                std::printf("FAIL: %s: a result did not match its oracle (fib(%u) = %llu, %u-queens = %llu, "
                            "%s's published counts)\n",
                            rt::to_string(p), n, ck::fib_value(n), queens, ck::nqueens_published[queens],
                            tree.c_str());
                rc = 1;
            }
        }
    } catch (const canopy::error& e) {
        std::fprintf(stderr, "canopy_bench_join: %s\n", e.what());
        return 1;
    }
    std::printf("\n%s\n", rc == 0 ? "OK: every result matched its oracle" : "FAILED");
    return rc;
}
#endif
