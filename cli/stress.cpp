// canopy stress: schedule sweeps. Small workloads -- checksummed task trees, an unbalanced fan-out, a
// UTS tree, a graph BFS, the sync primitives -- run over a range of seeds on the deterministic scheduler
// with the scoped-cache model, under every policy, each run checked against its own oracle (a task lost,
// run twice or seen with a stale payload; wrong counts or levels; a deadlock or a failed kernel). It
// prints throughput (runs/s), and for each workload and policy the first failing seed with the command
// that replays it (docs/stress.md).
//
// Why sweeps: the protocols' bugs show on one interleaving in thousands. A unit test runs a handful of
// seeds; a sweep runs as many as the time allows, in a uniform random order or in PCT order
// (--order pct: emu::options::pct_depth), which finds an ordering bug of depth d with a probability
// that does not shrink with the run's length. --jobs forks worker processes (the deterministic
// scheduler is one OS thread, so a sweep parallelizes by seeds).
//
// Emulator only (like litmus): the sweep is a property of the deterministic scheduler.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/options.hpp"
#include "canopy/emulator/trace.hpp"
#include "canopy/platform/error.hpp"
#include "canopy/platform/platform.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/sync/discovery.hpp"
#include "canopy/sync/persistent.hpp"
#include "canopy/sync/ticket_mutex.hpp"
#include "canopy/sync/xf_barrier.hpp"
#include "canopy/workloads/checked_tasks.hpp"
#include "canopy/workloads/graph/compiled_runs.hpp"
#include "canopy/workloads/graph/generate.hpp"
#include "canopy/workloads/graph/problems.hpp"
#include "canopy/workloads/graph/reference.hpp"
#include "canopy/workloads/graph/strategies.hpp"
#include "canopy/workloads/graph/validate.hpp"
#include "canopy/workloads/uts/compiled_runs.hpp"
#include "canopy/workloads/uts/uts.hpp"
#include "commands.hpp"

namespace canopy::cli {

namespace {

namespace rt = canopy::runtime;
namespace chk = canopy::workloads::checked;
namespace g = canopy::workloads::graph;
namespace uts = canopy::workloads::uts;

// ---- the workloads: each returns "" when the run matched its oracle, else what gave it away ---------

// A task set's configuration for the sweeps: small queues so that donation, the device queue and
// (with an unbalanced load) stealing all happen within a few hundred tasks, as the runtime's teeth
// tests run them (tests/runtime/test_runtime.cpp).
// The runtime core every runtime workload runs on (--queues; the workloads take only the policy).
rt::queue_design g_queues = rt::queue_design::ring;

rt::config task_config(rt::policy p, unsigned n) {
    rt::config c;
    c.policy = p;
    c.queues = g_queues;
    c.block = 32;
    c.staging_capacity = n;
    c.device_threshold = 8;
    return c;
}

std::string check_tree(const chk::tree_result& r, unsigned n) {
    if (r.bad_checksum) {
        return fmt::format("stale payload: {} task(s) saw a bad checksum", r.bad_checksum);
    }
    if (r.bad_id) {
        return fmt::format("stale payload: {} task(s) saw an id out of range", r.bad_id);
    }
    for (unsigned i = 0; i < r.executions.size(); ++i) {
        if (r.executions[i] != 1) {
            return fmt::format("{} task: id {} ran {} times", r.executions[i] == 0 ? "lost" : "duplicated", i,
                               r.executions[i]);
        }
    }
    if (r.stats.total_tasks() != n || r.stats.tasks_spawned != n - 1) {
        return fmt::format("the runtime counted {} tasks run and {} spawned (expected {} and {})",
                           r.stats.total_tasks(), r.stats.tasks_spawned, n, n - 1);
    }
    return "";
}

constexpr unsigned tree_tasks = 160;

std::string run_tree(rt::policy p) {
    return check_tree(chk::run_tree(task_config(p, tree_tasks), tree_tasks, 3, false), tree_tasks);
}

std::string run_fanout(rt::policy p) {
    // One task spawns all the others: the other work-groups can get work only by donation or stealing.
    return check_tree(chk::run_tree(task_config(p, tree_tasks), tree_tasks, 0, true), tree_tasks);
}

// A binomial UTS tree of 169 nodes, depth 8 (root branching 40, q 0.2, m 4): unbalanced, and small
// enough for thousands of runs a minute.
constexpr const char* uts_flags = "-t 0 -b 40 -q 0.2 -m 4 -r 42";

std::string run_uts(rt::policy p) {
    static const uts::params params = uts::parse_flags(uts_flags);
    static const uts::counts expected = uts::traverse_sequential(params);
    rt::config c = uts::default_config(p, 32);
    c.queues = g_queues;
    const uts::runtime_result r = uts::compiled::traverse_runtime(params, c);
    if (!(r.c == expected)) {
        return fmt::format("UTS counts nodes={} leaves={} depth={} (the sequential reference: {} {} {})",
                           r.c.nodes, r.c.leaves, r.c.depth, expected.nodes, expected.leaves, expected.depth);
    }
    return "";
}

// BFS on a Kronecker graph of 2^6 vertices with the tasks strategy (asynchronous label-correcting on
// the runtime), checked level by level against the sequential reference and by Graph500's rules.
std::string run_bfs(rt::policy p) {
    static const g::csr_graph graph = g::make_kronecker({.scale = 6, .edge_factor = 8, .seed = 3}).graph;
    static const g::vertex_id source = graph.max_degree_vertex();
    static const g::bfs_result expected = g::reference_bfs(graph, source);
    g::run_options o;
    o.how = g::strategy::tasks;
    o.block = 32;
    o.tasks = g::run_options::default_tasks_config(p);
    o.tasks.queues = g_queues;
    if (g_queues == rt::queue_design::locked) {
        o.tasks.order = rt::task_order::lifo; // the locked core is depth-first only
    }
    const g::device_graph dg(graph);
    const auto r = g::compiled::bfs(dg.view(), source, o);
    const auto cmp = g::compare_levels(expected.level, r.labels);
    if (!cmp.ok()) {
        return "BFS levels differ from the reference: " + cmp.summary();
    }
    const auto val = g::validate_bfs(graph, source, r.labels);
    if (!val.ok()) {
        return "BFS fails Graph500's validation: " + val.summary();
    }
    return "";
}

// The sync primitives, without the runtime: a device-scope ticket mutex guarding a counter written with
// plain accesses (a lost update or an overlap is a failure), then the XF barrier over the work-groups
// occupancy discovery found, with every group reading another's plain writes after each barrier.
std::string run_sync(rt::policy) {
    constexpr unsigned groups = 4, iters = 4;
    {
        device_buffer<sync::ticket_mutex<scope::device>> mutex(1);
        mutex.fill_zero();
        device_buffer<unsigned> mem(3);
        mem.fill_zero();
        auto* m = mutex.data();
        unsigned* w = mem.data(); // counter, inside, overlaps
        launch({.grid = groups, .block = 32}, [=] {
            if (lane_id() != 0) {
                return;
            }
            atomic_ref<unsigned, scope::device> inside(w[1]), overlaps(w[2]);
            for (unsigned k = 0; k < iters; ++k) {
                m->lock();
                // Relaxed device-scope RMWs: an overlap witness the mutex's scope cannot hide.
                if (inside.fetch_add(1, std::memory_order_relaxed) != 0) {
                    overlaps.fetch_add(1, std::memory_order_relaxed);
                }
                st(&w[0], ld(&w[0]) + 1);
                inside.fetch_sub(1, std::memory_order_relaxed);
                m->unlock();
            }
        });
        const auto h = mem.to_vector();
        if (h[2] != 0 || h[0] != groups * iters) {
            return fmt::format("ticket mutex: counter {} (expected {}), {} overlapping critical sections",
                               h[0], groups * iters, h[2]);
        }
    }
    constexpr unsigned rounds = 3, block = 32;
    const unsigned grid = 2 * max_resident_blocks<int>(block); // twice too many: discovery must trim them
    device_buffer<unsigned> data(grid * block), err(1);
    data.fill_zero();
    err.fill_zero();
    unsigned* d = data.data();
    unsigned* e = err.data();
    sync::discovery_context ctx(grid);
    sync::xf_barrier_state xf(grid);
    const auto x = xf.barrier();
    const unsigned participants = sync::launch_persistent({.grid = grid, .block = block}, ctx, [=] {
        const unsigned me = sync::p_group_id(), n = sync::p_num_groups(), t = thread_id();
        for (unsigned r = 1; r <= rounds; ++r) {
            st(&d[me * block + t], r * 65536u + me * block + t);
            x.wait();
            const unsigned other = (me + 1 + r % n) % n;
            const unsigned slot = other * block + (t + r) % block;
            if (ld(&d[slot]) != r * 65536u + slot) {
                atomic_ref<unsigned, scope::device>(*e).fetch_add(1, std::memory_order_relaxed);
            }
            x.wait(); // the next round's writes must not race with this round's reads
        }
    });
    if (participants == 0) {
        return "occupancy discovery found no work-group";
    }
    if (const unsigned stale = err.to_vector()[0]; stale != 0) {
        return fmt::format("XF barrier: {} read(s) after a barrier saw a value from before it", stale);
    }
    for (unsigned f : xf.flags()) {
        if (f != 0) {
            return "XF barrier: a flag is not back to 0 after the last episode";
        }
    }
    return "";
}

struct workload {
    const char* name;
    const char* what;
    bool per_policy; // false: the same run whatever the policy (the sync primitives)
    std::string (*run)(rt::policy);
    // The broken-* policies run on the checked tasks only: the library's UTS and BFS runs do not
    // instantiate them (task_set::run refuses them; runtime/broken_policies.hpp).
    bool runs_broken;
};

const std::vector<workload>& workloads() {
    static const std::vector<workload> w = {
        {"tree", "160 checksummed tasks, a 3-ary tree: exactly once, no stale payload", true, run_tree, true},
        {"fanout", "160 checksummed tasks spawned by one: donation and stealing", true, run_fanout, true},
        {"uts", "binomial UTS tree (169 nodes) against the sequential reference", true, run_uts, false},
        {"bfs", "tasks BFS on Kronecker SCALE 6 against the reference levels", true, run_bfs, false},
        {"sync", "ticket mutex counter and XF barrier rounds (no runtime: policy-free)", false, run_sync,
         false},
    };
    return w;
}

const workload* find_workload(const std::string& name) {
    for (const auto& w : workloads()) {
        if (name == w.name) {
            return &w;
        }
    }
    return nullptr;
}

// ---- the sweep ----------------------------------------------------------------------------------

struct stress_options {
    std::vector<std::string> workloads = {"tree", "fanout", "uts", "bfs", "sync"};
    std::vector<std::string> policies = {"hrf-direct", "hrf-indirect", "steal-emulated", "steal-rsp"};
    unsigned long long seeds = 200, first_seed = 1;
    std::string order = "uniform";
    unsigned pct_depth = 3;
    unsigned long long pct_steps = 0; // 0: calibrated per cell
    std::string device = "tiny";
    std::string scheme = "proposed";
    std::string queues = "ring";
    bool with_broken = false; // --with-broken-policies: the test-only broken-* policies may be named
    unsigned jobs = 1;
    std::string trace; // --trace: the timeline of every run of the sweep (one process: --jobs 1)
    unsigned long long trace_events = 1000000;
    bool keep_going = false;
    bool json = false;
    double progress_seconds = 10;
};

struct cell { // one workload under one policy
    const workload* w = nullptr;
    rt::policy policy = rt::policy::hrf_indirect;
    std::string policy_name; // "-" for a policy-free workload
    std::uint64_t pct_steps = 0;
    // results
    std::uint64_t runs = 0, failures = 0, steps = 0;
    double seconds = 0;
    std::optional<std::uint64_t> first_seed;
    std::string first_reason;
};

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// One run: "" when it matched its oracle.
std::string run_one(const cell& c, const emu::options& base, std::uint64_t seed, bool pct) {
    emu::options o = base;
    o.seed = seed;
    o.pct_depth = pct ? base.pct_depth : 0;
    o.pct_steps = c.pct_steps;
    const emu::scoped_options scoped(o);
    try {
        return c.w->run(c.policy);
    } catch (const device_error& e) { // deadlock (watchdog), assertion, corrupt front, queue overflow
        return "kernel failure: " + first_line(e.what());
    } catch (const std::exception& e) {
        return "run failure: " + first_line(e.what());
    }
}

std::string replay_command(const stress_options& o, const cell& c, std::uint64_t seed) {
    std::string cmd =
        fmt::format("canopy stress --workload {} --policy {} --first-seed {} --seeds 1 --device {}",
                    c.w->name, c.w->per_policy ? c.policy_name : o.policies.front(), seed, o.device);
    if (o.with_broken) {
        cmd += " --with-broken-policies";
    }
    if (o.scheme != "proposed") {
        cmd += " --scheme " + o.scheme;
    }
    if (o.queues != "ring") {
        cmd += " --queues " + o.queues;
    }
    if (o.order == "pct") {
        cmd += fmt::format(" --order pct --pct-depth {} --pct-steps {}", o.pct_depth, c.pct_steps);
    }
    return cmd;
}

// Runs the seeds first + job, first + job + jobs, ... of every cell (a forked worker's share; job 0 of
// 1: all of them). Stops a cell at its first failure unless keep_going.
void sweep(std::vector<cell>& cells, const stress_options& o, const emu::options& base, unsigned job,
           unsigned jobs) {
    const bool pct = o.order == "pct";
    const auto t_start = std::chrono::steady_clock::now();
    auto last_report = t_start;
    std::uint64_t total_runs = 0;
    const std::uint64_t planned = cells.size() * ((o.seeds + jobs - 1 - job) / jobs);
    for (auto& c : cells) {
        const auto t0 = std::chrono::steady_clock::now();
        for (std::uint64_t i = job; i < o.seeds; i += jobs) {
            const std::uint64_t seed = o.first_seed + i;
            const std::string bad = run_one(c, base, seed, pct);
            ++c.runs;
            ++total_runs;
            c.steps += emu::last_report().steps;
            if (!bad.empty()) {
                ++c.failures;
                if (!c.first_seed) {
                    c.first_seed = seed;
                    c.first_reason = bad;
                }
                if (!o.keep_going) {
                    break;
                }
            }
            const auto now = std::chrono::steady_clock::now();
            if (job == 0 && std::chrono::duration<double>(now - last_report).count() >= o.progress_seconds) {
                last_report = now;
                const double s = std::chrono::duration<double>(now - t_start).count();
                fmt::print(stderr, "canopy stress: {}/{}: {} of about {} runs{}, {:.0f} runs/s\n", c.w->name,
                           c.policy_name, total_runs * jobs, planned * jobs, jobs > 1 ? " (all jobs)" : "",
                           static_cast<double>(total_runs * jobs) / s);
            }
        }
        c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
}

// Forked workers: each sweeps its share of the seeds and writes one line per cell to a pipe.
void sweep_forked(std::vector<cell>& cells, const stress_options& o, const emu::options& base) {
    struct child {
        pid_t pid;
        int fd;
    };
    std::vector<child> children;
    std::fflush(stdout);
    std::fflush(stderr);
    for (unsigned j = 0; j < o.jobs; ++j) {
        int fds[2];
        if (pipe(fds) != 0) {
            throw canopy::error("canopy stress: pipe() failed: cannot fork the --jobs workers");
        }
        const pid_t pid = fork();
        if (pid < 0) {
            throw canopy::error("canopy stress: fork() failed: run with --jobs 1");
        }
        if (pid == 0) {
            close(fds[0]);
            std::vector<cell> mine = cells;
            sweep(mine, o, base, j, o.jobs);
            std::string out;
            for (const auto& c : mine) {
                // runs failures steps seconds first_seed(0: none) reason (the rest of the line)
                std::string reason = c.first_reason;
                std::replace(reason.begin(), reason.end(), '\n', ' ');
                out += fmt::format("{} {} {} {} {} {}\n", c.runs, c.failures, c.steps, c.seconds,
                                   c.first_seed.value_or(0), reason);
            }
            std::size_t done = 0;
            while (done < out.size()) {
                const ssize_t n = write(fds[1], out.data() + done, out.size() - done);
                if (n <= 0) {
                    _exit(3);
                }
                done += static_cast<std::size_t>(n);
            }
            close(fds[1]);
            _exit(0);
        }
        close(fds[1]);
        children.push_back({pid, fds[0]});
    }
    std::vector<std::string> outputs;
    for (const auto& ch : children) {
        std::string text;
        char buf[4096];
        for (;;) {
            const ssize_t n = read(ch.fd, buf, sizeof buf);
            if (n <= 0) {
                break;
            }
            text.append(buf, static_cast<std::size_t>(n));
        }
        close(ch.fd);
        outputs.push_back(std::move(text));
    }
    for (std::size_t j = 0; j < children.size(); ++j) {
        int status = 0;
        waitpid(children[j].pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            // A worker that died (a crash in the emulator itself) lost its share: no partial result.
            throw canopy::error(
                fmt::format("canopy stress: worker {} of {} died ({}); rerun with --jobs 1 to see "
                            "where",
                            j + 1, children.size(),
                            WIFSIGNALED(status) ? fmt::format("signal {}", WTERMSIG(status))
                                                : fmt::format("exit {}", WEXITSTATUS(status))));
        }
        std::istringstream in(outputs[j]);
        for (auto& c : cells) {
            std::uint64_t runs = 0, failures = 0, steps = 0, first = 0;
            double seconds = 0;
            std::string reason;
            if (!(in >> runs >> failures >> steps >> seconds >> first)) {
                throw canopy::error(fmt::format("canopy stress: worker {} reported no result", j + 1));
            }
            std::getline(in, reason);
            if (!reason.empty() && reason.front() == ' ') {
                reason.erase(0, 1);
            }
            c.runs += runs;
            c.failures += failures;
            c.steps += steps;
            c.seconds = std::max(c.seconds, seconds);
            if (first != 0 && (!c.first_seed || first < *c.first_seed)) {
                c.first_seed = first;
                c.first_reason = reason;
            }
        }
    }
}

int run_stress(const stress_options& o) {
    g_queues = rt::parse_queue_design(o.queues);
    emu::options base = emu::current_options();
    base.device = emu::preset(o.device);
    base.scheduler = emu::scheduler_kind::deterministic;
    base.memory_model = emu::memory_model_kind::scoped;
    base.rsp_original_scheme = o.scheme == "original";
    base.timed = false;
    base.race_check = emu::race_check_kind::none;
    base.pct_depth = o.pct_depth;

    std::vector<cell> cells;
    for (const auto& wname : o.workloads) {
        const workload* w = find_workload(wname);
        if (!w->per_policy) {
            cell c;
            c.w = w;
            c.policy_name = "-";
            cells.push_back(c);
            continue;
        }
        for (const auto& pname : o.policies) {
            cell c;
            c.w = w;
            c.policy = rt::parse_policy(pname, o.with_broken ? rt::broken_policies::accepted
                                                             : rt::broken_policies::refused);
            if ((c.policy == rt::policy::broken_donation || c.policy == rt::policy::broken_steal) &&
                !w->runs_broken) {
                fmt::print(stderr,
                           "canopy stress: {} runs on the tree and fanout workloads only; {} skipped\n",
                           pname, w->name);
                continue;
            }
            c.policy_name = pname;
            cells.push_back(c);
        }
    }
    // PCT's k: change points are drawn from a run's first k steps, so k should be about a run's length.
    // Unless given, each cell's k is the steps of one uniform-order run (seed first_seed - 1, not counted).
    if (o.order == "pct") {
        for (auto& c : cells) {
            if (o.pct_steps != 0) {
                c.pct_steps = o.pct_steps;
                continue;
            }
            (void)run_one(c, base, o.first_seed == 0 ? 1 : o.first_seed - 1, false);
            c.pct_steps = std::max<std::uint64_t>(emu::last_report().steps, 100);
        }
    }

    if (!o.trace.empty()) {
        emu::trace_open(o.trace, o.trace_events); // the sweep's runs, one after another (main writes it)
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (o.jobs > 1) {
        sweep_forked(cells, o, base);
    } else {
        sweep(cells, o, base, 0, 1);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    std::uint64_t runs = 0, failing_cells = 0;
    for (const auto& c : cells) {
        runs += c.runs;
        failing_cells += c.first_seed ? 1 : 0;
    }
    const double rate = seconds > 0 ? static_cast<double>(runs) / seconds : 0;
    const std::string order =
        o.order == "pct" ? fmt::format("PCT (depth {})", o.pct_depth) : std::string("uniform random");
    if (o.json) {
        nlohmann::json j;
        j["ok"] = failing_cells == 0;
        if (failing_cells != 0) {
            j["reason"] = fmt::format("{} workload/policy pair(s) failed", failing_cells);
        }
        j["device"] = o.device;
        j["scheme"] = o.scheme;
        j["order"] = o.order;
        if (o.order == "pct") {
            j["pct_depth"] = o.pct_depth;
        }
        j["first_seed"] = o.first_seed;
        j["seeds"] = o.seeds;
        j["jobs"] = o.jobs;
        j["runs"] = runs;
        j["seconds"] = seconds;
        j["runs_per_second"] = rate;
        for (const auto& c : cells) {
            nlohmann::json jc{
                {"workload", c.w->name},
                {"policy", c.policy_name},
                {"runs", c.runs},
                {"failures", c.failures},
                {"steps_per_run", c.runs ? c.steps / c.runs : 0},
                {"runs_per_second", c.seconds > 0 ? static_cast<double>(c.runs) / c.seconds : 0}};
            if (o.order == "pct") {
                jc["pct_steps"] = c.pct_steps;
            }
            if (c.first_seed) {
                jc["first_failure"] = {{"seed", *c.first_seed},
                                       {"reason", c.first_reason},
                                       {"replay", replay_command(o, c, *c.first_seed)}};
            }
            j["cells"].push_back(jc);
        }
        fmt::print("{}\n", j.dump(2));
        return failing_cells == 0 ? 0 : 1;
    }
    fmt::print("canopy stress: seeds {}..{} per workload and policy, device {}, scoped-cache model ({}), {} "
               "order{}\n",
               o.first_seed, o.first_seed + o.seeds - 1, o.device, o.scheme, order,
               o.jobs > 1 ? fmt::format(", {} jobs", o.jobs) : std::string());
    fmt::print("{:<8} {:<16} {:>9} {:>9} {:>10} {:>9}  {}\n", "workload", "policy", "runs", "failures",
               "steps/run", "runs/s", "first failure");
    for (const auto& c : cells) {
        fmt::print("{:<8} {:<16} {:>9} {:>9} {:>10} {:>9.1f}  {}\n", c.w->name, c.policy_name, c.runs,
                   c.failures, c.runs ? c.steps / c.runs : 0,
                   c.seconds > 0 ? static_cast<double>(c.runs) / c.seconds : 0.0,
                   c.first_seed ? fmt::format("seed {}", *c.first_seed) : std::string("-"));
    }
    for (const auto& c : cells) {
        if (c.first_seed) {
            fmt::print("FAIL {}/{}: seed {}: {}\n  replay: {}\n", c.w->name, c.policy_name, *c.first_seed,
                       c.first_reason, replay_command(o, c, *c.first_seed));
        }
    }
    fmt::print("total: {} runs in {:.1f} s ({:.1f} runs/s){}\n", runs, seconds, rate,
               failing_cells ? fmt::format(", {} workload/policy pair(s) FAILED", failing_cells)
                             : std::string(", every run matched its oracle"));
    return failing_cells == 0 ? 0 : 1;
}

} // namespace

action add_stress(CLI::App& app) {
    auto o = std::make_shared<stress_options>();
    CLI::App* sub = app.add_subcommand(
        "stress", "schedule sweeps: small workloads over many seeds on the deterministic scheduler with the "
                  "scoped-cache model, every policy, each run checked against its oracle (docs/stress.md)");
    std::vector<std::string> wnames;
    std::string wlist;
    for (const auto& w : workloads()) {
        wnames.emplace_back(w.name);
        wlist += fmt::format("\n  {:<7} {}", w.name, w.what);
    }
    sub->add_option("--workload", o->workloads, "workloads to sweep, comma-separated:" + wlist)
        ->delimiter(',')
        ->check(CLI::IsMember(wnames))
        ->default_str("tree,fanout,uts,bfs,sync");
    sub->add_option("--policy", o->policies,
                    "policies, comma-separated (hrf-direct, hrf-indirect, steal-emulated, steal-rsp; with "
                    "--with-broken-policies also the deliberately broken broken-donation and broken-steal, "
                    "which show what a finding looks like)")
        ->delimiter(',')
        ->check(CLI::IsMember(
            {"hrf-direct", "hrf-indirect", "steal-emulated", "steal-rsp", "broken-donation", "broken-steal"}))
        ->default_str("hrf-direct,hrf-indirect,steal-emulated,steal-rsp");
    add_queues_flag(*sub, o->queues,
                    "runtime core of the runtime workloads: ring (the default) or locked (the HRF paper's)");
    sub->add_option("--seeds", o->seeds, "seeds per workload and policy")
        ->check(CLI::Range(1ull, 1ull << 40))
        ->default_val(o->seeds);
    sub->add_option("--first-seed", o->first_seed, "the first seed (a failure's replay command sets it)")
        ->check(CLI::Range(1ull, 1ull << 62))
        ->default_val(o->first_seed);
    sub->add_option("--order", o->order,
                    "the deterministic scheduler's order: uniform (a random work-item at every step) or pct "
                    "(random priorities with depth-1 change points: probabilistic concurrency testing)")
        ->check(CLI::IsMember({"uniform", "pct"}))
        ->default_val(o->order);
    sub->add_option("--pct-depth", o->pct_depth,
                    "--order pct: the bug depth d (d - 1 priority change points)")
        ->check(CLI::Range(1u, 64u))
        ->default_val(o->pct_depth);
    sub->add_option("--pct-steps", o->pct_steps,
                    "--order pct: change points are drawn from the first K steps of a launch (0: K is one "
                    "uniform run's steps, per workload and policy)")
        ->default_val(o->pct_steps);
    std::vector<std::string> presets;
    for (const auto& p : emulator_presets()) {
        presets.push_back(p.name);
    }
    sub->add_option("--device", o->device, "virtual device preset (see 'canopy info')")
        ->check(CLI::IsMember(presets))
        ->default_val(o->device);
    sub->add_option("--scheme", o->scheme,
                    "scoped model: RSP compilation scheme, proposed (sound) or original")
        ->check(CLI::IsMember({"proposed", "original"}))
        ->default_val(o->scheme);
    sub->add_option("--jobs", o->jobs, "worker processes (the seeds are split among them)")
        ->check(CLI::Range(1u, 256u))
        ->default_val(o->jobs);
    sub->add_option(
           "--trace", o->trace,
           "write a timeline of the sweep's runs to FILE (Chrome trace-event JSON, scheduler steps; "
           "docs/emulator.md 'Timeline'): best on one run, a failure's replay command; needs --jobs 1")
        ->type_name("FILE");
    sub->add_option("--trace-events", o->trace_events,
                    "--trace: events the file holds at most; past it spans are aggregated into time windows")
        ->default_val(o->trace_events)
        ->check(CLI::PositiveNumber);
    sub->add_flag(
        "--with-broken-policies", o->with_broken,
        "test-only: let --policy name broken-donation and broken-steal, which drop a synchronization "
        "on purpose (docs/stress.md)");
    sub->parse_complete_callback([o] {
        for (const auto& p : o->policies) {
            if (p.rfind("broken-", 0) == 0 && !o->with_broken) {
                throw CLI::ValidationError("--policy " + p +
                                           " is broken on purpose, for tests: add --with-broken-policies");
            }
        }
        if (!o->trace.empty()) {
            if (o->jobs > 1) {
                throw CLI::ValidationError("--trace records the runs of one process: use --jobs 1");
            }
            check_trace_path(o->trace);
        }
    });
    sub->add_flag("--keep-going", o->keep_going,
                  "run every seed of a failing workload and policy (default: stop it at its first failure)");
    sub->add_flag("--json", o->json,
                  "print one JSON object (\"ok\": false and the reason when a run failed)");
    return [o] { return run_stress(*o); };
}

} // namespace canopy::cli
