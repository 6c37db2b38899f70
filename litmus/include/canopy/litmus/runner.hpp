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
#include <optional>
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
    std::uint64_t seeds = 10000; // random runs (seeds 1..seeds) unless exhaustive succeeds
    // The random runs cycle through a uniform order and PCT orders of depth 1..seeds_pct_depth (0:
    // uniform only, the default), as the race sampling does: an outcome at the end of a long chain of
    // hand-offs (herd's XF-barrier tests) is out of uniform order's reach.
    unsigned seeds_pct_depth = 0;
    double time_budget_seconds = 0; // > 0: stop the random runs once this much time has passed
    // Explore every execution first, up to this many runs (each run replays a choice sequence from the
    // start); over the limit the partial exploration is dropped and the random runs decide.
    std::uint64_t exhaustive_limit = 1000000;
    // The exhaustive explorations cache states (emu::state_caching_dfs): a run reaching a state already
    // explored is cut there. false: plain depth-first enumeration of every choice sequence (to check
    // the reduction against; feasible for tiny tests only). Both explorations (outcomes, races).
    bool reduction = true;
    // A race check decides its verdict by a second exploration, of the test's SC executions (coherent
    // memory, the detector on; docs/race-detector.md, "Exact verdicts"), with state caching whose key
    // includes the detector's state. It gets at most this many runs; unfinished, a race it found still
    // counts, and race_samples random SC runs follow (the verdict is then incomplete).
    std::uint64_t race_check_exhaustive_limit = 1000000;
    std::uint64_t race_samples = 10000;
    // The sampled runs cycle through a uniform random order and PCT orders of depth 1..race_pct_depth
    // (0: uniform only), which reach long chains of hand-offs that uniform order almost never completes.
    unsigned race_pct_depth = 3;
    // Check the test for heterogeneous races under this model (docs/race-detector.md, "Litmus"); none:
    // off. The outcomes are explored on the SCM as without a race check.
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
    // run_options::race_check: the model, the race exploration's runs (race_runs exhaustive, cut ones
    // included; race_sampled random ones after an unfinished exploration), whether it explored every SC
    // execution, the runs with at least one race, and every distinct race.
    emu::race_check_kind race_check = emu::race_check_kind::none;
    std::uint64_t race_runs = 0, race_states = 0, race_sampled = 0;
    bool race_complete = false;
    std::uint64_t racy_runs = 0;
    std::vector<race_finding> races;
    /// A race was found (in some SC execution: a proof that the test is racy).
    bool racy() const { return !races.empty(); }
    /// The verdict: true racy; false race-free, proven by the complete exploration; nullopt no race found
    /// in an exploration that did not finish (nothing is claimed).
    std::optional<bool> race_verdict() const {
        if (racy()) {
            return true;
        }
        if (race_complete) {
            return false;
        }
        return std::nullopt;
    }
};

/// Runs `t`; throws unsupported_test for constructs outside what the SCM models (with a race check, only
/// for what the race check cannot model either: local memory, uneven barriers). A race check adds the
/// launches' races to emu::accumulated_races() like any launch's.
result run(const test& t, const run_options& o);

} // namespace canopy::litmus
