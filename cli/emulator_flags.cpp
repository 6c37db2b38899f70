#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "commands.hpp"

namespace canopy::cli {

namespace {

// What the flags given on the command line imply for the scheduler. The scoped-cache model, --timed
// and a --seed exist only under the deterministic scheduler, so asking for one of them chooses it;
// only an explicit --scheduler parallel alongside is a contradiction, reported as a usage error (exit
// 2) that names both flags.
void resolve_scheduler(emulator_settings& s, const CLI::Option* scheduler, const CLI::Option* seed,
                       const CLI::Option* memory_model, const CLI::Option* timed, const CLI::Option* race,
                       const CLI::Option* pct) {
    std::vector<std::string> needs; // the given flags that need the deterministic scheduler
    if (pct != nullptr && pct->count() > 0 && s.pct_depth > 0) {
        if (s.timed) {
            throw CLI::ValidationError(
                "--pct-depth and --timed both fix the deterministic scheduler's order: "
                "give one of them");
        }
        needs.emplace_back("--pct-depth");
    }
    if (memory_model != nullptr && memory_model->count() > 0 && s.memory_model == "scoped") {
        needs.emplace_back("--memory-model scoped");
    }
    if (timed != nullptr && timed->count() > 0 && s.timed) {
        needs.emplace_back("--timed");
    }
    if (race != nullptr && race->count() > 0 && s.race_check != "none") {
        needs.emplace_back("--race-check " + s.race_check);
    }
    if (seed != nullptr && seed->count() > 0) {
        needs.emplace_back("--seed");
    }
    if (needs.empty()) {
        return;
    }
    if (scheduler->count() > 0 && s.scheduler != "deterministic") {
        throw CLI::ValidationError(needs.front() +
                                   " runs only under the deterministic scheduler (it implies "
                                   "it): drop --scheduler " +
                                   s.scheduler);
    }
    s.scheduler = "deterministic";
}

} // namespace

// --trace: a path the run cannot write is a usage error found before anything runs (exit 2), not a
// runtime error after a long run whose timeline is then lost.
void check_trace_path(const std::string& path) {
    namespace fs = std::filesystem;
    const fs::path p(path);
    const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    std::error_code ec;
    if (p.filename().empty() || fs::is_directory(p, ec)) {
        throw CLI::ValidationError("--trace " + path + ": a file name is needed (e.g. " +
                                   ((p.filename().empty() ? dir : p) / "trace.json").string() + ")");
    }
    if (!fs::is_directory(dir, ec)) {
        throw CLI::ValidationError("--trace " + path + ": directory '" + dir.string() +
                                   "' does not exist (create it, or give a path in an existing directory)");
    }
    if (fs::exists(p, ec) ? ::access(path.c_str(), W_OK) != 0 : ::access(dir.c_str(), W_OK) != 0) {
        throw CLI::ValidationError("--trace " + path +
                                   ": not writable (give a path in a directory you can "
                                   "write)");
    }
}

void add_emulator_flags(CLI::App& sub, emulator_settings& s, emulator_flag_set what) {
    const auto presets = emulator_presets();
    if (presets.empty()) {
        return; // a GPU backend: the device is the GPU
    }
    std::vector<std::string> names;
    for (const auto& p : presets) {
        names.push_back(p.name);
    }
    sub.add_option("--device", s.device, "virtual device preset of the emulator (see 'canopy info')")
        ->check(CLI::IsMember(names))
        ->default_val(s.device);
    sub.add_option("--subgroup", s.subgroup, "override the preset's sub-group size (32 or 64)")
        ->check(CLI::IsMember({32u, 64u}));
    if (!what.runs_kernels) {
        return;
    }
    CLI::Option* scheduler =
        sub.add_option("--scheduler", s.scheduler,
                       "deterministic (one thread, seeded, replayable) or parallel (several threads, for "
                       "throughput); --memory-model scoped, --timed and --seed choose deterministic")
            ->check(CLI::IsMember({"deterministic", "parallel"}))
            ->default_val(s.scheduler);
    CLI::Option* seed =
        sub.add_option("--seed", s.seed, "seed of the deterministic scheduler (replays a run)")
            ->default_val(s.seed);
    sub.add_option("--threads", s.threads, "OS threads of the parallel scheduler (0: all cores)")
        ->default_val(s.threads);
    CLI::Option* memory_model =
        sub.add_option(
               "--memory-model", s.memory_model,
               "coherent, or scoped: the scoped-cache model of a GPU's non-coherent caches (runs on the "
               "deterministic scheduler)")
            ->check(CLI::IsMember({"coherent", "scoped"}))
            ->default_val(s.memory_model);
    sub.add_option("--scheme", s.scheme,
                   "scoped model: RSP compilation scheme, proposed (sound) or original (buggy)")
        ->check(CLI::IsMember({"proposed", "original"}))
        ->default_val(s.scheme);
    CLI::Option* timed = nullptr;
    if (what.timed) {
        timed = sub.add_flag("--timed", s.timed,
                             "deterministic scheduler in simulated-time order; reports cycles_makespan (the "
                             "modelled duration; use with --memory-model scoped)");
        sub.add_option(
               "--launch-cycles", s.launch_cycles,
               "--timed: cycles one kernel launch + reading back its stop flag costs the host loop, "
               "reported apart from the launches' makespans (docs/graph-experiment.md: 10 us at 1 GHz, "
               "Volkov & Demmel's synchronous relaunch)")
            ->default_val(s.launch_cycles);
    }
    CLI::Option* race =
        sub.add_option(
               "--race-check", s.race_check,
               "check every launch for heterogeneous races under this model (deterministic scheduler; "
               "docs/race-detector.md): the races are reported at the end and the command exits 1. The "
               "verdict covers only the executions that ran (one schedule per launch, chosen by the seed): "
               "no race reported is not a proof of race freedom")
            ->check(CLI::IsMember({"none", "hrf-direct", "hrf-indirect", "rsp"}))
            ->default_val(s.race_check);
    CLI::Option* pct =
        sub.add_option("--pct-depth", s.pct_depth,
                       "deterministic scheduler in PCT order (probabilistic concurrency testing): random "
                       "work-item priorities with D-1 change points; finds an ordering bug of depth D with "
                       "a known probability (0: uniform random order; docs/emulator.md)")
            ->default_val(s.pct_depth);
    sub.add_option("--pct-steps", s.pct_steps,
                   "--pct-depth: change points are drawn from the first K scheduling steps, about one "
                   "launch's length (0: 20000)")
        ->default_val(s.pct_steps);
    sub.add_option("--trace", s.trace,
                   "write a timeline of every launch to FILE: Chrome trace-event JSON for Perfetto or "
                   "chrome://tracing, one track per sub-group; time in simulated cycles with --timed, else "
                   "in scheduler steps (docs/emulator.md, 'Timeline'; plot it with bench/plot_timeline.py)")
        ->type_name("FILE");
    sub.add_option("--trace-events", s.trace_events,
                   "--trace: events the file holds at most; past it each track is aggregated into time "
                   "windows (said on stderr)")
        ->default_val(s.trace_events)
        ->check(CLI::PositiveNumber);
    sub.parse_complete_callback([&s, scheduler, seed, memory_model, timed, race, pct] {
        resolve_scheduler(s, scheduler, seed, memory_model, timed, race, pct);
        if (!s.trace.empty()) {
            check_trace_path(s.trace);
        }
    });
}

} // namespace canopy::cli
