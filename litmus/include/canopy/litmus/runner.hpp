// canopy/litmus/runner.hpp — running a litmus test on the emulator's scoped-cache model.
//
// Each thread Pn becomes a work-item; each work-group of the scopeTree a work-group on its own compute
// unit (so work-group scope means "this L1" and device scope "L2"). The threads' code is interpreted
// inside the kernel, every access going through the SCM with the scope, order and remote flag the
// test names. A run is one launch under one choice sequence: random runs take one seed each, and an
// exhaustive run enumerates every choice sequence (scheduling and environment transitions) when the
// whole tree has at most `exhaustive_limit` executions.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "canopy/emulator/options.hpp"
#include "canopy/emulator/scoped_cache_model.hpp"
#include "canopy/litmus/ast.hpp"

namespace canopy::litmus {

/// A test the runner cannot run faithfully (barriers in work-groups of different sizes, a scopeTree that
/// names a thread twice or leaves one out). The message starts with "unsupported: ".
struct unsupported_test : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct run_options {
    emu::rsp_scheme scheme = emu::rsp_scheme::proposed;
    std::uint64_t seeds = 10000;    // random runs (seeds 1..seeds) unless exhaustive succeeds
    double time_budget_seconds = 0; // > 0: stop the random runs once this much time has passed
    // Explore every execution first, up to this many runs (each run replays a choice sequence from the
    // start); over the limit the partial exploration is dropped and the random runs decide.
    std::uint64_t exhaustive_limit = 1000000;
    // The exhaustive exploration caches states (emu::state_caching_dfs): a run reaching a state already
    // explored is cut there. false: plain depth-first enumeration of every choice sequence (to check
    // the reduction against; feasible for tiny tests only). A race check always uses plain DFS.
    bool reduction = true;
    // With a race check the exploration is plain DFS (the detector's clocks are not part of a cached
    // state), which finishes only on tiny tests: it gets at most this many runs before the random runs.
    std::uint64_t race_check_exhaustive_limit = 20000;
    // Feed every access, atomic and fence of every run to the emulator's race detector under this
    // model (docs/race-detector.md, "Litmus"); none: off. A test is racy when any run had a race.
    emu::race_check_kind race_check = emu::race_check_kind::none;
};

/// One distinct race of a test (by the unordered pair of the two accesses' file:line sites).
struct race_finding {
    std::string sites;      // "RSP_Test4.litmus:10 | RSP_Test4.litmus:21"
    std::string text;       // emu::to_string(race_report), addresses followed by the location name
    std::uint64_t runs = 0; // runs in which this pair raced
    std::uint64_t occurrences = 0;
};

/// Where herd's front end reads a test differently from canopy, so that herd's final states do not
/// describe `location` in canopy's program (herd/HERD7-OUTCOMES.md; OpenCL's per-work-group local
/// memory).
struct front_end_warning {
    std::string location;
    std::string text;
};

struct result {
    std::string test, file, scheme;
    std::uint64_t runs = 0; // runs executed (exhaustive: including those cut at a visited state)
    // Every execution of the scoped-cache model was explored: the outcomes are all it can show, so an
    // outcome missing from them is one the model never produces (not a sampling accident).
    bool exhaustive = false;
    std::uint64_t states = 0;                  // exhaustive with reduction: distinct states visited
    std::uint64_t exhaustive_runs_tried = 0;   // not exhaustive: the runs spent before giving up (0: none)
    std::uint64_t exhaustive_states_tried = 0; // and the distinct states visited by then
    // outcome -> how many counted runs ended in it (exhaustive with reduction: runs that were not cut,
    // so a count says how many explored paths first reached it, not how likely it is)
    std::map<std::string, std::uint64_t> outcomes; // "0:r0=1; 1:r1=0; x=2;" -> count
    std::vector<front_end_warning> warnings;
    std::set<std::string> incomparable; // the warnings' locations
    std::string condition;              // "exists (...)" as written
    bool observed = false; // the condition's body was satisfied by some outcome (forall: by every one)
    std::string verdict; // herd's words: "Sometimes", "Never" (exists/~exists), "Always"/"Sometimes"/"Never"
    // run_options::race_check: the model, the runs with at least one race, and every distinct race.
    emu::race_check_kind race_check = emu::race_check_kind::none;
    std::uint64_t racy_runs = 0;
    std::vector<race_finding> races;
    bool racy() const { return !races.empty(); }
};

/// Runs `t`; throws unsupported_test for constructs outside what the SCM models (with a race check, only
/// for what the race check cannot model either: local memory, uneven barriers). A race check adds the
/// launches' races to emu::accumulated_races() like any launch's.
result run(const test& t, const run_options& o);

} // namespace canopy::litmus
