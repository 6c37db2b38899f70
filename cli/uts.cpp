// canopy uts: Unbalanced Tree Search on the task runtime (or the sequential reference), with the
// published counts as the oracle. Host-only (CLI11, fmt, JSON); the work is in uts_backend.cpp.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "heartbeat.hpp"
#include "mpi_world.hpp"
#include "uts_backend.hpp"
#include "uts_ranks.hpp"

namespace canopy::cli {

namespace {

struct uts_options {
    std::string tree;
    // Raw reference flags: -t -a -d -b -r -q -m -f -g (strings: validated by the workload's parser).
    std::string t, a, d, b, r, q, m, f, g;
    std::string policy = "hrf-indirect";
    std::string queues = "ring";
    unsigned device_rings = 0;
    unsigned block = 64;
    bool joins = false;
    unsigned join_records = 1u << 20;           // uts::default_join_records
    bool join_peak = false;                     // --join-peak
    std::uint64_t round_nodes = 1u << 16;       // under mpirun: uts::default_round_budget
    unsigned devices = 0;                       // --devices: emulated devices (0: one)
    bool rounds = false;                        // --rounds: the devices in host-driven rounds, not one launch
    unsigned system_poll = 4, system_stock = 8; // --devices (one launch): runtime::config's
    bool reference = false, check = false, json = false, list = false;
    emulator_settings emu;
    bool emulated = false;
};

double rate(const uts_outcome& o) { return o.seconds > 0 ? static_cast<double>(o.nodes) / o.seconds : 0.0; }
/// Nodes per second of the kernel's device time (runtime runs).
double device_rate(const uts_outcome& o) {
    return o.device_ms > 0 ? static_cast<double>(o.nodes) / o.device_ms * 1e3 : 0.0;
}

nlohmann::json to_json(const uts_resolved& t, const uts_outcome& o, const std::string& policy,
                       bool joins = false) {
    nlohmann::json j = {{"tree", t.name},
                        {"flags", t.flags},
                        {"nodes", o.nodes},
                        {"depth", o.depth},
                        {"leaves", o.leaves},
                        {"seconds", o.seconds},
                        {"nodes_per_second", rate(o)},
                        {"policy", policy},
                        {"joins", joins},
                        {"backend", backend_name()}};
    j["wall_ms"] = o.seconds * 1e3;
    if (!o.device_clock.empty()) { // a runtime run: the kernel's time, and the clock that took it
        j["device_ms"] = o.device_ms;
        j["device_clock"] = o.device_clock;
        j["nodes_per_device_second"] = device_rate(o);
    } else {
        j["device_ms"] = nullptr;
        j["device_clock"] = nullptr;
    }
    nlohmann::json s = nlohmann::json::object();
    for (const auto& [k, v] : o.stats) {
        s[k] = v;
    }
    j["stats"] = s;
    if (!o.device.empty()) {
        j["device"] = o.device;
    }
    if (!o.scheduler.empty()) {
        j["scheduler"] = o.scheduler;
        j["memory_model"] = o.memory_model;
    }
    return j;
}

void print_text(const uts_resolved& t, const uts_outcome& o, const std::string& policy, bool joins = false) {
    fmt::print("tree      {} ({}; {})\n", t.name, t.description, t.flags);
    fmt::print("run       {}{} on {}{}\n", policy, joins ? ", counted by joins" : "", backend_name(),
               o.device.empty()
                   ? std::string()
                   : fmt::format(" ({}, {} scheduler, {} memory)", o.device, o.scheduler, o.memory_model));
    fmt::print("nodes     {}\ndepth     {}\nleaves    {}\n", o.nodes, o.depth, o.leaves);
    fmt::print("seconds   {:.3f}\nnodes/s   {:.0f}\n", o.seconds, rate(o));
    if (!o.device_clock.empty()) {
        fmt::print("device ms {:.3f} ({}; {:.4g} nodes/s)\n", o.device_ms, o.device_clock, device_rate(o));
    }
    if (!o.stats.empty()) {
        std::string line;
        for (const auto& [k, v] : o.stats) {
            line += fmt::format(" {}={}", k, v);
        }
        fmt::print("stats    {}\n", line);
    }
}

std::vector<std::string> differences(const uts_outcome& x, const uts_outcome& y) {
    std::vector<std::string> d;
    if (x.nodes != y.nodes) {
        d.push_back(fmt::format("nodes {} vs {}", x.nodes, y.nodes));
    }
    if (x.depth != y.depth) {
        d.push_back(fmt::format("depth {} vs {}", x.depth, y.depth));
    }
    if (x.leaves != y.leaves) {
        d.push_back(fmt::format("leaves {} vs {}", x.leaves, y.leaves));
    }
    return d;
}

int run_uts_command(const uts_options& o) {
    if (o.list) {
        for (const auto& t : uts_sample_trees()) {
            fmt::print("{:<8} {:<45} {}\n", t.name, t.description, t.flags.empty() ? "(defaults)" : t.flags);
        }
        return 0;
    }
    uts_tree_spec spec;
    spec.tree = o.tree;
    const std::pair<const char*, const std::string*> raw[] = {{"-t", &o.t}, {"-a", &o.a}, {"-d", &o.d},
                                                              {"-b", &o.b}, {"-r", &o.r}, {"-q", &o.q},
                                                              {"-m", &o.m}, {"-f", &o.f}, {"-g", &o.g}};
    for (const auto& [flag, value] : raw) {
        if (!value->empty()) {
            spec.flags.emplace_back(flag, *value);
        }
    }
    if (spec.tree.empty() && spec.flags.empty()) {
        spec.tree = "T1";
    }
    uts_resolved t;
    try {
        t = resolve_uts_tree(spec);
    } catch (const uts_usage_error& e) {
        fmt::print(stderr, "canopy uts: {}\nRun 'canopy uts --help' for usage.\n", e.what());
        return 2;
    }
    if (o.joins && o.reference && !o.check) {
        fmt::print(stderr,
                   "canopy uts: --joins counts the runtime's run, and --reference runs only the sequential "
                   "reference: drop one, or use --check to run both\nRun 'canopy uts --help' for usage.\n");
        return 2;
    }
    if (o.join_peak && !o.joins) {
        fmt::print(stderr, "canopy uts: --join-peak counts the join records of a run by joins: add --joins\n"
                           "Run 'canopy uts --help' for usage.\n");
        return 2;
    }
    // Under mpirun: one rank per process, the tree in scale-out rounds (docs/scale-out.md).
    bool refused = false;
    const bool ranked = mpi::ranked("canopy uts", "traverse the whole tree", &refused);
    if (refused) {
        return 2;
    }
    if (o.rounds && o.devices == 0) {
        fmt::print(stderr, "canopy uts: --rounds runs the devices of --devices in rounds: add --devices D\n"
                           "Run 'canopy uts --help' for usage.\n");
        return 2;
    }
    // --devices without --rounds: one launch over the devices, joined by the system level.
    const bool in_launch = o.devices > 1 && !o.rounds;
    if (in_launch && (o.policy == "hrf-direct" || o.queues == "locked")) {
        fmt::print(stderr,
                   "canopy uts: --devices runs one launch over the devices, joined by the ring core's system "
                   "level, {}\nRun 'canopy uts --help' for usage.\n",
                   o.queues == "locked"
                       ? "which the locked core lacks: use --queues ring"
                       : "whose hand-offs chain two scopes, which hrf-direct's model does not compose: use "
                         "--policy hrf-indirect, steal-emulated or steal-rsp");
        return 2;
    }
    if (o.devices > 0 && (ranked || o.joins)) {
        fmt::print(stderr,
                   "canopy uts: --devices runs the tree in rounds over emulated devices in this process{}: "
                   "drop one\nRun 'canopy uts --help' for usage.\n",
                   ranked ? ", and under mpirun each rank is a device already"
                          : ", which --joins cannot share");
        return 2;
    }
    if (ranked && o.joins) {
        fmt::print(stderr,
                   "canopy uts: --joins counts the whole tree in one launch, which ranks cannot share: "
                   "under mpirun, drop --joins\nRun 'canopy uts --help' for usage.\n");
        return 2;
    }
    if (o.emulated) {
        configure_emulator(o.emu);
    }
    std::optional<mpi::session> world;
    if (ranked) {
        world.emplace();
    }
    const bool lead = !world || world->rank() == 0; // the rank that reports

    uts_outcome ref, run;
    uts_ranks_outcome ranks;
    const bool want_ref = (o.reference || o.check) && lead;
    const bool want_run = !o.reference || o.check;
    if (want_ref) {
        progress_line line;
        ref = run_uts_reference(spec, [&](unsigned long long nodes, double s) {
            line.update(s, fmt::format("canopy uts: reference {}: {} nodes, {:.0f} s", t.name, nodes, s));
        });
    }
    if (want_run) {
        std::optional<heartbeat> hb;
        if (lead) {
            hb.emplace("canopy uts",
                       world ? fmt::format("{} on {} ranks ({})", t.name, world->size(), o.policy)
                             : fmt::format("{} on the runtime ({})", t.name, o.policy),
                       std::chrono::seconds(1));
        }
        uts_runtime_settings s;
        s.policy = o.policy;
        s.queues = o.queues;
        s.device_rings = o.device_rings;
        s.block = o.block;
        s.joins = o.joins;
        s.join_records = o.join_records;
        s.join_peak = o.join_peak;
        if (world) {
            try {
                ranks = run_uts_ranks(spec, s, *world, o.round_nodes);
            } catch (const std::exception& e) {
                world->abort(e.what()); // the other ranks would wait for this one for ever
            }
        } else if (o.devices > 0 && o.rounds) {
            ranks = run_uts_devices(spec, s, o.devices, o.round_nodes);
        }
        if (world || (o.devices > 0 && o.rounds)) {
            run = ranks.total;
            run.stats = {{"rounds", ranks.rounds},
                         {"nodes_moved", ranks.moved},
                         {"round_nodes", o.round_nodes},
                         {"critical_path_nodes", ranks.critical_nodes},
                         {"frontier_nodes", ranks.frontier_nodes}};
            if (ranks.critical_cycles != 0) {
                run.stats.emplace_back("critical_path_cycles", ranks.critical_cycles);
                run.stats.emplace_back("device_cycles", ranks.device_cycles);
            }
        } else {
            s.devices = o.devices > 0 ? o.devices : 1;
            s.system_poll = o.system_poll;
            s.system_stock = o.system_stock;
            run = run_uts_runtime(spec, s);
        }
    }
    if (!lead) {
        // The lead rank reports; the others only agree on the exit code (the counts are on every rank,
        // so each can tell a wrong total by itself).
        bool ok = true;
        if (want_run && t.has_expected) {
            ok = run.nodes == t.expected_nodes && run.leaves == t.expected_leaves &&
                 run.depth == t.expected_depth;
        }
        return world->all(ok) ? 0 : 1;
    }

    std::vector<std::string> diffs;
    if (o.check) {
        for (const auto& d : differences(run, ref)) {
            diffs.push_back("runtime vs reference: " + d);
        }
    }
    if (t.has_expected) {
        uts_outcome pub;
        pub.nodes = t.expected_nodes;
        pub.leaves = t.expected_leaves;
        pub.depth = t.expected_depth;
        for (const auto& d : differences(want_run ? run : ref, pub)) {
            diffs.push_back("vs published counts: " + d);
        }
    }

    if (o.json) {
        nlohmann::json j = want_run ? to_json(t, run, o.policy, o.joins) : to_json(t, ref, "reference");
        if (o.check) {
            j["reference"] = to_json(t, ref, "reference");
            j["speedup_over_reference"] =
                ref.seconds > 0 && run.seconds > 0 ? ref.seconds / run.seconds : 0.0;
        }
        j["ranks"] = world ? world->size() : 1;
        j["devices"] = o.devices > 0 ? o.devices : 1;
        if (world || (o.devices > 0 && o.rounds)) {
            j["scale_out"] = {{"rounds", ranks.rounds},
                              {"nodes_moved", ranks.moved},
                              {"round_nodes", o.round_nodes},
                              {"nodes_per_rank", ranks.nodes_per_rank},
                              {"critical_path_nodes", ranks.critical_nodes},
                              {"frontier_nodes", ranks.frontier_nodes}};
            if (ranks.critical_cycles != 0) {
                j["scale_out"]["critical_path_cycles"] = ranks.critical_cycles;
                j["scale_out"]["device_cycles"] = ranks.device_cycles;
            }
        }
        j["ok"] = diffs.empty();
        if (!diffs.empty()) {
            j["differences"] = diffs;
        }
        std::puts(j.dump(2).c_str());
    } else {
        if (want_ref) {
            print_text(t, ref, "reference (sequential)");
        }
        if (want_run) {
            if (want_ref) {
                fmt::print("\n");
            }
            print_text(t, run, o.policy, o.joins);
            if (in_launch) {
                unsigned long long given = 0, taken = 0, dry = 0;
                std::string per; // tasks_device_<d>, in order
                for (const auto& [k, v] : run.stats) {
                    given = k == "donations_to_system" ? v : given;
                    taken = k == "tasks_system" ? v : taken;
                    dry = k == "devices_dry" ? v : dry;
                    if (k.rfind("tasks_device_", 0) == 0) {
                        per += fmt::format(" {}", v);
                    }
                }
                fmt::print(
                    "devices   {} in one launch (system ring: {} fronts donated, {} tasks run from it; "
                    "a device ran dry {} times; tasks per device:{})\n",
                    o.devices, given, taken, dry, per);
            }
            if (world || (o.devices > 0 && o.rounds)) {
                std::string per;
                for (const auto n : ranks.nodes_per_rank) {
                    per += fmt::format(" {}", n);
                }
                fmt::print("{}   {} ({} rounds of up to {} nodes each; {} nodes moved; nodes per {}:{})\n",
                           world ? "ranks  " : "devices",
                           world ? static_cast<unsigned>(world->size()) : o.devices, ranks.rounds,
                           o.round_nodes, ranks.moved, world ? "rank" : "device", per);
                if (ranks.critical_cycles != 0) {
                    fmt::print(
                        "cycles    {} on the critical path (the longest device's makespan, summed over "
                        "rounds), {} over all devices\n",
                        ranks.critical_cycles, ranks.device_cycles);
                }
            }
        }
        if (o.check && diffs.empty()) {
            fmt::print("check     OK: the runtime matches the sequential reference (runtime / reference "
                       "nodes/s: {:.3f})\n",
                       rate(ref) > 0 ? rate(run) / rate(ref) : 0.0);
        }
        if (t.has_expected && diffs.empty()) {
            fmt::print("published OK ({} nodes, depth {}, {} leaves)\n", t.expected_nodes, t.expected_depth,
                       t.expected_leaves);
        }
    }
    if (!diffs.empty()) {
        for (const auto& d : diffs) {
            fmt::print(stderr, "canopy uts: MISMATCH {}\n", d);
        }
    }
    if (world && !world->all(diffs.empty())) {
        return 1;
    }
    return diffs.empty() ? 0 : 1;
}

} // namespace

action add_uts(CLI::App& app) {
    auto o = std::make_shared<uts_options>();
    o->emu.scheduler = "parallel"; // UTS's sample trees are millions of tasks: throughput by default
    auto* sub = app.add_subcommand(
        "uts", "Unbalanced Tree Search on the task runtime, checked against the published node counts");
    std::vector<std::string> names;
    for (const auto& t : uts_sample_trees()) {
        names.push_back(t.name);
    }
    sub->add_option("--tree", o->tree, "sample tree (default T1; see --list); raw flags override its")
        ->check(CLI::IsMember(names));
    sub->add_flag("--list", o->list, "list the sample trees and their reference flags");
    sub->add_option("-t", o->t, "tree type: 0 BIN, 1 GEO, 2 HYBRID, 3 BALANCED");
    sub->add_option("-a", o->a, "GEO shape: 0 LINEAR, 1 EXPDEC, 2 CYCLIC, 3 FIXED");
    sub->add_option("-d", o->d, "gen_mx: GEO depth limit");
    sub->add_option("-b", o->b, "b_0: root branching factor");
    sub->add_option("-r", o->r, "root seed");
    sub->add_option("-q", o->q, "BIN non-leaf probability");
    sub->add_option("-m", o->m, "BIN non-leaf branching factor");
    sub->add_option("-f", o->f, "HYBRID shift depth (fraction of gen_mx)");
    sub->add_option("-g", o->g, "compute granularity (hashes per spawn)");
    sub->add_option("--policy", o->policy, "scheduling policy")
        ->check(CLI::IsMember(runtime_policy_names()))
        ->default_val(o->policy);
    add_queues_flag(*sub, o->queues,
                    "runtime core: ring (lock-free rings, work shared on demand) or locked (the HRF paper's "
                    "lock-per-queue design with threshold donation)");
    sub->add_option("--device-rings", o->device_rings,
                    "ring core: the device queue's rings (0: one per 8 work-groups; 1: a single ring)")
        ->default_val(o->device_rings)
        ->check(CLI::Range(0u, 65536u));
    sub->add_option("--block-size", o->block, "work-items per work-group (a multiple of the sub-group size)")
        ->default_val(o->block)
        ->check(CLI::Range(1u, 1024u));
    sub->add_flag("--joins", o->joins,
                  "count by joins: every subtree's counts computed bottom-up by continuations (the root's "
                  "are the tree's), instead of device atomics");
    sub->add_option("--join-records", o->join_records,
                    "--joins: join records in the pool, the joins open at once (about 212 bytes each; at "
                    "most 2^24, 3.4 GiB)")
        ->default_val(o->join_records)
        ->check(CLI::Range(1u, 1u << 24));
    sub->add_flag("--join-peak", o->join_peak,
                  "--joins: also count the records open at once and report the most (stats "
                  "join_records_peak: what --join-records must hold for this run; costs three relaxed device "
                  "atomics per join, so measured runs leave it off)");
    sub->add_option(
           "--round-nodes", o->round_nodes,
           "under mpirun (one rank per process) or with --devices --rounds: nodes a rank or device runs "
           "in a round before the frontiers are evened out (docs/scale-out.md)")
        ->default_val(o->round_nodes)
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
    sub->add_option(
           "--devices", o->devices,
           "run the tree over this many emulated devices in one launch, each with its own queues (and "
           "L2 on the scoped model), sharing work through the system ring at system scope "
           "(docs/scale-out.md; with --timed, the simulated makespan)")
        ->check(CLI::Range(1u, 64u));
    sub->add_option(
           "--system-poll", o->system_poll,
           "--devices: fronts a busy sub-group runs between looks at how many devices are hungry (one "
           "system-scope load each)")
        ->default_val(o->system_poll)
        ->check(CLI::Range(1u, 1u << 20));
    sub->add_option("--system-stock", o->system_stock,
                    "--devices: fronts the system ring is kept stocked with per hungry device")
        ->default_val(o->system_stock)
        ->check(CLI::Range(1u, 1u << 16));
    sub->add_flag("--rounds", o->rounds,
                  "with --devices: the host-driven version instead, the tree in rounds over the devices, "
                  "each device's round in turn and the frontiers evened out between rounds (as under "
                  "mpirun; with --timed, the simulated critical path)");
    sub->add_flag("--reference", o->reference, "run the sequential reference traversal instead");
    sub->add_flag("--check", o->check, "run both and fail on any difference");
    sub->add_flag("--json", o->json, "print one JSON object");
    o->emulated = !emulator_presets().empty();
    if (o->emulated) {
        add_emulator_flags(*sub, o->emu, {.runs_kernels = true, .timed = true});
    }
    return [o] { return run_uts_command(*o); };
}

} // namespace canopy::cli
