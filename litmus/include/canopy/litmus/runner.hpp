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
#include <stdexcept>
#include <string>
#include <vector>

#include "canopy/emulator/options.hpp"
#include "canopy/emulator/scoped_cache_model.hpp"
#include "canopy/litmus/ast.hpp"

namespace canopy::litmus {

/// A test the runner cannot run faithfully (several devices with device-scope operations, local memory,
/// barriers in uneven work-groups). The message starts with "unsupported: ".
struct unsupported_test : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct run_options {
    emu::rsp_scheme scheme = emu::rsp_scheme::proposed;
    std::uint64_t seeds = 10000;            // random runs (seeds 1..seeds) unless exhaustive succeeds
    double time_budget_seconds = 0;         // > 0: stop the random runs once this much time has passed
    std::uint64_t exhaustive_limit = 20000; // try exhaustive exploration up to this many executions
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

struct result {
    std::string test, file, scheme;
    std::uint64_t runs = 0;
    bool exhaustive = false;
    std::map<std::string, std::uint64_t> outcomes; // "0:r0=1; 1:r1=0; x=2;" -> count
    std::string condition;                         // "exists (...)" as written
    bool observed = false; // the condition's body was satisfied by some outcome (forall: by every one)
    std::string verdict; // herd's words: "Sometimes", "Never" (exists/~exists), "Always"/"Sometimes"/"Never"
    // Non-empty: the scoped-cache model cannot run this test (the reason, "unsupported: ..."), so with a
    // race check it ran on sequentially consistent memory instead, for the race verdict only; the
    // outcomes and verdict above are then SC's, not the SCM's.
    std::string outcomes_unsupported;
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
