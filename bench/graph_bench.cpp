// bench/graph_bench.cpp — canopy_bench_graph: BFS and SSSP TEPS of each strategy (and each runtime
// policy for tasks) on the emulator, against the sequential reference (reference_bfs / reference_sssp)
// timed in the same run, as ratios (issue 11's bench).
//
// Graphs: Debian's mdual.graph (skipped, saying so, when libmetis-doc is absent) and a Graph500
// Kronecker graph (SCALE 16 by default); the source is the vertex of largest degree. Every run's labels
// are compared with the reference's (a difference: exit 1). TEPS is Graph500's: the undirected edges of
// the traversed component per second (both graphs are undirected). The emulator runs every work-item
// as a fiber on a few cores: the ratios say what the emulated strategies cost against plain sequential
// C++ here, not how fast a GPU is. --quick: a SCALE-10 graph, one run each (a smoke test).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "canopy/emulator/options.hpp"
#include "canopy/emulator/virtual_device.hpp"
#include "canopy/workloads/graph/compiled_runs.hpp"
#include "canopy/workloads/graph/generate.hpp"
#include "canopy/workloads/graph/load.hpp"
#include "canopy/workloads/graph/reference.hpp"
#include "canopy/workloads/graph/strategies.hpp"
#include "canopy/workloads/graph/weights.hpp"

#include "parallel_run.hpp"

namespace {

namespace g = canopy::workloads::graph;
namespace rt = canopy::runtime;

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct named_graph {
    std::string name;
    g::csr_graph graph;
};

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"canopy_bench_graph: BFS/SSSP TEPS of each strategy on the emulator (parallel scheduler) "
                 "against the sequential reference, as ratios measured in the same run"};
    unsigned scale = 16, threads = 0, repeat = 3;
    std::string device = "tiny";
    std::vector<std::string> policies{"hrf-direct", "hrf-indirect", "steal-emulated"};
    bool quick = false, json = false;
    app.add_option("--scale", scale, "Kronecker SCALE")->check(CLI::Range(1u, 24u))->capture_default_str();
    app.add_option("--device", device, "virtual device preset")->capture_default_str();
    app.add_option("--threads", threads, "OS threads of the parallel scheduler (0: all cores)")
        ->capture_default_str();
    app.add_option("--repeat", repeat, "runs per measurement; the best is kept")
        ->check(CLI::Range(1u, 100u))
        ->capture_default_str();
    app.add_option("--policy", policies,
                   "runtime policies for the tasks strategy (not steal-rsp: it needs "
                   "the scoped-cache model)")
        ->capture_default_str();
    app.add_flag("--quick", quick, "smoke test: Kronecker SCALE 10 only, one run each");
    app.add_flag("--json", json, "one JSON object per measurement, one per line");
    CLI11_PARSE(app, argc, argv);

    std::vector<rt::policy> pols;
    try {
        pols = canopy::bench::parallel_policies(policies);
        (void)canopy::emu::preset(device);
    } catch (const canopy::error& e) {
        std::fprintf(stderr, "canopy_bench_graph: %s\n", e.what());
        return 2;
    }
    if (quick) {
        scale = 10;
        repeat = 1;
    }

    std::vector<named_graph> graphs;
    const std::filesystem::path mdual = "/usr/share/doc/libmetis-dev/examples/graphs/mdual.graph";
    if (!quick) {
        if (std::filesystem::exists(mdual)) {
            graphs.push_back({"mdual", g::load_graph(mdual).graph});
        } else {
            std::fprintf(stderr, "canopy_bench_graph: %s is absent (tools/deps.sh installs libmetis-doc)\n",
                         mdual.c_str());
        }
    }
    {
        g::kronecker_params p;
        p.scale = scale;
        graphs.push_back({"kronecker" + std::to_string(scale), g::make_kronecker(p).graph});
    }

    canopy::emu::scoped_options so(canopy::bench::parallel_options(device, threads));
    if (!json) {
        canopy::bench::print_parallel_banner("canopy_bench_graph", device, threads, repeat);
        std::printf("%-12s %-5s %-28s %10s %12s %9s %10s\n", "graph", "algo", "run", "seconds", "TEPS",
                    "vs ref", "tasks");
    }
    for (const auto& entry : graphs) {
        // Not a structured binding: clang 14 cannot capture one in the lambdas below (C++20 allows it).
        const auto& name = entry.name;
        const auto& unweighted = entry.graph;
        const g::csr_graph weighted =
            unweighted.has_weights() ? unweighted : g::with_hash_weights(unweighted);
        const g::vertex_id source = unweighted.max_degree_vertex();
        for (const char* algo : {"bfs", "sssp"}) {
            const bool sssp = std::string(algo) == "sssp";
            const g::csr_graph& gr = sssp ? weighted : unweighted;
            // Reference, best of repeat.
            double ref_s = 1e300;
            std::vector<std::uint32_t> ref_levels;
            std::vector<g::distance_t> ref_dist;
            std::uint64_t arcs = 0;
            for (unsigned i = 0; i < repeat; ++i) {
                const auto t0 = std::chrono::steady_clock::now();
                if (sssp) {
                    auto r = g::reference_sssp(gr, source);
                    ref_s = std::min(ref_s, seconds_since(t0));
                    arcs = r.traversed_arcs;
                    ref_dist = std::move(r.distance);
                } else {
                    auto r = g::reference_bfs(gr, source);
                    ref_s = std::min(ref_s, seconds_since(t0));
                    arcs = r.traversed_arcs;
                    ref_levels = std::move(r.level);
                }
            }
            const double edges = static_cast<double>(arcs) / 2; // undirected: each edge once
            const double ref_teps = edges / ref_s;
            const auto emit = [&](const std::string& run, double s, std::uint64_t tasks) {
                const double teps = edges / s;
                if (json) {
                    nlohmann::json j{
                        {"graph", name},  {"algorithm", algo}, {"run", run},
                        {"seconds", s},   {"teps", teps},      {"ratio_to_reference", teps / ref_teps},
                        {"tasks", tasks}, {"device", device},  {"build", canopy::bench::build_kind()}};
                    std::printf("%s\n", j.dump().c_str());
                } else {
                    std::printf("%-12s %-5s %-28s %10.4f %12.4g %8.3fx %10llu\n", name.c_str(), algo,
                                run.c_str(), s, teps, teps / ref_teps,
                                static_cast<unsigned long long>(tasks));
                }
                std::fflush(stdout);
            };
            emit("reference (sequential)", ref_s, 0);
            const g::device_graph dg(gr);
            std::vector<std::pair<std::string, g::run_options>> runs;
            for (g::strategy s : {g::strategy::multi_kernel, g::strategy::persistent}) {
                g::run_options ro;
                ro.how = s;
                runs.emplace_back(g::to_string(s), ro);
            }
            for (rt::policy p : pols) {
                g::run_options ro;
                ro.how = g::strategy::tasks;
                ro.tasks = g::run_options::default_tasks_config(p, gr.num_vertices());
                runs.emplace_back(std::string("tasks ") + rt::to_string(p), ro);
            }
            for (const auto& [run, ro] : runs) {
                double best = 1e300;
                std::uint64_t tasks = 0;
                for (unsigned i = 0; i < repeat; ++i) {
                    bool same = false;
                    double s = 0;
                    if (sssp) {
                        const auto r = g::compiled::sssp(dg.view(), source, ro);
                        same = r.labels == ref_dist;
                        s = r.seconds;
                        tasks = r.tasks;
                    } else {
                        const auto r = g::compiled::bfs(dg.view(), source, ro);
                        same = r.labels == ref_levels;
                        s = r.seconds;
                        tasks = r.tasks;
                    }
                    if (!same) {
                        std::printf("FAIL: %s %s %s: labels differ from the sequential reference\n",
                                    name.c_str(), algo, run.c_str());
                        return 1;
                    }
                    best = std::min(best, s);
                }
                emit(run, best, tasks);
            }
        }
    }
    return 0;
}
