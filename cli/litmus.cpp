// canopy litmus FILE...: herd's OpenCL litmus tests on the emulator's scoped-cache model, and with
// --race-check M each test's race verdict under M (docs/race-detector.md, "Litmus").
//
// Exit codes: a racy litmus test is a finding about the test, not a failure of the command (RSP_Test4,
// 9 and 12 are racy on purpose or by the corpus's own analysis), so unlike the other commands (cli/
// main.cpp: any race exits 1) litmus reports race verdicts in its table and exits 1 only when a verdict
// contradicts what is known: a forbidden outcome of a race-free test under the proposed scheme, or under
// --race-check rsp a race verdict that disagrees with notes/scopes-hrf-rsp.md §3.4 (known_racy), or
// with --herd-outcomes a final state of a race-free test that herd does not allow.
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
#include "herd_oracle.hpp"

namespace canopy::cli {

namespace {

struct litmus_options {
    std::vector<std::string> files;
    std::string scheme = "proposed";
    std::uint64_t seeds = 10000;
    double budget = 0;
    std::uint64_t exhaustive_limit = litmus::run_options{}.exhaustive_limit;
    std::uint64_t race_exhaustive_limit = litmus::run_options{}.race_check_exhaustive_limit;
    std::uint64_t race_samples = litmus::run_options{}.race_samples;
    unsigned race_pct_depth = litmus::run_options{}.race_pct_depth;
    bool no_reduction = false;
    std::string herd_outcomes;
    bool json = false;
    std::string race_check = "none";
};

struct row {
    std::string test, expected, observed, runs, exhaustive, status, racy = "-", herd = "-";
};

/// The summary's herd column.
std::string herd_cell(const litmus::herd_comparison& c) {
    switch (c.k) {
    case litmus::herd_comparison::kind::racy: return "racy";
    case litmus::herd_comparison::kind::no_states: return "no states";
    case litmus::herd_comparison::kind::front_end: return "front end";
    case litmus::herd_comparison::kind::checked: break;
    }
    if (!c.agrees()) {
        return fmt::format("OUTSIDE ({})", c.outside.size());
    }
    return fmt::format("within ({}/{})", c.herd_states - c.never_shown.size(), c.herd_states);
}

/// The summary's race column: a verdict never claims more than the exploration showed.
std::string racy_cell(const litmus::result& r) {
    const auto v = r.race_verdict();
    if (!v) {
        return "unknown (incomplete)";
    }
    return *v ? fmt::format("yes ({} race{})", r.races.size(), r.races.size() == 1 ? "" : "s")
              : "no (complete)";
}

/// The per-test verdict line: how it was reached, in words.
std::string race_verdict_text(const litmus::result& r) {
    const auto v = r.race_verdict();
    const std::string explored =
        r.race_complete
            ? fmt::format("complete: {} executions{}", r.race_runs,
                          r.race_states ? fmt::format(", {} states", r.race_states) : std::string())
        : r.race_runs == 0
            ? fmt::format("incomplete: {} sampled runs", r.race_sampled)
            : fmt::format("incomplete: the exhaustive exploration gave up after {} runs{}", r.race_runs,
                          r.race_sampled ? fmt::format(", then {} sampled runs", r.race_sampled)
                                         : std::string());
    if (!v) {
        if (r.race_runs == 0) {
            return fmt::format(
                "no race in {} sampled runs (incomplete: sampled only, --race-exhaustive-limit 0)",
                r.race_sampled);
        }
        return fmt::format(
            "no race in {} sampled runs (incomplete: the exhaustive exploration gave up after {} "
            "runs; raise --race-exhaustive-limit)",
            r.race_sampled, r.race_runs);
    }
    if (!*v) {
        return fmt::format("race-free ({})", explored);
    }
    return fmt::format("racy: {} race{} in {} run(s) ({})", r.races.size(), r.races.size() == 1 ? "" : "s",
                       r.racy_runs, explored);
}

int run_litmus(const litmus_options& o) {
    litmus::run_options ro;
    ro.scheme = emu::parse_scheme(o.scheme);
    ro.seeds = o.seeds;
    ro.time_budget_seconds = o.budget;
    ro.exhaustive_limit = o.exhaustive_limit;
    ro.race_check_exhaustive_limit = o.race_exhaustive_limit;
    ro.race_samples = o.race_samples;
    ro.race_pct_depth = o.race_pct_depth;
    ro.reduction = !o.no_reduction;
    ro.race_check = emu::parse_race_check(o.race_check);
    litmus::herd_outcomes herd;
    if (!o.herd_outcomes.empty()) {
        try {
            herd = litmus::load_herd_outcomes(o.herd_outcomes);
        } catch (const std::exception& e) {
            fmt::print(stderr, "canopy litmus: {}\n", e.what());
            return 1;
        }
    }
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
        const litmus::herd_test* h = o.herd_outcomes.empty() ? nullptr : litmus::find_herd_test(herd, file);
        litmus::herd_comparison hc;
        if (h != nullptr) {
            hc = litmus::compare_with_herd(r, *h);
            if (!hc.agrees() && ro.scheme == emu::rsp_scheme::proposed) {
                failed = true; // the proposed scheme showed a state the language forbids: the model is wrong
            }
        }
        std::string status = "-";
        if (expected == "forbidden") {
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
            // An incomplete verdict claims nothing, so it contradicts nothing; it says so in its column.
            if (const auto racy = litmus::known_racy(t.name); racy && r.race_verdict() && *racy != r.racy()) {
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
                                {"states", r.exhaustive ? r.states : r.exhaustive_states_tried},
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
            j["front_end_warnings"] = nlohmann::json::array();
            for (const auto& w : r.warnings) {
                j["front_end_warnings"].push_back({{"location", w.location}, {"text", w.text}});
            }
            if (h != nullptr) {
                j["herd"] = {{"kind", herd_cell(hc)},
                             {"compared", hc.compared},
                             {"outside", hc.outside},
                             {"never_shown", hc.never_shown},
                             {"herd_states", hc.herd_states}};
            } else if (!o.herd_outcomes.empty()) {
                j["herd"] = nullptr; // not in herd's file
            }
            if (checking) {
                j["race_check"] = emu::to_string(r.race_check);
                // true: a race in some SC execution; false: none in any (the exploration finished);
                // null: none found, but not every execution was explored.
                if (const auto v = r.race_verdict()) {
                    j["racy"] = *v;
                } else {
                    j["racy"] = nullptr;
                }
                j["race_complete"] = r.race_complete;
                j["race_runs"] = r.race_runs;
                j["race_states"] = r.race_states;
                j["race_sampled_runs"] = r.race_sampled;
                j["racy_runs"] = r.racy_runs;
                j["races"] = nlohmann::json::array();
                for (const auto& f : r.races) {
                    j["races"].push_back({{"sites", f.sites}, {"runs", f.runs}, {"report", f.text}});
                }
            }
            std::puts(j.dump().c_str());
        } else {
            if (r.exhaustive) {
                fmt::print("{} ({}), scheme {}, complete: every execution explored ({} run(s){})\n", r.test,
                           r.file, r.scheme, r.runs,
                           r.states ? fmt::format(", {} distinct states", r.states) : std::string());
            } else {
                fmt::print("{} ({}), scheme {}, {} random run(s){}\n", r.test, r.file, r.scheme, r.runs,
                           r.exhaustive_runs_tried
                               ? fmt::format(" (exhaustive exploration gave up after {} runs, {} "
                                             "distinct states: raise --exhaustive-limit)",
                                             r.exhaustive_runs_tried, r.exhaustive_states_tried)
                               : std::string());
            }
            for (const auto& w : r.warnings) {
                fmt::print("  warning: herd reads this test differently: {}\n", w.text);
            }
            for (const auto& [k, n] : r.outcomes) {
                fmt::print("  {:>8}  {}\n", n, k);
            }
            fmt::print("  {}: {} ({})\n", r.condition, r.observed ? "observed" : "not observed", r.verdict);
            if (h != nullptr) {
                std::string left_out;
                for (const auto& w : r.warnings) {
                    left_out += fmt::format("{}{}", left_out.empty() ? "" : ", ", w.location);
                }
                switch (hc.k) {
                case litmus::herd_comparison::kind::racy:
                    fmt::print("  herd: {} racy execution(s): every outcome is allowed\n",
                               h->racy_executions);
                    break;
                case litmus::herd_comparison::kind::no_states:
                    fmt::print(
                        "  herd: no allowed final state at all (its front end reads another program{})\n",
                        left_out.empty() ? "" : "; see the warnings");
                    break;
                case litmus::herd_comparison::kind::front_end:
                    fmt::print("  herd: not compared: herd reads a location this test uses without taking it "
                               "as a parameter as a register (see the warnings), so its states are another "
                               "program's\n");
                    break;
                case litmus::herd_comparison::kind::checked:
                    fmt::print("  herd: race-free, {} allowed state(s) over {} name(s){}; canopy showed {} "
                               "of them{}\n",
                               hc.herd_states, hc.compared.size(),
                               left_out.empty() ? "" : fmt::format(" (left out: {})", left_out),
                               hc.herd_states - hc.never_shown.size(),
                               hc.outside.empty()
                                   ? ""
                                   : fmt::format(" and {} herd does NOT allow", hc.outside.size()));
                    for (const auto& s : hc.outside) {
                        fmt::print("    outside herd's set: {}\n", s);
                    }
                    for (const auto& s : hc.never_shown) {
                        fmt::print("    {}: {}\n", r.exhaustive ? "never produced by the model" : "not seen",
                                   s);
                    }
                    break;
                }
            }
            if (checking) {
                fmt::print("  under {}: {}\n", emu::to_string(r.race_check), race_verdict_text(r));
                for (const auto& f : r.races) {
                    fmt::print("  {}\n", f.text);
                }
            }
            fmt::print("\n");
        }
        rows.push_back({r.test, expected.value_or("-"), r.verdict == "Never" ? "no" : "yes",
                        std::to_string(r.runs), r.exhaustive ? "yes" : "no", status,
                        checking ? racy_cell(r) : "-", h != nullptr ? herd_cell(hc) : "-"});
    }
    if (!o.json) {
        fmt::print("summary (scheme {}; observed = the condition's body held in some run; complete = every "
                   "execution of the model explored{}{})\n",
                   o.scheme,
                   checking ? fmt::format("; racy = a race under {} in some SC execution (no: none in any, "
                                          "every one explored; unknown: none found, not every one explored)",
                                          o.race_check)
                            : "",
                   o.herd_outcomes.empty() ? ""
                                           : "; herd = canopy's final states within herd's allowed set "
                                             "(shown/allowed), or OUTSIDE it");
        const std::string racy_head = checking ? fmt::format("racy under {}", o.race_check) : "";
        fmt::print("{:<40} {:<10} {:<9} {:>8} {:<9} {:<17} {:<20} {}\n", "test", "expected", "observed",
                   "runs", "complete", o.herd_outcomes.empty() ? "" : "herd", racy_head, "status");
        for (const auto& r : rows) {
            fmt::print("{:<40} {:<10} {:<9} {:>8} {:<9} {:<17} {:<20} {}\n", r.test, r.expected, r.observed,
                       r.runs, r.exhaustive, o.herd_outcomes.empty() ? "" : r.herd, checking ? r.racy : "",
                       r.status);
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
        "fail on them; an incomplete verdict contradicts nothing), or with --herd-outcomes when a test herd "
        "finds race-free shows a final state herd "
        "does "
        "not allow under the proposed scheme; 2 for a usage error.");
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
                    "explore every execution of the model first, giving up (and sampling instead) after this "
                    "many runs (0: sample only); the summary's complete column says which tests finished")
        ->default_val(o->exhaustive_limit);
    sub->add_option(
           "--race-exhaustive-limit", o->race_exhaustive_limit,
           "with --race-check: explore every SC execution for the race verdict, giving up after this "
           "many runs (0: sample only); unfinished, a race found still counts but race-free is not "
           "claimed (the verdict says incomplete)")
        ->default_val(o->race_exhaustive_limit);
    sub->add_option("--race-samples", o->race_samples,
                    "with --race-check: random SC runs after an unfinished race exploration")
        ->default_val(o->race_samples);
    sub->add_option("--race-pct-depth", o->race_pct_depth,
                    "with --race-check: the sampled runs cycle through a uniform order and PCT orders of "
                    "depth 1..D (0: uniform only); PCT completes long chains of hand-offs that a uniform "
                    "order almost never does")
        ->default_val(o->race_pct_depth)
        ->check(CLI::Range(0u, 16u));
    sub->add_flag("--no-reduction", o->no_reduction,
                  "exhaustive exploration without state caching: every choice sequence (tiny tests only)");
    sub->add_option("--herd-outcomes", o->herd_outcomes,
                    "herd's verdicts and allowed final states (herd7-outcomes.json, beside herd's corpus): "
                    "check every test's final states against them and list the allowed ones never shown")
        ->check(CLI::ExistingFile);
    sub->add_flag("--json", o->json, "one JSON object per test, one per line");
    sub->add_option("--race-check", o->race_check,
                    "also decide each test's race verdict under this model: every SC execution of the test "
                    "is explored with the race detector (state caching that keeps the verdict exact), and "
                    "the verdict says how it was reached: racy, race-free (complete: N executions), or no "
                    "race in N sampled runs (incomplete); races are reported with litmus file:line sites; "
                    "tests with several devices get device scopes per device. The known verdicts (notes "
                    "section 3.4) are the OpenCL+RSP model's: use rsp")
        ->check(CLI::IsMember({"none", "hrf-direct", "hrf-indirect", "rsp"}))
        ->default_val(o->race_check);
    return [o] { return run_litmus(*o); };
}

} // namespace canopy::cli
