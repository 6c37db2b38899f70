// herd_oracle.hpp — herd's own verdicts and allowed final states (herd7-outcomes.json) as the oracle
// for the runner's observed outcomes.
//
// For a race-free test (herd counts no racy execution), every final state a sound hardware model shows
// must be among herd's allowed ones, compared on the locations and registers herd lists, minus those
// herd's front end reads differently (result::incomparable). The model may show fewer (the hardware
// is stronger than the language): never_shown lists them, and when the exploration was exhaustive
// that list is a fact about the model, not a sampling accident.
//
// Not installed with the library: it is the project's test oracle (it reads JSON with nlohmann).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "canopy/litmus/runner.hpp"

namespace canopy::litmus {

struct herd_test {
    std::string key; // "rsp/RSP_Test5.litmus": the corpus directory and file name
    bool condition_reachable = false;
    std::uint64_t racy_executions = 0;
    std::vector<std::string> allowed_final_states; // "0:r0=1; x=2;" as herd prints them
    std::set<std::string> cas_expected_shared;
    std::map<std::string, std::vector<std::string>> used_not_params; // "P0" -> locations
};

using herd_outcomes = std::map<std::string, herd_test>;

/// Reads herd7-outcomes.json; throws std::runtime_error naming the file and what is wrong with it.
herd_outcomes load_herd_outcomes(const std::string& path);

/// herd's entry for a litmus file (matched by its directory and file name), or nullptr.
const herd_test* find_herd_test(const herd_outcomes& h, const std::string& file);

/// "0:r0=1; x=2;" -> {"0:r0": "1", "x": "2"}.
std::map<std::string, std::string> parse_final_state(const std::string& state);

struct herd_comparison {
    enum class kind {
        checked,   // race-free in herd: canopy's states were checked against herd's
        racy,      // herd counts racy executions: every outcome is allowed, nothing to check
        no_states, // herd allows no final state at all (its front end reads another program)
        front_end, // a thread uses a location it does not take as a parameter: herd makes it a register,
                   // so herd's states (registers loaded from it included) are another program's
    } k = kind::checked;
    std::set<std::string> compared;       // herd's names compared (locations, T:registers)
    std::vector<std::string> outside;     // canopy's states, projected, that herd does not allow
    std::vector<std::string> never_shown; // herd's allowed states, projected, canopy never showed
    std::size_t herd_states = 0;          // herd's allowed states, projected (distinct)
    bool agrees() const { return outside.empty(); }
};

/// Compares the runner's outcomes with herd's. A herd value that is not a number (herd's symbolic
/// values, e.g. thinair's S8) matches any value.
herd_comparison compare_with_herd(const result& r, const herd_test& h);

} // namespace canopy::litmus
