// canopy_bench_sync_locks: Stuart & Owens-style tables (2011, Figs. 2 and 3) on the emulator: mutex and
// semaphore throughput against contention, one contender per work-group, empty-ish critical section
// (one plain increment of a protected counter, as the verification needs).
//   parallel scheduler (coherent memory): critical sections per second (host wall clock);
//   scoped-cache model (deterministic, seed 1): simulated cycles per critical section on the busiest CU
//     (emu::last_report().memory.cycles_max_cu / critical sections).
// Every number is also shown as a ratio to the test-and-set spin mutex at 1 work-group measured in the
// same run (throughput: higher is better; cycles: lower is better). Counts are verified before printing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/options.hpp"
#include "canopy/platform/platform.hpp"
#include "canopy/sync/mutex.hpp"
#include "canopy/sync/semaphore.hpp"

namespace {

using canopy::scope;
namespace sync = canopy::sync;
using clock_type = std::chrono::steady_clock;

struct sample {
    double seconds = 0;
    std::uint64_t cycles = 0;
};

struct failure {
    std::string what;
};

// One contender per work-group does `iters` lock/unlock (or wait/post) pairs around a plain increment.
template <class Lock, bool IsSemaphore>
sample run_once(const Lock& init, unsigned capacity, unsigned groups, unsigned iters) {
    canopy::device_buffer<Lock> lock(std::vector<Lock>{init});
    canopy::device_buffer<unsigned> mem(4);
    mem.fill_zero();
    Lock* l = lock.data();
    unsigned* p = mem.data(); // p[0] counter, p[1] inside, p[2] max inside
    const auto t0 = clock_type::now();
    canopy::launch({.grid = groups, .block = 1}, [=] {
        canopy::atomic_ref<unsigned, scope::device> inside(p[1]), most(p[2]), done(p[3]);
        for (unsigned k = 0; k < iters; ++k) {
            if constexpr (IsSemaphore) {
                l->wait();
            } else {
                l->lock();
            }
            // Relaxed device-scope witness of how many are inside (verification only).
            most.fetch_max(inside.fetch_add(1, std::memory_order_relaxed) + 1, std::memory_order_relaxed);
            if constexpr (IsSemaphore) {
                done.fetch_add(1, std::memory_order_relaxed); // capacity > 1: no plain counter to protect
            } else {
                canopy::st(&p[0], canopy::ld(&p[0]) + 1);
            }
            inside.fetch_sub(1, std::memory_order_relaxed);
            if constexpr (IsSemaphore) {
                l->post();
            } else {
                l->unlock();
            }
        }
    });
    sample s{std::chrono::duration<double>(clock_type::now() - t0).count(),
             canopy::emu::last_report().memory.cycles_max_cu};
    const auto h = mem.to_vector();
    const unsigned count = IsSemaphore ? h[3] : h[0], limit = IsSemaphore ? capacity : 1u;
    if (count != groups * iters || h[2] > limit || h[1] != 0) {
        throw failure{fmt::format("{} critical sections of {} expected, at most {} inside (limit {})", count,
                                  groups * iters, h[2], limit)};
    }
    return s;
}

struct kind {
    std::string family, name;
    std::function<sample(unsigned groups, unsigned iters)> run;
};

template <class M> kind mutex_kind(const char* name) {
    return {"mutex", name, [](unsigned g, unsigned i) { return run_once<M, false>(M{}, 1, g, i); }};
}
template <class S> kind semaphore_kind(const char* name, unsigned capacity) {
    return {"semaphore", fmt::format("{} (C={})", name, capacity), [capacity](unsigned g, unsigned i) {
                return run_once<S, true>(S::with_capacity(capacity), capacity, g, i);
            }};
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"canopy_bench_sync_locks: mutex and semaphore throughput against contention (emulator)"};
    bool quick = false, json = false;
    unsigned max_groups = 32, capacity = 2, reps = 3;
    std::string device = "hrf8";
    app.add_flag("--quick", quick, "a few-second smoke run");
    app.add_flag("--json", json, "print JSON instead of tables");
    app.add_option("--max-blocks", max_groups, "largest contention (work-groups), doubling from 1");
    app.add_option("--capacity", capacity, "semaphore capacity")->check(CLI::Range(1u, 1000u));
    app.add_option("--reps", reps, "parallel-scheduler repetitions (the best is reported)")
        ->check(CLI::Range(1u, 100u));
    app.add_option("--device", device, "emulator device preset");
    CLI11_PARSE(app, argc, argv);
    if (quick) {
        max_groups = std::min(max_groups, 8u);
        reps = 1;
    }
    const unsigned par_iters = quick ? 2000 : 20000, scm_iters = quick ? 10 : 40;

    std::vector<kind> kinds = {
        mutex_kind<sync::spin_mutex<scope::device>>("spin (test-and-set)"),
        mutex_kind<sync::spin_backoff_mutex<scope::device>>("spin + linear backoff"),
        mutex_kind<sync::spin_exp_backoff_mutex<scope::device>>("spin + exp. backoff"),
        mutex_kind<sync::sleeping_mutex<scope::device>>("sleeping (TTAS)"),
        mutex_kind<sync::ticket_mutex<scope::device>>("ticket (FA, sleeping)"),
        semaphore_kind<sync::spin_semaphore<scope::device>>("spin", capacity),
        semaphore_kind<sync::spin_backoff_semaphore<scope::device>>("spin + linear backoff", capacity),
        semaphore_kind<sync::sleeping_semaphore<scope::device>>("sleeping (FA)", capacity),
    };
    std::vector<unsigned> contention;
    for (unsigned g = 1; g <= max_groups; g *= 2) {
        contention.push_back(g);
    }

    canopy::emu::options base;
    base.device = canopy::emu::preset(device);
    base.watchdog_seconds = 30;
    canopy::emu::options par = base, scm = base;
    par.scheduler = canopy::emu::scheduler_kind::parallel;
    par.memory_model = canopy::emu::memory_model_kind::coherent;
    scm.scheduler = canopy::emu::scheduler_kind::deterministic;
    scm.memory_model = canopy::emu::memory_model_kind::scoped;
    scm.seed = 1;

    // results[kind][contention]: critical sections per second, simulated cycles per critical section
    std::vector<std::vector<double>> cs_per_s(kinds.size()), cycles_per_cs(kinds.size());
    try {
        {
            // Warm-up: the first parallel launch pays for thread and stack creation; keep it out of the
            // baseline.
            canopy::emu::scoped_options s(par);
            (void)kinds[0].run(contention.back(), par_iters);
        }
        for (std::size_t k = 0; k < kinds.size(); ++k) {
            for (unsigned g : contention) {
                double best = 0;
                {
                    canopy::emu::scoped_options s(par);
                    for (unsigned r = 0; r < reps; ++r) {
                        const sample x = kinds[k].run(g, par_iters);
                        best = std::max(best, g * par_iters / x.seconds);
                    }
                }
                cs_per_s[k].push_back(best);
                canopy::emu::scoped_options s(scm);
                const sample y = kinds[k].run(g, scm_iters);
                cycles_per_cs[k].push_back(static_cast<double>(y.cycles) / (g * scm_iters));
            }
        }
    } catch (const failure& f) {
        std::fprintf(stderr, "verification failed: %s\n", f.what.c_str());
        return 1;
    }
    const double base_tp = cs_per_s[0][0], base_cy = cycles_per_cs[0][0];

    if (json) {
        nlohmann::json out;
        out["build_type"] = CANOPY_BENCH_BUILD_TYPE;
        out["device"] = device;
        out["capacity"] = capacity;
        out["iterations"] = {{"parallel", par_iters}, {"scm", scm_iters}};
        out["baseline"] = {
            {"kind", kinds[0].name}, {"blocks", 1}, {"cs_per_s", base_tp}, {"cycles_per_cs", base_cy}};
        for (std::size_t k = 0; k < kinds.size(); ++k) {
            for (std::size_t c = 0; c < contention.size(); ++c) {
                out["results"].push_back({{"family", kinds[k].family},
                                          {"kind", kinds[k].name},
                                          {"blocks", contention[c]},
                                          {"cs_per_s", cs_per_s[k][c]},
                                          {"cs_per_s_ratio", cs_per_s[k][c] / base_tp},
                                          {"scm_cycles_per_cs", cycles_per_cs[k][c]},
                                          {"scm_cycles_ratio", cycles_per_cs[k][c] / base_cy}});
            }
        }
        std::printf("%s\n", out.dump(2).c_str());
        return 0;
    }

    std::printf("canopy_bench_sync_locks (%s build; device %s; one contender per block; semaphore C=%u)\n",
                CANOPY_BENCH_BUILD_TYPE, device.c_str(), capacity);
    std::printf("baseline: %s at 1 block = %.3g CS/s (parallel), %.1f cycles/CS (SCM)\n\n",
                kinds[0].name.c_str(), base_tp, base_cy);
    auto table = [&](const char* title, const std::vector<std::vector<double>>& v, double b, const char* unit,
                     bool ratio_only_fmt) {
        std::printf("%s\n%-32s", title, "kind \\ blocks");
        for (unsigned g : contention) {
            std::printf("%19u", g);
        }
        std::printf("\n");
        for (std::size_t k = 0; k < kinds.size(); ++k) {
            std::printf("%-32s", (kinds[k].family + ": " + kinds[k].name).substr(0, 31).c_str());
            for (double x : v[k]) {
                const std::string cell = ratio_only_fmt ? fmt::format("{:.0f} ({:.2f}x)", x, x / b)
                                                        : fmt::format("{:.3g} ({:.2f}x)", x, x / b);
                std::printf("%19s", cell.c_str());
            }
            std::printf("\n");
        }
        std::printf("(%s; ratio to the baseline in parentheses)\n\n", unit);
    };
    table("Parallel scheduler, coherent memory: critical sections per second (higher is better)", cs_per_s,
          base_tp, "CS/s, best of reps, host wall clock", false);
    table("Scoped-cache model, seed 1: simulated cycles per critical section, busiest CU (lower is better)",
          cycles_per_cs, base_cy, "cycles_max_cu / critical sections", true);
    std::printf("verified: every run had blocks x iterations critical sections, at most 1 (mutex) or C "
                "(semaphore) inside at once.\n");
    return 0;
}
