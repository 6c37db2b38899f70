// canopy litmus FILE...: herd's OpenCL litmus tests on the emulator's scoped-cache model, and with
// --race-check M each test's race verdict under M (docs/race-detector.md, "Litmus").
//
// Exit codes: a racy litmus test is a finding about the test, not a failure of the command (RSP_Test4,
// 9 and 12 are racy on purpose or by the corpus's own analysis), so unlike the other commands (cli/
// main.cpp: any race exits 1) litmus reports race verdicts in its table and exits 1 only when a verdict
// contradicts what is known: a forbidden outcome of a race-free test under the proposed scheme, or under
// --race-check rsp a race verdict that disagrees with notes/scopes-hrf-rsp.md §3.4 (known_racy).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/race_detector.hpp"
#include "canopy/litmus/expectations.hpp"
#include "canopy/litmus/parser.hpp"
#include "canopy/litmus/runner.hpp"
#include "commands.hpp"

namespace canopy::cli {

namespace {

struct litmus_options {
    std::vector<std::string> files;
    std::string scheme = "proposed";
    std::uint64_t seeds = 10000;
    double budget = 0;
    std::uint64_t exhaustive_limit = 20000;
    bool json = false;
    std::string race_check = "none";
};

struct row {
    std::string test, expected, observed, runs, exhaustive, status, racy = "-";
};

std::string racy_cell(const litmus::result& r) {
    return r.racy() ? fmt::format("yes ({} race{})", r.races.size(), r.races.size() == 1 ? "" : "s") : "no";
}

int run_litmus(const litmus_options& o) {
    litmus::run_options ro;
    ro.scheme = emu::parse_scheme(o.scheme);
    ro.seeds = o.seeds;
    ro.time_budget_seconds = o.budget;
    ro.exhaustive_limit = o.exhaustive_limit;
    ro.race_check = emu::parse_race_check(o.race_check);
    const bool checking = ro.race_check != emu::race_check_kind::none;
    std::vector<row> rows;
    bool failed = false;
    for (const auto& file : o.files) {
        litmus::test t;
        try {
            t = litmus::parse_file(file);
        } catch (const litmus::unsupported_error& e) {
            fmt::print(stderr, "{}\n", e.what());
            rows.push_back({file, "-", "-", "-", "-", "unsupported"});
            continue;
        } catch (const std::exception& e) { // parse_error, unreadable file
            fmt::print(stderr, "{}\n", e.what());
            rows.push_back({file, "-", "-", "-", "-", "error"});
            failed = true;
            continue;
        }
        const auto expected = litmus::known_verdict(t.name);
        litmus::result r;
        try {
            r = litmus::run(t, ro);
        } catch (const litmus::unsupported_test& e) {
            fmt::print(stderr, "{}: {}\n", file, e.what());
            rows.push_back({t.name, expected.value_or("-"), "-", "-", "-", "unsupported",
                            checking ? "unsupported" : "-"});
            continue;
        }
        const bool body_seen = r.verdict != "Never";
        const bool scm = r.outcomes_unsupported.empty();
        std::string status = "-";
        if (!scm) {
            status = "outcomes unsupported"; // SC memory ran it for the race check only
        } else if (expected == "forbidden") {
            status = body_seen ? "VIOLATED" : "ok";
            if (body_seen && ro.scheme == emu::rsp_scheme::proposed) {
                failed = true; // a race-free test showed a forbidden outcome: the model is wrong
            }
        } else if (expected == "allowed") {
            status = body_seen ? "ok (seen)" : "ok (not seen)";
        } else if (expected == "racy") {
            status = "racy: any outcome";
        }
        // The known race verdicts are the OpenCL+RSP model's: under HRF (no remote-scope promotion)
        // the RSP tests' remote operations legitimately race, so they judge only --race-check rsp.
        if (ro.race_check == emu::race_check_kind::rsp) {
            if (const auto racy = litmus::known_racy(t.name); racy && *racy != r.racy()) {
                status += *racy ? "; RACE MISSED" : "; UNEXPECTED RACE";
                failed = true;
            }
        }
        if (o.json) {
            nlohmann::json j = {{"test", r.test},
                                {"file", r.file},
                                {"scheme", r.scheme},
                                {"runs", r.runs},
                                {"exhaustive", r.exhaustive},
                                {"condition", r.condition},
                                {"observed", r.observed},
                                {"verdict", r.verdict}};
            j["outcomes"] = nlohmann::json::object();
            for (const auto& [k, n] : r.outcomes) {
                j["outcomes"][k] = n;
            }
            if (expected) {
                j["expected"] = *expected;
            }
            if (!scm) {
                j["outcomes_unsupported"] = r.outcomes_unsupported;
            }
            if (checking) {
                j["race_check"] = emu::to_string(r.race_check);
                j["racy"] = r.racy();
                j["racy_runs"] = r.racy_runs;
                j["races"] = nlohmann::json::array();
                for (const auto& f : r.races) {
                    j["races"].push_back({{"sites", f.sites}, {"runs", f.runs}, {"report", f.text}});
                }
            }
            std::puts(j.dump().c_str());
        } else {
            fmt::print("{} ({}), scheme {}, {} {} run(s)\n", r.test, r.file, r.scheme, r.runs,
                       r.exhaustive ? "exhaustive" : "random");
            if (!scm) {
                fmt::print("  {} (these runs are for the race check)\n", r.outcomes_unsupported);
            }
            for (const auto& [k, n] : r.outcomes) {
                fmt::print("  {:>8}  {}\n", n, k);
            }
            fmt::print("  {}: {} ({})\n", r.condition, r.observed ? "observed" : "not observed", r.verdict);
            if (checking) {
                fmt::print("  racy under {}: {}{}\n", emu::to_string(r.race_check), racy_cell(r),
                           r.racy() ? fmt::format(", in {} of {} run(s)", r.racy_runs, r.runs) : "");
                for (const auto& f : r.races) {
                    fmt::print("  {}\n", f.text);
                }
            }
            fmt::print("\n");
        }
        rows.push_back({r.test, expected.value_or("-"),
                        !scm                   ? "-"
                        : r.verdict == "Never" ? "no"
                                               : "yes",
                        std::to_string(r.runs), r.exhaustive ? "yes" : "no", status,
                        checking ? racy_cell(r) : "-"});
    }
    if (!o.json) {
        fmt::print("summary (scheme {}; observed = the condition's body held in some run{})\n", o.scheme,
                   checking ? fmt::format("; racy = a race under {} in some run", o.race_check) : "");
        const std::string racy_head = checking ? fmt::format("racy under {}", o.race_check) : "";
        fmt::print("{:<40} {:<10} {:<9} {:>8} {:<11} {:<20} {}\n", "test", "expected", "observed", "runs",
                   "exhaustive", racy_head, "status");
        for (const auto& r : rows) {
            fmt::print("{:<40} {:<10} {:<9} {:>8} {:<11} {:<20} {}\n", r.test, r.expected, r.observed, r.runs,
                       r.exhaustive, checking ? r.racy : "", r.status);
        }
    }
    // The verdicts above are the whole report: main's end-of-command race summary (active when
    // CANOPY_EMU_RACE_CHECK is set) would print every litmus race again and turn racy tests into exit 1.
    emu::reset_race_log();
    return failed ? 1 : 0;
}

} // namespace

action add_litmus(CLI::App& app) {
    auto o = std::make_shared<litmus_options>();
    auto* sub = app.add_subcommand(
        "litmus",
        "run herd OpenCL litmus tests on the emulator's scoped-cache model (and check them for races)");
    sub->footer(
        "Exit status: 0 when every verdict agrees with what is known of the test; 1 when a race-free test "
        "showed a forbidden outcome under the proposed scheme, when a file cannot be read or parsed, or "
        "under --race-check rsp when a test's race verdict contradicts notes/scopes-hrf-rsp.md section 3.4 "
        "(a racy test that is known to be racy is not an error: litmus reports race verdicts, it does not "
        "fail on them); 2 for a usage error.");
    sub->add_option("files", o->files, "litmus files (herd's OpenCL dialect)")
        ->required()
        ->check(CLI::ExistingFile);
    sub->add_option("--scheme", o->scheme,
                    "RSP compilation scheme: proposed (Table 3, sound) or original (buggy)")
        ->check(CLI::IsMember({"proposed", "original"}))
        ->default_val(o->scheme);
    sub->add_option("--seeds", o->seeds,
                    "random runs per test (seeds 1..N) when exhaustive exploration is too big")
        ->default_val(o->seeds)
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{100000000}));
    sub->add_option("--time-budget", o->budget,
                    "stop a test's random runs after this many seconds (0: no limit)")
        ->default_val(o->budget)
        ->check(CLI::NonNegativeNumber);
    sub->add_option("--exhaustive-limit", o->exhaustive_limit,
                    "explore every interleaving when there are at most this many (0: never)")
        ->default_val(o->exhaustive_limit);
    sub->add_flag("--json", o->json, "one JSON object per test, one per line");
    sub->add_option("--race-check", o->race_check,
                    "also feed every access of every run to the race detector under this model and report "
                    "each test's verdict (racy when any run had a race) with its race reports, sites "
                    "being litmus file:line; tests with several devices get device scopes per device. "
                    "The known verdicts (notes section 3.4) are the OpenCL+RSP model's: use rsp")
        ->check(CLI::IsMember({"none", "hrf-direct", "hrf-indirect", "rsp"}))
        ->default_val(o->race_check);
    return [o] { return run_litmus(*o); };
}

} // namespace canopy::cli
