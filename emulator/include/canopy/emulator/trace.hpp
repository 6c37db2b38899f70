// canopy/emulator/trace.hpp — the timeline (--trace): per-sub-group spans and counters, recorded
// while launches run and written as Chrome trace-event JSON (Perfetto, chrome://tracing).
//
// A session belongs to the host thread that opens it (the launches it records are that thread's:
// a bench that runs several runs on several host threads traces each into its own file). Every
// work-item of a traced launch points at its sub-group's track (work_item::timeline); the kernel side
// (platform/trace.hpp) appends to it without a lock: a track is a work-group slot's sub-group, and a
// work-group's fibers always run on one OS thread, so one track has one writer. Tracks are merged
// and written when the session closes. docs/emulator.md, "Timeline (--trace)", describes the format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "canopy/emulator/work_item.hpp"
#include "canopy/vocabulary/trace_kind.hpp"

namespace canopy::emu {

struct options;

struct trace_span_record {
    std::uint64_t begin = 0, end = 0;
    std::uint32_t arg = 0;
    trace_kind kind = trace_kind::run;
};

struct trace_counter_record {
    std::uint64_t at = 0, value = 0;
    std::uint32_t index = 0;
    trace_counter kind = trace_counter::outstanding;
};

/// One sub-group's track: sub-group `subgroup` of the work-groups that run in slot `slot`, across
/// every launch of the session (a slot runs its work-groups one after another, so they never overlap).
struct trace_track {
    unsigned cu = 0, slot = 0, subgroup = 0;
    unsigned first_block = ~0u, last_block = 0; // the work-groups that ran on it
    std::uint64_t blocks = 0;                   // work-group runs on it (0: the track was never used)
    // The current launch: where it starts on the session's time axis, and its clock. Timed order: the
    // work-item's simulated clock; otherwise the step count of the OS thread that runs the work-group.
    bool timed = false;
    std::uint64_t base = 0;
    const std::uint64_t* steps = nullptr;
    std::size_t limit = 0;     // spans kept in memory; the rest are counted in `dropped`
    std::uint64_t dropped = 0; // spans and counter samples past `limit`
    std::vector<trace_span_record> spans;
    std::vector<trace_counter_record> counters;
};

/// Now, on the running work-item's track (only for a work-item whose `timeline` is set).
inline std::uint64_t trace_now(const work_item& w) {
    const trace_track& t = *w.timeline;
    return t.base + (t.timed ? w.clock : *t.steps);
}

/// Appends the span [begin, now) of `kind` to the work-item's track.
inline void trace_record(const work_item& w, trace_kind kind, std::uint64_t begin, unsigned arg) {
    trace_track& t = *w.timeline;
    if (t.spans.size() < t.limit) {
        t.spans.push_back({begin, trace_now(w), arg, kind});
    } else {
        ++t.dropped;
    }
}

/// Appends a counter sample taken now.
inline void trace_sample(const work_item& w, trace_counter kind, unsigned index, std::uint64_t value) {
    trace_track& t = *w.timeline;
    if (t.counters.size() < t.limit) {
        t.counters.push_back({trace_now(w), value, index, kind});
    } else {
        ++t.dropped;
    }
}

/// Events a trace file holds at most by default; past it the spans are aggregated (trace_close).
constexpr std::uint64_t default_trace_events = 1'000'000;

/// Starts recording every launch of this host thread until trace_close(), which writes `path`. Throws
/// canopy::error, naming the path and the fix, when it cannot be opened for writing (checked here,
/// before any launch) or when a session is already open on this thread.
void trace_open(const std::string& path, std::uint64_t max_events = default_trace_events);
bool trace_is_open();

/// What trace_close() wrote.
struct trace_summary {
    std::string path;
    std::string time_unit; // "simulated cycles" (timed order) or "scheduler steps"
    std::uint64_t launches = 0, tracks = 0, spans = 0, counters = 0;
    std::uint64_t events = 0;  // trace events written (spans, counter samples, metadata)
    std::uint64_t window = 0;  // aggregated: the window width in time units (0: every span as recorded)
    std::uint64_t dropped = 0; // spans and samples past the in-memory bound (16 x max_events)
    std::string note;          // non-empty when the trace is aggregated or incomplete: say it to the user
};
/// Writes the session's trace and ends it. Throws canopy::error when the file cannot be written.
trace_summary trace_close();

// ---- the engine's side ----

struct trace_session;
/// The session of this host thread prepared for one launch (nullptr: not tracing): tracks for
/// `slots` x `subgroups` exist afterwards, so workers never insert.
trace_session* trace_launch_begin(const options& opt, unsigned slots, unsigned subgroups);
/// The track of sub-group `subgroup` of the work-group `block` starting in `slot` on `cu`; `steps`: the
/// clock of the OS thread that runs it. Called by that OS thread.
trace_track* trace_track_for(trace_session* s, unsigned slot, unsigned subgroup, unsigned cu, unsigned block,
                             const std::uint64_t* steps);
/// The launch ended: the next one starts `cycles` (timed order: its makespan plus the cost of a launch)
/// or `steps` (its scheduling steps, every OS thread's together) later on the time axis.
void trace_launch_end(trace_session* s, std::uint64_t cycles, std::uint64_t steps);

} // namespace canopy::emu
