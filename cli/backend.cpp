// The CLI's bridge to the backend: the only CLI file compiled by the device compiler (backend.hpp).
#include "backend.hpp"

#include <cstdio>
#include <string>

#include "canopy/platform/platform.hpp"
#include "canopy/runtime/policy.hpp"
#include "canopy/workloads/donation.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/emulator/launch.hpp"
#    include "canopy/emulator/options.hpp"
#    include "canopy/emulator/trace.hpp"
#    include "canopy/emulator/virtual_device.hpp"
#endif

namespace canopy::cli {

const char* backend_name() { return CANOPY_BACKEND_NAME; }

std::vector<std::string> runtime_policy_names() {
    std::vector<std::string> names;
    for (const runtime::policy p : runtime::all_policies) {
        if (runtime::policy_available(p)) {
            names.emplace_back(runtime::to_string(p));
        }
    }
    return names;
}

device_summary describe_device(unsigned block, std::size_t shared_bytes) {
    const device_info d = query_device();
    device_summary s;
    s.backend = d.backend;
    s.name = d.name;
    s.compute_units = d.compute_units;
    s.subgroup_size = d.subgroup_size;
    s.max_block_size = d.max_block_size;
    s.max_blocks_per_cu = d.max_blocks_per_cu;
    s.max_threads_per_cu = d.max_threads_per_cu;
    s.shared_bytes_per_block = d.shared_bytes_per_block;
    s.shared_bytes_per_cu = d.shared_bytes_per_cu;
    s.global_memory_bytes = d.global_memory_bytes;
    s.resident_blocks_per_cu = resident_blocks_per_cu(d, block, shared_bytes);
    return s;
}

std::vector<preset_summary> emulator_presets() {
    std::vector<preset_summary> v;
#if defined(CANOPY_BACKEND_CPU)
    for (const auto& p : emu::presets()) {
        v.push_back({p.name, p.description});
    }
#endif
    return v;
}

void configure_emulator(const emulator_settings& s) {
#if defined(CANOPY_BACKEND_CPU)
    auto& o = emu::current_options();
    o.device = emu::preset(s.device);
    if (s.subgroup) {
        o.device = emu::with_subgroup_size(o.device, s.subgroup);
    }
    o.scheduler = emu::parse_scheduler(s.scheduler);
    o.seed = s.seed;
    o.threads = s.threads;
    o.memory_model = emu::parse_memory_model(s.memory_model);
    o.rsp_original_scheme = s.scheme == "original";
    o.timed = s.timed;
    o.race_check = emu::parse_race_check(s.race_check);
    o.costs.launch = s.launch_cycles;
    o.pct_depth = s.pct_depth;
    o.pct_steps = s.pct_steps;
    emu::reset_race_log();
    emu::reset_launch_totals();
    if (!s.trace.empty() && !emu::trace_is_open()) {
        emu::trace_open(s.trace, s.trace_events);
    }
#else
    (void)s;
#endif
}

void finish_trace() {
#if defined(CANOPY_BACKEND_CPU)
    if (!emu::trace_is_open()) {
        return;
    }
    const emu::trace_summary t = emu::trace_close();
    std::fprintf(stderr,
                 "canopy: trace: wrote %s (%llu launch(es), %llu sub-group tracks, %llu spans, %llu counter "
                 "samples, %llu events; time in %s)\n",
                 t.path.c_str(), static_cast<unsigned long long>(t.launches),
                 static_cast<unsigned long long>(t.tracks), static_cast<unsigned long long>(t.spans),
                 static_cast<unsigned long long>(t.counters), static_cast<unsigned long long>(t.events),
                 t.time_unit.c_str());
    if (!t.note.empty()) {
        std::fprintf(stderr, "canopy: %s\n", t.note.c_str());
    }
#endif
}

launch_summary collect_launches() {
    launch_summary r;
#if defined(CANOPY_BACKEND_CPU)
    const emu::launch_totals_t& t = emu::launch_totals();
    r.launches = t.launches;
    r.steps = t.steps;
    r.kernel_cycles = t.cycles_makespan;
    r.launch_cycles = emu::current_options().costs.launch;
#endif
    return r;
}

race_summary collect_races() {
    race_summary r;
#if defined(CANOPY_BACKEND_CPU)
    if (emu::current_options().race_check == emu::race_check_kind::none) {
        return r;
    }
    const emu::race_log& log = emu::accumulated_races();
    r.checked = true;
    r.model = emu::to_string(emu::current_options().race_check);
    r.launches = log.launches;
    r.distinct = log.distinct_races;
    for (const emu::race_report& rep : log.races) {
        r.text += emu::to_string(rep) + "\n";
    }
#endif
    return r;
}

namespace {

// Every resident work-group runs a relay: a token travels around the ring of work-groups `laps`
// times; the holder adds its work-group's contribution (a sub-group scan and a reduction through
// shared memory) and hands the token on with a device-scope release that the next work-group
// acquires in spin_until. Waiting across work-groups is safe only because all are resident.
struct relay_kernel {
    unsigned laps;
    unsigned* turn; // whose turn it is: hop number, device scope
    unsigned long long* token;

    CANOPY_DEVICE void operator()() const {
        const unsigned groups = grid_dim();
        const unsigned me = block_id();
        CANOPY_SHARED(unsigned[32], sums); // one slot per sub-group (at most 1024 / 32)
        CANOPY_SHARED(unsigned, block_total);
        for (unsigned lap = 0; lap < laps; ++lap) {
            // This work-group's contribution for this lap: sum over work-items of (lap+1)*(id+1).
            const unsigned x = (lap + 1) * (global_id() + 1);
            const unsigned before = exclusive_sum(x); // sub-group scan
            if (lane_id() == subgroup_size() - 1 || thread_id() == block_dim() - 1) {
                sums[subgroup_id()] = before + x; // the sub-group's total
            }
            block_barrier();
            if (thread_id() == 0) {
                unsigned t = 0;
                for (unsigned s = 0; s < subgroups_per_block(); ++s) {
                    t += sums[s];
                }
                block_total = t;
                const unsigned hop = lap * groups + me;
                atomic_ref<unsigned, scope::device> r(*turn);
                // Acquire at device scope: the previous holder released the token at device scope.
                spin_until([&] { return r.load(std::memory_order_acquire) == hop; });
                st(token, ld(token) + block_total);
                // Release at device scope: the token (a plain store) must be visible to the next
                // work-group, which runs on another CU.
                r.store(hop + 1, std::memory_order_release);
            }
            block_barrier(); // sums[] is reused next lap
        }
    }
};

} // namespace

relay_result run_relay(unsigned block, unsigned laps) {
    const device_info d = query_device();
    const unsigned grid = max_resident_blocks<relay_kernel>(block);
    if (grid == 0) {
        throw error("a work-group of " + std::to_string(block) + " work-items cannot run on " + d.name +
                    " (use --block-size <= " + std::to_string(d.max_block_size) + ")");
    }
    device_buffer<unsigned> turn(1);
    device_buffer<unsigned long long> token(1);
    turn.fill_zero();
    token.fill_zero();
    stream s;
    event start, stop;
    start.record(s);
    launch({.grid = grid, .block = block, .on = &s}, relay_kernel{laps, turn.data(), token.data()});
    stop.record(s);
    stop.synchronize();
    relay_result r;
    r.device = d.name;
    r.work_groups = grid;
    r.block = block;
    r.laps = laps;
    r.token = token.to_vector()[0];
    for (unsigned lap = 0; lap < laps; ++lap) {
        for (unsigned long long g = 0; g < 1ULL * grid * block; ++g) {
            r.expected += (lap + 1) * (g + 1);
        }
    }
    r.seconds = stop.elapsed_ms(start) / 1000.0;
    r.device_clock = device_clock;
#if defined(CANOPY_BACKEND_CPU)
    const auto& rep = emu::last_report();
    r.emulated = true;
    r.scheduler = emu::to_string(rep.scheduler);
    r.seed = rep.seed;
    r.fiber_switches = rep.steps;
    r.digest = rep.digest;
    r.threads = rep.threads;
    r.memory_model = rep.memory_model;
    if (rep.memory_model != "coherent") {
        rep.memory.for_each(
            [&](const std::string& k, std::uint64_t v) { r.memory_counters.emplace_back(k, v); });
    }
#endif
    return r;
}

donation_result run_donation(bool by_reference) {
    using L = workloads::donation_layout;
    const device_info d = query_device();
    // Two sub-groups per work-group: the producer and the mover must not share a sub-group (donation.hpp).
    const unsigned block = 2 * d.subgroup_size;
    if (max_resident_blocks<workloads::donation_kernel>(block) < 2) {
        throw error("the donation kernel needs 2 resident work-groups of " + std::to_string(block) +
                    " work-items, and " + d.name + " holds fewer");
    }
    device_buffer<unsigned> mem(L::words);
    mem.fill_zero();
    kernel_timer t;
    timed_launch(&t, [&] {
        launch({.grid = 2, .block = block}, workloads::donation_kernel{mem.data(), by_reference});
    });
    const std::vector<unsigned> v = mem.to_vector();
    donation_result r;
    r.device_ms = t.total().span_ms;
    r.device_clock = device_clock;
    r.device = d.name;
    r.by_reference = by_reference;
    r.block = block;
    r.read = v[L::result];
    r.written = L::task;
    r.timed_out = v[L::status] != 0;
    return r;
}

} // namespace canopy::cli
