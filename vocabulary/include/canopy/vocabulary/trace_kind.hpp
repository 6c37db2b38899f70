// canopy/vocabulary/trace_kind.hpp — what a timeline (--trace) records: the kinds of spans a
// sub-group's track holds and the counters the runtime samples.
//
// The runtime names them through platform/trace.hpp and the emulator writes them (emulator/trace.hpp),
// so the words live below both. docs/emulator.md ("Timeline (--trace)") says what each one covers.
#pragma once

namespace canopy {

enum class trace_kind : unsigned char {
    run,     // a front's tasks running (arg: tasks in the front)
    pick,    // choosing a front and reading it (includes idle polls, recorded inside as `idle`)
    pack,    // counting and packing the children into fronts (arg: tasks spawned)
    share,   // moving fronts to a shared queue: donation, sharing, spilling (arg: fronts moved)
    steal,   // a pick that got a front from another work-group (arg: fronts received)
    idle,    // polling for work that is not there
    barrier, // waiting at block_barrier
    resolve, // a front's join completions resolved, continuations run inline (arg: continuations)
};
constexpr unsigned trace_kinds = 8;

constexpr const char* to_string(trace_kind k) {
    switch (k) {
    case trace_kind::run: return "run";
    case trace_kind::pick: return "pick";
    case trace_kind::pack: return "pack";
    case trace_kind::share: return "share";
    case trace_kind::steal: return "steal";
    case trace_kind::idle: return "idle";
    case trace_kind::barrier: return "barrier";
    case trace_kind::resolve: return "resolve";
    }
    return "?";
}

/// The name of a span's argument in the trace (nullptr: the kind has none).
constexpr const char* arg_name(trace_kind k) {
    switch (k) {
    case trace_kind::run: return "tasks";
    case trace_kind::pack: return "spawned";
    case trace_kind::share: return "fronts";
    case trace_kind::steal: return "fronts";
    case trace_kind::resolve: return "continuations";
    default: return nullptr;
    }
}

/// Counters ("C" events): values the runtime already holds in registers when it samples them (a trace
/// never adds a memory access, so a traced run takes the schedule an untraced one takes).
enum class trace_counter : unsigned char {
    outstanding,     // tasks seeded or spawned and not finished (after a front's count RMW)
    private_queue,   // fronts in the sub-group's private queue
    workgroup_queue, // fronts in a work-group queue, as its size hint read (index: work-group)
    device_queue,    // fronts in a device queue, as its size hint read (index: ring)
};

constexpr const char* to_string(trace_counter c) {
    switch (c) {
    case trace_counter::outstanding: return "outstanding tasks";
    case trace_counter::private_queue: return "private queue";
    case trace_counter::workgroup_queue: return "work-group queue";
    case trace_counter::device_queue: return "device queue";
    }
    return "?";
}

} // namespace canopy
