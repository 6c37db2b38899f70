// bench/uts_hrf_experiment.cpp — canopy_bench_uts_hrf: the HRF paper's UTS experiment (Hower et al.,
// §8; notes/scopes-hrf-rsp.md §2.3-2.4) on canopy's emulator.
//
// 1. Scales T1, T2, T4 and T5 to about 125K nodes (--quick: about 2,000). First the depth limit -d: every
//    -d from 1 to the published one is traversed with the sequential reference and the closest count is
//    taken (ties: the larger -d). -d moves a tree by 2-4x per step, so when that is more than 10% off,
//    the root branching factor -b is then tuned in steps of 0.05 within +-1 of the published value, at
//    the chosen -d and its neighbours (closest count wins; ties: the -b nearest the published one).
// 2. Runs each scaled tree under every policy, for --seeds seeds, on the "hrf8" virtual device (the
//    paper's 8-CU GPU) with the scoped-cache model on the deterministic scheduler in simulated-time
//    order (emu::options::timed), each SHA-1 declaring --compute-cycles of computation; checks node,
//    depth and leaf counts against the reference (any difference: exit 1, no numbers printed).
// 3. Reports the simulated makespan, busiest-CU cycles, flushes, invalidations, donations, steals and
//    tasks (means over seeds), the speedup of each policy over hrf-direct (makespan_direct /
//    makespan_policy, per seed, then mean, min and max), and the Pearson correlation between
//    hrf-indirect's speedup and its donation count, across trees (means) and across every (tree, seed)
//    run. Writes hrf_experiment.md and hrf_experiment.json into --out; bench/plot_hrf_experiment.py turns
//    the JSON into hrf_experiment.png.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/options.hpp"
#include "canopy/emulator/trace.hpp"
#include "canopy/emulator/virtual_device.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/uts/compiled_runs.hpp"
#include "canopy/workloads/uts/uts.hpp"
#include "table_format.hpp"

namespace {

namespace rt = canopy::runtime;
namespace uts = canopy::workloads::uts;
using u64 = std::uint64_t;

struct scaled_tree {
    std::string name;      // "T1"
    std::string published; // the published flags
    int published_d = 0;
    int d = 0;                     // the chosen depth limit
    std::string flags;             // the published flags with -d (and maybe -b) replaced
    double published_b = 0, b = 0; // root branching factor: published, chosen
    uts::params p;
    uts::counts ref;
    bool near = true; // within 25% of the target
};

struct run_result {
    rt::policy pol{};
    u64 seed = 0;
    uts::counts c;
    rt::stats s;
    canopy::emu::memory_counters mem;
    double wall = 0;
};

struct too_big {};

std::string fmt_b(double b) { // 4 -> "4", 4.35 -> "4.35"
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", b);
    std::string t = buf;
    while (t.back() == '0') {
        t.pop_back();
    }
    if (t.back() == '.') {
        t.pop_back();
    }
    return t;
}

/// The published flags with "-d N" replaced by "-d d" and, when b > 0, "-b B" by "-b b".
std::string with_depth(const std::string& flags, int d, double b = 0) {
    std::vector<std::string> tok = uts::split_flags(flags);
    std::string out;
    for (std::size_t i = 0; i < tok.size(); ++i) {
        if (tok[i] == "-d" && i + 1 < tok.size()) {
            tok[i + 1] = std::to_string(d);
        }
        if (b > 0 && tok[i] == "-b" && i + 1 < tok.size()) {
            tok[i + 1] = fmt_b(b);
        }
        out += (out.empty() ? "" : " ") + tok[i];
    }
    return out;
}

/// Reference counts of `p`, or nothing when the tree exceeds `cap` nodes (the traversal stops early).
std::optional<uts::counts> reference_capped(const uts::params& p, u64 cap) {
    try {
        return uts::traverse_sequential(
            p,
            [cap](const uts::counts& c) {
                if (c.nodes > cap) {
                    throw too_big{};
                }
            },
            1u << 14);
    } catch (const too_big&) {
        return std::nullopt;
    }
}

scaled_tree scale(const char* name, u64 target) {
    const uts::sample_tree* t = uts::find_sample_tree(name);
    scaled_tree st;
    st.name = name;
    st.published = t->flags;
    st.published_d = uts::parse_flags(st.published).gen_mx;
    st.published_b = uts::parse_flags(st.published).b0;
    st.b = st.published_b;
    u64 best_diff = ~u64{0};
    // Every -d up to the published one (a CYCLIC tree need not grow monotonically with -d). Trees far
    // above the target are cut off early: they cannot be the closest.
    for (int d = 1; d <= st.published_d; ++d) {
        const std::string f = with_depth(st.published, d);
        const uts::params p = uts::parse_flags(f);
        const std::optional<uts::counts> c = reference_capped(p, 4 * target);
        if (!c) {
            continue;
        }
        const u64 diff = c->nodes > target ? c->nodes - target : target - c->nodes;
        if (diff <= best_diff) {
            best_diff = diff;
            st.d = d;
            st.flags = f;
            st.p = p;
            st.ref = *c;
        }
    }
    if (st.d == 0) { // every -d overshoots 4x the target: take -d 1 anyway
        st.d = 1;
        st.flags = with_depth(st.published, 1);
        st.p = uts::parse_flags(st.flags);
        st.ref = uts::traverse_sequential(st.p);
    }
    // -d alone is coarse: tune -b (a real number) near the published one when more than 10% off.
    if (static_cast<double>(best_diff) > 0.10 * static_cast<double>(target)) {
        const int d0 = st.d;
        double best_db = 1e9;
        for (int d = d0 - 1; d <= d0 + 1; ++d) {
            if (d < 1 || d > st.published_d) {
                continue;
            }
            for (int k = -20; k <= 20; ++k) {
                const double b = st.published_b + 0.05 * k;
                if (b < 1.05) {
                    continue;
                }
                const std::string f = with_depth(st.published, d, b);
                const uts::params p = uts::parse_flags(f);
                const std::optional<uts::counts> c = reference_capped(p, 2 * target);
                if (!c) {
                    continue;
                }
                const u64 diff = c->nodes > target ? c->nodes - target : target - c->nodes;
                const double db = std::abs(b - st.published_b);
                if (diff < best_diff || (diff == best_diff && db < best_db)) {
                    best_diff = diff;
                    best_db = db;
                    st.d = d;
                    st.b = b;
                    st.flags = f;
                    st.p = p;
                    st.ref = *c;
                }
            }
        }
    }
    st.near = static_cast<double>(best_diff) <= 0.25 * static_cast<double>(target);
    return st;
}

/// hrf8 with `block` work-items per work-group and as many resident work-groups per CU as keep four
/// wave64 sub-groups there: one per SIMD. Timed scheduling gives every sub-group its own clock, i.e. its
/// own issue slot, which is right only while a CU holds no more waves than it has SIMDs.
canopy::emu::virtual_device hrf8_with(unsigned block) {
    canopy::emu::virtual_device d = canopy::emu::preset("hrf8");
    d.blocks_per_cu = std::max(1u, 4u / (block / 64u));
    return d;
}

// The runtime core the experiment runs (--queues): the HRF paper's locked queues by default, which is
// what its Fig. 9 describes; ring for the default core of canopy's runtime (docs/runtime.md).
rt::queue_design g_queues = rt::queue_design::locked;
// --trace-dir: where each run writes its timeline (empty: no timelines).
std::string g_trace_dir;

run_result run_one(const scaled_tree& t, rt::policy pol, u64 seed, unsigned compute_cycles, unsigned block) {
    canopy::emu::options o;
    o.device = hrf8_with(block);
    o.scheduler = canopy::emu::scheduler_kind::deterministic;
    o.memory_model = canopy::emu::memory_model_kind::scoped;
    o.timed = true; // simulated-time order: the makespan models the duration
    o.seed = seed;
    canopy::emu::scoped_options so(o);
    if (!g_trace_dir.empty()) {
        canopy::emu::trace_open(g_trace_dir + "/" + t.name + "-" + rt::to_string(pol) + "-" +
                                rt::to_string(g_queues) + "-seed" + std::to_string(seed) + ".json");
    }
    run_result r;
    r.pol = pol;
    r.seed = seed;
    const auto t0 = std::chrono::steady_clock::now();
    rt::config cfg = uts::default_config(pol, block);
    cfg.queues = g_queues;
    const uts::runtime_result rr = uts::compiled::traverse_runtime(t.p, cfg, compute_cycles);
    r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.c = rr.c;
    r.s = rr.stats;
    r.mem = canopy::emu::last_report().memory;
    if (!g_trace_dir.empty()) {
        const canopy::emu::trace_summary ts = canopy::emu::trace_close();
        if (!ts.note.empty()) {
            std::fprintf(stderr, "%s: %s\n", ts.path.c_str(), ts.note.c_str());
        }
    }
    return r;
}

std::optional<double> pearson(const std::vector<double>& x, const std::vector<double>& y) {
    const std::size_t n = x.size();
    if (n < 2) {
        return std::nullopt;
    }
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < n; ++i) {
        mx += x[i];
        my += y[i];
    }
    mx /= static_cast<double>(n);
    my /= static_cast<double>(n);
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (sxx <= 0 || syy <= 0) {
        return std::nullopt;
    }
    return sxy / std::sqrt(sxx * syy);
}

using canopy::bench::fmt_f;
using canopy::bench::fmt_u;

struct summary { // one (tree, policy) over seeds
    double speedup_mean = 0, speedup_min = 0, speedup_max = 0;
    double makespan = 0, cycles_max_cu = 0, flushes_own = 0, flushes_remote = 0, inv_own = 0, inv_remote = 0;
    double donations = 0, steals = 0, tasks = 0;
};

double speedup_of(const run_result& direct, const run_result& r) {
    return r.s.cycles_makespan
               ? static_cast<double>(direct.s.cycles_makespan) / static_cast<double>(r.s.cycles_makespan)
               : 0.0;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"canopy_bench_uts_hrf: the HRF paper's UTS experiment (scaled T1, T2, T4, T5; every "
                 "policy on the hrf8 virtual device with the scoped-cache model, in simulated-time order)"};
    bool quick = false;
    std::string out_dir = ".";
    u64 seed = 1;
    unsigned seeds = 2;
    unsigned compute = uts::sha1_model_cycles;
    u64 target_opt = 0;
    unsigned block = 256; // four sub-groups share a work-group queue: the paper's three-level hierarchy
    app.add_flag("--quick", quick, "trees of about 2,000 nodes and one seed (a smoke run)");
    app.add_option("--out", out_dir, "directory for hrf_experiment.md and hrf_experiment.json")
        ->capture_default_str();
    app.add_option("--target", target_opt,
                   "nodes to aim for per tree (default 125000 as in the paper; --quick: 2000)");
    app.add_option("--seed", seed, "the first seed of the deterministic scheduler")->capture_default_str();
    app.add_option("--seeds", seeds, "seeds per (tree, policy): seed, seed+1, ... (--quick: 1)")
        ->check(CLI::Range(1u, 100u))
        ->capture_default_str();
    app.add_option("--compute-cycles", compute,
                   "simulated cycles one SHA-1 compression costs a sub-group (0: memory costs only)")
        ->capture_default_str();
    app.add_option("--block-size", block,
                   "work-items per work-group: 64 (one sub-group; 4 work-groups per CU) or 256 (four "
                   "sub-groups sharing a work-group queue; 1 per CU)")
        ->check(CLI::IsMember({64u, 128u, 256u}))
        ->capture_default_str();
    std::vector<std::string> tree_names = {"T1", "T2", "T4", "T5"};
    app.add_option("--trees", tree_names, "trees to run (a subset of T1 T2 T4 T5)")
        ->check(CLI::IsMember({"T1", "T2", "T4", "T5"}))
        ->capture_default_str();
    std::vector<std::string> policy_names;
    app.add_option("--policies", policy_names,
                   "policies to run besides hrf-direct, which every speedup needs (default: all)")
        ->check(CLI::IsMember({"hrf-direct", "hrf-indirect", "steal-emulated", "steal-rsp"}));
    std::string queues_name = "locked";
    app.add_option("--queues", queues_name,
                   "runtime core: locked (the HRF paper's Fig. 9: a lock word per queue, threshold donation) "
                   "or ring (canopy's default core: lock-free rings, work shared on demand)")
        ->check(CLI::IsMember({"locked", "ring"}))
        ->capture_default_str();
    app.add_option("--trace-dir", g_trace_dir,
                   "write each run's timeline (Chrome trace-event JSON, simulated cycles; docs/emulator.md "
                   "'Timeline') into this existing directory, one file per run")
        ->check(CLI::ExistingDirectory);
    CLI11_PARSE(app, argc, argv);
    g_queues = rt::parse_queue_design(queues_name);
    if (quick && app.count("--seeds") == 0) {
        seeds = 1;
    }

    const u64 target = target_opt ? target_opt : quick ? 2000 : 125000;
    const auto t_start = std::chrono::steady_clock::now();
    std::printf(
        "canopy_bench_uts_hrf: target %s nodes per tree, device hrf8 (work-groups of %u), %s core, "
        "scoped-cache model, deterministic scheduler in simulated-time order, seeds %llu..%llu, %u cycles "
        "per SHA-1\n\n",
        fmt_u(target).c_str(), block, rt::to_string(g_queues), static_cast<unsigned long long>(seed),
        static_cast<unsigned long long>(seed + seeds - 1), compute);

    // ---- 1. scale the trees ----
    std::vector<scaled_tree> trees;
    std::printf("%-4s %-52s %10s %6s %10s\n", "tree", "scaled flags", "nodes", "depth", "leaves");
    for (const std::string& name : tree_names) {
        scaled_tree t = scale(name.c_str(), target);
        std::printf("%-4s %-52s %10s %6d %10s%s\n", t.name.c_str(), t.flags.c_str(),
                    fmt_u(t.ref.nodes).c_str(), t.ref.depth, fmt_u(t.ref.leaves).c_str(),
                    t.near ? "" : "  (more than 25% from the target: closest used)");
        trees.push_back(std::move(t));
    }
    std::printf("\n");
    std::fflush(stdout);

    // ---- 2. every tree under every policy and seed ----
    // hrf-direct first: speedups divide by it (results[i][0]).
    std::vector<rt::policy> policies;
    for (rt::policy pol : rt::all_policies) {
        if (pol == rt::policy::hrf_direct || policy_names.empty() ||
            std::find(policy_names.begin(), policy_names.end(), rt::to_string(pol)) != policy_names.end()) {
            policies.push_back(pol);
        }
    }
    const std::size_t npol = policies.size();
    // results[tree][policy][seed]
    std::vector<std::vector<std::vector<run_result>>> results(trees.size(),
                                                              std::vector<std::vector<run_result>>(npol));
    for (std::size_t i = 0; i < trees.size(); ++i) {
        for (std::size_t k = 0; k < npol; ++k) {
            for (unsigned sd = 0; sd < seeds; ++sd) {
                const rt::policy pol = policies[k];
                run_result r = run_one(trees[i], pol, seed + sd, compute, block);
                std::fprintf(stderr, "  %s %-15s seed %llu  %.1f s\n", trees[i].name.c_str(),
                             rt::to_string(pol), static_cast<unsigned long long>(seed + sd), r.wall);
                if (!(r.c == trees[i].ref)) {
                    std::printf("FAIL: %s under %s (seed %llu): the runtime's node/depth/leaf counts differ "
                                "from the sequential reference\n",
                                trees[i].name.c_str(), rt::to_string(pol),
                                static_cast<unsigned long long>(seed + sd));
                    return 1;
                }
                results[i][k].push_back(r);
            }
        }
    }
    const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();

    // ---- 3. speedups, correlations, table, JSON ----
    std::vector<double> x_don_mean, y_speed_mean, x_don_all, y_speed_all;
    nlohmann::json j;
    j["experiment"] = "HRF UTS (Hower et al. ASPLOS 2014, section 8) on canopy's emulator";
    j["device"] = "hrf8";
    j["memory_model"] = "scoped";
    j["scheduler"] = "deterministic, simulated-time order";
    j["first_seed"] = seed;
    j["seeds"] = seeds;
    j["compute_cycles_per_sha1"] = compute;
    j["block_size"] = block;
    j["workgroups_per_cu"] = hrf8_with(block).blocks_per_cu;
    j["quick"] = quick;
    j["target_nodes"] = target;
    j["wall_seconds"] = total_s;
    j["speedup_definition"] =
        "cycles_makespan(hrf-direct) / cycles_makespan(policy), same seed; mean over seeds";
    std::vector<std::string> pol_names;
    for (rt::policy pol : policies) {
        pol_names.push_back(rt::to_string(pol));
    }
    j["policies"] = pol_names;
    j["trees"] = nlohmann::json::array();

    std::ostringstream md;
    md << "| tree | flags | nodes | policy | makespan (cycles) | speedup vs hrf-direct [min, max] | "
          "busiest CU (cycles) | flushes (own/remote) | invalidations (own/remote) | donations | steals |\n";
    md << "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n";
    for (std::size_t i = 0; i < trees.size(); ++i) {
        const scaled_tree& t = trees[i];
        // The tree as run (scaled to the emulator) and as the UTS paper published it.
        nlohmann::json jt = {
            {"name", t.name}, {"flags", t.flags}, {"d", t.d}, {"b", t.b}, {"near_target", t.near}};
        jt["published"] = {{"flags", t.published}, {"d", t.published_d}, {"b", t.published_b}};
        jt["nodes"] = t.ref.nodes; // the sequential reference's counts (what every run must match)
        jt["reference"] = {{"depth", t.ref.depth}, {"leaves", t.ref.leaves}};
        jt["policies"] = nlohmann::json::array();
        for (std::size_t k = 0; k < npol; ++k) {
            summary sm;
            sm.speedup_min = 1e300;
            sm.speedup_max = 0;
            nlohmann::json jp;
            jp["policy"] = rt::to_string(policies[k]);
            jp["runs"] = nlohmann::json::array();
            for (unsigned sd = 0; sd < seeds; ++sd) {
                const run_result& r = results[i][k][sd];
                const double sp = speedup_of(results[i][0][sd], r);
                sm.speedup_mean += sp / seeds;
                sm.speedup_min = std::min(sm.speedup_min, sp);
                sm.speedup_max = std::max(sm.speedup_max, sp);
                sm.makespan += static_cast<double>(r.s.cycles_makespan) / seeds;
                sm.cycles_max_cu += static_cast<double>(r.s.cycles_max_cu) / seeds;
                sm.flushes_own += static_cast<double>(r.mem.flushes_own) / seeds;
                sm.flushes_remote += static_cast<double>(r.mem.flushes_remote) / seeds;
                sm.inv_own += static_cast<double>(r.mem.invalidations_own) / seeds;
                sm.inv_remote += static_cast<double>(r.mem.invalidations_remote) / seeds;
                sm.donations += static_cast<double>(r.s.donations()) / seeds;
                sm.steals += static_cast<double>(r.s.steals_received) / seeds;
                sm.tasks += static_cast<double>(r.s.total_tasks()) / seeds;
                if (r.pol == rt::policy::hrf_indirect) {
                    x_don_all.push_back(static_cast<double>(r.s.donations()));
                    y_speed_all.push_back(sp);
                }
                nlohmann::json jr;
                jr["seed"] = r.seed;
                jr["speedup_vs_direct"] = sp;
                // Every stats field through runtime::stats' one list (the CLI prints the same names),
                // then the emulator's split of flushes and invalidations by who caused them.
                r.s.for_each_field([&](const std::string& name, unsigned long long v) { jr[name] = v; });
                jr["donations"] = r.s.donations();
                jr["flushes_own"] = r.mem.flushes_own;
                jr["flushes_remote"] = r.mem.flushes_remote;
                jr["invalidations_own"] = r.mem.invalidations_own;
                jr["invalidations_remote"] = r.mem.invalidations_remote;
                jr["wall_seconds"] = r.wall;
                jp["runs"].push_back(jr);
            }
            if (policies[k] == rt::policy::hrf_indirect) {
                x_don_mean.push_back(sm.donations);
                y_speed_mean.push_back(sm.speedup_mean);
            }
            jp["speedup_mean"] = sm.speedup_mean;
            jp["speedup_min"] = sm.speedup_min;
            jp["speedup_max"] = sm.speedup_max;
            jp["makespan_mean"] = sm.makespan;
            jp["cycles_max_cu_mean"] = sm.cycles_max_cu;
            jp["donations_mean"] = sm.donations;
            jp["steals_mean"] = sm.steals;
            jp["flushes_own_mean"] = sm.flushes_own;
            jp["invalidations_own_mean"] = sm.inv_own;
            jt["policies"].push_back(jp);
            const auto r0 = [](double v) { return fmt_u(static_cast<u64>(std::llround(v))); };
            md << "| " << t.name << " | `" << t.flags << "` | " << fmt_u(t.ref.nodes) << " | "
               << rt::to_string(policies[k]) << " | " << r0(sm.makespan) << " | " << fmt_f(sm.speedup_mean, 3)
               << " [" << fmt_f(sm.speedup_min, 3) << ", " << fmt_f(sm.speedup_max, 3) << "] | "
               << r0(sm.cycles_max_cu) << " | " << r0(sm.flushes_own) << " / " << r0(sm.flushes_remote)
               << " | " << r0(sm.inv_own) << " / " << r0(sm.inv_remote) << " | " << r0(sm.donations) << " | "
               << r0(sm.steals) << " |\n";
        }
        j["trees"].push_back(jt);
    }
    const std::optional<double> corr = pearson(x_don_mean, y_speed_mean);
    const std::optional<double> corr_all = pearson(x_don_all, y_speed_all);
    j["pearson_indirect_speedup_vs_donations"] = corr ? nlohmann::json(*corr) : nlohmann::json(nullptr);
    j["pearson_indirect_speedup_vs_donations_all_runs"] =
        corr_all ? nlohmann::json(*corr_all) : nlohmann::json(nullptr);
    md << "\nPearson correlation between hrf-indirect's speedup over hrf-direct and its donation count: "
       << (corr ? fmt_f(*corr, 3) : std::string("undefined"))
       << " across trees (means, n = " << x_don_mean.size() << "); "
       << (corr_all ? fmt_f(*corr_all, 3) : std::string("undefined"))
       << " across every (tree, seed) run (n = " << x_don_all.size() << ").\n";

    std::string header =
        "Device hrf8 (8 CUs), work-groups of " + std::to_string(block) + " (" +
        std::to_string(hrf8_with(block).blocks_per_cu) +
        " per CU), scoped-cache model, deterministic scheduler in simulated-time order, seeds " +
        std::to_string(seed) + ".." + std::to_string(seed + seeds - 1) + ", " + std::to_string(compute) +
        " cycles per SHA-1" + (quick ? ", --quick" : "") +
        ". Speedup = makespan(hrf-direct) / makespan(policy) for the same seed; mean [min, max] over seeds; "
        "other columns are means. Trees scaled from the published T1, T2, T4, T5 (target " +
        fmt_u(target) + " nodes); counts verified against the sequential reference.\n\n";
    const std::string table = header + md.str();
    std::printf("%s", table.c_str());
    std::printf("\n(%.1f s wall)\n", total_s);

    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    const std::filesystem::path dir(out_dir);
    std::ofstream fm(dir / "hrf_experiment.md");
    fm << "# HRF UTS experiment\n\n" << table;
    std::ofstream fj(dir / "hrf_experiment.json");
    fj << j.dump(2) << "\n";
    if (!fm || !fj) {
        std::fprintf(stderr, "canopy_bench_uts_hrf: cannot write into '%s'\n", out_dir.c_str());
        return 1;
    }
    std::printf("wrote %s and %s\n", (dir / "hrf_experiment.md").string().c_str(),
                (dir / "hrf_experiment.json").string().c_str());
    return 0;
}
