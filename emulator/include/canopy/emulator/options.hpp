// canopy/emulator/options.hpp — how the emulator runs the next launch.
//
// Options are process-wide (launches read them when they start) and default from environment
// variables, so that a failing test can be replayed without recompiling:
//   CANOPY_EMU_DEVICE=hrf8  CANOPY_EMU_SCHEDULER=deterministic|parallel  CANOPY_EMU_SEED=42
//   CANOPY_EMU_THREADS=4    CANOPY_EMU_STACK_KIB=64  CANOPY_EMU_SUBGROUP=32|64  CANOPY_EMU_DEVICES=1
//   CANOPY_EMU_MEMORY_MODEL=coherent|scoped  CANOPY_EMU_SPIN_LIMIT=0
//   CANOPY_EMU_RACE_CHECK=none|hrf-direct|hrf-indirect|rsp
//   CANOPY_EMU_PCT_DEPTH=3  CANOPY_EMU_PCT_STEPS=20000
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "canopy/emulator/memory_counters.hpp"
#include "canopy/emulator/virtual_device.hpp"

namespace canopy::emu {
class chooser;
}

namespace canopy::emu {

enum class scheduler_kind {
    deterministic, // one OS thread; a seeded random choice at every yield point; replayable
    parallel,      // several OS threads; real atomics; for throughput
};

const char* to_string(scheduler_kind k);

enum class memory_model_kind {
    coherent, // plain std::atomic semantics (what a CPU gives); both schedulers
    scoped,   // the scoped-cache model (scoped_cache_model.hpp); deterministic scheduler only
};
const char* to_string(memory_model_kind k);
/// Parses "coherent" / "scoped"; throws canopy::error naming the valid values otherwise.
memory_model_kind parse_memory_model(const std::string& s);
/// Parses "deterministic" / "parallel"; throws canopy::error naming the valid values otherwise.
scheduler_kind parse_scheduler(const std::string& s);

/// The heterogeneous-race detector's model (docs/race-detector.md); none: the detector is off.
enum class race_check_kind {
    none,
    hrf_direct,   // HRF-direct (Hower et al. ASPLOS'14): every chain synchronizes at one scope
    hrf_indirect, // HRF-indirect: chains may change scope; each pair still at one scope
    rsp,          // OpenCL + remote-scope promotion (Wickerson et al. OOPSLA'15): HRF-relaxed inclusion
};
const char* to_string(race_check_kind k);
/// Parses "none" / "hrf-direct" / "hrf-indirect" / "rsp"; throws canopy::error naming the valid values.
race_check_kind parse_race_check(const std::string& s);

struct options {
    virtual_device device; // default: preset "tiny"
    scheduler_kind scheduler = scheduler_kind::deterministic;
    std::uint64_t seed = 1;                           // deterministic scheduler's seed
    unsigned threads = 0;                             // parallel scheduler's OS threads (0: hardware)
    std::size_t stack_bytes = std::size_t{64} * 1024; // per work-item fiber stack, plus a guard page
    // Deterministic watchdog: a deadlock is declared after this many consecutive scheduling steps in
    // which only spinning work-items ran and no memory changed (0: 10,000 + 64 per work-item).
    std::uint64_t watchdog_steps = 0;
    // spin_until_bounded gives up after this many failed polls of one wait (0: never). A GPU debug
    // build bounds the same waits by time (platform/spin.hpp); this lets tests take that path here.
    // (CANOPY_EMU_SPIN_LIMIT)
    std::uint64_t spin_limit = 0;
    // Parallel watchdog: seconds without any memory change while every work-item spins.
    double watchdog_seconds = 10.0;
    // Deterministic scheduler: yield at canopy::ld / canopy::st too (not only at atomics), so plain
    // accesses interleave as freely as they can on a GPU.
    bool yield_at_plain_access = true;
    // Deterministic scheduler, timed (discrete-event) order: always run a work-item with the smallest
    // simulated clock (ties: the seeded choice), and make sub-group collectives and barriers complete
    // at the latest arrival's clock. A spinning work-item then polls in step with the time of the one
    // it waits for, so the launch's makespan (memory_counters::cycles_makespan) models its duration;
    // without it the order is uniformly random and says nothing about time. Narrows the interleavings
    // explored, so litmus and protocol tests keep it off. (CANOPY_EMU_TIMED=1)
    bool timed = false;
    // Deterministic scheduler: PCT order (probabilistic concurrency testing, Burckhardt et al.,
    // ASPLOS'10) instead of a uniform random pick at every step. 0: uniform. d >= 1: every work-item
    // gets a random priority when its work-group becomes resident and the highest-priority runnable one
    // always runs; at d - 1 steps drawn uniformly from [1, pct_steps] the running work-item drops below
    // every initial priority (the i-th change point to d - i). A run then exposes any bug of depth d
    // (d ordering constraints) with probability at least 1 / (n * k^(d-1)) for n work-items and k steps,
    // where a uniform order's chance shrinks with the length of the run. One departure, because GPU
    // code spins: a work-item that polls in spin_until without any memory changing drops below every
    // priority (a yield), or a high-priority spinner would starve the one it waits for and the watchdog
    // would call that a deadlock. And one bound, as Coyote's "fair PCT" has: priorities order only the
    // first pct_steps steps (where every change point lies, so the guarantee above holds for bugs in
    // them); later steps are the uniform choice. A persistent scheduler's idle loop polls with RMWs that
    // change memory (so it is not an idle poll), and under strict priorities such a loop at the top
    // would starve the work-items it waits for forever; the uniform tail lets the run finish.
    // Not with `timed` (which fixes the order by simulated time).
    unsigned pct_depth = 0;
    std::uint64_t pct_steps = 0; // PCT: the range of change points, about a run's steps (0: 20,000)
    // Deterministic scheduler: draw choices from this chooser instead of a generator seeded with `seed`
    // (the litmus runner's exhaustive mode; the scoped-cache model shares it).
    chooser* choices = nullptr;
    // The memory model of launches that do not bring their own, and its knobs.
    memory_model_kind memory_model = memory_model_kind::coherent;
    bool rsp_original_scheme = false; // scoped model: RSP Table 3's original column instead of proposed
    cost_table costs;
    // Deterministic scheduler: check the launch for heterogeneous races under this model and put the
    // first ones in launch_report::races (docs/race-detector.md). (CANOPY_EMU_RACE_CHECK)
    race_check_kind race_check = race_check_kind::none;
    unsigned race_report_limit = 10; // distinct site pairs kept in launch_report::races
    // Add every access's call site and cost to the process's site profile (site_profile.hpp), which
    // the environment's request prints at exit. (CANOPY_EMU_SITE_PROFILE)
    bool site_profile = false;
    // The race detector's device of each work-group (indexed by block id), for a launch that stands
    // for several devices (the litmus runner's multi-device scopeTrees): device scope then reaches
    // only the work-groups of the same device and system scope reaches all. Empty: one device, and
    // system scope is device scope (the default; a GPU launch is on one device).
    std::vector<unsigned> race_block_device;
    // The launch stands for one persistent launch on each of this many devices (>= 1; 0 reads as 1),
    // all running at once and sharing host memory: work-group b is on device b % devices (the runtime's
    // system level, docs/scale-out.md). Each device gets the virtual device's compute units, its own
    // L1s and, on the scoped-cache model, its own L2 (system scope reaches memory); the race detector's
    // devices follow (race_block_device, unless given). Every work-group must be resident at once.
    unsigned devices = 1;
};

/// The options the environment describes (CANOPY_EMU_DEVICE, _SUBGROUP, _SCHEDULER, _MEMORY_MODEL,
/// _RACE_CHECK, _SEED, _TIMED, _DEVICES, ...; the rest default): what current_options() starts from, and
/// what a race report's replay line sets.
options options_from_environment();

/// The options the next launch uses (initialized from the environment on first use).
options& current_options();

/// Sets the options for the lifetime of this object and restores the previous ones afterwards.
class scoped_options {
  public:
    explicit scoped_options(options o);
    ~scoped_options();
    scoped_options(const scoped_options&) = delete;
    scoped_options& operator=(const scoped_options&) = delete;

  private:
    options saved_;
};

} // namespace canopy::emu
