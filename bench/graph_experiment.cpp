// bench/graph_experiment.cpp — canopy_bench_graph_experiment: the graph experiments of issue 14 on the
// timed scoped-cache model (docs/graph-experiment.md).
//
//   (a) multi-kernel vs persistent + XF barrier per algorithm and graph: the analogue of Sorensen et al.
//       (OOPSLA 2016) Table 4, with a sweep of the per-launch cost showing where the crossover lies;
//   (b) the runtime's policies on graph tasks: steal-rsp vs steal-emulated vs hrf-indirect vs hrf-direct,
//       set against Orr et al.'s +17% (RSP + stealing over scopes alone) and +6% (over stealing alone);
//   (c) tasks vs persistent vs multi-kernel on high-diameter meshes and a low-diameter Kronecker graph,
//       set against Atos' 3.44x over level-synchronous BFS, with the tasks run per vertex reached.
//
// Every run is on the deterministic scheduler in simulated-time order (emu::options::timed) with the
// scoped-cache model, on hrf8 (the HRF paper's 8-CU GPU) and hrf32 (the same CU, 32 of them). A run's
// modelled duration is the sum of its launches' makespans (emu::launch_totals) plus launches x the
// per-launch cost (cost_table::launch: kernel launch + reading back the stop flag), and the two parts
// are kept apart in the JSON so that the sum can be redone with any per-launch figure. Every answer is
// checked against a sequential oracle before any number is kept (a wrong answer: exit 1).
//
// Runs are independent processes (fork): the emulator's options are process-wide, and two cores halve
// the wall time. Writes graph_experiment.md and graph_experiment.json into --out, then runs
// bench/plot_graph_experiment.py for graph_experiment.png (--no-plot skips it).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/options.hpp"
#include "canopy/emulator/trace.hpp"
#include "canopy/emulator/virtual_device.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/graph/coloring.hpp"
#include "canopy/workloads/graph/coloring_order.hpp"
#include "canopy/workloads/graph/coloring_reference.hpp"
#include "canopy/workloads/graph/compiled_runs.hpp"
#include "canopy/workloads/graph/generate.hpp"
#include "canopy/workloads/graph/load.hpp"
#include "canopy/workloads/graph/pagerank.hpp"
#include "canopy/workloads/graph/pagerank_fixed.hpp"
#include "canopy/workloads/graph/pagerank_reference.hpp"
#include "canopy/workloads/graph/reference.hpp"
#include "canopy/workloads/graph/strategies.hpp"
#include "canopy/workloads/graph/validate.hpp"
#include "canopy/workloads/graph/weights.hpp"
#include "plot_paths.hpp"
#include "table_format.hpp"

namespace {

namespace g = canopy::workloads::graph;
namespace rt = canopy::runtime;
namespace emu = canopy::emu;
using u64 = std::uint64_t;
using json = nlohmann::json;

// ---- what is run ----

enum class algo { bfs, sssp, pagerank, color };
constexpr algo all_algos[] = {algo::bfs, algo::sssp, algo::pagerank, algo::color};
const char* to_string(algo a) {
    return a == algo::bfs ? "bfs" : a == algo::sssp ? "sssp" : a == algo::pagerank ? "pagerank" : "color";
}

struct device_spec {
    std::string name;
    unsigned cus = 8;
};

/// The HRF paper's CU (4 SIMDs, wave64) x `cus`, holding as many work-groups of `block` as keep one
/// wave64 per SIMD: the timed scheduler gives every sub-group its own clock, i.e. its own issue slot,
/// which is right only while a CU holds no more waves than it has SIMDs (bench/uts_hrf_experiment.cpp).
emu::virtual_device make_device(const device_spec& d, unsigned block) {
    emu::virtual_device v = emu::preset("hrf8");
    v.compute_units = d.cus;
    v.blocks_per_cu = std::max(1u, 4u / (block / 64u));
    if (d.cus != 8) {
        v.name = d.name;
        v.description = "hrf8's CU (4 SIMDs, wave64) x " + std::to_string(d.cus);
    }
    return v;
}

struct input_graph {
    std::string name;
    std::string description;
    g::csr_graph graph;    // as loaded (BFS, PageRank, colouring)
    g::csr_graph weighted; // with the project's hash weights where the input has none (SSSP)
    g::vertex_id source = 0;
    u64 bfs_depth = 0, reached = 0;
    // Oracles, computed once in the parent (children inherit them).
    std::vector<std::uint32_t> levels;
    std::vector<g::distance_t> distances;
    std::vector<double> ranks;       // double-precision PageRank (tolerance 1e-12)
    std::vector<double> ranks_fixed; // the frontier strategies' fixed-point answer, exactly
    u64 ranks_fixed_iterations = 0;
    double power_bound = 0; // the power iteration's L1 bound to `ranks` (pagerank_reference.hpp)
    // PageRank's tolerances on this graph: from the error target (equal accuracy), or the flags.
    double pr_frontier_tolerance = 0, pr_tasks_tolerance = 0;
    std::vector<std::uint32_t> jones_plassmann; // the frontier strategies' colouring, exactly
    std::vector<std::uint32_t> greedy;          // the tasks strategy's colouring, exactly
};

struct run_spec {
    std::size_t device = 0, graph = 0;
    algo a = algo::bfs;
    g::strategy how = g::strategy::multi_kernel;
    rt::policy pol = rt::policy::hrf_indirect; // tasks only
    unsigned block = 64;
    u64 seed = 1;
};

struct run_out {
    bool ok = false;
    std::string error;
    u64 kernel_cycles = 0; // sum of the launches' makespans
    u64 emu_launches = 0;  // launches the emulator ran
    u64 launches = 0, iterations = 0, barriers = 0, tasks = 0, reached = 0;
    u64 flushes_own = 0, flushes_remote = 0, inv_own = 0, inv_remote = 0, busiest_cu = 0;
    u64 donations = 0, steals = 0, steal_requests = 0;
    double quality = 0; // pagerank: L1 distance to the oracle; color: colours used
    double wall = 0;
};

json to_json(const run_out& r) {
    return json{{"ok", r.ok},
                {"error", r.error},
                {"kernel_cycles", r.kernel_cycles},
                {"emu_launches", r.emu_launches},
                {"launches", r.launches},
                {"iterations", r.iterations},
                {"barriers", r.barriers},
                {"tasks", r.tasks},
                {"reached", r.reached},
                {"flushes_own", r.flushes_own},
                {"flushes_remote", r.flushes_remote},
                {"invalidations_own", r.inv_own},
                {"invalidations_remote", r.inv_remote},
                {"busiest_cu_cycles", r.busiest_cu},
                {"donations", r.donations},
                {"steals", r.steals},
                {"steal_requests", r.steal_requests},
                {"quality", r.quality},
                {"wall_seconds", r.wall}};
}

run_out from_json(const json& j) {
    run_out r;
    r.ok = j.at("ok");
    r.error = j.at("error");
    r.kernel_cycles = j.at("kernel_cycles");
    r.emu_launches = j.at("emu_launches");
    r.launches = j.at("launches");
    r.iterations = j.at("iterations");
    r.barriers = j.at("barriers");
    r.tasks = j.at("tasks");
    r.reached = j.at("reached");
    r.flushes_own = j.at("flushes_own");
    r.flushes_remote = j.at("flushes_remote");
    r.inv_own = j.at("invalidations_own");
    r.inv_remote = j.at("invalidations_remote");
    r.busiest_cu = j.at("busiest_cu_cycles");
    r.donations = j.at("donations");
    r.steals = j.at("steals");
    r.steal_requests = j.at("steal_requests");
    r.quality = j.at("quality");
    r.wall = j.at("wall_seconds");
    return r;
}

struct settings {
    std::vector<device_spec> devices;
    std::vector<input_graph> graphs;
    std::vector<algo> algos;
    unsigned seeds = 2;
    unsigned other_device_seeds = 1; // seeds on every device but the first (its runs cost the most)
    u64 seed = 1;
    unsigned frontier_block = 64, tasks_block = 256;
    // The tasks strategy runs on every graph and device by default since the ring core (one launch,
    // ~30 s of emulation for mdual's BFS on hrf32); these limits remain for quick looks.
    u64 tasks_max_vertices = ~u64{0};
    // Part (b) runs the tasks strategy under all four policies only on graphs this small; larger ones
    // run it under hrf-indirect (the CLI's default policy, what part (c) reports) alone. Four policies
    // on mdual would be four 15-minute PageRank runs per seed and device: the default run would take
    // two hours instead of under one.
    u64 policies_max_vertices = 10000;
    bool tasks_every_device = true; // else the tasks strategy runs on the first device only
    double pagerank_tasks_tolerance = 1e-2;
    // The L1 error every strategy guarantees (pagerank_stopping_for_error); 0: the tolerances decide.
    double pagerank_error = g::pagerank_default_error;
    u64 launch_cycles = emu::cost_table{}.launch;
    g::pagerank_options pagerank;
    std::string trace_dir; // --trace-dir: one timeline per run (empty: none)
};

/// --trace-dir: the run's timeline file, named by what the run is.
std::string trace_file(const settings& s, const run_spec& sp) {
    std::string name = s.devices[sp.device].name + "-" + s.graphs[sp.graph].name + "-" + to_string(sp.a) +
                       "-" + g::to_string(sp.how);
    if (sp.how == g::strategy::tasks) {
        name += std::string("-") + rt::to_string(sp.pol);
    }
    return s.trace_dir + "/" + name + "-seed" + std::to_string(sp.seed) + ".json";
}

template <class R> void fill_counts(run_out& o, const R& r) {
    o.launches = r.launches;
    o.iterations = r.iterations;
    o.barriers = r.barriers;
    o.tasks = r.tasks;
    o.donations = r.donations; // tasks only (zero for the frontier strategies)
    o.steals = r.steals;
    o.steal_requests = r.steal_requests;
}

/// One run, in a child process: the answer is checked against the oracle before its numbers count.
run_out run_one(const settings& s, const run_spec& sp) {
    const input_graph& in = s.graphs[sp.graph];
    emu::options eo;
    eo.device = make_device(s.devices[sp.device], sp.block);
    eo.scheduler = emu::scheduler_kind::deterministic;
    eo.memory_model = emu::memory_model_kind::scoped;
    eo.timed = true;
    eo.seed = sp.seed;
    eo.costs.launch = s.launch_cycles;
    emu::scoped_options so(eo);
    emu::reset_launch_totals();
    if (!s.trace_dir.empty()) {
        emu::trace_open(trace_file(s, sp)); // written when the run has finished (below)
    }

    g::run_options o;
    o.how = sp.how;
    o.block = sp.block;
    o.tasks = g::run_options::default_tasks_config(sp.pol, in.graph.num_vertices());
    run_out out;
    const auto t0 = std::chrono::steady_clock::now();
    const g::vertex_id n = in.graph.num_vertices();
    // BFS and SSSP: one run, its counts, and its labels against the sequential reference's.
    const auto labelled = [&](const g::csr_graph& graph, auto run, auto compare) {
        const g::device_graph dg(graph);
        const auto r = run(dg.view());
        fill_counts(out, r);
        const auto cmp = compare(r.labels);
        out.ok = cmp.ok();
        out.error = cmp.ok() ? "" : cmp.summary();
        out.reached = in.reached;
    };
    switch (sp.a) {
    case algo::bfs:
        labelled(
            in.graph, [&](const g::csr_view& v) { return g::compiled::bfs(v, in.source, o); },
            [&](const auto& labels) { return g::compare_levels(in.levels, labels); });
        break;
    case algo::sssp:
        labelled(
            in.weighted, [&](const g::csr_view& v) { return g::compiled::sssp(v, in.source, o); },
            [&](const auto& labels) { return g::compare_distances(in.distances, labels); });
        break;
    case algo::pagerank: {
        const g::device_graph dg(in.graph);
        g::pagerank_options po = s.pagerank;
        const bool tasks = sp.how == g::strategy::tasks;
        po.tolerance = tasks ? in.pr_tasks_tolerance : in.pr_frontier_tolerance;
        po.error = tasks ? s.pagerank_error : 0; // the tasks stop by their measured guarantee
        // As the CLI's default (--pagerank-tasks auto): block pull under an error target, push else.
        g::run_options po_run = o;
        po_run.pagerank_pull = tasks && po.error > 0;
        const auto r = g::compiled::pagerank(dg.view(), po, po_run);
        fill_counts(out, r);
        out.quality = g::l1_distance(in.ranks, r.labels);
        if (tasks) {
            const double bound = r.guarantee >= 0
                                     ? r.guarantee + g::pagerank_oracle_error(po.damping)
                                     : g::pagerank_tasks_bound(in.graph, po.damping, po.tolerance,
                                                               static_cast<double>(r.tasks));
            out.ok = out.quality <= bound;
            out.error = out.ok ? ""
                               : "L1 distance " + std::to_string(out.quality) +
                                     " to the oracle exceeds the bound " + std::to_string(bound);
        } else {
            out.ok = r.labels == in.ranks_fixed && r.iterations == in.ranks_fixed_iterations &&
                     out.quality <= in.power_bound;
            out.error = out.ok ? "" : "differs from the sequential fixed-point oracle (or exceeds its bound)";
        }
        out.reached = n;
        break;
    }
    case algo::color: {
        const g::device_graph dg(in.graph);
        const auto r = g::compiled::color(dg.view(), o);
        fill_counts(out, r);
        const g::coloring_report rep = g::validate_coloring(in.graph, r.labels);
        const bool same = r.labels == (sp.how == g::strategy::tasks ? in.greedy : in.jones_plassmann);
        out.ok = rep.ok && same;
        out.error = !rep.ok ? "not a proper colouring: " + rep.message
                    : same  ? ""
                            : "proper, but differs from the sequential colouring of the same order";
        out.quality = static_cast<double>(rep.colors);
        out.reached = n;
        break;
    }
    }
    out.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const emu::launch_totals_t& lt = emu::launch_totals();
    out.kernel_cycles = lt.cycles_makespan;
    out.emu_launches = lt.launches;
    out.flushes_own = lt.memory.flushes_own;
    out.flushes_remote = lt.memory.flushes_remote;
    out.inv_own = lt.memory.invalidations_own;
    out.inv_remote = lt.memory.invalidations_remote;
    out.busiest_cu = lt.memory.cycles_max_cu;
    if (!s.trace_dir.empty()) {
        const emu::trace_summary t = emu::trace_close();
        if (!t.note.empty()) {
            std::fprintf(stderr, "%s: %s\n", t.path.c_str(), t.note.c_str());
        }
    }
    return out;
}

// ---- the process pool ----

/// Runs every spec in a child process, at most `jobs` at once; results in spec order. A child that
/// dies (a signal, an exception) becomes a failed run_out naming the spec.
std::vector<run_out> run_all(const settings& s, const std::vector<run_spec>& specs, unsigned jobs,
                             const std::function<std::string(const run_spec&)>& label) {
    std::vector<run_out> results(specs.size());
    struct child {
        std::size_t index;
        int fd;
    };
    std::map<pid_t, child> running;
    std::size_t next = 0, done = 0;
    const auto t0 = std::chrono::steady_clock::now();
    auto reap_one = [&] {
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, 0);
        if (pid <= 0) {
            std::perror("waitpid");
            std::exit(1);
        }
        const auto it = running.find(pid);
        if (it == running.end()) {
            return;
        }
        const child c = it->second;
        running.erase(it);
        std::string text;
        char buf[4096];
        for (ssize_t k; (k = ::read(c.fd, buf, sizeof buf)) > 0;) {
            text.append(buf, static_cast<std::size_t>(k));
        }
        ::close(c.fd);
        run_out r;
        try {
            r = from_json(json::parse(text));
        } catch (const std::exception&) {
            r.ok = false;
            r.error = WIFSIGNALED(status) ? "the run died of signal " + std::to_string(WTERMSIG(status))
                                          : "the run exited with status " +
                                                std::to_string(WEXITSTATUS(status)) + " and no result";
        }
        results[c.index] = r;
        ++done;
        const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "[%zu/%zu %5.0f s] %-48s %s %14llu cycles + %llu launches  (%.1f s)\n", done,
                     specs.size(), el, label(specs[c.index]).c_str(), r.ok ? "ok  " : "FAIL",
                     static_cast<unsigned long long>(r.kernel_cycles),
                     static_cast<unsigned long long>(r.emu_launches), r.wall);
        if (!r.ok) {
            std::fprintf(stderr, "    %s\n", r.error.c_str());
        }
    };
    std::fflush(stdout);
    std::fflush(stderr);
    while (done < specs.size()) {
        while (running.size() < jobs && next < specs.size()) {
            int fds[2];
            if (::pipe(fds) != 0) {
                std::perror("pipe");
                std::exit(1);
            }
            const pid_t pid = ::fork();
            if (pid < 0) {
                std::perror("fork");
                std::exit(1);
            }
            if (pid == 0) {
                ::close(fds[0]);
                run_out r;
                try {
                    r = run_one(s, specs[next]);
                } catch (const std::exception& e) {
                    r.ok = false;
                    r.error = e.what();
                }
                const std::string text = to_json(r).dump();
                std::size_t off = 0;
                while (off < text.size()) {
                    const ssize_t k = ::write(fds[1], text.data() + off, text.size() - off);
                    if (k <= 0) {
                        break;
                    }
                    off += static_cast<std::size_t>(k);
                }
                ::close(fds[1]);
                std::fflush(stdout);
                ::_exit(0);
            }
            ::close(fds[1]);
            running.emplace(pid, child{next, fds[0]});
            ++next;
        }
        reap_one();
    }
    return results;
}

// ---- formatting ----

using canopy::bench::fmt_f;
using canopy::bench::fmt_u;
using canopy::bench::geomean;

/// A (device, graph, algorithm, strategy, policy) cell over seeds: means of the counts.
struct cell {
    std::vector<const run_out*> runs;
    double kernel_cycles() const {
        return mean([](const run_out& r) { return double(r.kernel_cycles); });
    }
    double launches() const {
        return mean([](const run_out& r) { return double(r.emu_launches); });
    }
    double cycles(u64 per_launch) const { return kernel_cycles() + launches() * double(per_launch); }
    template <class F> double mean(F f) const {
        double s = 0;
        for (const run_out* r : runs) {
            s += f(*r);
        }
        return runs.empty() ? 0 : s / double(runs.size());
    }
    /// min and max over seeds of num(run) / this(run), seed by seed.
    std::pair<double, double> ratio_range(const cell& num, u64 per_launch) const {
        double lo = 1e300, hi = 0;
        for (std::size_t i = 0; i < runs.size() && i < num.runs.size(); ++i) {
            const double a =
                double(num.runs[i]->kernel_cycles) + double(num.runs[i]->emu_launches * per_launch);
            const double b = double(runs[i]->kernel_cycles) + double(runs[i]->emu_launches * per_launch);
            lo = std::min(lo, a / b);
            hi = std::max(hi, a / b);
        }
        return {lo, hi};
    }
};

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"canopy_bench_graph_experiment: multi-kernel vs persistent (Sorensen Table 4), policies on "
                 "graph tasks (Orr et al.), tasks vs level-synchronous (Atos), on the timed scoped-cache "
                 "model (docs/graph-experiment.md)"};
    bool quick = false, no_plot = false;
    std::string out_dir = "graph-experiment";
    std::string graphs_opt = "4elt,copter2,mdual,kron12";
    std::string devices_opt = "hrf8,hrf32";
    std::string algos_opt = "bfs,sssp,pagerank,color";
    unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
    settings s;
    std::string metis_dir = "/usr/share/doc/libmetis-dev/examples/graphs";
    app.add_flag("--quick", quick,
                 "a smoke run: a 16x16 grid and Kronecker SCALE 7, one seed, both devices (~1 minute)");
    app.add_option("--out", out_dir, "directory for graph_experiment.{md,json,png}")->capture_default_str();
    app.add_option("--graphs", graphs_opt,
                   "comma-separated: 4elt, copter2, mdual (Debian's libmetis-doc meshes), kronN (Graph500 "
                   "Kronecker SCALE N, edge factor 16), gridRxC")
        ->capture_default_str();
    app.add_option("--devices", devices_opt, "comma-separated: hrf8 (8 CUs), hrf32 (32 CUs)")
        ->capture_default_str();
    app.add_option("--algorithms", algos_opt, "comma-separated: bfs, sssp, pagerank, color")
        ->capture_default_str();
    app.add_option("--seed", s.seed, "the first seed of the deterministic scheduler")->capture_default_str();
    app.add_option("--seeds", s.seeds, "seeds per cell: seed, seed+1, ... (--quick: 1)")
        ->check(CLI::Range(1u, 100u))
        ->capture_default_str();
    app.add_option("--launch-cycles", s.launch_cycles,
                   "cycles one kernel launch + stop-flag read-back costs (cost_table::launch; the sweep "
                   "covers 0 to 4x this)")
        ->capture_default_str();
    app.add_option("--jobs", jobs, "runs at once (processes)")
        ->check(CLI::Range(1u, 256u))
        ->capture_default_str();
    app.add_option("--metis-dir", metis_dir, "where 4elt.graph, copter2.graph and mdual.graph are")
        ->capture_default_str();
    s.pagerank.tolerance = 1e-4;
    s.pagerank.iterations = 1000;
    app.add_option("--pagerank-tolerance", s.pagerank.tolerance,
                   "the frontier strategies' PageRank tolerance: they iterate until an iteration changes the "
                   "ranks by at most this (L1)")
        ->check(CLI::Range(1e-9, 1.0))
        ->capture_default_str();
    app.add_option("--tasks-max-vertices", s.tasks_max_vertices,
                   "run the tasks strategy (parts b and c) only on graphs of at most this many vertices "
                   "(default: every graph)");
    app.add_option("--policies-max-vertices", s.policies_max_vertices,
                   "part (b): run the tasks strategy under every policy only on graphs of at most this many "
                   "vertices; larger graphs run it under hrf-indirect only (part c)")
        ->capture_default_str();
    app.add_option("--other-device-seeds", s.other_device_seeds,
                   "seeds on the devices after the first (at most --seeds): the frontier strategies' timed "
                   "makespans vary by a few percent between seeds, and hrf32's mdual runs cost the most")
        ->check(CLI::Range(1u, 100u))
        ->capture_default_str();
    bool tasks_first_device = false;
    app.add_flag("--tasks-first-device-only", tasks_first_device,
                 "run the tasks strategy on the first device only (default: every device)");
    app.add_option("--pagerank-error", s.pagerank_error,
                   "PageRank's stopping rule: the L1 error against the converged ranks every strategy "
                   "guarantees (0: --pagerank-tolerance and --pagerank-tasks-tolerance decide)")
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str();
    app.add_option("--pagerank-tasks-tolerance", s.pagerank_tasks_tolerance,
                   "the tasks strategy's PageRank tolerance (residuals above tolerance / V are pushed)")
        ->check(CLI::Range(1e-9, 1.0))
        ->capture_default_str();
    app.add_flag("--no-plot", no_plot, "write the table and JSON only");
    app.add_option("--trace-dir", s.trace_dir,
                   "write each run's timeline (Chrome trace-event JSON, simulated cycles; docs/emulator.md "
                   "'Timeline') into this existing directory, one file per run")
        ->check(CLI::ExistingDirectory);
    CLI11_PARSE(app, argc, argv);
    s.tasks_every_device = !tasks_first_device;
    if (quick) {
        if (app.count("--graphs") == 0) {
            graphs_opt = "grid16x16,kron7";
        }
        if (app.count("--seeds") == 0) {
            s.seeds = 1;
        }
    }
    auto split = [](const std::string& t) {
        std::vector<std::string> v;
        std::stringstream ss(t);
        for (std::string x; std::getline(ss, x, ',');) {
            if (!x.empty()) {
                v.push_back(x);
            }
        }
        return v;
    };
    for (const auto& d : split(devices_opt)) {
        if (d == "hrf8") {
            s.devices.push_back({"hrf8", 8});
        } else if (d == "hrf32") {
            s.devices.push_back({"hrf32", 32});
        } else {
            std::fprintf(
                stderr,
                "canopy_bench_graph_experiment: --devices: unknown device '%s' (valid: hrf8, hrf32)\n",
                d.c_str());
            return 2;
        }
    }
    for (const auto& a : split(algos_opt)) {
        bool found = false;
        for (algo x : all_algos) {
            if (a == to_string(x)) {
                s.algos.push_back(x);
                found = true;
            }
        }
        if (!found) {
            std::fprintf(stderr,
                         "canopy_bench_graph_experiment: --algorithms: unknown algorithm '%s' (valid: bfs, "
                         "sssp, pagerank, color)\n",
                         a.c_str());
            return 2;
        }
    }
    if (s.devices.empty() || s.algos.empty()) {
        std::fprintf(stderr,
                     "canopy_bench_graph_experiment: --devices and --algorithms need at least one entry\n");
        return 2;
    }

    // ---- the graphs and their oracles ----
    const auto t_start = std::chrono::steady_clock::now();
    for (const auto& name : split(graphs_opt)) {
        input_graph in;
        in.name = name;
        unsigned scale = 0, rows = 0, cols = 0;
        char extra = 0;
        if (name == "4elt" || name == "copter2" || name == "mdual") {
            const std::filesystem::path p = std::filesystem::path(metis_dir) / (name + ".graph");
            if (!std::filesystem::exists(p)) {
                std::fprintf(stderr,
                             "canopy_bench_graph_experiment: %s is missing: install Debian's libmetis-doc "
                             "(bash tools/deps.sh does), or pass --metis-dir, or leave %s out of --graphs\n",
                             p.string().c_str(), name.c_str());
                return 1;
            }
            try {
                in.graph = g::load_graph(p).graph;
            } catch (const std::exception& e) {
                std::fprintf(stderr, "%s\n", e.what());
                return 1;
            }
            in.description = name + ".graph (METIS mesh)";
        } else if (std::sscanf(name.c_str(), "kron%u%c", &scale, &extra) == 1 && scale >= 1 && scale <= 24) {
            g::kronecker_params kp;
            kp.scale = scale;
            in.graph = g::make_kronecker(kp).graph;
            in.description = "Graph500 Kronecker SCALE " + std::to_string(scale) + ", edge factor 16, seed 1";
        } else if (std::sscanf(name.c_str(), "grid%ux%u%c", &rows, &cols, &extra) == 2 && rows * cols > 1 &&
                   rows * cols <= (1u << 24)) {
            in.graph = g::make_grid(rows, cols).graph;
            in.description = std::to_string(rows) + "x" + std::to_string(cols) + " grid";
        } else {
            std::fprintf(stderr,
                         "canopy_bench_graph_experiment: --graphs: unknown graph '%s' (valid: 4elt, copter2, "
                         "mdual, kronN with N in 1..24, gridRxC)\n",
                         name.c_str());
            return 2;
        }
        in.weighted = in.graph.has_weights() ? in.graph : g::with_hash_weights(in.graph);
        in.source = in.graph.max_degree_vertex();
        const g::bfs_result b = g::reference_bfs(in.graph, in.source);
        in.levels = b.level;
        in.bfs_depth = b.depth;
        in.reached = b.reached;
        in.distances = g::reference_sssp(in.weighted, in.source).distance;
        for (algo a : s.algos) {
            if (a == algo::pagerank) {
                const g::pagerank_options& po = s.pagerank;
                in.pr_frontier_tolerance =
                    s.pagerank_error > 0
                        ? g::pagerank_stopping_for_error(in.graph, po.damping, s.pagerank_error, false)
                              .tolerance
                        : po.tolerance;
                in.pr_tasks_tolerance =
                    s.pagerank_error > 0
                        ? g::pagerank_stopping_for_error(in.graph, po.damping, s.pagerank_error, true)
                              .tolerance
                        : s.pagerank_tasks_tolerance;
                in.ranks = g::reference_pagerank(in.graph, po.damping);
                const auto fx = g::reference_pagerank_fixed(in.graph, po.damping, po.iterations,
                                                            in.pr_frontier_tolerance);
                in.ranks_fixed = g::ranks_to_double(fx.rank);
                in.ranks_fixed_iterations = fx.iterations;
                in.power_bound = g::pagerank_power_bound(in.graph, po.damping, fx.last_change);
            }
            if (a == algo::color) {
                in.jones_plassmann = g::reference_jones_plassmann(in.graph);
                in.greedy = g::reference_greedy_color(in.graph);
            }
        }
        std::printf("graph %-10s %-44s %9s vertices %10s arcs, source %u (max degree), BFS depth %llu\n",
                    in.name.c_str(), in.description.c_str(), fmt_u(in.graph.num_vertices()).c_str(),
                    fmt_u(in.graph.num_edges()).c_str(), in.source,
                    static_cast<unsigned long long>(in.bfs_depth));
        s.graphs.push_back(std::move(in));
    }
    std::printf("devices:");
    for (const auto& d : s.devices) {
        std::printf(" %s (%u CUs x 4 SIMDs, wave64)", d.name.c_str(), d.cus);
    }
    std::printf("; scoped-cache model, timed deterministic scheduler, seeds %llu..%llu, per-launch cost %s "
                "cycles; frontier strategies: work-groups of %u; tasks: work-groups of %u\n\n",
                static_cast<unsigned long long>(s.seed),
                static_cast<unsigned long long>(s.seed + s.seeds - 1), fmt_u(s.launch_cycles).c_str(),
                s.frontier_block, s.tasks_block);

    // ---- every run ----
    std::vector<run_spec> specs;
    for (std::size_t d = 0; d < s.devices.size(); ++d) {
        for (std::size_t gi = 0; gi < s.graphs.size(); ++gi) {
            for (algo a : s.algos) {
                const unsigned seeds = d == 0 ? s.seeds : std::min(s.seeds, s.other_device_seeds);
                for (unsigned sd = 0; sd < seeds; ++sd) {
                    for (g::strategy how : {g::strategy::multi_kernel, g::strategy::persistent}) {
                        specs.push_back(
                            {d, gi, a, how, rt::policy::hrf_indirect, s.frontier_block, s.seed + sd});
                    }
                    if (s.graphs[gi].graph.num_vertices() > s.tasks_max_vertices ||
                        (d != 0 && !s.tasks_every_device)) {
                        continue;
                    }
                    for (rt::policy p : {rt::policy::hrf_direct, rt::policy::hrf_indirect,
                                         rt::policy::steal_emulated, rt::policy::steal_rsp}) {
                        if (p == rt::policy::hrf_indirect ||
                            s.graphs[gi].graph.num_vertices() <= s.policies_max_vertices) {
                            specs.push_back({d, gi, a, g::strategy::tasks, p, s.tasks_block, s.seed + sd});
                        }
                    }
                }
            }
        }
    }
    // The costliest runs first, so that two jobs do not end on one long run alone: the tasks strategy's
    // PageRank by far (mdual: ~15 minutes), then by graph size. A stable sort keeps the rest in order.
    auto cost = [&](const run_spec& sp) {
        const u64 v = s.graphs[sp.graph].graph.num_vertices();
        return sp.how == g::strategy::tasks && sp.a == algo::pagerank ? v * 100 : v;
    };
    std::stable_sort(specs.begin(), specs.end(),
                     [&](const run_spec& x, const run_spec& y) { return cost(x) > cost(y); });
    auto label = [&](const run_spec& sp) {
        std::string l = s.devices[sp.device].name + " " + s.graphs[sp.graph].name + " " + to_string(sp.a) +
                        " " + g::to_string(sp.how);
        if (sp.how == g::strategy::tasks) {
            l += std::string(" ") + rt::to_string(sp.pol);
        }
        return l + " seed " + std::to_string(sp.seed);
    };
    const std::vector<run_out> results = run_all(s, specs, jobs, label);
    std::size_t failed = 0;
    for (std::size_t i = 0; i < results.size(); ++i) {
        if (!results[i].ok) {
            std::printf("FAIL: %s: %s\n", label(specs[i]).c_str(), results[i].error.c_str());
            ++failed;
        }
    }
    if (failed != 0) {
        std::printf("%zu of %zu runs failed their oracle: no numbers are reported\n", failed, results.size());
        return 1;
    }

    // ---- cells: (device, graph, algorithm, strategy/policy) over seeds ----
    // key: device, graph, algo, column (0 multi-kernel, 1 persistent, 2.. tasks under policy 0..3)
    constexpr rt::policy task_policies[] = {rt::policy::hrf_direct, rt::policy::hrf_indirect,
                                            rt::policy::steal_emulated, rt::policy::steal_rsp};
    std::map<std::tuple<std::size_t, std::size_t, int, int>, cell> cells;
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const run_spec& sp = specs[i];
        int col = sp.how == g::strategy::multi_kernel ? 0 : sp.how == g::strategy::persistent ? 1 : -1;
        if (col < 0) {
            for (int k = 0; k < 4; ++k) {
                if (task_policies[k] == sp.pol) {
                    col = 2 + k;
                }
            }
        }
        cells[{sp.device, sp.graph, static_cast<int>(sp.a), col}].runs.push_back(&results[i]);
    }
    auto at = [&](std::size_t d, std::size_t gi, algo a, int col) -> const cell& {
        return cells.at({d, gi, static_cast<int>(a), col});
    };
    auto has_tasks = [&](std::size_t d, std::size_t gi) {
        return s.graphs[gi].graph.num_vertices() <= s.tasks_max_vertices && (d == 0 || s.tasks_every_device);
    };
    auto has_policies = [&](std::size_t d, std::size_t gi) {
        return has_tasks(d, gi) && s.graphs[gi].graph.num_vertices() <= s.policies_max_vertices;
    };
    const u64 L = s.launch_cycles;
    const std::vector<u64> sweep = {0, L / 4, L / 2, L, 2 * L, 4 * L};

    json j;
    j["launch_cycles"] = L;
    j["launch_sweep"] = sweep;
    j["seeds"] = s.seeds;
    j["other_device_seeds"] = std::min(s.seeds, s.other_device_seeds);
    j["frontier_block"] = s.frontier_block;
    j["tasks_block"] = s.tasks_block;
    j["policies_max_vertices"] = s.policies_max_vertices;
    j["devices"] = json::array();
    for (const auto& d : s.devices) {
        j["devices"].push_back({{"name", d.name}, {"compute_units", d.cus}});
    }
    j["graphs"] = json::array();
    for (const auto& in : s.graphs) {
        j["graphs"].push_back({{"name", in.name},
                               {"description", in.description},
                               {"vertices", in.graph.num_vertices()},
                               {"arcs", in.graph.num_edges()},
                               {"source", in.source},
                               {"bfs_depth", in.bfs_depth}});
    }
    j["runs"] = json::array();
    for (std::size_t i = 0; i < specs.size(); ++i) {
        json r = to_json(results[i]);
        r["device"] = s.devices[specs[i].device].name;
        r["graph"] = s.graphs[specs[i].graph].name;
        r["algorithm"] = to_string(specs[i].a);
        r["strategy"] = g::to_string(specs[i].how);
        r["policy"] = specs[i].how == g::strategy::tasks ? json(rt::to_string(specs[i].pol)) : json(nullptr);
        r["block"] = specs[i].block;
        r["seed"] = specs[i].seed;
        j["runs"].push_back(r);
    }

    std::ostringstream md;
    md << "# Graph experiment (canopy_bench_graph_experiment)\n\n";
    md << "Timed scoped-cache model, deterministic scheduler in simulated-time order; seeds " << s.seed
       << ".." << s.seed + s.seeds - 1 << " on " << s.devices[0].name << ", "
       << std::min(s.seeds, s.other_device_seeds) << " on the others; per-launch cost L = " << fmt_u(L)
       << " cycles (kernel launch + stop-flag read-back, charged per launch on top of the launches' "
          "makespans); frontier strategies: work-groups of "
       << s.frontier_block << "; tasks: work-groups of " << s.tasks_block << ".\n\n";
    md << "| graph | vertices | arcs | source | BFS depth |\n|---|---:|---:|---:|---:|\n";
    for (const auto& in : s.graphs) {
        md << "| " << in.name << " (" << in.description << ") | " << fmt_u(in.graph.num_vertices()) << " | "
           << fmt_u(in.graph.num_edges()) << " | " << in.source << " | " << in.bfs_depth << " |\n";
    }

    // (a) multi-kernel vs persistent
    md << "\n## (a) Multi-kernel vs persistent + XF barrier (Sorensen et al. Table 4)\n\n";
    md << "Speedup = cycles(multi-kernel) / cycles(persistent), cycles = kernels' makespans + launches x L. "
          "Crossover: the L at which they are equal (persistent faster above it; '-' none: faster at every L "
          ">= 0, or never).\n\n";
    md << "| device | algorithm | graph | multi-kernel kernels (cycles) | launches | persistent kernel "
          "(cycles) "
          "| barriers | speedup at L=0 | speedup at L [min, max] | crossover L |\n";
    md << "|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
    j["a"] = json::array();
    for (std::size_t d = 0; d < s.devices.size(); ++d) {
        std::vector<double> at_l;
        for (algo a : s.algos) {
            for (std::size_t gi = 0; gi < s.graphs.size(); ++gi) {
                const cell& mk = at(d, gi, a, 0);
                const cell& pe = at(d, gi, a, 1);
                const double nm = mk.launches(), np = pe.launches();
                const double km = mk.kernel_cycles(), kp = pe.kernel_cycles();
                std::string cross = "-";
                json jc = nullptr;
                if (nm > np && kp > km) {
                    const double x = (kp - km) / (nm - np);
                    cross = fmt_u(static_cast<u64>(x));
                    jc = x;
                }
                const auto [lo, hi] = pe.ratio_range(mk, L);
                at_l.push_back(mk.cycles(L) / pe.cycles(L));
                md << "| " << s.devices[d].name << " | " << to_string(a) << " | " << s.graphs[gi].name
                   << " | " << fmt_u(static_cast<u64>(km)) << " | " << fmt_f(nm, 0) << " | "
                   << fmt_u(static_cast<u64>(kp)) << " | "
                   << fmt_f(pe.mean([](const run_out& r) { return double(r.barriers); }), 0) << " | "
                   << fmt_f(km / kp, 3) << " | " << fmt_f(mk.cycles(L) / pe.cycles(L), 3) << " ["
                   << fmt_f(lo, 3) << ", " << fmt_f(hi, 3) << "] | " << cross << " |\n";
                json row = {{"device", s.devices[d].name}, {"algorithm", to_string(a)},
                            {"graph", s.graphs[gi].name},  {"multi_kernel_kernel_cycles", km},
                            {"multi_kernel_launches", nm}, {"persistent_kernel_cycles", kp},
                            {"persistent_launches", np},   {"speedup_min", lo},
                            {"speedup_max", hi},           {"crossover_launch_cycles", jc}};
                json sw = json::array();
                for (u64 l : sweep) {
                    sw.push_back(mk.cycles(l) / pe.cycles(l));
                }
                row["speedup_sweep"] = sw;
                j["a"].push_back(row);
            }
        }
        md << "\n"
           << s.devices[d].name << ": geometric mean of the speedup at L over every (algorithm, graph): "
           << fmt_f(geomean(at_l), 3) << "; min " << fmt_f(*std::min_element(at_l.begin(), at_l.end()), 3)
           << ", max " << fmt_f(*std::max_element(at_l.begin(), at_l.end()), 3)
           << " (Sorensen Table 4, Pannotia: 0.85-1.10 on NVIDIA, up to 2.34 on Intel/AMD/ARM, down to 0.22 "
              "on "
              "ARM).\n\n";
    }

    // (b) policies on graph tasks
    md << "## (b) Policies on graph tasks (Orr et al.: RSP + stealing +17% over scopes alone, +6% over "
          "stealing alone)\n\n";
    md << "Cycles (kernels + rounds x L) of the tasks strategy, mean over seeds; ratios of those means. "
          "'scopes alone' = hrf-indirect (work-group-scoped queues, donation only); 'stealing "
          "alone' = steal-emulated (stealing with device-scope queues); RSP + stealing = steal-rsp.\n\n";
    md << "| device | algorithm | graph | hrf-direct (cycles) | hrf-indirect | steal-emulated | steal-rsp | "
          "rsp / indirect | rsp / emulated | steals (emulated / rsp) | remote flushes (rsp) |\n";
    md << "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    j["b"] = json::array();
    for (std::size_t d = 0; d < s.devices.size(); ++d) {
        std::vector<double> vs_ind, vs_emu, ind_vs_dir;
        for (algo a : s.algos) {
            for (std::size_t gi = 0; gi < s.graphs.size(); ++gi) {
                if (!has_policies(d, gi)) {
                    continue;
                }
                const cell& dir = at(d, gi, a, 2);
                const cell& ind = at(d, gi, a, 3);
                const cell& emc = at(d, gi, a, 4);
                const cell& rsp = at(d, gi, a, 5);
                const double r_ind = ind.cycles(L) / rsp.cycles(L), r_emu = emc.cycles(L) / rsp.cycles(L);
                vs_ind.push_back(r_ind);
                vs_emu.push_back(r_emu);
                ind_vs_dir.push_back(dir.cycles(L) / ind.cycles(L));
                md << "| " << s.devices[d].name << " | " << to_string(a) << " | " << s.graphs[gi].name
                   << " | " << fmt_u(static_cast<u64>(dir.cycles(L))) << " | "
                   << fmt_u(static_cast<u64>(ind.cycles(L))) << " | "
                   << fmt_u(static_cast<u64>(emc.cycles(L))) << " | "
                   << fmt_u(static_cast<u64>(rsp.cycles(L))) << " | " << fmt_f(r_ind, 3) << " | "
                   << fmt_f(r_emu, 3) << " | "
                   << fmt_f(emc.mean([](const run_out& r) { return double(r.steals); }), 0) << " / "
                   << fmt_f(rsp.mean([](const run_out& r) { return double(r.steals); }), 0) << " | "
                   << fmt_u(static_cast<u64>(
                          rsp.mean([](const run_out& r) { return double(r.flushes_remote); })))
                   << " |\n";
                json row = {
                    {"device", s.devices[d].name}, {"algorithm", to_string(a)}, {"graph", s.graphs[gi].name}};
                const char* names[] = {"hrf-direct", "hrf-indirect", "steal-emulated", "steal-rsp"};
                for (int k = 0; k < 4; ++k) {
                    const cell& c = at(d, gi, a, 2 + k);
                    row["cycles"][names[k]] = c.cycles(L);
                    row["speedup_vs_hrf_direct"][names[k]] = dir.cycles(L) / c.cycles(L);
                    row["flushes_own"][names[k]] =
                        c.mean([](const run_out& r) { return double(r.flushes_own); });
                    row["flushes_remote"][names[k]] =
                        c.mean([](const run_out& r) { return double(r.flushes_remote); });
                    row["steals"][names[k]] = c.mean([](const run_out& r) { return double(r.steals); });
                    row["donations"][names[k]] = c.mean([](const run_out& r) { return double(r.donations); });
                    row["tasks"][names[k]] = c.mean([](const run_out& r) { return double(r.tasks); });
                }
                row["rsp_over_indirect"] = r_ind;
                row["rsp_over_emulated"] = r_emu;
                j["b"].push_back(row);
            }
        }
        if (vs_ind.empty()) {
            continue;
        }
        md << "\n"
           << s.devices[d].name << ": geometric means over every (algorithm, graph): steal-rsp over "
           << "hrf-indirect " << fmt_f(geomean(vs_ind), 3) << " (Orr: 1.17), steal-rsp over steal-emulated "
           << fmt_f(geomean(vs_emu), 3) << " (Orr: 1.06), hrf-indirect over hrf-direct "
           << fmt_f(geomean(ind_vs_dir), 3) << ".\n\n";
        j["b_summary"][s.devices[d].name] = {{"rsp_over_indirect", geomean(vs_ind)},
                                             {"rsp_over_emulated", geomean(vs_emu)},
                                             {"indirect_over_direct", geomean(ind_vs_dir)}};
    }

    // (c) tasks vs persistent vs multi-kernel
    md << "## (c) Tasks vs persistent vs multi-kernel (Atos: 3.44x over level-synchronous BFS, 2.1x "
          "PageRank, "
          "2.77x colouring)\n\n";
    md << "Cycles at L; speedups over multi-kernel (the level-synchronous baseline). Tasks: hrf-indirect. "
          "Tasks per vertex: tasks run / vertices reached (the re-execution asynchrony costs; edge-range and "
          "seed tasks included).\n\n";
    md << "| device | algorithm | graph | BFS depth | multi-kernel (cycles) | persistent | tasks | "
          "persistent / "
          "multi-kernel | tasks / multi-kernel | tasks rounds | tasks per vertex |\n";
    md << "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    j["c"] = json::array();
    std::ostringstream quality;
    for (std::size_t d = 0; d < s.devices.size(); ++d) {
        for (algo a : s.algos) {
            for (std::size_t gi = 0; gi < s.graphs.size(); ++gi) {
                const cell& mk = at(d, gi, a, 0);
                const cell& pe = at(d, gi, a, 1);
                const bool tasks = has_tasks(d, gi);
                const cell* tk = tasks ? &at(d, gi, a, 3) : nullptr;
                const double tpv =
                    tasks ? tk->mean([](const run_out& r) { return double(r.tasks) / double(r.reached); })
                          : 0.0;
                md << "| " << s.devices[d].name << " | " << to_string(a) << " | " << s.graphs[gi].name
                   << " | " << s.graphs[gi].bfs_depth << " | " << fmt_u(static_cast<u64>(mk.cycles(L)))
                   << " | " << fmt_u(static_cast<u64>(pe.cycles(L))) << " | "
                   << (tasks ? fmt_u(static_cast<u64>(tk->cycles(L))) : std::string("not run")) << " | "
                   << fmt_f(mk.cycles(L) / pe.cycles(L), 3) << " | "
                   << (tasks ? fmt_f(mk.cycles(L) / tk->cycles(L), 3) : std::string("-")) << " | "
                   << (tasks ? fmt_f(tk->launches(), 0) : std::string("-")) << " | "
                   << (tasks ? fmt_f(tpv, 2) : std::string("-")) << " |\n";
                j["c"].push_back(
                    {{"device", s.devices[d].name},
                     {"algorithm", to_string(a)},
                     {"graph", s.graphs[gi].name},
                     {"bfs_depth", s.graphs[gi].bfs_depth},
                     {"multi_kernel_cycles", mk.cycles(L)},
                     {"persistent_cycles", pe.cycles(L)},
                     {"tasks_cycles", tasks ? json(tk->cycles(L)) : json(nullptr)},
                     {"tasks_rounds", tasks ? json(tk->launches()) : json(nullptr)},
                     {"tasks_per_vertex", tasks ? json(tpv) : json(nullptr)},
                     {"multi_kernel_quality", mk.mean([](const run_out& r) { return r.quality; })},
                     {"tasks_quality",
                      tasks ? json(tk->mean([](const run_out& r) { return r.quality; })) : json(nullptr)}});
                if (a == algo::pagerank || a == algo::color) {
                    quality << "| " << s.devices[d].name << " | " << to_string(a) << " | "
                            << s.graphs[gi].name << " | "
                            << mk.mean([](const run_out& r) { return r.quality; }) << " | "
                            << pe.mean([](const run_out& r) { return r.quality; }) << " | "
                            << (tasks ? fmt_f(tk->mean([](const run_out& r) { return r.quality; }),
                                              a == algo::color ? 0 : 6)
                                      : std::string("not run"))
                            << " | "
                            << fmt_f(mk.mean([](const run_out& r) { return double(r.iterations); }), 0)
                            << " |\n";
                }
            }
        }
    }
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    md << "\nWhat the runs computed (PageRank: L1 distance to the double-precision oracle; colouring: "
          "colours "
          "used):\n\n| device | algorithm | graph | multi-kernel | persistent | tasks | frontier iterations "
          "|\n"
          "|---|---|---|---:|---:|---:|---:|\n"
       << quality.str();
    md << "\nPageRank: damping " << s.pagerank.damping;
    if (s.pagerank_error > 0) {
        md << "; every strategy stops where its bound guarantees an L1 error of " << s.pagerank_error
           << " against the converged ranks (pagerank_stopping_for_error).\n";
    } else {
        md << "; the frontier strategies iterate to an L1 change of " << s.pagerank.tolerance
           << ", the tasks strategy pushes residuals above " << s.pagerank_tasks_tolerance << " / V.\n";
    }
    if (s.tasks_max_vertices != ~u64{0} || !s.tasks_every_device) {
        md << "\nThe tasks strategy ran on graphs of at most " << fmt_u(s.tasks_max_vertices)
           << " vertices (--tasks-max-vertices)" << (s.tasks_every_device ? "" : ", on the first device only")
           << ".\n";
    }
    md << "\nPart (b) ran every policy on graphs of at most " << fmt_u(s.policies_max_vertices)
       << " vertices (--policies-max-vertices); larger graphs ran the tasks strategy under hrf-indirect "
          "only.\n";
    md << "\n"
       << results.size() << " runs, every answer checked against its sequential oracle; " << fmt_f(total, 0)
       << " s wall with " << jobs << " jobs.\n";
    j["wall_seconds"] = total;

    std::error_code ec;
    const std::filesystem::path dir(out_dir);
    std::filesystem::create_directories(dir, ec);
    std::ofstream fm(dir / "graph_experiment.md");
    fm << md.str();
    std::ofstream fj(dir / "graph_experiment.json");
    fj << j.dump(1) << "\n";
    if (!fm || !fj) {
        std::fprintf(stderr, "canopy_bench_graph_experiment: cannot write into %s\n", dir.string().c_str());
        return 1;
    }
    std::fputs(md.str().c_str(), stdout);
    std::printf("\nwrote %s and %s\n", (dir / "graph_experiment.md").string().c_str(),
                (dir / "graph_experiment.json").string().c_str());
    if (!no_plot) {
        const std::string cmd = std::string("'") + canopy::bench::plot_python() + "' '" +
                                canopy::bench::plot_graph_script() + "' '" +
                                (dir / "graph_experiment.json").string() + "' '" +
                                (dir / "graph_experiment.png").string() + "'";
        std::fflush(stdout);
        const int rc = std::system(cmd.c_str());
        if (rc != 0) {
            std::fprintf(
                stderr,
                "canopy_bench_graph_experiment: the plot failed (%s); the table and JSON are written. "
                "Install python3-matplotlib (tools/deps.sh) or pass --no-plot\n",
                cmd.c_str());
            return 1;
        }
    }
    return 0;
}
