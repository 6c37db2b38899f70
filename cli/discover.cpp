// canopy discover: how many work-groups occupancy discovery finds (Sorensen et al. 2016 §3), against
// the true residency, and what the protocol costs.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "discover_backend.hpp"

namespace canopy::cli {

namespace {
struct discover_options {
    std::string protocol = "counter";
    bool json = false;
    unsigned block = 64;
    unsigned oversubscribe = 4;
    emulator_flags emu;
};

int run(const discover_options& o) {
    o.emu.apply();
    const discover_result r = run_discover(o.protocol, o.block, o.oversubscribe);
    if (o.json) {
        const nlohmann::json j = {{"discovered", r.discovered}, {"occupancy", r.occupancy},
                                  {"protocol", r.protocol},     {"seconds", r.seconds},
                                  {"launched", r.launched},     {"block_size", r.block},
                                  {"device_ms", r.device_ms},   {"device_clock", r.device_clock}};
        std::puts(j.dump(2).c_str());
        return 0;
    }
    const double recall = r.occupancy ? 100.0 * r.discovered / r.occupancy : 0.0;
    fmt::print("protocol      {}\n", r.protocol);
    fmt::print("discovered    {} work-groups ({:.1f}% recall)\n", r.discovered, recall);
    fmt::print("occupancy     {} work-groups of {} work-items (device residency)\n", r.occupancy, r.block);
    fmt::print("launched      {}\n", r.launched);
    fmt::print("protocol time {:.3f} ms (device {:.3f} ms: {})\n", r.seconds * 1e3, r.device_ms,
               r.device_clock);
    return 0;
}
} // namespace

action add_discover(CLI::App& app) {
    auto o = std::make_shared<discover_options>();
    auto* sub = app.add_subcommand("discover", "occupancy discovery: participating work-groups vs residency");
    sub->add_option("--protocol", o->protocol,
                    "counter (one device word: join is a fetch_add, close a CAS; no lock hand-offs, so its "
                    "cost does not grow serially with the work-groups), ticket (Sorensen et al.'s "
                    "protocol under a ticket lock: ~12 lock hand-offs per work-group, one after another) "
                    "or spin (under a test-and-set lock: lower recall)")
        ->default_val(o->protocol)
        ->check(CLI::IsMember({"counter", "ticket", "spin"}));
    sub->add_flag("--json", o->json,
                  "print one JSON object (discovered, occupancy, protocol, seconds, launched, block_size)");
    sub->add_option("--block-size", o->block, "work-items per work-group")
        ->default_val(o->block)
        ->check(CLI::Range(1u, 1u << 16));
    sub->add_option("--oversubscribe", o->oversubscribe, "launch this many times the occupancy")
        ->default_val(o->oversubscribe)
        ->check(CLI::Range(1u, 64u));
    o->emu.add_to(*sub, true);
    return [o] {
        try {
            return run(*o);
        } catch (const std::exception& e) {
            fmt::print(stderr, "canopy discover: {}\n", e.what());
            return 1;
        }
    };
}

} // namespace canopy::cli
