// bench/race_bench.cpp — canopy_bench_race: what the heterogeneous-race detector costs (issue 13).
//
// Two workloads, each run with the detector off (the baseline, same run) and on under every model:
//   default  `canopy uts --tree default` (1,732 nodes) on the "tiny" virtual device, deterministic
//            scheduler, coherent memory: what the CLI does;
//   hrf-T1   the HRF experiment's smallest tree (T1 scaled to 124,476 nodes, docs/hrf-experiment.md) as
//            that experiment runs it: hrf8 with work-groups of 256, the scoped-cache model, simulated-time
//            order (bench/uts_hrf_experiment.cpp).
// Every run's node, depth and leaf counts are checked against the sequential reference (a mismatch:
// exit 1). Times are the best of --repeat runs; the ratio is detector-on time over detector-off time.
// Races found are printed too (the policy's own model should find none: docs/scopes.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/options.hpp"
#include "canopy/emulator/virtual_device.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/uts/compiled_runs.hpp"
#include "canopy/workloads/uts/uts.hpp"

namespace {

namespace rt = canopy::runtime;
namespace uts = canopy::workloads::uts;
namespace emu = canopy::emu;

struct workload {
    std::string name, flags;
    uts::params p;
    uts::counts ref;
    bool hrf8 = false; // the HRF experiment's setting (hrf8, block 256, scoped memory, timed)
};

struct outcome {
    double seconds = 0;
    std::uint64_t races = 0;
    bool exact = true;
};

outcome run(const workload& w, rt::policy pol, emu::race_check_kind k, unsigned repeat) {
    outcome best;
    best.seconds = 1e300;
    for (unsigned i = 0; i < repeat; ++i) {
        emu::options o;
        o.scheduler = emu::scheduler_kind::deterministic;
        o.race_check = k;
        o.seed = 1;
        unsigned block = 64;
        if (w.hrf8) {
            block = 256;
            o.device = emu::preset("hrf8");
            o.device.blocks_per_cu = 1; // as hrf8_with(256) in uts_hrf_experiment.cpp
            o.memory_model = emu::memory_model_kind::scoped;
            o.timed = true;
        } else {
            o.device = emu::preset("tiny");
        }
        emu::scoped_options so(o);
        const auto t0 = std::chrono::steady_clock::now();
        const uts::runtime_result r =
            uts::compiled::traverse_runtime(w.p, uts::default_config(pol, block), uts::sha1_model_cycles);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best.seconds = std::min(best.seconds, s);
        best.races = emu::last_report().distinct_races;
        best.exact = best.exact && r.c == w.ref;
    }
    return best;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"canopy_bench_race: the race detector's slowdown (detector on vs off, same run) on "
                 "`canopy uts --tree default` and the HRF experiment's smallest tree, per model"};
    unsigned repeat = 3;
    bool quick = false;
    std::string policy = "hrf-indirect";
    app.add_option("--repeat", repeat, "runs per (workload, model); the best time counts")
        ->default_val(repeat)
        ->check(CLI::Range(1u, 100u));
    app.add_flag("--quick", quick, "the default tree only, one run each (a smoke run)");
    app.add_option("--policy", policy, "scheduling policy of every run")
        ->default_val(policy)
        ->check(CLI::IsMember({"hrf-direct", "hrf-indirect", "steal-emulated", "steal-rsp"}));
    CLI11_PARSE(app, argc, argv);
    if (quick) {
        repeat = 1;
    }
    const rt::policy pol = rt::parse_policy(policy);

    std::vector<workload> ws;
    {
        workload w;
        w.name = "default";
        w.p = uts::sample_params("default");
        w.flags = uts::to_flags(w.p);
        ws.push_back(w);
    }
    if (!quick) {
        workload w;
        w.name = "hrf-T1";
        w.flags = "-t 1 -a 3 -d 7 -b 4.55 -r 19"; // docs/hrf-experiment.md: T1 scaled to 124,476 nodes
        w.p = uts::parse_flags(w.flags);
        w.hrf8 = true;
        ws.push_back(w);
    }
    for (auto& w : ws) {
        w.ref = uts::traverse_sequential(w.p);
    }

    std::printf("canopy_bench_race: policy %s, best of %u run(s); ratio = detector on / detector off\n",
                policy.c_str(), repeat);
    std::printf("%-8s %-48s %9s %-13s %10s %8s %6s\n", "workload", "flags", "nodes", "model", "seconds",
                "ratio", "races");
    bool ok = true;
    for (const auto& w : ws) {
        const outcome off = run(w, pol, emu::race_check_kind::none, repeat);
        ok = ok && off.exact;
        std::printf("%-8s %-48s %9llu %-13s %10.3f %8s %6s\n", w.name.c_str(), w.flags.c_str(),
                    static_cast<unsigned long long>(w.ref.nodes), "off", off.seconds, "1.00", "-");
        for (auto k : {emu::race_check_kind::hrf_direct, emu::race_check_kind::hrf_indirect,
                       emu::race_check_kind::rsp}) {
            const outcome on = run(w, pol, k, repeat);
            ok = ok && on.exact;
            std::printf("%-8s %-48s %9llu %-13s %10.3f %8.2f %6llu\n", w.name.c_str(), w.flags.c_str(),
                        static_cast<unsigned long long>(w.ref.nodes), emu::to_string(k), on.seconds,
                        on.seconds / off.seconds, static_cast<unsigned long long>(on.races));
            std::fflush(stdout);
        }
    }
    if (!ok) {
        std::fprintf(stderr, "canopy_bench_race: a run's counts differ from the sequential reference\n");
        return 1;
    }
    return 0;
}
