// bench/uts_bench.cpp — canopy_bench_uts: UTS nodes per second on the emulator's task runtime, against
// the in-project sequential reference traversal timed in the same run (issue 6's bench).
//
// For each tree: the reference (depth-first, one core) runs --repeat times and its best time is the
// baseline; then the runtime runs the tree under each policy on the parallel scheduler (real threads
// and atomics, coherent memory: what the emulator can do fast) and its best time is compared. Every
// run's node, depth and leaf counts are checked against the reference (a difference: exit 1). The
// ratio says what the emulated GPU runtime costs against plain sequential C++ on the same machine; it
// is not a GPU speed (the emulator runs every work-item as a fiber on a few cores).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "canopy/emulator/options.hpp"
#include "canopy/emulator/virtual_device.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/uts/compiled_runs.hpp"
#include "canopy/workloads/uts/uts.hpp"

#include "parallel_run.hpp"

namespace {

namespace rt = canopy::runtime;
namespace uts = canopy::workloads::uts;

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"canopy_bench_uts: UTS nodes/s of the task runtime on the emulator (parallel scheduler) "
                 "against the sequential reference traversal, as a ratio measured in the same run"};
    std::vector<std::string> trees{"T1"};
    std::vector<std::string> policies{"hrf-direct", "hrf-indirect", "steal-emulated"};
    std::string device = "wide";
    unsigned threads = 0, repeat = 3;
    bool json = false;
    app.add_option("--tree", trees, "sample trees (canopy uts --list)")->capture_default_str();
    app.add_option("--policy", policies,
                   "runtime policies (steal-rsp needs the scoped-cache model: not here)")
        ->capture_default_str();
    app.add_option("--device", device, "virtual device preset")->capture_default_str();
    app.add_option("--threads", threads, "OS threads of the parallel scheduler (0: all cores)")
        ->capture_default_str();
    app.add_option("--repeat", repeat, "runs per measurement; the best is kept")
        ->check(CLI::Range(1u, 100u))
        ->capture_default_str();
    app.add_flag("--json", json, "one JSON object per measurement, one per line");
    CLI11_PARSE(app, argc, argv);

    std::vector<rt::policy> pols;
    try {
        pols = canopy::bench::parallel_policies(policies);
        for (const auto& t : trees) {
            if (!uts::find_sample_tree(t)) {
                throw canopy::error("unknown tree '" + t + "' (see canopy uts --list)");
            }
        }
        (void)canopy::emu::preset(device);
    } catch (const canopy::error& e) {
        std::fprintf(stderr, "canopy_bench_uts: %s\n", e.what());
        return 2;
    }

    canopy::emu::scoped_options so(canopy::bench::parallel_options(device, threads));
    if (!json) {
        canopy::bench::print_parallel_banner("canopy_bench_uts", device, threads, repeat);
        std::printf("%-6s %-16s %12s %10s %14s %10s\n", "tree", "run", "nodes", "seconds", "nodes/s",
                    "vs ref");
    }
    for (const auto& name : trees) {
        const uts::params p = uts::sample_params(name);
        uts::counts ref;
        double ref_s = 1e300;
        for (unsigned i = 0; i < repeat; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            ref = uts::traverse_sequential(p);
            ref_s = std::min(ref_s, seconds_since(t0));
        }
        const double ref_rate = static_cast<double>(ref.nodes) / ref_s;
        const auto emit = [&](const char* run, double s, double ratio) {
            const double rate = static_cast<double>(ref.nodes) / s;
            if (json) {
                nlohmann::json j{{"tree", name},
                                 {"run", run},
                                 {"nodes", ref.nodes},
                                 {"seconds", s},
                                 {"nodes_per_second", rate},
                                 {"ratio_to_reference", ratio},
                                 {"device", device},
                                 {"build", canopy::bench::build_kind()}};
                std::printf("%s\n", j.dump().c_str());
            } else {
                std::printf("%-6s %-16s %12llu %10.3f %14.0f %9.3fx\n", name.c_str(), run,
                            static_cast<unsigned long long>(ref.nodes), s, rate, ratio);
            }
            std::fflush(stdout);
        };
        emit("reference", ref_s, 1.0);
        for (rt::policy pol : pols) {
            double best = 1e300;
            for (unsigned i = 0; i < repeat; ++i) {
                const uts::runtime_result r = uts::compiled::traverse_runtime(p, uts::default_config(pol));
                if (!(r.c == ref)) {
                    std::printf("FAIL: %s under %s: counts differ from the sequential reference\n",
                                name.c_str(), rt::to_string(pol));
                    return 1;
                }
                best = std::min(best, r.stats.seconds);
            }
            emit(rt::to_string(pol), best, (static_cast<double>(ref.nodes) / best) / ref_rate);
        }
    }
    return 0;
}
