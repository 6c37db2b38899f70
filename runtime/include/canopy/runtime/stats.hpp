// canopy/runtime/stats.hpp — what a run did: per-level task and front counts, donations, steals, and
// (on the emulator with the scoped-cache model) atomics and fences by scope x order and simulated cycles.
//
// Device side: every sub-group leader counts in registers and writes its row of `counter` words once,
// with plain stores, when it leaves the scheduler; the host sums the rows after the kernel ends.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "canopy/platform/config.hpp"
#include "canopy/platform/launch_report.hpp"

namespace canopy::runtime {

/// Where a front came from when a sub-group ran it.
/// lvl_system: the system ring (several devices; system_level.hpp).
enum level : unsigned {
    lvl_private = 0,
    lvl_workgroup = 1,
    lvl_device = 2,
    lvl_stolen = 3,
    lvl_system = 4,
    num_levels = 5
};

constexpr const char* level_name(unsigned l) {
    return l == lvl_private     ? "private"
           : l == lvl_workgroup ? "work-group"
           : l == lvl_device    ? "device"
           : l == lvl_stolen    ? "stolen"
                                : "system";
}

/// One row of device counters per sub-group.
enum counter : unsigned {
    c_tasks = 0,                     // tasks run, per level: c_tasks + level (a join continuation run inline
                                     // by its sub-group's resolve step counts as private: it never left it)
    c_fronts = c_tasks + num_levels, // fronts run, per level
    c_partial = c_fronts + num_levels,
    c_donate_wg,
    c_donate_device,
    c_redonate_device,
    c_steal_requests,
    c_steal_grants,
    c_steal_declines,
    c_steals_received, // fronts a thief got (steal-emulated: granted mailboxes, one front each; steal-rsp:
                       // the fronts of its remote pops, several per steal on the ring core)
    c_rsp_attempts,
    c_spawned,
    c_deferred,      // fronts sent to the far ring (ring core, order priority)
    c_donate_system, // fronts donated to the system ring (several devices)
    c_device_dry,    // times this sub-group's count step left its device with no task (several devices)
    c_device_away,   // fronts taken from a device ring other than the work-group's home ring
    c_joins_local,   // join records resolved through their sub-group's local tag (join_continuation.hpp)
    num_counters
};

/// The run's counts. Its base holds the scoped-cache model's counters of the launch (emulator,
/// memory_model = scoped: atomics and fences by scope x order, flushes, invalidations, remote ops,
/// lines written back, cycles; zero otherwise), copied whole from platform/launch_report.hpp.
struct stats : launch_memory_counters {
    std::array<std::uint64_t, num_levels> tasks{}, fronts{};
    std::uint64_t partial_fronts = 0;
    std::uint64_t donations_to_workgroup = 0, donations_to_device = 0, redonations_to_device = 0;
    std::uint64_t steal_requests = 0, steal_grants = 0, steal_declines = 0, steals_received = 0;
    std::uint64_t rsp_attempts = 0;
    std::uint64_t tasks_spawned = 0;   // on the device (seeds not included)
    std::uint64_t deferred_fronts = 0; // sent to the far ring (ring core, order priority)
    // Fronts taken from a device ring other than the work-group's home ring (config::device_rings > 1:
    // the idle probes that find work shared into another work-group's ring).
    std::uint64_t device_fronts_away = 0;
    // Join records that the ring core resolved in the sub-group that opened them, every child having run
    // there, with a work-group-scope decrement and no device-scope atomic (join_continuation.hpp,
    // "Records that stay in their sub-group"); a record all of whose children completed in one front
    // needs no RMW at all and is not counted here.
    std::uint64_t joins_local = 0;
    // Several devices (config::devices): fronts donated to the system ring, and the times a device ran
    // dry (its outstanding count reached 0 while the run went on, or at its end).
    std::uint64_t donations_to_system = 0, devices_dry = 0;
    // Tasks run by each device's sub-groups, from any level (the host sums each device's rows): with
    // several devices, a device that never ran a task is one the system level never fed.
    std::vector<std::uint64_t> tasks_per_device;
    unsigned devices = 1;
    unsigned workgroups = 0, subgroups = 0, subgroup_size = 0; // launched
    unsigned participants = 0; // work-groups that ran the scheduler (persistent: occupancy discovery's count)
    double seconds = 0;        // host wall time of the launch (bench only; tests never time anything)
    // The kernel alone, from GPU events around it (platform/kernel_timer.hpp); on the emulator, the
    // launch's host time (platform's device_clock names which, wherever it is printed).
    double device_ms = 0;
    // The race detector's verdict on the launch (the emulator, when emu::options::race_check or
    // CANOPY_EMU_RACE_CHECK asks for one; never on a GPU): a library run gets its report here, with the
    // line that replays each race. Races do not make run() throw: a caller that wants them fatal checks
    // races.distinct.
    launch_race_report races;

    std::uint64_t total_tasks() const {
        std::uint64_t n = 0;
        for (auto t : tasks) {
            n += t;
        }
        return n;
    }
    std::uint64_t donations() const {
        return donations_to_workgroup + donations_to_device + redonations_to_device + donations_to_system;
    }

    /// Every field of a run, by name, in one order: the one list that the CLI's text and JSON (canopy
    /// uts, canopy graph) and the benches print from, so that a field added here reaches all of them.
    /// `f(name, value)`. The several-devices fields come only when devices > 1, the scoped-cache model's
    /// only when it ran (a nonzero cycle count), the timed makespan only when timed.
    template <class F> void for_each_field(F&& f) const {
        f("workgroups", workgroups);
        f("participants", participants);
        f("subgroups", subgroups);
        f("subgroup_size", subgroup_size);
        f("tasks", total_tasks());
        for (unsigned l = 0; l < num_levels; ++l) {
            f(std::string("tasks_") + level_name(l), tasks[l]);
        }
        for (unsigned l = 0; l < num_levels; ++l) {
            f(std::string("fronts_") + level_name(l), fronts[l]);
        }
        f("tasks_spawned", tasks_spawned);
        f("partial_fronts", partial_fronts);
        f("donations_to_workgroup", donations_to_workgroup);
        f("donations_to_device", donations_to_device);
        f("redonations_to_device", redonations_to_device);
        f("steal_requests", steal_requests);
        f("steal_grants", steal_grants);
        f("steal_declines", steal_declines);
        f("steals_received", steals_received);
        f("rsp_attempts", rsp_attempts);
        f("deferred_fronts", deferred_fronts);
        f("device_fronts_away", device_fronts_away);
        f("joins_local", joins_local);
        if (devices > 1) {
            f("devices", devices);
            f("donations_to_system", donations_to_system);
            f("devices_dry", devices_dry);
            for (std::size_t d = 0; d < tasks_per_device.size(); ++d) {
                f("tasks_device_" + std::to_string(d), tasks_per_device[d]);
            }
        }
        if (cycles_total != 0) {
            f("flushes", flushes);
            f("invalidations", invalidations);
            f("remote_ops", remote_ops);
            f("lines_written_back", lines_written_back);
            f("cycles_total", cycles_total);
            f("cycles_max_cu", cycles_max_cu);
        }
        if (cycles_makespan != 0) {
            f("cycles_makespan", cycles_makespan);
        }
        if (races.checked) {
            f("races", races.distinct);
        }
    }

    void add_row(const unsigned* row) {
        for (unsigned l = 0; l < num_levels; ++l) {
            tasks[l] += row[c_tasks + l];
            fronts[l] += row[c_fronts + l];
        }
        partial_fronts += row[c_partial];
        donations_to_workgroup += row[c_donate_wg];
        donations_to_device += row[c_donate_device];
        redonations_to_device += row[c_redonate_device];
        steal_requests += row[c_steal_requests];
        steal_grants += row[c_steal_grants];
        steal_declines += row[c_steal_declines];
        steals_received += row[c_steals_received];
        rsp_attempts += row[c_rsp_attempts];
        tasks_spawned += row[c_spawned];
        deferred_fronts += row[c_deferred];
        donations_to_system += row[c_donate_system];
        devices_dry += row[c_device_dry];
        device_fronts_away += row[c_device_away];
        joins_local += row[c_joins_local];
    }
};

} // namespace canopy::runtime
