// canopy_bench_sync_barrier: inter-work-group barrier latency against the number of work-groups, for
// the XF barrier, the atomic-counter barrier, the cooperative grid sync and kernel relaunch (the
// multi-kernel method), and occupancy discovery's recall and cost with each protocol (counter, ticket
// and spin locks; bench/discovery_bench.cpp measures discovery in simulated cycles).
// Everything is measured in one run on the emulator, and reported as ratios to XF side by side
// (Stuart & Owens 2011 claim 14; Sorensen et al. 2016 §5.1). Emulator timings measure the emulator
// (fiber switches per barrier), not a GPU: the ratios show the algorithms' step counts.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "canopy/emulator/options.hpp"
#include "canopy/platform/grid_sync.hpp"
#include "canopy/platform/platform.hpp"
#include "canopy/sync/atomic_barrier.hpp"
#include "canopy/sync/discovery.hpp"
#include "canopy/sync/persistent.hpp"
#include "canopy/sync/xf_barrier.hpp"

#ifndef CANOPY_BENCH_BUILD_TYPE
#    define CANOPY_BENCH_BUILD_TYPE "unknown"
#endif

namespace {

using clock_type = std::chrono::steady_clock;

template <class F> double seconds(F f) {
    const auto t0 = clock_type::now();
    f();
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

struct row {
    unsigned groups = 0;
    double xf = 0, atomic = 0, grid = 0, relaunch = 0; // microseconds per barrier
};

row measure(unsigned groups, unsigned block, unsigned barriers) {
    row r;
    r.groups = groups;
    canopy::sync::xf_barrier_state xf(groups);
    canopy::sync::atomic_barrier_state ab;
    const auto x = xf.barrier();
    const auto a = ab.barrier();
    const canopy::launch_config cfg{.grid = groups, .block = block};
    // Every work-group is resident (groups <= occupancy), so the barriers use native ids here; the
    // kernels are otherwise what a persistent kernel runs after discovery.
    r.xf = seconds([&] {
               canopy::launch(cfg, [=] {
                   for (unsigned i = 0; i < barriers; ++i) {
                       x.wait(canopy::block_id(), canopy::grid_dim());
                   }
               });
           }) /
           barriers * 1e6;
    r.atomic = seconds([&] {
                   canopy::launch(cfg, [=] {
                       for (unsigned i = 0; i < barriers; ++i) {
                           a.wait(canopy::grid_dim());
                       }
                   });
               }) /
               barriers * 1e6;
    r.grid = seconds([&] {
                 canopy::launch_cooperative(cfg, [=] {
                     for (unsigned i = 0; i < barriers; ++i) {
                         canopy::grid_sync();
                     }
                 });
             }) /
             barriers * 1e6;
    r.relaunch = seconds([&] {
                     for (unsigned i = 0; i < barriers; ++i) {
                         canopy::launch(cfg, [] {});
                     }
                 }) /
                 barriers * 1e6;
    return r;
}

struct recall_row {
    std::string protocol;
    double mean = 0, min = 1e9, max = 0, ms = 0;
};

struct empty_body {
    void operator()() const {}
};

recall_row recall(canopy::sync::discovery_protocol protocol, unsigned block, unsigned runs,
                  canopy::emu::options base) {
    recall_row r;
    r.protocol = canopy::sync::to_string(protocol);
    const unsigned occupancy = canopy::sync::persistent_grid<empty_body>(block);
    for (unsigned s = 1; s <= runs; ++s) {
        base.seed = s;
        canopy::emu::scoped_options scoped(base);
        canopy::sync::discovery_context ctx(4 * occupancy, protocol);
        unsigned n = 0;
        r.ms += seconds([&] {
                    n = canopy::sync::launch_persistent({.grid = 4 * occupancy, .block = block}, ctx,
                                                        empty_body{});
                }) *
                1e3 / runs;
        const double pct = 100.0 * n / occupancy;
        r.mean += pct / runs;
        r.min = pct < r.min ? pct : r.min;
        r.max = pct > r.max ? pct : r.max;
    }
    return r;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"inter-work-group barrier latency and occupancy-discovery recall on the emulator"};
    bool quick = false, json = false;
    std::string device = "hrf8";
    unsigned block = 64;
    app.add_flag("--quick", quick, "few barriers and runs (smoke test)");
    app.add_flag("--json", json, "print one JSON object");
    app.add_option("--device", device, "emulator preset")->default_val(device);
    app.add_option("--block-size", block, "work-items per work-group")->default_val(block);
    CLI11_PARSE(app, argc, argv);

    canopy::emu::options base = canopy::emu::current_options();
    base.device = canopy::emu::preset(device);
    base.scheduler = canopy::emu::scheduler_kind::deterministic;
    canopy::emu::scoped_options scoped(base);

    const unsigned occupancy = canopy::max_resident_blocks<int>(block);
    const unsigned barriers = quick ? 20 : 200;
    std::vector<row> rows;
    for (unsigned g = 2; g <= occupancy; g *= 2) {
        rows.push_back(measure(g, block, barriers));
    }
    if (rows.empty() || rows.back().groups != occupancy) {
        rows.push_back(measure(occupancy, block, barriers));
    }
    const unsigned runs = quick ? 3 : 20;
    const recall_row counter = recall(canopy::sync::discovery_protocol::counter, block, runs, base);
    const recall_row ticket = recall(canopy::sync::discovery_protocol::ticket, block, runs, base);
    const recall_row spin = recall(canopy::sync::discovery_protocol::spin, block, runs, base);

    if (json) {
        nlohmann::json j;
        j["build_type"] = CANOPY_BENCH_BUILD_TYPE;
        j["device"] = device;
        j["block_size"] = block;
        j["occupancy"] = occupancy;
        j["barriers_per_point"] = barriers;
        for (const auto& r : rows) {
            j["barrier_us"].push_back({{"groups", r.groups},
                                       {"xf", r.xf},
                                       {"atomic", r.atomic},
                                       {"grid_sync", r.grid},
                                       {"relaunch", r.relaunch}});
        }
        for (const auto& r : {counter, ticket, spin}) {
            j["discovery"].push_back({{"protocol", r.protocol},
                                      {"recall_mean_pct", r.mean},
                                      {"recall_min_pct", r.min},
                                      {"recall_max_pct", r.max},
                                      {"ms_mean", r.ms}});
        }
        std::puts(j.dump(2).c_str());
        return 0;
    }
    fmt::print("canopy_bench_sync_barrier ({} build), emulator {} (deterministic scheduler), blocks of {}, "
               "occupancy {}\n",
               CANOPY_BENCH_BUILD_TYPE, device, block, occupancy);
    fmt::print("barrier latency, us per barrier ({} consecutive barriers per point), ratio to XF\n",
               barriers);
    fmt::print("{:>7} {:>10} {:>10} {:>7} {:>10} {:>7} {:>10} {:>7}\n", "groups", "xf", "atomic", "/xf",
               "grid", "/xf", "relaunch", "/xf");
    for (const auto& r : rows) {
        fmt::print("{:>7} {:>10.2f} {:>10.2f} {:>7.2f} {:>10.2f} {:>7.2f} {:>10.2f} {:>7.2f}\n", r.groups,
                   r.xf, r.atomic, r.atomic / r.xf, r.grid, r.grid / r.xf, r.relaunch, r.relaunch / r.xf);
    }
    fmt::print("\noccupancy discovery, {} runs (seeds 1..{}), launching 4 x occupancy\n", runs, runs);
    fmt::print("{:>8} {:>12} {:>9} {:>9} {:>10}\n", "protocol", "recall mean", "min", "max", "ms mean");
    for (const auto& r : {counter, ticket, spin}) {
        fmt::print("{:>8} {:>11.1f}% {:>8.1f}% {:>8.1f}% {:>10.3f}\n", r.protocol, r.mean, r.min, r.max,
                   r.ms);
    }
    fmt::print("spin/ticket: recall {:.2f}, cost {:.2f}; counter/ticket: recall {:.2f}, cost {:.2f}\n",
               spin.mean / ticket.mean, spin.ms / ticket.ms, counter.mean / ticket.mean,
               counter.ms / ticket.ms);
    return 0;
}
