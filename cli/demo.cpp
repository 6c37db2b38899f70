// canopy demo: a persistent kernel that needs everything the emulator models (backend.cpp has it),
// checked against a sequential computation.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"

namespace canopy::cli {

namespace {

struct demo_options {
    std::string kernel = "relay";
    unsigned block = 64;
    unsigned laps = 4;
    bool json = false;
    emulator_flags emu;
};

// The HRF paper's donation example: the kernel that tells HRF-direct from HRF-indirect
// (canopy/workloads/donation.hpp). Run it with --race-check to see the verdict of each model.
int run_donation_demo(const demo_options& o) {
    const bool by_ref = o.kernel == "donation-by-reference";
    const donation_result r = run_donation(by_ref);
    const bool ok = !r.timed_out && r.read == r.written;
    if (o.json) {
        nlohmann::json j = {{"backend", backend_name()},     {"device", r.device}, {"kernel", o.kernel},
                            {"block_size", r.block},         {"read", r.read},     {"written", r.written},
                            {"timed_out", r.timed_out},      {"ok", ok},           {"device_ms", r.device_ms},
                            {"device_clock", r.device_clock}};
        std::puts(j.dump(2).c_str());
    } else {
        fmt::print("donation {}: a task written in work-group 0 and published at work-group scope, moved to "
                   "the device queue by another sub-group of work-group 0 (acquire work-group, release "
                   "device){}, read in work-group 1 ({} work-items per work-group on {})\n",
                   by_ref ? "by reference" : "by copy",
                   by_ref ? " without copying the payload" : " as a copy", r.block, r.device);
        fmt::print("payload read {:#x} (written {:#x}): {}\n", r.read, r.written,
                   r.timed_out ? "TIMED OUT"
                   : ok        ? "OK"
                               : "MISMATCH");
        fmt::print("{}\n", by_ref
                               ? "models: racy under hrf-direct (a work-group-scope hop, then a device-scope "
                                 "one), race-free under hrf-indirect; see them with --race-check"
                               : "models: race-free under hrf-direct and hrf-indirect (each hop carries what "
                                 "its own scope published); see them with --race-check");
    }
    if (!ok) {
        fmt::print(stderr, "canopy demo: {}\n",
                   r.timed_out ? "a wait timed out (are both work-groups resident?)"
                               : "the consumer read a different payload than the producer wrote");
        return 1;
    }
    return 0;
}

int run_demo(const demo_options& o) {
    o.emu.apply();
    if (o.kernel != "relay") {
        return run_donation_demo(o);
    }
    const relay_result r = run_relay(o.block, o.laps);
    const bool ok = r.token == r.expected;
    if (o.json) {
        nlohmann::json j = {{"backend", backend_name()},
                            {"device", r.device},
                            {"work_groups", r.work_groups},
                            {"block_size", r.block},
                            {"laps", r.laps},
                            {"token", r.token},
                            {"expected", r.expected},
                            {"ok", ok},
                            {"seconds", r.seconds},
                            {"device_ms", r.seconds * 1e3},
                            {"device_clock", r.device_clock}};
        if (r.emulated) {
            j["scheduler"] = r.scheduler;
            j["seed"] = r.seed;
            j["threads"] = r.threads;
            j["fiber_switches"] = r.fiber_switches;
            j["interleaving_digest"] = fmt::format("{:016x}", r.digest);
            j["memory_model"] = r.memory_model;
            if (!r.memory_counters.empty()) {
                nlohmann::json m = nlohmann::json::object();
                for (const auto& [k, v] : r.memory_counters) {
                    m[k] = v;
                }
                j["memory"] = m;
            }
        }
        std::puts(j.dump(2).c_str());
    } else {
        fmt::print("relay of a token around {} resident work-groups x {} work-items on {}, {} laps\n",
                   r.work_groups, r.block, r.device, r.laps);
        fmt::print("token {} (sequential reference {}): {}\n", r.token, r.expected, ok ? "OK" : "MISMATCH");
        if (r.emulated) {
            fmt::print(
                "emulator: {} scheduler, seed {}, {} OS thread(s), {} fiber switches, interleaving digest "
                "{:016x}\n",
                r.scheduler, r.seed, r.threads, r.fiber_switches, r.digest);
            fmt::print("memory model: {}\n", r.memory_model);
            if (!r.memory_counters.empty()) {
                std::string line;
                for (const auto& [k, v] : r.memory_counters) {
                    line += fmt::format(" {}={}", k, v);
                }
                fmt::print(" {}\n", line);
            }
        }
        fmt::print("{:.3f} s\n", r.seconds);
    }
    if (!ok) {
        fmt::print(stderr, "canopy demo: the token does not match the sequential reference\n");
        return 1;
    }
    return 0;
}

} // namespace

action add_demo(CLI::App& app) {
    auto o = std::make_shared<demo_options>();
    auto* sub = app.add_subcommand(
        "demo",
        "run a persistent relay kernel on every resident work-group and check it against a sequential "
        "reference, or the HRF donation example (--kernel)");
    sub->add_option("--kernel", o->kernel,
                    "relay: a token around every resident work-group; donation-by-reference / "
                    "donation-by-copy: the HRF paper's donation example (2 work-groups; racy under "
                    "--race-check hrf-direct by reference, race-free by copy and under hrf-indirect)")
        ->default_val(o->kernel)
        ->check(CLI::IsMember({"relay", "donation-by-reference", "donation-by-copy"}));
    sub->add_option("--block-size", o->block, "work-items per work-group (relay)")
        ->default_val(o->block)
        ->check(CLI::Range(1u, 1024u));
    sub->add_option("--laps", o->laps, "times the token goes around the ring of work-groups")
        ->default_val(o->laps)
        ->check(CLI::Range(1u, 1000000u));
    sub->add_flag("--json", o->json, "print one JSON object");
    o->emu.add_to(*sub, true);
    return [o] { return run_demo(*o); };
}

} // namespace canopy::cli
