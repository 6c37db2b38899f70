// canopy graph: BFS, SSSP, PageRank and colouring on a loaded or generated graph under one of three
// strategies (multi-kernel, persistent, tasks), optionally validated by Graph500's rules (BFS, SSSP),
// the proved error bounds (PageRank), a proper-colouring check (colour) and the sequential oracles. Host-only
// (CLI11, fmt, JSON, the graph loaders); the device work is in graph_backend.cpp.
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "canopy/workloads/graph/coloring_reference.hpp"
#include "canopy/workloads/graph/csr.hpp"
#include "canopy/workloads/graph/generate.hpp"
#include "canopy/workloads/graph/load.hpp"
#include "canopy/workloads/graph/pagerank_reference.hpp"
#include "canopy/workloads/graph/reference.hpp"
#include "canopy/workloads/graph/validate.hpp"
#include "canopy/workloads/graph/weights.hpp"
#include "commands.hpp"
#include "graph_backend.hpp"
#include "graph_ranks.hpp"
#include "heartbeat.hpp"
#include "mpi_world.hpp"

namespace canopy::cli {

namespace {

namespace graph = workloads::graph;

struct graph_options {
    std::string algorithm;
    std::string input, format, grid, source = "0", output;
    std::string write_graph; // --write-graph: the built graph as Matrix Market, before the run
    bool write_only = false; // --write-only: stop after --write-graph
    unsigned kronecker = 0, edge_factor = 16;
    bool symmetrize = false, validate = false, json = false;
    graph_run_settings run;
    emulator_settings emu;
    bool emulated = false;
    bool iterations_given = false; // pagerank: --iterations on the command line
    bool tolerance_given = false;  // pagerank: --tolerance on the command line
    bool error_given = false;      // pagerank: --error on the command line
    // pagerank: the L1 error against the converged ranks every strategy guarantees (0: the older rules,
    // --iterations and --tolerance, decide).
    double error = graph::pagerank_default_error;
    unsigned devices = 0; // bfs over a 1-D partition on this many emulated devices (0: one)
};

struct usage_error {
    std::string message;
};

/// --timed: the modelled duration, the launches' makespans and the host loop's per-launch cost apart
/// (docs/graph-experiment.md), as a JSON object and as one text line.
struct timed_cycles {
    bool on = false;
    launch_summary l;
    unsigned long long total() const { return l.kernel_cycles + l.launches * l.launch_cycles; }
    nlohmann::json to_json() const {
        return {{"kernels", l.kernel_cycles},
                {"launches", l.launches},
                {"per_launch", l.launch_cycles},
                {"total", total()}};
    }
    std::string line() const {
        return fmt::format("cycles     {} = {} in kernels + {} launches x {} per launch\n", total(),
                           l.kernel_cycles, l.launches, l.launch_cycles);
    }
};

// The one printer both kinds of run share (BFS/SSSP and PageRank/colouring): each prints its own fields,
// then these. R is either run_result: both carry the run's counts, device and stats.

/// "run  ALGO STRATEGY [POLICY (CORE)] on BACKEND [(DEVICE, SCHEDULER scheduler, MODEL memory)]".
template <class R>
void print_run_line(const std::string& algorithm, const std::string& strategy, const std::string& policy,
                    const std::string& core, const R& r) {
    fmt::print("run        {} {} {}on {}{}\n", algorithm, strategy,
               policy.empty() ? "" : policy + " (" + core + ") ", backend_name(),
               r.device.empty()
                   ? std::string()
                   : fmt::format(" ({}{})", r.device,
                                 r.scheduler.empty() ? std::string()
                                                     : fmt::format(", {} scheduler, {} memory", r.scheduler,
                                                                   r.memory_model)));
}

/// The counts, the timed cycles and the verdict, after a run's own text lines.
template <class R>
void print_text_tail(const R& r, const std::optional<bool>& validated, const std::string& validation,
                     const timed_cycles& tc) {
    fmt::print("iterations {}\nlaunches   {}\nbarriers   {}\ntasks      {}\n", r.iterations, r.launches,
               r.barriers, r.tasks);
    if (tc.on) {
        fmt::print("{}", tc.line());
    }
    if (validated) {
        fmt::print("validated  {}: {}\n", *validated ? "OK" : "FAILED", validation);
    }
}

/// A device time, or null when the run was not timed.
template <class R> nlohmann::json timed_or_null(const R& r, double ms) {
    return r.device_clock.empty() ? nlohmann::json(nullptr) : nlohmann::json(ms);
}

/// "device ms  SPAN (kernels KERNELS ms in N launches; CLOCK)", or nothing when the run was not timed.
template <class R> void print_device_time(const R& r) {
    if (!r.device_clock.empty()) {
        fmt::print("device ms  {:.3f} (kernels {:.3f} ms in {} launch{}; {})\n", r.device_ms, r.kernels_ms,
                   r.kernels, r.kernels == 1 ? "" : "es", r.device_clock);
    }
}

/// The fields every `canopy graph --json` report has: what ran, on which graph and device, and what it
/// took (the JSON object orders its keys itself).
template <class G, class R>
nlohmann::json report_json(const std::string& algorithm, const std::string& strategy,
                           const std::string& policy, const std::string& core, const G& in, const R& r) {
    const auto or_null = [](const std::string& v) {
        return v.empty() ? nlohmann::json(nullptr) : nlohmann::json(v);
    };
    return {{"algorithm", algorithm},
            {"strategy", strategy},
            {"policy", or_null(policy)},
            {"core", or_null(core)},
            {"graph", in.description},
            {"vertices", in.g.num_vertices()},
            {"edges", in.g.num_edges()},
            {"seconds", r.seconds},
            {"iterations", r.iterations},
            {"launches", r.launches},
            {"barriers", r.barriers},
            {"tasks", r.tasks},
            {"workgroups", r.workgroups},
            {"backend", backend_name()},
            {"device", r.device},
            {"wall_ms", r.seconds * 1e3},
            // The kernels alone (null where the run was not timed); device_clock says what clock.
            {"device_ms", timed_or_null(r, r.device_ms)},
            {"kernels_ms", timed_or_null(r, r.kernels_ms)},
            {"kernels", r.kernels},
            {"device_clock", or_null(r.device_clock)}};
}

template <class R>
void print_json_tail(nlohmann::json& j, const R& r, const std::optional<bool>& validated,
                     const std::string& validation, const timed_cycles& tc) {
    j["validated"] = validated ? nlohmann::json(*validated) : nlohmann::json(nullptr);
    j["ok"] = !(validated && !*validated); // the one field a script checks (cli/main.cpp: failed runs)
    if (validated && !*validated) {
        j["reason"] = "validation failed: " + validation;
    }
    if (!r.scheduler.empty()) {
        j["scheduler"] = r.scheduler;
        j["memory_model"] = r.memory_model;
        j["scheduler_steps"] = tc.l.steps; // every launch's, for steps per second (bench/emulator_speed.sh)
    }
    nlohmann::json s = nlohmann::json::object();
    for (const auto& [k, v] : r.stats) {
        s[k] = v;
    }
    j["stats"] = s;
    if (tc.on) {
        j["cycles"] = tc.to_json();
    }
    std::puts(j.dump(2).c_str());
}

/// 1 (a runtime error: the result is wrong) when validation failed, said on stderr too; else 0.
int exit_status(const std::optional<bool>& validated, const std::string& validation) {
    if (validated && !*validated) {
        fmt::print(stderr, "canopy graph: validation FAILED: {}\n", validation);
        return 1;
    }
    return 0;
}

struct input_graph {
    graph::csr_graph g;
    std::string description;
    bool undirected = false; // every edge is stored as two arcs (TEPS counts it once)
    bool symmetric = true;   // every arc has its reverse (colour needs it)
    std::vector<std::string> notes;
};

input_graph make_input(const graph_options& o) {
    const int sources = (o.input.empty() ? 0 : 1) + (o.kronecker != 0 ? 1 : 0) + (o.grid.empty() ? 0 : 1);
    if (sources != 1) {
        throw usage_error{"give exactly one of --input FILE, --kronecker SCALE, --grid RxC"};
    }
    input_graph in;
    if (!o.input.empty()) {
        graph::load_options lo;
        if (!o.format.empty()) {
            lo.format = graph::parse_format_name(o.format);
        }
        lo.build.symmetrize = o.symmetrize;
        graph::loaded_graph lg = graph::load_graph(o.input, lo); // load_error: exit 1
        in.g = std::move(lg.graph);
        in.description = fmt::format("{} ({})", o.input, graph::format_name(lg.report.format));
        in.undirected =
            o.symmetrize || lg.report.file_symmetric || lg.report.format == graph::graph_format::metis;
        in.symmetric = lg.report.build.symmetric();
        if (lg.report.build.self_loops + lg.report.build.duplicates != 0) {
            in.notes.push_back(lg.report.summary());
        }
        return in;
    }
    if (o.kronecker != 0) {
        if (o.kronecker > 30 || o.edge_factor == 0) {
            throw usage_error{"--kronecker takes a SCALE of 1 to 30 and --edge-factor at least 1"};
        }
        graph::kronecker_params p;
        p.scale = o.kronecker;
        p.edge_factor = o.edge_factor;
        in.g = graph::make_kronecker(p).graph;
        in.description = fmt::format("Kronecker SCALE {} edge factor {}", o.kronecker, o.edge_factor);
        in.undirected = true;
        return in;
    }
    unsigned long rows = 0, cols = 0;
    char x = 0, extra = 0;
    if (std::sscanf(o.grid.c_str(), "%lu%c%lu%c", &rows, &x, &cols, &extra) != 3 || (x != 'x' && x != 'X') ||
        rows == 0 || cols == 0 || rows * cols >= graph::max_vertices || rows > 0xffffffffUL ||
        cols > 0xffffffffUL) {
        throw usage_error{"--grid takes ROWSxCOLS, e.g. 100x200 (got '" + o.grid + "')"};
    }
    in.g = graph::make_grid(static_cast<std::uint32_t>(rows), static_cast<std::uint32_t>(cols)).graph;
    in.description = fmt::format("{}x{} grid", rows, cols);
    in.undirected = true;
    return in;
}

/// --write-graph: every stored arc of `g` as a Matrix Market coordinate pattern general matrix (1-based,
/// one line per arc, in CSR order), so that another program (bench/peers/) runs on exactly the graph
/// canopy runs on, and canopy's own loader reads it back to the same CSR. False (said on stderr) on failure.
bool write_matrix_market(const graph::csr_graph& g, const std::string& path, const std::string& description) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
        fmt::print(stderr, "canopy graph: cannot write {} (--write-graph): check that its directory exists\n",
                   path);
        return false;
    }
    std::string buf = fmt::format("%%MatrixMarket matrix coordinate pattern general\n% canopy graph: {}\n"
                                  "{} {} {}\n",
                                  description, g.num_vertices(), g.num_vertices(), g.num_edges());
    const auto offsets = g.offsets();
    const auto targets = g.targets();
    bool ok = true;
    for (graph::vertex_id v = 0; v < g.num_vertices() && ok; ++v) {
        for (graph::edge_id e = offsets[v]; e < offsets[v + 1]; ++e) {
            fmt::format_to(std::back_inserter(buf), "{} {}\n", v + 1, targets[e] + 1);
        }
        if (buf.size() > (1u << 20)) { // in 1 MiB pieces: a Kronecker 20 file is about 0.4 GB
            ok = std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
            buf.clear();
        }
    }
    ok = ok && std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
    ok = std::fclose(f) == 0 && ok;
    if (!ok) {
        fmt::print(stderr, "canopy graph: error writing {} (--write-graph): is the disk full?\n", path);
    }
    return ok;
}

/// --output: one line per vertex v (`line(v)`, ending in a newline) to `path`, in 1 MiB pieces. False
/// (said on stderr) when the file cannot be written.
template <class Line> bool write_vertex_lines(const std::string& path, graph::vertex_id n, Line line) {
    std::ofstream out(path);
    if (!out) {
        fmt::print(stderr, "canopy graph: cannot write {}\n", path);
        return false;
    }
    std::string buf;
    for (graph::vertex_id v = 0; v < n; ++v) {
        buf += line(v);
        if (buf.size() > (1u << 20)) {
            out << buf;
            buf.clear();
        }
    }
    out << buf;
    if (!out) {
        fmt::print(stderr, "canopy graph: error writing {}\n", path);
        return false;
    }
    return true;
}

graph::vertex_id pick_source(const graph_options& o, const graph::csr_graph& g) {
    if (g.num_vertices() == 0) {
        throw usage_error{"the graph has no vertices"};
    }
    if (o.source == "max-degree") {
        return g.max_degree_vertex();
    }
    if (o.source == "random") {
        // Graph500 style: a vertex with at least one arc, drawn deterministically (the same every run).
        for (std::uint64_t i = 0; i < 1024; ++i) {
            const auto v = static_cast<graph::vertex_id>(graph::draw(0x5eed, 6, i) % g.num_vertices());
            if (g.degree(v) != 0) {
                return v;
            }
        }
        return g.max_degree_vertex();
    }
    std::uint64_t v = 0;
    std::size_t used = 0;
    try {
        v = std::stoull(o.source, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != o.source.size() || o.source[0] == '-') {
        throw usage_error{"--source takes a vertex id, random or max-degree (got '" + o.source + "')"};
    }
    if (v >= g.num_vertices()) {
        throw usage_error{fmt::format("--source {} is not a vertex (ids 0 to {})", v, g.num_vertices() - 1)};
    }
    return static_cast<graph::vertex_id>(v);
}

/// canopy graph pagerank|color: no source; validated by the oracles and, for PageRank, the error bounds
/// of pagerank_reference.hpp / pagerank.hpp.
int run_rank_or_color(const graph_options& o, input_graph& in) {
    const bool pagerank = o.algorithm == "pagerank";
    graph_run_settings rs = o.run;
    rs.algorithm = o.algorithm;
    const bool tasks = rs.strategy == "tasks";
    // PageRank's stopping rule: an error target (the default) is one number for every strategy, each
    // stopping where its own guarantee reaches it (pagerank_reference.hpp); --tolerance, or --iterations
    // without --error, keep the older per-strategy rules.
    const double error =
        pagerank && !o.tolerance_given && (o.error_given || !o.iterations_given) ? o.error : 0;
    double guarantee = -1; // the run's a-priori bound on its L1 error (-1: known only with --validate)
    if (rs.pagerank_tasks == "auto") { // the pull measures its error, so it needs a target to stop at
        rs.pagerank_tasks = error > 0 ? "pull" : "push";
    }
    if (pagerank && tasks && rs.pagerank_tasks == "pull" && !(error > 0)) {
        fmt::print(stderr, "--pagerank-tasks pull stops at an L1 error target, which it measures after each "
                           "round: drop --tolerance (or give --error) or use --pagerank-tasks push\n"
                           "Run 'canopy graph --help' for usage.\n");
        return 2;
    }
    if (error > 0) {
        graph::pagerank_stopping stop;
        try {
            stop = graph::pagerank_stopping_for_error(in.g, rs.damping, error, tasks);
        } catch (const std::invalid_argument& e) { // an --error this graph cannot guarantee: a usage error
            fmt::print(stderr, "{} (--error)\nRun 'canopy graph --help' for usage.\n", e.what());
            return 2;
        }
        rs.tolerance = stop.tolerance;
        guarantee = stop.guarantee;
        rs.error =
            tasks ? error : 0; // the tasks stop by their measured guarantee, at worst at this tolerance
        if (!o.iterations_given) {
            rs.iterations = 1000; // the cap: the error target decides (about 67 iterations at 1e-4)
        }
    } else if (pagerank && !o.iterations_given && rs.tolerance > 0) {
        rs.iterations = 1000; // --tolerance without --iterations: the tolerance decides, within 1000
    }
    if (!pagerank && !in.symmetric) {
        fmt::print(stderr,
                   "canopy graph: color needs a symmetric graph ({} has arcs without their reverse); "
                   "pass --symmetrize\nRun 'canopy graph --help' for usage.\n",
                   in.description);
        return 2;
    }
    for (const auto& n : in.notes) {
        fmt::print(stderr, "{}\n", n);
    }
    if (o.emulated) {
        configure_emulator(o.emu);
    }
    graph_device_outcome r;
    {
        heartbeat hb("canopy graph",
                     fmt::format("{} on {} ({}{})", o.algorithm, in.description, rs.strategy,
                                 rs.strategy == "tasks" ? ", " + rs.policy : std::string()),
                     std::chrono::seconds(2));
        r = run_graph_algorithm(in.g, 0, rs);
    }
    const graph::vertex_id n = in.g.num_vertices();

    // PageRank: the distance to the double-precision oracle and the top vertex; colour: the colours.
    double l1 = 0, bound = 0;
    graph::vertex_id top = 0;
    std::uint32_t colors = 0;
    std::optional<bool> validated;
    std::string validation;
    const double tolerance =
        rs.tolerance > 0 ? rs.tolerance : (tasks ? graph::pagerank_tasks_default_tolerance : 0.0);
    if (pagerank && tasks) {
        // The run's own guarantee: with an error target the one it measured (the residual it left, not
        // its ceiling); else the tolerance's, with the rounding loss from the tasks it ran (each takes
        // at most once).
        guarantee = r.guarantee >= 0 ? r.guarantee
                                     : graph::pagerank_tasks_guarantee(in.g, rs.damping, tolerance,
                                                                       static_cast<double>(r.tasks));
    }
    // A power iteration that used up its iterations before its change reached the tolerance guarantees
    // nothing about the target: a failed run, not a slower one.
    std::string unmet;
    if (error > 0 && !tasks && r.iterations >= rs.iterations) {
        unmet =
            fmt::format("the L1 error target {:g} was not reached within {} iterations (raise --iterations)",
                        error, rs.iterations);
    }
    if (error > 0 && tasks && guarantee > error) {
        unmet =
            fmt::format("the tasks ran {} times, more than the {:.0f} takes their tolerance budgets: their "
                        "guarantee {:.3g} exceeds the L1 error target {:g} (ask for a larger --error)",
                        r.tasks, graph::pagerank_tasks_take_budget, guarantee, error);
    }
    if (pagerank) {
        l1 = graph::l1_distance(graph::reference_pagerank(in.g, rs.damping), r.ranks);
        for (graph::vertex_id v = 1; v < n; ++v) {
            top = r.ranks[v] > r.ranks[top] ? v : top;
        }
        if (o.validate) {
            if (tasks) {
                bound = r.guarantee >= 0 ? r.guarantee + graph::pagerank_oracle_error(rs.damping)
                                         : graph::pagerank_tasks_bound(in.g, rs.damping, tolerance,
                                                                       static_cast<double>(r.tasks));
                validated = l1 <= bound;
                validation =
                    fmt::format("L1 distance {:.3g} to the double-precision oracle {} the bound {:.3g}", l1,
                                *validated ? "within" : "EXCEEDS", bound);
            } else {
                const auto ref =
                    graph::reference_pagerank_fixed(in.g, rs.damping, rs.iterations, rs.tolerance);
                bound = graph::pagerank_power_bound(in.g, rs.damping, ref.last_change);
                guarantee = graph::pagerank_power_guarantee(in.g, rs.damping, ref.last_change);
                const bool exact =
                    graph::ranks_to_double(ref.rank) == r.ranks && ref.iterations == r.iterations;
                validated = exact && l1 <= bound;
                validation =
                    !exact ? fmt::format("differs from the sequential fixed-point oracle ({} iterations)",
                                         ref.iterations)
                           : fmt::format("equals the sequential fixed-point oracle; L1 distance {:.3g} "
                                         "to the double-precision oracle {} the bound {:.3g}",
                                         l1, l1 <= bound ? "within" : "EXCEEDS", bound);
            }
        }
    } else {
        colors = graph::count_colors(r.colors);
        if (o.validate) {
            const auto rep = graph::validate_coloring(in.g, r.colors);
            // Speculative colouring is proper, not any sequential colouring in particular.
            const bool speculative = tasks && rs.coloring == "speculative";
            const bool same = speculative || r.colors == (tasks ? graph::reference_greedy_color(in.g)
                                                                : graph::reference_jones_plassmann(in.g));
            validated = rep.ok && same;
            validation =
                !rep.ok ? "not a proper colouring: " + rep.message
                : speculative
                    ? fmt::format("proper, {} colours (speculative: any proper colouring passes)", rep.colors)
                : same ? fmt::format("proper, {} colours, equals the sequential {}", rep.colors,
                                     tasks ? "greedy colouring" : "Jones-Plassmann")
                       : std::string(tasks ? "proper, but differs from the sequential greedy colouring"
                                           : "proper, but differs from the sequential Jones-Plassmann");
        }
    }

    if (!unmet.empty()) {
        validation = validated && !*validated ? validation + "; " + unmet : unmet;
        validated = false;
    }

    if (!o.output.empty() && !write_vertex_lines(o.output, n, [&](graph::vertex_id v) {
            return pagerank ? fmt::format("{} {:.17g}\n", v, r.ranks[v])
                            : fmt::format("{} {}\n", v, r.colors[v]);
        })) {
        return 1;
    }

    const std::string policy = tasks ? rs.policy : "";
    const std::string core = tasks ? r.core : "";
    const timed_cycles tc{o.emulated && o.emu.timed, collect_launches()};
    if (o.json) {
        nlohmann::json j = report_json(o.algorithm, rs.strategy, policy, core, in, r);
        if (pagerank) {
            j["damping"] = rs.damping;
            // The stopping rule: the error target (null under the older rules), the run's guarantee on
            // its L1 error against x* (null when only --validate can tell), and the error achieved.
            j["error_target"] = error > 0 ? nlohmann::json(error) : nlohmann::json(nullptr);
            j["guarantee"] = guarantee >= 0 ? nlohmann::json(guarantee) : nlohmann::json(nullptr);
            j["tolerance"] = tolerance;
            j["max_iterations"] = rs.iterations;
            // Tasks: which algorithm ran (push or pull; null for the other strategies), and by pull the
            // generations its rounds ran (null for every other run).
            j["pagerank_tasks"] = tasks ? nlohmann::json(rs.pagerank_tasks) : nlohmann::json(nullptr);
            j["generations"] = r.generations != 0 ? nlohmann::json(r.generations) : nlohmann::json(nullptr);
            j["l1_to_reference"] = l1;
            j["top_vertex"] = top;
            j["top_rank"] = n != 0 ? r.ranks[top] : 0.0;
            if (o.validate) {
                j["bound"] = bound;
            }
        } else {
            j["colors"] = colors;
            // The yardstick of quality: the sequential greedy colouring in largest-degree-first order.
            j["greedy_ldf_colors"] = graph::count_colors(graph::reference_greedy_color_ldf(in.g));
        }
        print_json_tail(j, r, validated, validation, tc);
    } else {
        fmt::print("graph      {}: {} vertices, {} arcs\n", in.description, n, in.g.num_edges());
        print_run_line(o.algorithm, rs.strategy, policy, core, r);
        if (pagerank) {
            fmt::print("damping    {}\n", rs.damping);
            if (error > 0) {
                fmt::print("error      target {:g} (L1 to the converged ranks); guaranteed <= {:.3g}\n",
                           error, guarantee);
            }
            fmt::print("tolerance  {}\n", tolerance > 0 ? fmt::format("{:g} (L1)", tolerance)
                                                        : std::string("0 (fixed iterations)"));
            if (r.generations != 0) {
                fmt::print("generations {} (block pull, over {} round{})\n", r.generations, r.iterations,
                           r.iterations == 1 ? "" : "s");
            }
            fmt::print(
                "top        vertex {} (rank {:.6g})\nl1         {:.3g} to the double-precision oracle\n", top,
                n != 0 ? r.ranks[top] : 0.0, l1);
        } else {
            fmt::print("colors     {} (the sequential greedy in largest-degree-first order: {})\n", colors,
                       graph::count_colors(graph::reference_greedy_color_ldf(in.g)));
        }
        fmt::print("seconds    {:.3f}\n", r.seconds);
        print_device_time(r);
        print_text_tail(r, validated, validation, tc);
    }
    return exit_status(validated, validation);
}

/// BFS and SSSP's report (on rank 0 under mpirun): validation, --output, the JSON or text. Returns the
/// exit status.
int report_levels(const graph_options& o, const input_graph& in, graph::vertex_id source, bool sssp,
                  bool hashed, const graph_run_settings& rs, const graph_device_outcome& r, unsigned ranks) {
    // Reached, depth and the arcs of the reached vertices (Graph500's TEPS: input edges in the traversed
    // component; an undirected edge is stored as two arcs and counted once).
    std::uint64_t reached = 0, depth = 0, arcs = 0;
    const graph::vertex_id n = in.g.num_vertices();
    for (graph::vertex_id v = 0; v < n; ++v) {
        const bool hit =
            sssp ? r.distances[v] != graph::infinite_distance : r.levels[v] != graph::unreached_level;
        if (hit) {
            ++reached;
            const std::uint64_t value = sssp ? r.distances[v] : r.levels[v];
            depth = value > depth ? value : depth;
            arcs += in.g.degree(v);
        }
    }
    const double edges_traversed = in.undirected ? static_cast<double>(arcs) / 2 : static_cast<double>(arcs);
    const double teps = r.seconds > 0 ? edges_traversed / r.seconds : 0.0;
    // Graph500's TEPS over the kernels' device time (ms): 1e-6 arcs per ms is 1e-9 per second.
    const double gteps = r.device_ms > 0 ? edges_traversed / r.device_ms * 1e-6 : 0.0;

    std::optional<bool> validated;
    std::string validation;
    if (o.validate) {
        graph::validation_report rules, cmp;
        if (sssp) {
            rules = graph::validate_sssp(in.g, source, r.distances);
            cmp = graph::compare_distances(graph::reference_sssp(in.g, source).distance, r.distances);
        } else {
            rules = graph::validate_bfs(in.g, source, r.levels);
            cmp = graph::compare_levels(graph::reference_bfs(in.g, source).level, r.levels);
        }
        validated = rules.ok() && cmp.ok();
        validation = rules.ok() ? (cmp.ok() ? "Graph500 rules and the sequential reference agree"
                                            : "differs from the sequential reference:\n" + cmp.summary())
                                : "Graph500 rules violated:\n" + rules.summary();
    }

    if (!o.output.empty() && !write_vertex_lines(o.output, n, [&](graph::vertex_id v) {
            if (sssp) {
                return r.distances[v] == graph::infinite_distance ? fmt::format("{} inf\n", v)
                                                                  : fmt::format("{} {}\n", v, r.distances[v]);
            }
            return r.levels[v] == graph::unreached_level ? fmt::format("{} -1\n", v)
                                                         : fmt::format("{} {}\n", v, r.levels[v]);
        })) {
        return 1;
    }

    const std::string policy = rs.strategy == "tasks" ? rs.policy : "";
    const std::string core = rs.strategy == "tasks" ? r.core : "";
    const timed_cycles tc{o.emulated && o.emu.timed, collect_launches()};
    if (o.json) {
        nlohmann::json j = report_json(o.algorithm, rs.strategy, policy, core, in, r);
        j["source"] = source;
        j["reached"] = reached;
        j["depth"] = depth;
        j["teps"] = teps;
        j["gteps"] = timed_or_null(r, gteps);
        j["hash_weights"] = hashed;
        j["ranks"] = ranks;
        j["devices"] = o.devices > 0 ? o.devices : 1;
        if (r.parts != 0) {
            j["scale_out"] = {{"partition", "1-D block"},
                              {"parts", r.parts},
                              {"reached_per_part", r.reached_per_part},
                              {"remote_arcs", r.remote_arcs},
                              {"vertices_sent", r.sent}};
        }
        print_json_tail(j, r, validated, validation, tc);
    } else {
        fmt::print("graph      {}: {} vertices, {} arcs{}\n", in.description, n, in.g.num_edges(),
                   hashed ? " (hash weights)" : "");
        print_run_line(o.algorithm, rs.strategy, policy, core, r);
        if (r.parts != 0) {
            std::string per;
            for (const auto x : r.reached_per_part) {
                per += fmt::format(" {}", x);
            }
            fmt::print("{}    {} (a 1-D block partition; reached per part:{}; {} vertices sent for {} remote "
                       "arcs)\n",
                       o.devices > 0 ? "devices" : "ranks  ", r.parts, per, r.sent, r.remote_arcs);
        }
        fmt::print("source     {}\nreached    {}\n{}      {}\n", source, reached, sssp ? "max  " : "depth",
                   depth);
        fmt::print("seconds    {:.3f}\nteps       {:.4g}\n", r.seconds, teps);
        print_device_time(r);
        if (!r.device_clock.empty()) {
            fmt::print("gteps      {:.4g} (over device ms)\n", gteps);
        }
        print_text_tail(r, validated, validation, tc);
    }
    return exit_status(validated, validation);
}

int run_graph_command(const graph_options& o) {
    if (o.run.strategy != "tasks" && o.run.policy != "hrf-indirect") {
        fmt::print(stderr, "canopy graph: --policy applies to --strategy tasks only\n");
        return 2;
    }
    // Under mpirun, or with --devices: BFS over a 1-D block partition, one part per rank or device
    // (docs/scale-out.md).
    bool refused = false;
    const bool ranked = mpi::ranked("canopy graph", "run the whole graph", &refused);
    if (refused) {
        return 2;
    }
    if (ranked || o.devices > 0) {
        const char* where = ranked ? "under mpirun" : "with --devices";
        std::string why;
        if (ranked && o.devices > 0) {
            why = "--devices runs every part in this process, and under mpirun each rank is a part already: "
                  "drop --devices";
        } else if (o.algorithm != "bfs") {
            why = fmt::format("{}, only bfs runs (level-synchronous, over a 1-D partition of the vertices): "
                              "run {} without {}",
                              where, o.algorithm, ranked ? "mpirun" : "--devices");
        } else if (o.run.strategy != "multi-kernel") {
            why = fmt::format("{}, each part runs one kernel per BFS level (the multi-kernel strategy): drop "
                              "--strategy {}",
                              where, o.run.strategy);
        }
        if (!why.empty()) {
            fmt::print(stderr, "canopy graph: {}\nRun 'canopy graph --help' for usage.\n", why);
            return 2;
        }
    }
    const bool pagerank = o.algorithm == "pagerank";
    if (pagerank && !(o.run.damping >= 0 && o.run.damping < 1)) {
        fmt::print(stderr,
                   "canopy graph: --damping takes a value in [0, 1), e.g. 0.85 (got {})\n"
                   "Run 'canopy graph --help' for usage.\n",
                   o.run.damping);
        return 2;
    }
    if (pagerank && o.error_given && o.tolerance_given) {
        fmt::print(stderr, "canopy graph: --error and --tolerance are two stopping rules; give one (--error: "
                           "the L1 error every strategy guarantees; --tolerance: each strategy's own rule)\n"
                           "Run 'canopy graph --help' for usage.\n");
        return 2;
    }
    if (pagerank && !(o.error > 0 && std::isfinite(o.error))) {
        fmt::print(
            stderr,
            "canopy graph: --error takes an L1 error > 0, e.g. 1e-4 (got {}); for the older rules give "
            "--iterations or --tolerance instead\nRun 'canopy graph --help' for usage.\n",
            o.error);
        return 2;
    }
    if (pagerank && !(o.run.tolerance >= 0 && std::isfinite(o.run.tolerance))) {
        fmt::print(stderr,
                   "canopy graph: --tolerance takes an L1 tolerance >= 0, e.g. 1e-6 (got {})\n"
                   "Run 'canopy graph --help' for usage.\n",
                   o.run.tolerance);
        return 2;
    }
    if (o.write_only && o.write_graph.empty()) {
        fmt::print(stderr, "canopy graph: --write-only needs --write-graph FILE (the file to write)\n"
                           "Run 'canopy graph --help' for usage.\n");
        return 2;
    }
    input_graph in;
    graph::vertex_id source = 0;
    try {
        in = make_input(o);
        if (o.algorithm == "pagerank" || o.algorithm == "color") {
            if (in.g.num_vertices() == 0) {
                throw usage_error{"the graph has no vertices"};
            }
        } else {
            source = pick_source(o, in.g);
        }
    } catch (const usage_error& e) {
        fmt::print(stderr, "canopy graph: {}\nRun 'canopy graph --help' for usage.\n", e.message);
        return 2;
    } catch (const graph::load_error& e) {
        fmt::print(stderr, "{}\n", e.what());
        return 1;
    }
    if (!o.write_graph.empty()) {
        if (!write_matrix_market(in.g, o.write_graph, in.description)) {
            return 1;
        }
        if (o.write_only) {
            fmt::print("wrote {}: {} vertices, {} arcs ({})\n", o.write_graph, in.g.num_vertices(),
                       in.g.num_edges(), in.description);
            return 0;
        }
    }
    if (o.algorithm == "pagerank" || o.algorithm == "color") {
        return run_rank_or_color(o, in);
    }
    const bool sssp = o.algorithm == "sssp";
    bool hashed = false;
    if (sssp && !in.g.has_weights()) {
        in.g = graph::with_hash_weights(in.g); // docs/graph.md: the project's deterministic weight rule
        hashed = true;
    }
    for (const auto& n : in.notes) {
        fmt::print(stderr, "{}\n", n);
    }
    if (o.emulated) {
        configure_emulator(o.emu);
    }

    graph_run_settings rs = o.run;
    rs.algorithm = o.algorithm;
    std::optional<mpi::session> world;
    if (ranked) {
        world.emplace();
    }
    const bool lead = !world || world->rank() == 0; // the rank that reports
    graph_device_outcome r;
    {
        std::optional<heartbeat> hb;
        if (lead) {
            hb.emplace("canopy graph",
                       fmt::format("{} on {} ({}{}{})", o.algorithm, in.description, rs.strategy,
                                   rs.strategy == "tasks" ? ", " + rs.policy : std::string(),
                                   world           ? fmt::format(", {} ranks", world->size())
                                   : o.devices > 0 ? fmt::format(", {} devices", o.devices)
                                                   : std::string()),
                       std::chrono::seconds(2));
        }
        if (world) {
            try {
                r = run_bfs_ranks(in.g, source, rs.block, *world);
            } catch (const std::exception& e) {
                world->abort(e.what()); // the other ranks would wait for this one for ever
            }
        } else if (o.devices > 0) {
            r = run_bfs_devices(in.g, source, rs.block, o.devices);
        } else {
            r = run_graph_algorithm(in.g, source, rs);
        }
    }
    if (!lead) {
        return world->all(true) ? 0 : 1; // rank 0 validates and reports; the ranks agree on the exit code
    }
    const int rc =
        report_levels(o, in, source, sssp, hashed, rs, r, world ? static_cast<unsigned>(world->size()) : 1);
    if (world && !world->all(rc == 0)) {
        return rc != 0 ? rc : 1;
    }
    return rc;
}

} // namespace

action add_graph(CLI::App& app) {
    auto o = std::make_shared<graph_options>();
    o->emu.scheduler = "parallel"; // graphs of 10^5..10^6 arcs: throughput by default, as canopy uts
    auto* sub =
        app.add_subcommand("graph", "BFS, SSSP, PageRank and colouring under three strategies "
                                    "(multi-kernel, persistent, tasks), validated against the oracles");
    sub->add_option("algorithm", o->algorithm, "bfs, sssp, pagerank or color")
        ->required()
        ->check(CLI::IsMember({"bfs", "sssp", "pagerank", "color"}));
    sub->add_option("--input", o->input,
                    "graph file (Matrix Market, DIMACS .gr, METIS .graph, SNAP edge list)");
    sub->add_option("--format", o->format, "file format, when the extension does not say")
        ->check(CLI::IsMember({"mtx", "gr", "metis", "snap"}));
    sub->add_option("--kronecker", o->kronecker, "Graph500 Kronecker graph of 2^SCALE vertices");
    sub->add_option("--edge-factor", o->edge_factor, "Kronecker edges per vertex")
        ->default_val(o->edge_factor);
    sub->add_option("--grid", o->grid, "ROWSxCOLS 4-neighbour grid");
    sub->add_option("--strategy", o->run.strategy, "multi-kernel, persistent or tasks")
        ->check(CLI::IsMember({"multi-kernel", "persistent", "tasks"}))
        ->default_val(o->run.strategy);
    sub->add_option("--policy", o->run.policy, "runtime scheduling policy (--strategy tasks)")
        ->check(CLI::IsMember(runtime_policy_names()))
        ->default_val(o->run.policy);
    add_queues_flag(*sub, o->run.queues,
                    "tasks: runtime core, ring (lock-free rings, work shared on demand) or locked (the HRF "
                    "paper's lock-per-queue design, lifo only)");
    sub->add_option("--device-rings", o->run.device_rings,
                    "tasks, ring core: the device queue's rings (0: one per 8 work-groups; 1: a single ring)")
        ->default_val(o->run.device_rings)
        ->check(CLI::Range(0u, 65536u));
    sub->add_option("--coloring", o->run.coloring,
                    "color, tasks: dag (the greedy colouring in largest-degree-first order, a vertex "
                    "released by a dependency counter) or speculative (assign and detect conflicts in one "
                    "queue, no counters: faster, proper, but not the greedy colouring: it may use more "
                    "colours)")
        ->check(CLI::IsMember({"dag", "speculative"}))
        ->default_val(o->run.coloring);
    sub->add_option("--pagerank-tasks", o->run.pagerank_tasks,
                    "pagerank, tasks: pull (blocks of vertices pulled in generations, a block's in-arcs "
                    "shared by a sub-group's lanes; an error target only), push (asynchronous residual "
                    "push, a task per vertex whose residual crosses a threshold) or auto: pull under an "
                    "error target (the default rule), push under --tolerance (docs/graph.md)")
        ->check(CLI::IsMember({"auto", "push", "pull"}))
        ->default_val(o->run.pagerank_tasks);
    sub->add_option(
           "--pagerank-block-arcs", o->run.pagerank_block_arcs,
           "pagerank, tasks by pull: the most in-arcs a block (a task) pulls; a vertex with more is a "
           "block alone (0: about three blocks per resident sub-group, 4 to 32 arcs a lane)")
        ->default_val(o->run.pagerank_block_arcs);
    sub->add_option("--order", o->run.order,
                    "tasks: the order tasks run in: lifo (depth-first), fifo (breadth-first; the default) "
                    "or priority (bfs, sssp: priority = label, in buckets of --delta, in one launch)")
        ->check(CLI::IsMember({"lifo", "fifo", "priority"}));
    sub->add_option(
           "--source", o->source,
           "source vertex (bfs, sssp; ignored by pagerank and color): a 0-based id, random or max-degree")
        ->default_val(o->source);
    sub->add_flag("--symmetrize", o->symmetrize, "add the reverse of every arc that has none (file input)");
    sub->add_flag("--validate", o->validate,
                  "check against the sequential oracles, and by Graph500's rules (bfs, sssp), the proved L1 "
                  "error bound "
                  "(pagerank) or a proper-colouring check (color); exit 1 if not");
    sub->add_option("--write-graph", o->write_graph,
                    "write the graph as built (every arc, after --symmetrize) as Matrix Market, then run; "
                    "canopy's --input reads it back to the same graph");
    sub->add_flag("--write-only", o->write_only,
                  "with --write-graph: write the graph and stop, without a run");
    sub->add_option("--output", o->output,
                    "write 'id value' per vertex: level (-1 unreached), distance (inf), rank or colour");
    auto* its =
        sub->add_option(
               "--iterations", o->run.iterations,
               "pagerank: the most power iterations under --error (default then 1000); given alone, "
               "the older rule: exactly this many (multi-kernel, persistent; the most with --tolerance, "
               "default then 1000)")
            ->default_val(o->run.iterations)
            ->check(CLI::Range(1u, 1000000u));
    auto* err = sub->add_option("--error", o->error,
                                "pagerank: the L1 error against the converged ranks that every strategy "
                                "guarantees, the default stopping rule (multi-kernel and persistent iterate "
                                "until their bound reaches it, within --iterations, default then 1000; tasks "
                                "start from the uniform vector and push residuals in rounds of falling "
                                "threshold until the guarantee they measure reaches it)")
                    ->default_val(o->error);
    auto* tol =
        sub->add_option(
               "--tolerance", o->run.tolerance,
               "pagerank, the older rule instead of --error: stop at an L1 change <= X (multi-kernel, "
               "persistent); tasks: residual threshold X / V (0: fixed iterations; tasks then use 1e-4)")
            ->default_val(o->run.tolerance);
    sub->add_option("--damping", o->run.damping, "pagerank: damping factor in [0, 1)")
        ->default_val(o->run.damping);
    sub->add_option("--block-size", o->run.block,
                    "work-items per work-group (a multiple of the sub-group size)")
        ->default_val(o->run.block)
        ->check(CLI::Range(1u, 1024u));
    sub->add_option("--delta", o->run.delta,
                    "tasks: the width of rounds of launches (0: one asynchronous round, the ring core's "
                    "default; the locked core's: 2 BFS levels, 4 SSSP distance units), or of the buckets "
                    "under --order priority (one launch; default the same 2 and 4)")
        ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
    sub->add_option("--queue-capacity", o->run.private_capacity,
                    "tasks: task-fronts each sub-group's private queue holds (0: sized by the graph)")
        ->default_val(o->run.private_capacity);
    sub->add_option("--devices", o->devices,
                    "bfs over a 1-D block partition of the vertices on this many emulated devices in this "
                    "process, one kernel per level on each and the frontier exchanged between levels, as "
                    "under mpirun with one rank per device (docs/scale-out.md)")
        ->check(CLI::Range(1u, 64u));
    sub->add_flag("--json", o->json, "print one JSON object");
    o->emulated = !emulator_presets().empty();
    if (o->emulated) {
        add_emulator_flags(*sub, o->emu, {.runs_kernels = true, .timed = true});
    }
    return [o, its, err, tol] {
        o->iterations_given = its->count() != 0;
        o->error_given = err->count() != 0;
        o->tolerance_given = tol->count() != 0;
        return run_graph_command(*o);
    };
}

} // namespace canopy::cli
