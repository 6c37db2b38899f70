// canopy_bench_discovery: occupancy discovery's latency in simulated cycles, the ticket-lock protocol
// (Sorensen et al. 2016 §3, the old default) against the counter protocol (the default; issue 10 item
// 4), on hrf8 and on the H100-shaped virtual device, with the ratio old/new measured in the same run.
//
// Each case is one persistent launch of an empty body on the deterministic scheduler in timed order
// (emu::options::timed) on the scoped-cache model, so the launch's makespan
// (memory_counters::cycles_makespan) is the protocol's latency along its critical path: every
// participant's join, wait and close, plus launching and exiting work-groups, which both protocols pay
// alike. Cycles come from the model's cost table (order-of-magnitude GPU latencies; L2 contention and
// same-address atomic throughput are not modelled), so the ratio is the meaningful number.
//
// Why work-groups of 8 on h100: every emulated work-item is a fiber whose stack is two memory mappings,
// and vm.max_map_count (65,530) caps a launch near 32,000 resident work-items. Only work-item 0 of a
// work-group runs the protocol (the others wait at one block barrier), so the latency depends on the
// number of work-groups N, not on their size. The residency of a UTS-like kernel on an H100 (128
// work-items per work-group: 16 per SM, N = 2,112; the estimate is 2,100-2,400) is reproduced
// with dynamic shared memory: 228 KiB per SM / 16 = 14,592 bytes per work-group.
//
// Besides the latency it checks the protocol: with the grid at the occupancy every resident work-group
// must participate (full recall), and every participant must see the same count; it exits 1 otherwise.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/options.hpp"
#include "canopy/platform/platform.hpp"
#include "canopy/sync/discovery.hpp"
#include "canopy/sync/persistent.hpp"

#ifndef CANOPY_BENCH_BUILD_TYPE
#    define CANOPY_BENCH_BUILD_TYPE "unknown"
#endif

namespace {

using canopy::sync::discovery_protocol;

/// One virtual device configuration: preset, work-group size, and dynamic shared memory per work-group
/// (0: residency limited by the preset's work-group and work-item limits only).
struct device_case {
    std::string preset;
    unsigned block = 0;
    std::size_t shared = 0;
    std::string why; // how the residency was chosen
};

struct result {
    discovery_protocol protocol{};
    unsigned occupancy = 0, grid = 0, participants = 0;
    double cycles = 0;     // mean simulated makespan over the seeds
    double wall = 0;       // host seconds, all seeds
    double steps = 0;      // mean scheduling steps (the emulator's work)
    bool counts_ok = true; // every participant saw p_num_groups() == participants, every seed
    bool recall_ok = true; // participants == occupancy, every seed
};

result measure(const device_case& d, discovery_protocol protocol, unsigned factor, unsigned seeds) {
    result r;
    r.protocol = protocol;
    canopy::emu::options o = canopy::emu::current_options();
    o.device = canopy::emu::preset(d.preset);
    o.scheduler = canopy::emu::scheduler_kind::deterministic;
    o.memory_model = canopy::emu::memory_model_kind::scoped;
    o.timed = true;
    for (unsigned s = 1; s <= seeds; ++s) {
        o.seed = s;
        canopy::emu::scoped_options scoped(o);
        r.occupancy = canopy::max_resident_blocks<int>(d.block, d.shared);
        r.grid = factor * r.occupancy;
        canopy::sync::discovery_context ctx(r.grid, protocol);
        canopy::device_buffer<unsigned> seen(r.grid);
        seen.fill_zero();
        unsigned* c = seen.data();
        const auto t0 = std::chrono::steady_clock::now();
        const unsigned n = canopy::sync::launch_persistent(
            {.grid = r.grid, .block = d.block, .shared_bytes = d.shared}, ctx, [=] {
                // The body only records what the protocol said (one store per work-group, both
                // protocols alike), so that the check below needs no second launch.
                if (canopy::thread_id() == 0) {
                    canopy::st(&c[canopy::block_id()], canopy::sync::p_num_groups() + 1);
                }
            });
        r.wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const auto& rep = canopy::emu::last_report();
        r.cycles += static_cast<double>(rep.memory.cycles_makespan) / seeds;
        r.steps += static_cast<double>(rep.steps) / seeds;
        r.participants = n;
        r.recall_ok = r.recall_ok && n == r.occupancy;
        unsigned returns = 0;
        for (unsigned v : seen.to_vector()) {
            if (v != 0) {
                ++returns;
                r.counts_ok = r.counts_ok && v - 1 == n;
            }
        }
        r.counts_ok = r.counts_ok && returns == n;
    }
    return r;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"occupancy discovery latency in simulated cycles: ticket lock (old) vs counter (new)",
                 "canopy_bench_discovery"};
    bool quick = false, json = false;
    unsigned seeds = 1, per_sm = 16, h100_block = 8;
    std::vector<unsigned> factors{1};
    app.add_flag("--quick", quick,
                 "smoke test: h100 at 2 work-groups per SM (N = 264) instead of --per-sm; the ratio is "
                 "not the one at realistic residency");
    app.add_flag("--json", json, "print one JSON object");
    app.add_option("--seeds", seeds, "seeds per case (the cycles are their mean)")
        ->default_val(seeds)
        ->check(CLI::Range(1u, 100u));
    app.add_option("--per-sm", per_sm,
                   "h100: resident work-groups per SM (through dynamic shared memory); 16 is a UTS-like "
                   "kernel of 128 work-items")
        ->default_val(per_sm)
        ->check(CLI::Range(1u, 32u));
    app.add_option("--h100-block", h100_block,
                   "h100: work-items per work-group (each is a fiber: keep per-sm x 132 x block under "
                   "~30,000)")
        ->default_val(h100_block)
        ->check(CLI::Range(1u, 1024u));
    app.add_option("--grid-factor", factors,
                   "launch these multiples of the occupancy (1: the persistent default; >1: late "
                   "work-groups, the counter protocol's quiet window)")
        ->default_val(factors)
        ->check(CLI::Range(1u, 8u));
    CLI11_PARSE(app, argc, argv);
    if (quick) {
        per_sm = 2;
    }

    const std::vector<device_case> devices = {
        {"hrf8", 64, 0, "wave64 work-groups, 4 per CU (the HRF paper's residency)"},
        {"h100", h100_block, 228 * 1024 / per_sm,
         fmt::format("{} per SM through {} B of dynamic shared memory per work-group", per_sm,
                     228 * 1024 / per_sm)},
    };
    const auto t_all = std::chrono::steady_clock::now();
    bool ok = true;
    nlohmann::json j;
    j["build_type"] = CANOPY_BENCH_BUILD_TYPE;
    j["seeds"] = seeds;
    j["quick"] = quick;
    if (!json) {
        fmt::print("canopy_bench_discovery ({} build): occupancy discovery latency, simulated cycles "
                   "(timed order, scoped-cache model, mean of {} seed(s)), empty persistent body\n",
                   CANOPY_BENCH_BUILD_TYPE, seeds);
        fmt::print("{:>6} {:>6} {:>6} {:>7} {:>8} {:>14} {:>9} {:>12} {:>9} {:>8}\n", "device", "block", "N",
                   "grid", "protocol", "cycles", "cycles/N", "steps", "wall s", "recall");
    }
    for (const auto& d : devices) {
        for (unsigned factor : factors) {
            const result old_r = measure(d, discovery_protocol::ticket, factor, seeds);
            const result new_r = measure(d, discovery_protocol::counter, factor, seeds);
            const double ratio = new_r.cycles > 0 ? old_r.cycles / new_r.cycles : 0;
            for (const result* r : {&old_r, &new_r}) {
                // Full recall is promised only where no participant can finish before the others
                // joined: with the grid at the occupancy. Counts must agree always.
                const bool good = r->counts_ok && (factor != 1 || r->recall_ok);
                ok = ok && good;
                if (json) {
                    j["cases"].push_back({{"device", d.preset},
                                          {"block", d.block},
                                          {"shared_bytes", d.shared},
                                          {"residency", d.why},
                                          {"occupancy", r->occupancy},
                                          {"grid", r->grid},
                                          {"protocol", canopy::sync::to_string(r->protocol)},
                                          {"participants", r->participants},
                                          {"cycles_makespan", r->cycles},
                                          {"steps", r->steps},
                                          {"wall_seconds", r->wall},
                                          {"ok", good}});
                } else {
                    fmt::print(
                        "{:>6} {:>6} {:>6} {:>7} {:>8} {:>14.0f} {:>9.1f} {:>12.0f} {:>9.2f} {:>7.1f}%{}\n",
                        d.preset, d.block, r->occupancy, r->grid, canopy::sync::to_string(r->protocol),
                        r->cycles, r->cycles / r->occupancy, r->steps, r->wall,
                        100.0 * r->participants / r->occupancy, good ? "" : "  FAILED (recall or counts)");
                }
            }
            if (json) {
                j["ratios"].push_back({{"device", d.preset},
                                       {"occupancy", old_r.occupancy},
                                       {"grid", old_r.grid},
                                       {"ticket_over_counter", ratio}});
            } else {
                fmt::print("{:>6} N = {} ({}), grid {} x N: ticket / counter = {:.1f}\n", d.preset,
                           old_r.occupancy, d.why, factor, ratio);
            }
        }
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_all).count();
    // Said with the numbers, not only in the source: the model charges an L2 RMW a fixed latency, however
    // many work-groups hit the same word at once.
    const char* unmodelled = "not modelled: contention at L2. Same-address atomics serialize on a GPU (about "
                             "one per cycle), so the counter's ~2N RMWs (N joins, N close CASes) would add "
                             "roughly 2N cycles to its latency, and the ticket lock's polls would slow its "
                             "hand-offs";
    if (json) {
        j["not_modelled"] = unmodelled;
        j["wall_seconds"] = wall;
        j["ok"] = ok;
        std::puts(j.dump(2).c_str());
    } else {
        fmt::print("{}\nwall time {:.1f} s{}\n", unmodelled, wall,
                   ok ? "" : "; FAILED: a protocol lost recall or counts");
    }
    return ok ? 0 : 1;
}
