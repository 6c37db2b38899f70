// canopy demo: a persistent kernel on the current backend that needs everything the emulator models.
//
// Every resident work-group (as many as the device holds) runs a relay: a token travels around the
// ring of work-groups `laps` times; the holder adds its work-group's contribution (a sub-group scan
// and a work-group reduction through shared memory) and hands the token on with a device-scope
// release that the next work-group acquires in spin_until. Waiting across work-groups is only safe
// because they are all resident; the result is checked against a sequential computation.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "canopy/platform/platform.hpp"
#include "commands.hpp"

#if defined(CANOPY_BACKEND_CPU)
#    include "canopy/emulator/launch.hpp"
#endif

namespace canopy::cli {

namespace {

struct demo_options {
    unsigned block = 64;
    unsigned laps = 4;
    bool json = false;
    emulator_flags emu;
};

struct relay_kernel {
    unsigned laps;
    unsigned *turn; // whose turn it is: hop number, device scope
    unsigned long long *token;
    unsigned *partial; // per sub-group partial sums, block-shared scratch is in CANOPY_SHARED

    CANOPY_DEVICE void operator()() const {
        const unsigned groups = grid_dim();
        const unsigned me = block_id();
        CANOPY_SHARED(unsigned[32], sums); // one slot per sub-group (at most 1024 / 32)
        CANOPY_SHARED(unsigned, block_total);
        for (unsigned lap = 0; lap < laps; ++lap) {
            // This work-group's contribution for this lap: sum over work-items of (lap+1)*(id+1).
            const unsigned x = (lap + 1) * (global_id() + 1);
            const unsigned before = exclusive_sum(x); // sub-group scan
            if (lane_id() == subgroup_size() - 1 || thread_id() == block_dim() - 1) {
                sums[subgroup_id()] = before + x; // the sub-group's total
            }
            block_barrier();
            if (thread_id() == 0) {
                unsigned t = 0;
                for (unsigned s = 0; s < subgroups_per_block(); ++s) {
                    t += sums[s];
                }
                block_total = t;
                const unsigned hop = lap * groups + me;
                atomic_ref<unsigned, scope::device> r(*turn);
                // Acquire at device scope: the previous holder released the token at device scope.
                spin_until([&] { return r.load(std::memory_order_acquire) == hop; });
                st(token, ld(token) + block_total);
                // Release at device scope: the token (a plain store) must be visible to the next
                // work-group, which runs on another CU.
                r.store(hop + 1, std::memory_order_release);
            }
            block_barrier(); // sums[] is reused next lap
        }
    }
};

int run_demo(const demo_options &o) {
    o.emu.apply();
    const device_info d = query_device();
    const unsigned grid = max_resident_blocks<relay_kernel>(o.block);
    if (grid == 0) {
        throw error(fmt::format("a work-group of {} work-items cannot run on {} (use --block-size <= {})",
                                o.block, d.name, d.max_block_size));
    }
    device_buffer<unsigned> turn(1);
    device_buffer<unsigned long long> token(1);
    turn.fill_zero();
    token.fill_zero();
    relay_kernel k{o.laps, turn.data(), token.data(), nullptr};
    event start, stop;
    start.record();
    launch({.grid = grid, .block = o.block}, k);
    stop.record();
    device_synchronize();
    const unsigned long long got = token.to_vector()[0];
    unsigned long long want = 0;
    for (unsigned lap = 0; lap < o.laps; ++lap) {
        for (unsigned long long g = 0; g < 1ULL * grid * o.block; ++g) {
            want += (lap + 1) * (g + 1);
        }
    }
    const bool ok = got == want;
    const double seconds = stop.elapsed_ms(start) / 1000.0;
    if (o.json) {
        nlohmann::json j = {
            {"device", d.name},  {"backend", d.backend}, {"work_groups", grid}, {"block_size", o.block},
            {"laps", o.laps},    {"token", got},         {"expected", want},    {"ok", ok},
            {"seconds", seconds}};
#if defined(CANOPY_BACKEND_CPU)
        const auto &r = emu::last_report();
        j["scheduler"] = emu::to_string(r.scheduler);
        j["seed"] = r.seed;
        j["fiber_switches"] = r.steps;
        j["interleaving_digest"] = fmt::format("{:016x}", r.digest);
#endif
        std::puts(j.dump(2).c_str());
    } else {
        fmt::print("relay of a token around {} resident work-groups x {} work-items on {}, {} laps\n", grid,
                   o.block, d.name, o.laps);
        fmt::print("token {} (sequential reference {}): {}\n", got, want, ok ? "OK" : "MISMATCH");
#if defined(CANOPY_BACKEND_CPU)
        const auto &r = emu::last_report();
        fmt::print("emulator: {} scheduler, seed {}, {} OS thread(s), {} fiber switches, interleaving digest "
                   "{:016x}\n",
                   emu::to_string(r.scheduler), r.seed, r.threads, r.steps, r.digest);
#endif
        fmt::print("{:.3f} s\n", seconds);
    }
    if (!ok) {
        fmt::print(stderr, "canopy demo: the token does not match the sequential reference\n");
        return 1;
    }
    return 0;
}

} // namespace

action add_demo(CLI::App &app) {
    auto o = std::make_shared<demo_options>();
    auto *sub = app.add_subcommand(
        "demo", "run a persistent relay kernel and check it against a sequential reference");
    sub->add_option("--block-size", o->block, "work-items per work-group")
        ->default_val(o->block)
        ->check(CLI::Range(1u, 1024u));
    sub->add_option("--laps", o->laps, "times the token goes around the ring")
        ->default_val(o->laps)
        ->check(CLI::Range(1u, 1000000u));
    sub->add_flag("--json", o->json, "print one JSON object");
    o->emu.add_to(*sub, true);
    return [o] { return run_demo(*o); };
}

} // namespace canopy::cli
