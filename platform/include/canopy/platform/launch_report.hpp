// canopy/platform/launch_report.hpp — what the backend reports about the last launch beyond the
// kernel's own results: the memory model's counters and how to replay it (the CPU emulator; empty on
// GPUs, which keep no such record and cannot replay a schedule), and a launch that stands for several
// devices at once (the emulator's emu::options::devices; a GPU run of several devices is one launch
// per device, which the runtime does not do yet).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "canopy/platform/config.hpp"
#include "canopy/platform/launch.hpp"

namespace canopy {

/// The last launch's memory-model counters (the emulator's scoped-cache model: docs/memory-model.md);
/// all zero on GPUs and on the emulator's coherent model.
struct launch_memory_counters {
    // [scope: subgroup, workgroup, device, system][order: relaxed, consume, acquire, release, acq_rel,
    // seq_cst]
    std::array<std::array<std::uint64_t, 6>, 4> atomics{}, fences{};
    std::uint64_t flushes = 0, invalidations = 0, remote_ops = 0, lines_written_back = 0;
    std::uint64_t cycles_total = 0, cycles_max_cu = 0;
    std::uint64_t cycles_makespan = 0; // the timed scheduler only
};

/// The last launch's race check (the emulator's race detector, docs/race-detector.md): whether it ran,
/// under which model, how many distinct pairs of sites raced, and the first reports as text, each with
/// the line that replays it. A GPU checks nothing: `checked` is false there.
struct launch_race_report {
    bool checked = false;
    std::string model;                // "hrf-direct", "hrf-indirect" or "rsp" when checked
    std::uint64_t distinct = 0;       // distinct site pairs that raced
    std::vector<std::string> reports; // the first of them (the emulator's race_report_limit), in order
};

} // namespace canopy

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/platform/detail/cpu/launch_report.hpp"
#else
namespace canopy {
inline launch_memory_counters last_launch_memory() { return {}; }
inline launch_race_report last_launch_races() { return {}; }
/// How to replay the last launch (a failure report appends it): nothing on a GPU.
inline std::string launch_replay_hint() { return {}; }
/// Whether one launch can stand for several devices (launch_on_devices).
inline constexpr bool launch_spans_devices = false;
template <class Kernel> void launch_on_devices(const launch_config&, unsigned, const Kernel&) {
    static_assert(sizeof(Kernel) == 0, "one launch over several devices exists only on the CPU emulator");
}
} // namespace canopy
#endif
