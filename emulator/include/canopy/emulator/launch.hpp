// canopy/emulator/launch.hpp — running a kernel on the emulator, and what the run reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "canopy/emulator/memory_counters.hpp"
#include "canopy/emulator/options.hpp"
#include "canopy/emulator/race_detector.hpp"
#include "canopy/vocabulary/lane_mask.hpp"
#include "canopy/vocabulary/site.hpp"

namespace canopy::emu {

class memory_model;

struct launch_report {
    std::string device;
    scheduler_kind scheduler = scheduler_kind::deterministic;
    std::uint64_t seed = 0;
    unsigned grid = 0, block = 0;
    unsigned resident_slots = 0; // work-groups resident at once
    unsigned threads = 1;        // OS threads that ran it
    std::uint64_t steps = 0;     // fiber switches into work-items
    std::uint64_t digest = 0;    // hash of the interleaving (deterministic scheduler)
    double seconds = 0;
    std::string memory_model = "coherent"; // "coherent", "scoped (proposed)", "scoped (original)", "custom"
    memory_counters memory;                // the scoped-cache model's counters (zero otherwise)
    // options::race_check: the model checked, the first races (one per distinct pair of sites, in the
    // order found) and how many distinct site pairs raced in all. Races do not make run() throw.
    race_check_kind race_check = race_check_kind::none;
    std::vector<race_report> races;
    std::uint64_t distinct_races = 0;
};

using kernel_entry = void (*)(const void* kernel);

/// Runs `entry(kernel)` on every work-item of a grid, under current_options(); returns when every
/// work-group has finished. Throws canopy::error for an impossible configuration (block too large,
/// too much shared memory) and canopy::device_error when the kernel fails (assertion, divergent
/// barrier, deadlock, exception): the message names the work-group/work-item and, for the
/// deterministic scheduler, the seed that replays it. `model` is the launch's memory model
/// (nullptr: coherent memory).
void run(unsigned grid, unsigned block, std::size_t dynamic_shared_bytes, kernel_entry entry,
         const void* kernel, memory_model* model = nullptr);

/// What the last run() on this OS thread did.
const launch_report& last_report();

/// The races of every race-checked launch on this OS thread since reset_race_log(): a command that
/// launches many kernels (a multi-kernel graph strategy, a seed sweep) reports them once, at the end.
struct race_log {
    std::uint64_t launches = 0;       // race-checked launches
    std::vector<race_report> races;   // the first options::race_report_limit site pairs, in order found
    std::uint64_t distinct_races = 0; // distinct site pairs over all those launches
};
const race_log& accumulated_races();
void reset_race_log();

/// Every launch on this OS thread since reset_launch_totals(): what a host loop of launches adds up to
/// in the timed model. A multi-kernel run's duration is its launches' makespans plus one per-launch
/// cost (kernel launch + reading back the stop flag, cost_table::launch) per launch; the two parts
/// are kept apart so that a reader can redo the sum with their own per-launch figure.
struct launch_totals_t {
    std::uint64_t launches = 0;
    std::uint64_t steps = 0;           // scheduling steps of every launch (launch_report::steps, added up)
    std::uint64_t cycles_makespan = 0; // sum of the launches' makespans (timed scheduling only, else 0)
    memory_counters memory;            // the launches' counters, added up
    std::uint64_t launch_cost = 0;     // cost_table::launch of the latest launch (cycles per launch)
    /// launches x `per_launch`: the host loop's share of the duration.
    std::uint64_t launch_cycles(std::uint64_t per_launch) const { return launches * per_launch; }
    /// The modelled duration: makespans plus launches x `per_launch`.
    std::uint64_t cycles(std::uint64_t per_launch) const {
        return cycles_makespan + launch_cycles(per_launch);
    }
};
const launch_totals_t& launch_totals();
void reset_launch_totals();

/// Work-groups resident at once on the current virtual device for this block size and shared memory
/// (0: cannot launch).
unsigned resident_slots(unsigned block, std::size_t shared_bytes);

// ---- kernel-side services (called through platform/detail/cpu) ----

/// Block-shared storage for the declaration identified by `key` (one per work-group).
void* block_shared(const void* key, std::size_t size, std::size_t align);
/// The launch's dynamic shared memory for this work-group.
void* dynamic_shared();
/// The work-group barrier.
void block_barrier(canopy::site where);

enum class collective_kind : std::uint8_t { ballot, any, all, broadcast, shuffle, scan, barrier };
const char* to_string(collective_kind k);

/// Gathers one 8-byte value from every live lane of the sub-group. Returns the snapshot (indexed by
/// lane) and, in *mask, which lanes took part. All live lanes must call the same kind at the same
/// site, or the launch fails with a divergence report.
const std::uint64_t* collective(collective_kind kind, std::uint64_t value, canopy::site where,
                                canopy::lane_mask* mask);

/// One poll of a spin_until at `where` failed: yield, as a waiting work-item.
void spin_wait(canopy::site where);
/// spin_until finished (the predicate held, or a bounded wait gave up).
void spin_done();
/// The running launch's options::spin_limit (polls of one spin_until_bounded; 0: unbounded).
std::uint64_t spin_limit();

} // namespace canopy::emu
