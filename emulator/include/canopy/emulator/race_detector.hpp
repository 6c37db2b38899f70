// canopy/emulator/race_detector.hpp — the heterogeneous-race detector (issue 13; docs/race-detector.md).
//
// With options::race_check set, a deterministic launch reports every access, fence, block barrier and
// sub-group collective of its work-items here, in schedule order. The detector analyses that order as
// the SC candidate execution HRF's definitions are stated over: vector clocks per work-item (one per
// scope level for HRF-direct), release sets per synchronization location, and a shadow of recent
// accesses per 4-byte word. Races go to launch_report::races (the first options::race_report_limit
// distinct site pairs); a racy launch does not throw by itself.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "canopy/emulator/options.hpp"
#include "canopy/emulator/work_item.hpp"
#include "canopy/vocabulary/lane_mask.hpp"
#include "canopy/vocabulary/scope.hpp"
#include "canopy/vocabulary/site.hpp"

namespace canopy::emu {

enum class collective_kind : std::uint8_t; // launch.hpp

/// Launches whose clocks would need more are refused: the detector keeps N vector clocks of N 4-byte
/// entries for N work-items (for HRF-direct, 4 N of them; 5 N with several devices): 23,170 work-items under
/// hrf-indirect and rsp, 11,585 under hrf-direct. The HRF experiment's hrf8 launch (32 work-groups of 256)
/// needs 1 GiB.
inline constexpr std::uint64_t race_detector_max_clock_bytes = std::uint64_t{2} << 30;

/// One side of a race.
struct race_access {
    canopy::site where;
    unsigned block = 0, thread = 0, subgroup = 0, lane = 0; // thread: index in the work-group
    const void* address = nullptr;
    unsigned size = 0;
    race_op op = race_op::plain_load;
    canopy::scope scope = canopy::scope::device; // atomics only
    std::memory_order order = std::memory_order_relaxed;
    bool remote = false;
    std::string buffer; // the allocation the address is in (emu::describe_allocation), or ""

    bool atomic() const { return op != race_op::plain_load && op != race_op::plain_store; }
    bool writes() const { return op == race_op::plain_store || op == race_op::store || op == race_op::rmw; }
};

struct race_report {
    race_access first;  // the access earlier in the schedule
    race_access second; // the access that completed the race
    race_check_kind model = race_check_kind::none;
    std::string reason;
    std::uint64_t seed = 0;        // the deterministic scheduler's seed that replays it
    std::uint64_t occurrences = 1; // races found with this pair of sites in the launch
    // What replays it, as the environment a program that leaves emu::options alone reads: the seed
    // and every option that shapes the schedule (set by the launch; empty: the seed and model alone).
    std::string replay;
};

/// "plain write of 4 bytes at 0x... (tests/x.cpp:12, block 0 work-item 1, sub-group 0 lane 1)".
std::string to_string(const race_access& a);
/// A multi-line report: the model, both accesses, the reason and the replay seed.
std::string to_string(const race_report& r);

class race_detector {
  public:
    /// Throws canopy::error when the launch's clocks would exceed race_detector_max_clock_bytes, or
    /// when `block_device` is neither empty nor one device id per work-group. `block_device`: the
    /// device of each work-group (options::race_block_device); empty: one device.
    race_detector(race_check_kind model, unsigned grid, unsigned block, unsigned subgroup_size,
                  std::uint64_t seed, unsigned report_limit, std::vector<unsigned> block_device = {});
    ~race_detector();
    race_detector(const race_detector&) = delete;
    race_detector& operator=(const race_detector&) = delete;

    void access(const work_item& w, const race_event& e);
    void fence(const work_item& w, canopy::scope s, std::memory_order o, canopy::site where);
    /// A block_barrier completed in work-group `block`: work-group-scope acq_rel among all its work-items.
    void barrier(unsigned block);
    /// A sub-group collective completed. subgroup_barrier (kind barrier) is a sub-group-scope acq_rel
    /// among the lanes in `lanes`; every other kind moves values only and orders no memory (PTX).
    void collective(unsigned block, unsigned subgroup, canopy::lane_mask lanes, collective_kind kind);

    /// [p, p + bytes) is being reused (a new work-group's shared memory, a fiber stack): drop its shadow.
    void forget(const void* p, std::size_t bytes);

    /// Appends canonical bytes of everything that decides which races the launch's future accesses
    /// report: the vector clocks, the release sets, release fences and pending releases, and every kept
    /// shadow record (with its site), each sorted so that two schedules reaching the same state append
    /// the same bytes. Left out: what only reports use (the reports so far, an acquire's failed pairings
    /// for a later reason). The litmus runner's exact race exploration keys its state cache on it
    /// (docs/race-detector.md, "Exact verdicts").
    void append_state(std::string& out) const;

    const std::vector<race_report>& reports() const;
    /// Distinct site pairs found (reports() keeps the first report_limit of them).
    std::uint64_t distinct_races() const;

  private:
    struct impl;
    std::unique_ptr<impl> p_;
};

} // namespace canopy::emu
