// canopy — the command line. Exit codes: 0 success, 1 runtime error, 2 usage error.
#include <cstdio>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "canopy/version.hpp"
#include "commands.hpp"

namespace {
bool wants_json(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--json") {
            return true;
        }
    }
    return false;
}
} // namespace

int main(int argc, char** argv) {
    const std::string backend = canopy::cli::backend_name();
    CLI::App app{"canopy — a GPU task runtime with hierarchical work queues (backend: " + backend + ")",
                 "canopy"};
    app.require_subcommand(1);
    app.set_version_flag("--version",
                         std::string("canopy ") + CANOPY_VERSION_STRING + " (" + backend + " backend)");
    app.footer("Run 'canopy <command> --help' for a command's options.");
    const std::vector<std::pair<const char*, canopy::cli::action>> actions = {
        {"info", canopy::cli::add_info(app)},
        {"demo", canopy::cli::add_demo(app)},
        {"discover", canopy::cli::add_discover(app)},
        {"uts", canopy::cli::add_uts(app)},
        {"graph", canopy::cli::add_graph(app)},
#if defined(CANOPY_WITH_LITMUS)
        {"litmus", canopy::cli::add_litmus(app)},
        {"stress", canopy::cli::add_stress(app)},
#endif
    };
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "canopy: {}\nRun 'canopy --help' for usage.\n", e.what());
        return 2;
    }
    try {
        for (const auto& [name, act] : actions) {
            if (app.got_subcommand(name)) {
                const int code = act();
                canopy::cli::finish_trace(); // --trace: the timeline of the command's launches
                // --race-check: the command's own output first, then every race its launches had.
                const canopy::cli::race_summary races = canopy::cli::collect_races();
                if (!races.checked) {
                    return code;
                }
                std::fflush(stdout); // the command's report before the races, also when both go to one file
                if (races.distinct == 0) {
                    // Not a proof: the detector saw one schedule per launch, the one that ran.
                    fmt::print(stderr,
                               "canopy: race check ({}): no heterogeneous races in {} launch(es) (in the "
                               "executions that ran, one schedule each: not a proof that other schedules are "
                               "race-free; other seeds or --pct-depth explore others)\n",
                               races.model, races.launches);
                    return code;
                }
                fmt::print(stderr, "{}canopy: race check ({}): {} distinct race(s) in {} launch(es){}\n",
                           races.text, races.model, races.distinct, races.launches,
                           races.distinct > 10 ? " (the first 10 shown)" : "");
                return code == 0 ? 1 : code;
            }
        }
    } catch (const std::exception& e) { // canopy::error and friends: a runtime error
        // No silent partial result: a failed run (overflow, deadlock, device assertion, kernel exception)
        // prints nothing that looks like a result -- the commands print only after their run finished --
        // and under --json its one object says so, for the scripts that read stdout only.
        std::fflush(stdout);
        fmt::print(stderr, "canopy: error: {}\n", e.what());
        try {
            canopy::cli::finish_trace(); // a failed run's timeline shows how it got there
        } catch (const std::exception& t) {
            fmt::print(stderr, "canopy: error: {}\n", t.what());
        }
        if (wants_json(argc, argv)) {
            nlohmann::json j{{"ok", false}, {"reason", e.what()}};
            std::puts(j.dump(2).c_str());
        }
        return 1;
    }
    return 2;
}
