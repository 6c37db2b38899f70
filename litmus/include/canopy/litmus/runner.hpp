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
};

struct result {
    std::string test, file, scheme;
    std::uint64_t runs = 0;
    bool exhaustive = false;
    std::map<std::string, std::uint64_t> outcomes; // "0:r0=1; 1:r1=0; x=2;" -> count
    std::string condition;                         // "exists (...)" as written
    bool observed = false; // the condition's body was satisfied by some outcome (forall: by every one)
    std::string verdict; // herd's words: "Sometimes", "Never" (exists/~exists), "Always"/"Sometimes"/"Never"
};

/// Runs `t`; throws unsupported_test for constructs outside what the SCM models.
result run(const test& t, const run_options& o);

} // namespace canopy::litmus
