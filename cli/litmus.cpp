// canopy litmus FILE...: herd's OpenCL litmus tests on the emulator's scoped-cache model.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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
};

struct row {
    std::string test, expected, observed, runs, exhaustive, status;
};

int run_litmus(const litmus_options& o) {
    litmus::run_options ro;
    ro.scheme = emu::parse_scheme(o.scheme);
    ro.seeds = o.seeds;
    ro.time_budget_seconds = o.budget;
    ro.exhaustive_limit = o.exhaustive_limit;
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
            rows.push_back({t.name, expected.value_or("-"), "-", "-", "-", "unsupported"});
            continue;
        }
        const bool body_seen = r.verdict != "Never";
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
            std::puts(j.dump().c_str());
        } else {
            fmt::print("{} ({}), scheme {}, {} {} run(s)\n", r.test, r.file, r.scheme, r.runs,
                       r.exhaustive ? "exhaustive" : "random");
            for (const auto& [k, n] : r.outcomes) {
                fmt::print("  {:>8}  {}\n", n, k);
            }
            fmt::print("  {}: {} ({})\n\n", r.condition, r.observed ? "observed" : "not observed", r.verdict);
        }
        rows.push_back({r.test, expected.value_or("-"), r.verdict == "Never" ? "no" : "yes",
                        std::to_string(r.runs), r.exhaustive ? "yes" : "no", status});
    }
    if (!o.json) {
        fmt::print("summary (scheme {}; observed = the condition's body held in some run)\n", o.scheme);
        fmt::print("{:<40} {:<10} {:<9} {:>8} {:<11} {}\n", "test", "expected", "observed", "runs",
                   "exhaustive", "status");
        for (const auto& r : rows) {
            fmt::print("{:<40} {:<10} {:<9} {:>8} {:<11} {}\n", r.test, r.expected, r.observed, r.runs,
                       r.exhaustive, r.status);
        }
    }
    return failed ? 1 : 0;
}

} // namespace

action add_litmus(CLI::App& app) {
    auto o = std::make_shared<litmus_options>();
    auto* sub =
        app.add_subcommand("litmus", "run herd OpenCL litmus tests on the emulator's scoped-cache model");
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
    return [o] { return run_litmus(*o); };
}

} // namespace canopy::cli
