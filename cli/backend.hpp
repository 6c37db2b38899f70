// The command line's view of the backend, in plain types. The CLI's host-only files (CLI11, fmt, JSON)
// include this and nothing from platform/: nvcc and hipcc do not compile those libraries in device mode
// (fmt's compile-time format strings under nvcc, nlohmann::json under Clang 15's HIP C++20), so only
// backend.cpp is compiled by the device compiler.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace canopy::cli {

const char* backend_name();

/// The runtime policies this backend can run, as --policy accepts them: steal-rsp needs remote-scope
/// promotion, which only the CPU emulator models, so a GPU build refuses it when the flag is parsed.
std::vector<std::string> runtime_policy_names();

struct device_summary {
    std::string backend, name;
    unsigned compute_units = 0, subgroup_size = 0, max_block_size = 0;
    unsigned max_blocks_per_cu = 0, max_threads_per_cu = 0;
    std::size_t shared_bytes_per_block = 0, shared_bytes_per_cu = 0, global_memory_bytes = 0;
    unsigned resident_blocks_per_cu = 0; // for the block size and shared bytes asked for
};
device_summary describe_device(unsigned block, std::size_t shared_bytes);

struct preset_summary {
    std::string name, description;
};
/// The emulator's virtual-device presets (empty on GPU backends).
std::vector<preset_summary> emulator_presets();

struct emulator_settings {
    std::string device = "tiny";
    unsigned subgroup = 0; // 0: the preset's
    std::string scheduler = "deterministic";
    unsigned long long seed = 1;
    unsigned threads = 0;
    std::string memory_model = "coherent"; // or "scoped": the scoped-cache model
    std::string scheme = "proposed";       // scoped model: RSP Table 3 column
    bool timed = false;                    // deterministic scheduler in simulated-time order
    std::string race_check = "none";       // or hrf-direct, hrf-indirect, rsp (docs/race-detector.md)
    // Timed: the per-launch cost (kernel launch + stop-flag read-back, emu::cost_table::launch) that a
    // host loop of launches pays on top of the launches' makespans.
    unsigned long long launch_cycles = 10000;
    // Deterministic scheduler in PCT order (emu::options::pct_depth): 0 uniform, d >= 1 PCT with d - 1
    // priority change points over the first pct_steps steps (0: the emulator's default).
    unsigned pct_depth = 0;
    unsigned long long pct_steps = 0;
    // --trace: the timeline file (empty: none) and the events it holds before spans are aggregated.
    std::string trace;
    unsigned long long trace_events = 1000000;
};
/// Installs the settings as the emulator's options (nothing on GPU backends), and starts a new race log.
void configure_emulator(const emulator_settings& s);

/// --trace: writes the timeline of every launch since configure_emulator() and says so on stderr (with
/// what was aggregated past the size cap); nothing when no trace is being recorded. Throws
/// canopy::error when the file cannot be written.
void finish_trace();

/// The races every race-checked launch of this command found (emulator only; `checked` false otherwise).
struct race_summary {
    bool checked = false;
    std::string model;
    unsigned long long launches = 0, distinct = 0;
    std::string text; // every kept report, one block each
};
race_summary collect_races();

/// The launches since configure_emulator() in the timed model (emulator only; zeros otherwise): the sum
/// of their makespans and how many there were; cycles = kernel_cycles + launches x launch_cycles.
struct launch_summary {
    unsigned long long launches = 0, kernel_cycles = 0, launch_cycles = 0;
    unsigned long long steps = 0; // the emulator's scheduling steps over every launch (0 on a GPU)
};
launch_summary collect_launches();

struct relay_result {
    std::string device;
    unsigned work_groups = 0, block = 0, laps = 0;
    unsigned long long token = 0, expected = 0;
    double seconds = 0;       // the kernel, from events around it (platform/stream.hpp)
    std::string device_clock; // what timed it ("gpu events", or the emulator's host time)
    bool emulated = false;    // the fields below are the emulator's launch report
    std::string scheduler;
    unsigned long long seed = 0, fiber_switches = 0, digest = 0;
    unsigned threads = 0;
    std::string memory_model;
    std::vector<std::pair<std::string, unsigned long long>> memory_counters; // scoped model only
};
/// The demo: a token relayed around every resident work-group `laps` times (cli/backend.cpp).
relay_result run_relay(unsigned block, unsigned laps);

struct donation_result {
    std::string device;
    bool by_reference = true;
    unsigned block = 0;
    unsigned read = 0, written = 0; // what the consumer read, what the producer wrote
    bool timed_out = false;
    double device_ms = 0;     // the kernel alone (platform/kernel_timer.hpp)
    std::string device_clock; // what timed it ("gpu events", or the emulator's host time)
};
/// The HRF paper's donation example (canopy/workloads/donation.hpp): by reference or by copy.
donation_result run_donation(bool by_reference);

} // namespace canopy::cli
