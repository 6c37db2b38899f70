// canopy/platform/trace.hpp — the timeline seam: kernels (the runtime's scheduler loops) mark spans and
// counter samples on their sub-group's track (--trace, docs/emulator.md "Timeline (--trace)").
//
// On the emulator a traced launch gives every work-item its sub-group's track; the calls append to it
// (no lock, no allocation past the buffer's growth) and read the work-item's simulated clock under
// timed order, else the scheduler's step count. They never touch the memory model, so a traced run
// takes the same schedule (same digest) as an untraced one. Callers read tracing() once per loop and
// guard every other call with it: when the launch is not traced that is one well-predicted branch.
// On GPUs there is no timeline (Nsight Systems and rocprof trace the hardware): tracing() is false and
// everything compiles to nothing. A span is recorded by the lane that calls it -- the runtime calls
// from the sub-group's leader (lane 0), so a sub-group has one track.
#pragma once

#include <cstdint>

#include "canopy/platform/config.hpp"
#include "canopy/vocabulary/trace_kind.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/emulator/trace.hpp"
#    include "canopy/emulator/work_item.hpp"
#endif

namespace canopy {

/// Whether the running launch records a timeline (read it once per scheduler loop).
CANOPY_DEVICE inline bool tracing() {
#if defined(CANOPY_BACKEND_CPU)
    return emu::self().timeline != nullptr;
#else
    return false;
#endif
}

/// Now on the caller's track (only when tracing()): simulated cycles under timed order, else steps.
CANOPY_DEVICE inline std::uint64_t trace_clock() {
#if defined(CANOPY_BACKEND_CPU)
    return emu::trace_now(emu::self());
#else
    return 0;
#endif
}

/// Records the span [begin, now) of `kind` with its argument (trace_kind says which) -- only when tracing().
CANOPY_DEVICE inline void trace_span(trace_kind kind, std::uint64_t begin, unsigned arg = 0) {
#if defined(CANOPY_BACKEND_CPU)
    emu::trace_record(emu::self(), kind, begin, arg);
#else
    (void)kind;
    (void)begin;
    (void)arg;
#endif
}

/// Samples a counter now (`index`: which queue, for the queue counters) -- only when tracing().
CANOPY_DEVICE inline void trace_count(trace_counter kind, unsigned index, std::uint64_t value) {
#if defined(CANOPY_BACKEND_CPU)
    emu::trace_sample(emu::self(), kind, index, value);
#else
    (void)kind;
    (void)index;
    (void)value;
#endif
}

} // namespace canopy
