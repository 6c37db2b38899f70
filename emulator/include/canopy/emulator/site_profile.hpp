// canopy/emulator/site_profile.hpp — where a launch's simulated cycles go, by call site
// (CANOPY_EMU_SITE_PROFILE; docs/emulator.md, "Site profile").
//
// Why: the timeline (--trace) says which phase of the scheduler's loop a sub-group is in (pick, run,
// pack, share); it cannot say which memory operation inside a phase costs the cycles, and on the
// scoped-cache model a release's write-backs or an acquire's misses land on whichever access follows.
// With the profile on, every atomic, fence, plain ld/st and sub-group collective adds its call site's
// count and the cycles the calling work-item's clock advanced over the call: the memory model's cost
// (an L2 round trip, a flush and its write-backs, a miss) and, for a collective, the wait for the
// sub-group's latest lane. Cycles are summed over work-items (a front of 64 lanes each paying an L2
// access counts 64 of them), so a site's share of the sum is its share of the device's lane-cycles.
// Only timed runs (options::timed) advance clocks; untimed ones still count accesses.
//
// Off (the default) it costs one branch per access, as the race detector's hook does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "canopy/emulator/work_item.hpp"
#include "canopy/vocabulary/site.hpp"

namespace canopy::emu {

enum class site_op : unsigned { load, store, rmw, fence, plain_load, plain_store, collective };
const char* to_string(site_op op);

/// One row: a call site and kind of access, how many times it ran and the cycles it cost.
struct site_cost {
    std::string file;
    unsigned line = 0;
    site_op op = site_op::load;
    std::uint64_t count = 0;
    std::uint64_t cycles = 0;
};

/// The process's accumulator; work_item::profile points at it while the option is on.
class site_profile;

/// Adds one access of kind `op` at `where` that cost the work-item `cycles` (thread-safe: the parallel
/// scheduler runs work-items on several threads).
void site_profile_note(site_profile& p, const site& where, site_op op, std::uint64_t cycles);

/// The hook every profiled access calls (the platform's atomics, fences, ld/st; the engine's
/// collectives): when w is profiled, adds the cycles its clock advanced since c0, taken just before the
/// access. One branch when it is not.
[[gnu::always_inline]] inline void profile_access(work_item& w, const site& where, site_op op,
                                                  std::uint64_t c0) {
    if (w.profile) [[unlikely]] {
        site_profile_note(*w.profile, where, op, w.clock - c0);
    }
}

/// The accumulator every launch with options::site_profile, or under CANOPY_EMU_SITE_PROFILE, adds to.
site_profile& process_site_profile();

/// Whether the environment asks for the profile (CANOPY_EMU_SITE_PROFILE, read once, as
/// options_from_environment reads it; false when the environment is malformed, which the options'
/// own read reports). Every launch then profiles, whatever options its caller built: a bench or a
/// program that sets emu::options itself is profiled by the same variable as the CLI.
bool site_profile_requested();

/// Everything accumulated since the last reset, most cycles first (ties: most calls, then file and
/// line), one row per file, line and kind (a header's site seen from several translation units is one).
std::vector<site_cost> site_profile_rows();

/// Forgets everything accumulated (a test, or a tool that profiles one launch of several).
void reset_site_profile();

/// The rows as a table: the `limit` costliest (0: all), each with its share of all the cycles.
std::string format_site_profile(const std::vector<site_cost>& rows, std::size_t limit = 0);

} // namespace canopy::emu
