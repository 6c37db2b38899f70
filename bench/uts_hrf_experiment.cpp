// bench/uts_hrf_experiment.cpp — canopy_bench_uts_hrf: the HRF paper's UTS experiment (Hower et al.,
// §8; notes/scopes-hrf-rsp.md §2.3-2.4) on canopy's emulator.
//
// 1. Scales T1, T2, T4 and T5 to about 125K nodes (--quick: about 2,000) by reducing the depth limit -d
//    only: for each tree, every -d from 1 to the published one is traversed with the sequential reference
//    and the -d whose node count is closest to the target is chosen (ties: the larger -d).
// 2. Runs each scaled tree under every policy on the "hrf8" virtual device (the paper's 8-CU GPU) with the
//    scoped-cache model on the deterministic scheduler, and checks node, depth and leaf counts against the
//    reference (any difference: exit 1, no numbers printed).
// 3. Reports simulated cycles (busiest CU), flushes, invalidations, donations, steals and tasks, the
//    speedup of each policy over hrf-direct (cycles_direct / cycles_policy), and the Pearson correlation,
//    across trees, between hrf-indirect's speedup and its donation count. Writes hrf_experiment.md and
//    hrf_experiment.json into --out; bench/plot_hrf_experiment.py turns the JSON into hrf_experiment.png.
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
#include "canopy/emulator/virtual_device.hpp"
#include "canopy/runtime/runtime.hpp"
#include "canopy/workloads/uts/uts.hpp"

namespace {

namespace rt = canopy::runtime;
namespace uts = canopy::workloads::uts;
using u64 = std::uint64_t;

struct scaled_tree {
    std::string name;      // "T1"
    std::string published; // the published flags
    int published_d = 0;
    int d = 0;         // the chosen depth limit
    std::string flags; // the published flags with -d replaced
    uts::params p;
    uts::counts ref;
    bool near = true; // within 25% of the target
};

struct run_result {
    rt::policy pol{};
    uts::counts c;
    rt::stats s;
    canopy::emu::memory_counters mem;
    double wall = 0;
};

struct too_big {};

/// The published flags with "-d N" replaced by "-d d".
std::string with_depth(const std::string& flags, int d) {
    std::vector<std::string> tok = uts::split_flags(flags);
    std::string out;
    for (std::size_t i = 0; i < tok.size(); ++i) {
        if (tok[i] == "-d" && i + 1 < tok.size()) {
            tok[i + 1] = std::to_string(d);
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
    st.near = static_cast<double>(best_diff) <= 0.25 * static_cast<double>(target);
    return st;
}

run_result run_one(const scaled_tree& t, rt::policy pol, u64 seed) {
    canopy::emu::options o;
    o.device = canopy::emu::preset("hrf8");
    o.scheduler = canopy::emu::scheduler_kind::deterministic;
    o.memory_model = canopy::emu::memory_model_kind::scoped;
    o.seed = seed;
    canopy::emu::scoped_options so(o);
    run_result r;
    r.pol = pol;
    const auto t0 = std::chrono::steady_clock::now();
    const uts::runtime_result rr = uts::traverse_runtime(t.p, uts::default_config(pol));
    r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.c = rr.c;
    r.s = rr.stats;
    r.mem = canopy::emu::last_report().memory;
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

std::string fmt_u(u64 v) { // 1234567 -> "1,234,567"
    std::string s = std::to_string(v), out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i != 0 && (s.size() - i) % 3 == 0) {
            out += ',';
        }
        out += s[i];
    }
    return out;
}

std::string fmt_f(double v, int prec) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", prec, v);
    return buf;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"canopy_bench_uts_hrf: the HRF paper's UTS experiment (scaled T1, T2, T4, T5; every "
                 "policy on the hrf8 virtual device with the scoped-cache model)"};
    bool quick = false;
    std::string out_dir = ".";
    u64 seed = 1;
    u64 target_opt = 0;
    app.add_flag("--quick", quick, "trees of about 2,000 nodes instead of about 125,000");
    app.add_option("--out", out_dir, "directory for hrf_experiment.md and hrf_experiment.json")
        ->capture_default_str();
    app.add_option("--target", target_opt,
                   "nodes to aim for per tree (default 125000 as in the paper; --quick: 2000)");
    app.add_option("--seed", seed, "the deterministic scheduler's seed")->capture_default_str();
    CLI11_PARSE(app, argc, argv);

    const u64 target = target_opt ? target_opt : quick ? 2000 : 125000;
    const auto t_start = std::chrono::steady_clock::now();
    std::printf("canopy_bench_uts_hrf: target %s nodes per tree, device hrf8, scoped-cache model, "
                "deterministic scheduler (seed %llu)\n\n",
                fmt_u(target).c_str(), static_cast<unsigned long long>(seed));

    // ---- 1. scale the trees by -d ----
    std::vector<scaled_tree> trees;
    std::printf("%-4s %-48s %4s %10s %6s %10s\n", "tree", "scaled flags (published -d -> chosen -d)", "-d",
                "nodes", "depth", "leaves");
    for (const char* name : {"T1", "T2", "T4", "T5"}) {
        scaled_tree t = scale(name, target);
        std::printf("%-4s %-48s %4s %10s %6d %10s%s\n", t.name.c_str(), t.flags.c_str(),
                    (std::to_string(t.published_d) + "->" + std::to_string(t.d)).c_str(),
                    fmt_u(t.ref.nodes).c_str(), t.ref.depth, fmt_u(t.ref.leaves).c_str(),
                    t.near ? "" : "  (cannot get near the target by -d alone: closest used)");
        trees.push_back(std::move(t));
    }
    std::printf("\n");
    std::fflush(stdout);

    // ---- 2. every tree under every policy ----
    std::vector<std::vector<run_result>> results(trees.size());
    for (std::size_t i = 0; i < trees.size(); ++i) {
        for (rt::policy pol : rt::all_policies) {
            run_result r = run_one(trees[i], pol, seed);
            std::fprintf(stderr, "  %s %-15s %.1f s\n", trees[i].name.c_str(), rt::to_string(pol), r.wall);
            if (!(r.c == trees[i].ref)) {
                std::printf("FAIL: %s under %s: the runtime's node/depth/leaf counts differ from the "
                            "sequential reference\n",
                            trees[i].name.c_str(), rt::to_string(pol));
                return 1;
            }
            results[i].push_back(r);
        }
    }
    const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();

    // ---- 3. speedups, correlation, table, JSON ----
    std::vector<double> x_don, y_speed;
    nlohmann::json j;
    j["experiment"] = "HRF UTS (Hower et al. ASPLOS 2014, section 8) on canopy's emulator";
    j["device"] = "hrf8";
    j["memory_model"] = "scoped";
    j["scheduler"] = "deterministic";
    j["seed"] = seed;
    j["quick"] = quick;
    j["target_nodes"] = target;
    j["wall_seconds"] = total_s;
    j["speedup_definition"] = "cycles_max_cu(hrf-direct) / cycles_max_cu(policy)";
    std::vector<std::string> pol_names;
    for (rt::policy pol : rt::all_policies) {
        pol_names.push_back(rt::to_string(pol));
    }
    j["policies"] = pol_names;
    j["trees"] = nlohmann::json::array();

    std::ostringstream md;
    md << "| tree | flags | nodes | policy | cycles (max CU) | speedup vs hrf-direct | flushes (own/remote) "
          "| invalidations (own/remote) | donations | steals | tasks |\n";
    md << "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n";
    for (std::size_t i = 0; i < trees.size(); ++i) {
        const scaled_tree& t = trees[i];
        const u64 base = results[i][0].s.cycles_max_cu;
        nlohmann::json jt;
        jt["name"] = t.name;
        jt["published_flags"] = t.published;
        jt["flags"] = t.flags;
        jt["published_d"] = t.published_d;
        jt["d"] = t.d;
        jt["near_target"] = t.near;
        jt["nodes"] = t.ref.nodes;
        jt["depth"] = t.ref.depth;
        jt["leaves"] = t.ref.leaves;
        jt["runs"] = nlohmann::json::array();
        for (const run_result& r : results[i]) {
            const double sp =
                r.s.cycles_max_cu ? static_cast<double>(base) / static_cast<double>(r.s.cycles_max_cu) : 0.0;
            if (r.pol == rt::policy::hrf_indirect) {
                x_don.push_back(static_cast<double>(r.s.donations()));
                y_speed.push_back(sp);
            }
            nlohmann::json jr;
            jr["policy"] = rt::to_string(r.pol);
            jr["cycles_max_cu"] = r.s.cycles_max_cu;
            jr["cycles_total"] = r.s.cycles_total;
            jr["speedup_vs_direct"] = sp;
            jr["flushes"] = r.s.flushes;
            jr["flushes_own"] = r.mem.flushes_own;
            jr["flushes_remote"] = r.mem.flushes_remote;
            jr["invalidations"] = r.s.invalidations;
            jr["invalidations_own"] = r.mem.invalidations_own;
            jr["invalidations_remote"] = r.mem.invalidations_remote;
            jr["lines_written_back"] = r.s.lines_written_back;
            jr["remote_ops"] = r.s.remote_ops;
            jr["donations"] = r.s.donations();
            jr["donations_to_workgroup"] = r.s.donations_to_workgroup;
            jr["donations_to_device"] = r.s.donations_to_device;
            jr["redonations_to_device"] = r.s.redonations_to_device;
            jr["steals"] = r.s.steals_received;
            jr["steal_requests"] = r.s.steal_requests;
            jr["tasks"] = r.s.total_tasks();
            jr["wall_seconds"] = r.wall;
            jt["runs"].push_back(jr);
            md << "| " << t.name << " | `" << t.flags << "` | " << fmt_u(t.ref.nodes) << " | "
               << rt::to_string(r.pol) << " | " << fmt_u(r.s.cycles_max_cu) << " | " << fmt_f(sp, 3) << " | "
               << fmt_u(r.mem.flushes_own) << " / " << fmt_u(r.mem.flushes_remote) << " | "
               << fmt_u(r.mem.invalidations_own) << " / " << fmt_u(r.mem.invalidations_remote) << " | "
               << fmt_u(r.s.donations()) << " | " << fmt_u(r.s.steals_received) << " | "
               << fmt_u(r.s.total_tasks()) << " |\n";
        }
        j["trees"].push_back(jt);
    }
    const std::optional<double> corr = pearson(x_don, y_speed);
    j["pearson_indirect_speedup_vs_donations"] = corr ? nlohmann::json(*corr) : nlohmann::json(nullptr);
    md << "\nPearson correlation across trees between hrf-indirect's speedup over hrf-direct and its "
          "donation "
          "count: "
       << (corr ? fmt_f(*corr, 3) : std::string("undefined (no variance)")) << " (n = " << x_don.size()
       << " trees).\n";

    std::string header = "Device hrf8 (8 CUs), scoped-cache model, deterministic scheduler, seed " +
                         std::to_string(seed) + (quick ? ", --quick" : "") +
                         ". Speedup = cycles_max_cu(hrf-direct) / cycles_max_cu(policy). Trees scaled from "
                         "the published T1, T2, T4, T5 by -d only (target " +
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
