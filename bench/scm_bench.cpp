// canopy_bench_scm: what the scoped-cache model costs. Two measurements, each a ratio measured in one run:
//   1. litmus runs per second (message passing and an RMW-atomicity test, random runs), against the
//      same number of launches of the same interpreted test on coherent memory;
//   2. the SCM's slowdown on one real kernel (an all-to-all flag exchange with device-scope
//      release/acquire and plain payloads) against the coherent deterministic scheduler and the
//      coherent parallel scheduler.
// Results are verified before any number is printed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/options.hpp"
#include "canopy/litmus/parser.hpp"
#include "canopy/litmus/runner.hpp"
#include "canopy/platform/platform.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

const char* mp_test = R"(OpenCL MP_dv
{ [x]=0; [y]=0; }
P0 (global int* x, global atomic_int* y) {
  *x = 42;
  atomic_store_explicit(y, 1, memory_order_release, memory_scope_device);
}
P1 (global int* x, global atomic_int* y) {
  int r0 = atomic_load_explicit(y, memory_order_acquire, memory_scope_device);
  int r1 = -1;
  if (r0 == 1) r1 = *x;
}
scopeTree (device (work_group P0) (work_group P1))
exists (1:r0=1 /\ ~(1:r1=42)))";

// The kernel of measurement 2: work-item t of every work-group publishes a payload and a flag
// (device-scope release) and reads every other work-group's (device-scope acquire).
bool all_to_all(unsigned groups, unsigned block) {
    canopy::device_buffer<unsigned> flags(groups * block), data(groups * block), bad(1);
    flags.fill_zero();
    data.fill_zero();
    bad.fill_zero();
    unsigned *pf = flags.data(), *pd = data.data(), *pb = bad.data();
    canopy::launch({.grid = groups, .block = block}, [=] {
        const unsigned b = canopy::block_id(), t = canopy::thread_id(), n = canopy::block_dim();
        canopy::st(&pd[b * n + t], 1000 * b + t + 1);
        canopy::atomic_ref<unsigned, canopy::scope::device>(pf[b * n + t])
            .store(1, std::memory_order_release);
        for (unsigned c = 0; c < canopy::grid_dim(); ++c) {
            canopy::atomic_ref<unsigned, canopy::scope::device> r(pf[c * n + t]);
            canopy::spin_until([&] { return r.load(std::memory_order_acquire) == 1; });
            if (canopy::ld(&pd[c * n + t]) != 1000 * c + t + 1) {
                canopy::atomic_ref<unsigned>(*pb).fetch_add(1);
            }
        }
    });
    return bad.to_vector()[0] == 0;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"canopy_bench_scm: the scoped-cache model's cost, as ratios measured in one run"};
    bool quick = false;
    unsigned reps = 3;
    app.add_flag("--quick", quick, "a sub-second smoke run");
    app.add_option("--reps", reps, "repetitions (the median is reported)")->check(CLI::Range(1u, 100u));
    CLI11_PARSE(app, argc, argv);

    const std::uint64_t litmus_runs = quick ? 200 : 5000;
    const unsigned groups = quick ? 4 : 8, block = quick ? 16 : 64;

    // 1. litmus runs per second
    const auto test = canopy::litmus::parse(mp_test, "mp_dv");
    std::vector<double> scm_s;
    for (unsigned r = 0; r < reps; ++r) {
        canopy::litmus::run_options o;
        o.seeds = litmus_runs;
        o.exhaustive_limit = 0;
        const auto t0 = clock_type::now();
        const auto res = canopy::litmus::run(test, o);
        scm_s.push_back(seconds_since(t0));
        if (res.verdict != "Never" || res.runs != litmus_runs) {
            std::fprintf(stderr,
                         "WRONG RESULT: a forbidden message-passing outcome showed; no numbers reported\n");
            return 1;
        }
    }
    std::sort(scm_s.begin(), scm_s.end());
    const double litmus_s = scm_s[scm_s.size() / 2];

    // 2. one kernel: SCM against coherent memory
    struct variant {
        const char* name;
        canopy::emu::scheduler_kind k;
        canopy::emu::memory_model_kind m;
    };
    const variant variants[] = {
        {"deterministic, coherent", canopy::emu::scheduler_kind::deterministic,
         canopy::emu::memory_model_kind::coherent},
        {"deterministic, scoped (SCM)", canopy::emu::scheduler_kind::deterministic,
         canopy::emu::memory_model_kind::scoped},
        {"parallel, coherent", canopy::emu::scheduler_kind::parallel,
         canopy::emu::memory_model_kind::coherent},
    };
    std::vector<double> kernel_s;
    std::vector<std::uint64_t> steps;
    canopy::emu::memory_counters scm_counters;
    for (const auto& v : variants) {
        std::vector<double> t;
        for (unsigned r = 0; r < reps; ++r) {
            canopy::emu::options o;
            o.device = canopy::emu::preset("hrf8");
            o.scheduler = v.k;
            o.memory_model = v.m;
            o.seed = r + 1;
            canopy::emu::scoped_options s(o);
            const auto t0 = clock_type::now();
            if (!all_to_all(groups, block)) {
                std::fprintf(stderr, "WRONG RESULT: stale payload under %s; no numbers reported\n", v.name);
                return 1;
            }
            t.push_back(seconds_since(t0));
            if (v.m == canopy::emu::memory_model_kind::scoped && r == 0) {
                scm_counters = canopy::emu::last_report().memory;
            }
        }
        std::sort(t.begin(), t.end());
        kernel_s.push_back(t[t.size() / 2]);
        steps.push_back(canopy::emu::last_report().steps);
    }

    fmt::print("canopy_bench_scm (median of {}; {})\n\n", reps, quick ? "quick" : "full");
    fmt::print("litmus: {} random runs of MP (device scope, 2 work-groups): {:.3f} s, {:.0f} runs/s\n\n",
               litmus_runs, litmus_s, litmus_runs / litmus_s);
    fmt::print("kernel: all-to-all flags, {} work-groups x {} work-items on hrf8\n", groups, block);
    fmt::print("{:<30} {:>10} {:>12} {:>10}\n", "variant", "seconds", "steps", "ratio");
    for (std::size_t i = 0; i < kernel_s.size(); ++i) {
        fmt::print("{:<30} {:>10.4f} {:>12} {:>9.2f}x\n", variants[i].name, kernel_s[i], steps[i],
                   kernel_s[i] / kernel_s[0]);
    }
    fmt::print("\nSCM counters of one run: ");
    scm_counters.for_each([](const std::string& k, std::uint64_t v) { fmt::print("{}={} ", k, v); });
    fmt::print("\nratio = seconds / seconds of the coherent deterministic run (same kernel, same run).\n");
    return 0;
}
