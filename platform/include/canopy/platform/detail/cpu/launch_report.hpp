// Emulator: the last launch's report (emu::last_report) and a launch over several emulated devices.
#pragma once

#include <string>

#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/options.hpp"
#include "canopy/emulator/race_detector.hpp"

namespace canopy {

inline launch_memory_counters last_launch_memory() {
    const emu::memory_counters& m = emu::last_report().memory;
    launch_memory_counters c;
    c.atomics = m.atomics;
    c.fences = m.fences;
    c.flushes = m.flushes_own + m.flushes_remote;
    c.invalidations = m.invalidations_own + m.invalidations_remote;
    c.remote_ops = m.remote_ops;
    c.lines_written_back = m.lines_written_back;
    c.cycles_total = m.cycles_total;
    c.cycles_max_cu = m.cycles_max_cu;
    c.cycles_makespan = m.cycles_makespan;
    return c;
}

/// The race detector's verdict on the last launch, when options::race_check asked for one.
inline launch_race_report last_launch_races() {
    const emu::launch_report& r = emu::last_report();
    launch_race_report out;
    if (r.race_check == emu::race_check_kind::none) {
        return out;
    }
    out.checked = true;
    out.model = emu::to_string(r.race_check);
    out.distinct = r.distinct_races;
    for (const emu::race_report& rep : r.races) {
        out.reports.push_back(emu::to_string(rep));
    }
    return out;
}

/// The deterministic scheduler's seed replays the launch; the parallel scheduler's cannot be.
inline std::string launch_replay_hint() {
    const emu::launch_report& r = emu::last_report();
    if (r.scheduler == emu::scheduler_kind::deterministic) {
        return " [emulator: deterministic scheduler, seed " + std::to_string(r.seed) +
               "; replay with CANOPY_EMU_SEED=" + std::to_string(r.seed) + "]";
    }
    return " [emulator: parallel scheduler, not replayable; the deterministic scheduler is]";
}

inline constexpr bool launch_spans_devices = true;

/// One launch of cfg.grid work-groups standing for `devices` devices at once: work-group b runs on
/// device b % devices (the emulator places it on a CU of that device, with that device's L2 under the
/// scoped-cache model).
template <class Kernel> void launch_on_devices(const launch_config& cfg, unsigned devices, const Kernel& k) {
    emu::options o = emu::current_options();
    o.devices = devices;
    const emu::scoped_options scoped(o);
    launch(cfg, k);
}

} // namespace canopy
