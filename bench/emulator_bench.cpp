// canopy_bench_emulator — what the emulator's two hot paths cost, next to what the host does natively.
//
//  1. Fiber switch: every work-item polls a spin_until K times; each failed poll is one trip out of the
//     work-item's fiber into the scheduler and back (one scheduling step, launch_report::steps). The
//     baseline is a raw boost::context::fiber ping-pong (main -> fiber -> main), the least any
//     fiber-based scheduler can pay for the same round trip, timed in the same run.
//  2. Atomic throughput: every work-item does N relaxed fetch_add(1) on one device-scope counter, or on
//     its work-group's own counter, under the deterministic scheduler (which yields at every atomic, so
//     this is mostly scheduling cost) and the parallel scheduler (real atomics on OS threads). Baselines:
//     a single-threaded std::atomic loop with the same op count, and the same loop contended by as many
//     OS threads as the parallel scheduler used.
//
// ns/op is wall time / ops: for multi-threaded rows that is aggregate throughput, not per-thread latency.
// Every timed value is the median of --reps repetitions (after one untimed warm-up), and every result
// is checked (counter values, polls per work-item) before anything is reported: a wrong result exits 1.
// Exit codes: 0 success, 1 wrong result or runtime error, 2 usage error.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <boost/context/fiber.hpp>
#include <boost/version.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "canopy/emulator/launch.hpp"
#include "canopy/emulator/options.hpp"
#include "canopy/emulator/stack_pool.hpp"
#include "canopy/platform/platform.hpp"

#if defined(CANOPY_ASAN)
#    include <sanitizer/common_interface_defs.h>
#endif
#if defined(CANOPY_TSAN)
#    include <sanitizer/tsan_interface.h>
#endif

#if defined(__clang__)
#    define CANOPY_BENCH_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#    define CANOPY_BENCH_COMPILER "gcc " __VERSION__
#else
#    define CANOPY_BENCH_COMPILER "unknown compiler"
#endif

#ifndef CANOPY_BENCH_BUILD_TYPE
#    define CANOPY_BENCH_BUILD_TYPE ""
#endif

namespace {

namespace ctx = boost::context;
namespace emu = canopy::emu;
using clock_type = std::chrono::steady_clock;

/// A result that must not be reported: the benchmark computed something wrong.
struct verification_failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Throws verification_failure unless `ok`. `what` is the message, or a callable that makes it (so that
/// checks in loops format nothing while they pass).
template <class What> void verify(bool ok, const What& what) {
    if (!ok) {
        if constexpr (std::is_invocable_v<What>) {
            throw verification_failure(what());
        } else {
            throw verification_failure(what);
        }
    }
}

double seconds_since(clock_type::time_point t0) {
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// ---- configuration ----------------------------------------------------------------------------------

struct config {
    std::string device = "hrf8";
    unsigned reps = 5;
    bool quick = false;
    bool json = false;
    unsigned block = 64;
    unsigned grid = 0;                 // 0: every resident slot of the device (set in main)
    std::uint64_t switch_polls = 1024; // K: failed spin_until polls per work-item
    std::uint64_t raw_round_trips = 4'000'000;
    // N: fetch_adds per work-item. The parallel scheduler runs them ~30x faster than the deterministic
    // one (which switches fibers at every atomic), so it gets more of them: enough that the launch
    // (creating and tearing down every fiber) stays a small part of the time.
    std::uint64_t atomic_per_item_det = 1024;
    std::uint64_t atomic_per_item_par = 16384;
    unsigned hardware_threads = 1; // parallel scheduler's "hardware" thread count

    unsigned items() const { return grid * block; }
    std::uint64_t atomic_per_item(emu::scheduler_kind k) const {
        return k == emu::scheduler_kind::deterministic ? atomic_per_item_det : atomic_per_item_par;
    }
    std::uint64_t atomic_ops(emu::scheduler_kind k) const {
        return std::uint64_t{items()} * atomic_per_item(k);
    }
};

emu::options emulator_options(const config& c, emu::scheduler_kind k, unsigned threads) {
    emu::options o;
    o.device = emu::preset(c.device);
    o.scheduler = k;
    o.seed = 1;
    o.threads = threads;
    o.stack_bytes = 64 * 1024;
    // The switch benchmark spins on a local counter: no memory changes while it polls, which is exactly
    // what the watchdogs call a deadlock. Nothing here can deadlock, so turn them off.
    o.watchdog_steps = std::numeric_limits<std::uint64_t>::max();
    o.watchdog_seconds = 1e9;
    return o;
}

// ---- results --------------------------------------------------------------------------------------

struct row {
    std::string group;     // "fiber switch" | "atomic fetch_add"
    std::string name;      // the case
    std::string scheduler; // deterministic | parallel | host | boost::context
    unsigned threads = 1;  // OS threads that ran it
    std::uint64_t ops = 0; // per repetition
    std::vector<double> samples;
    double seconds = 0; // median of samples
    double ns_per_op = 0;
    std::size_t baseline = 0; // index of the row the ratio is taken against
    double ratio = 0;
};

/// One timed repetition. For emulator switch rows the op count is the scheduler's step count; threads
/// is how many OS threads really ran it (the parallel scheduler uses at most one per resident slot).
struct sample {
    double seconds = 0;
    std::uint64_t ops = 0;
    unsigned threads = 1;
};
using timed_fn = std::function<sample()>;

row measure(const config& c, std::string group, std::string name, std::string scheduler, const timed_fn& fn) {
    row r;
    r.group = std::move(group);
    r.name = std::move(name);
    r.scheduler = std::move(scheduler);
    (void)fn(); // warm-up: page in stacks and code, spin up the CPU clock
    std::vector<double> per_op;
    for (unsigned i = 0; i < c.reps; ++i) {
        const sample s = fn();
        r.samples.push_back(s.seconds);
        r.ops = s.ops;
        r.threads = s.threads;
        per_op.push_back(s.seconds / static_cast<double>(s.ops));
    }
    r.seconds = median(r.samples);
    r.ns_per_op = median(per_op) * 1e9;
    return r;
}

// ---- 1. fiber switch --------------------------------------------------------------------------------

/// Stack allocator for boost::context over the emulator's own guard-paged stacks, so that the raw
/// baseline switches between the same kind of stacks as the emulator does.
struct pool_stack {
    emu::stack_pool* pool;
    emu::stack_memory mem;
    ctx::stack_context allocate() {
        ctx::stack_context sc;
        sc.size = mem.size;
        sc.sp = static_cast<char*>(mem.base) + mem.size;
        return sc;
    }
    void deallocate(ctx::stack_context&) noexcept { pool->release(mem); }
};

/// main -> fiber -> main, `n` times. Sanitizer builds tell ASan and TSan about each switch, so that the
/// smoke test also runs under the cpu-asan and cpu-tsan builds.
sample raw_fiber_round_trips(std::uint64_t n) {
    emu::stack_pool pool(64 * 1024);
    const emu::stack_memory mem = pool.acquire();
    std::uint64_t inside = 0;
#if defined(CANOPY_ASAN)
    const void* main_bottom = nullptr;
    std::size_t main_size = 0;
#endif
#if defined(CANOPY_TSAN)
    void* const tsan_main = __tsan_get_current_fiber();
    void* const tsan_fib = __tsan_create_fiber(0);
#endif
    ctx::fiber f(std::allocator_arg, pool_stack{&pool, mem}, [&](ctx::fiber&& back) {
#if defined(CANOPY_ASAN)
        __sanitizer_finish_switch_fiber(nullptr, &main_bottom, &main_size);
#endif
        for (std::uint64_t i = 0; i < n; ++i) {
            ++inside;
#if defined(CANOPY_ASAN)
            void* fake = nullptr;
            __sanitizer_start_switch_fiber(&fake, main_bottom, main_size);
#endif
#if defined(CANOPY_TSAN)
            __tsan_switch_to_fiber(tsan_main, 0);
#endif
            back = std::move(back).resume();
#if defined(CANOPY_ASAN)
            __sanitizer_finish_switch_fiber(fake, &main_bottom, &main_size);
#endif
        }
#if defined(CANOPY_ASAN)
        __sanitizer_start_switch_fiber(nullptr, main_bottom, main_size);
#endif
        // TSan: no switch here. The frames this return unwinds were entered on the fiber's shadow stack,
        // so they must leave it too; main switches back once the fiber is gone (below).
        return std::move(back);
    });
    auto resume = [&] {
#if defined(CANOPY_ASAN)
        void* fake = nullptr;
        __sanitizer_start_switch_fiber(&fake, mem.base, mem.size);
#endif
#if defined(CANOPY_TSAN)
        __tsan_switch_to_fiber(tsan_fib, 0);
#endif
        f = std::move(f).resume();
#if defined(CANOPY_ASAN)
        __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
    };
    resume(); // start the fiber: it stops at its first switch back (outside the timed loop)
    const auto t0 = clock_type::now();
    for (std::uint64_t i = 1; i < n; ++i) {
        resume();
    }
    const double sec = seconds_since(t0);
    resume(); // the fiber's loop ends and it returns
#if defined(CANOPY_TSAN)
    __tsan_switch_to_fiber(tsan_main, 0);
    __tsan_destroy_fiber(tsan_fib);
#endif
    verify(!f, "raw fiber ping-pong: the fiber did not finish");
    verify(inside == n, fmt::format("raw fiber ping-pong: {} round trips instead of {}", inside, n));
    return {sec, n - 1, 1};
}

/// Every work-item polls a spin_until K times before it succeeds: K switches out and back.
sample emulator_switches(const config& c, const emu::options& o) {
    emu::scoped_options scoped(o);
    canopy::device_buffer<std::uint64_t> polls(c.items());
    polls.fill_zero();
    std::uint64_t* out = polls.data();
    const std::uint64_t k = c.switch_polls;
    canopy::launch({.grid = c.grid, .block = c.block}, [=] {
        std::uint64_t n = 0;
        canopy::spin_until([&] { return n++ >= k; }); // false k times: each is one yield
        out[canopy::global_id()] = n - 1;             // a private slot: no other work-item touches it
    });
    const emu::launch_report& rep = emu::last_report();
    const auto h = polls.to_vector();
    for (unsigned i = 0; i < c.items(); ++i) {
        verify(h[i] == k, [&] {
            return fmt::format("spin_until benchmark ({}): work-item {} polled {} times instead of {}",
                               emu::to_string(o.scheduler), i, h[i], k);
        });
    }
    // Each work-item is switched in once to start and once more after each failed poll.
    const std::uint64_t want = std::uint64_t{c.items()} * (k + 1);
    verify(rep.steps >= want,
           fmt::format("spin_until benchmark ({}): {} scheduling steps, expected at least {}",
                       emu::to_string(o.scheduler), rep.steps, want));
    return {rep.seconds, rep.steps, rep.threads};
}

// ---- 2. atomics --------------------------------------------------------------------------------------

sample host_atomic_single(std::uint64_t ops) {
    std::atomic<unsigned> counter{0};
    const auto t0 = clock_type::now();
    for (std::uint64_t i = 0; i < ops; ++i) {
        counter.fetch_add(1, std::memory_order_relaxed);
    }
    const double sec = seconds_since(t0);
    verify(counter.load() == static_cast<unsigned>(ops),
           fmt::format("std::atomic loop: counter {} instead of {}", counter.load(), ops));
    return {sec, ops, 1};
}

sample host_atomic_contended(std::uint64_t ops, unsigned nthreads) {
    alignas(128) std::atomic<unsigned> counter{0};
    std::atomic<unsigned> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < nthreads; ++t) {
        const std::uint64_t mine = ops / nthreads + (t < ops % nthreads ? 1 : 0);
        threads.emplace_back([&counter, &ready, &go, mine] {
            ready.fetch_add(1);
            while (!go.load(std::memory_order_acquire)) {
                std::this_thread::yield();
            }
            for (std::uint64_t i = 0; i < mine; ++i) {
                counter.fetch_add(1, std::memory_order_relaxed);
            }
        });
    }
    while (ready.load() != nthreads) {
        std::this_thread::yield();
    }
    const auto t0 = clock_type::now();
    go.store(true, std::memory_order_release);
    for (auto& t : threads) {
        t.join();
    }
    const double sec = seconds_since(t0);
    verify(counter.load() == static_cast<unsigned>(ops),
           fmt::format("contended std::atomic loop ({} threads): counter {} instead of {}", nthreads,
                       counter.load(), ops));
    return {sec, ops, nthreads};
}

enum class counter_kind { shared_device, per_workgroup };

sample emulator_atomics(const config& c, const emu::options& o, counter_kind kind) {
    emu::scoped_options scoped(o);
    // Per-work-group counters are 128 bytes apart, so that work-groups on different OS threads do not
    // share a cache line: the case measures an uncontended atomic, not false sharing.
    constexpr unsigned stride = 128 / sizeof(unsigned);
    canopy::device_buffer<unsigned> counters(std::size_t{c.grid} * stride);
    counters.fill_zero();
    unsigned* p = counters.data();
    const std::uint64_t n = c.atomic_per_item(o.scheduler);
    const std::uint64_t total = c.atomic_ops(o.scheduler);
    if (kind == counter_kind::shared_device) {
        canopy::launch({.grid = c.grid, .block = c.block}, [=] {
            // Device scope: every work-item of the grid updates this one word.
            canopy::atomic_ref<unsigned, canopy::scope::device> r(p[0]);
            for (std::uint64_t i = 0; i < n; ++i) {
                r.fetch_add(1, std::memory_order_relaxed); // a pure count: no ordering needed
            }
        });
    } else {
        canopy::launch({.grid = c.grid, .block = c.block}, [=] {
            // Work-group scope suffices: only this work-group's work-items touch its counter.
            canopy::atomic_ref<unsigned, canopy::scope::workgroup> r(p[canopy::block_id() * stride]);
            for (std::uint64_t i = 0; i < n; ++i) {
                r.fetch_add(1, std::memory_order_relaxed);
            }
        });
    }
    const emu::launch_report& rep = emu::last_report();
    const auto h = counters.to_vector();
    const char* what =
        kind == counter_kind::shared_device ? "shared device counter" : "per-work-group counter";
    if (kind == counter_kind::shared_device) {
        verify(h[0] == static_cast<unsigned>(total),
               fmt::format("{} ({}): {} instead of {}", what, emu::to_string(o.scheduler), h[0], total));
    } else {
        const auto want = static_cast<unsigned>(std::uint64_t{c.block} * n);
        for (unsigned b = 0; b < c.grid; ++b) {
            verify(h[b * stride] == want, [&] {
                return fmt::format("{} ({}): work-group {} counted {} instead of {}", what,
                                   emu::to_string(o.scheduler), b, h[b * stride], want);
            });
        }
    }
    return {rep.seconds, total, rep.threads};
}

// ---- running everything --------------------------------------------------------------------------------

std::vector<unsigned> parallel_thread_counts(const config& c) {
    std::vector<unsigned> t = {1};
    if (c.hardware_threads > 1) {
        t.push_back(c.hardware_threads);
    }
    return t;
}

/// The emulator configurations every case runs under: deterministic, then parallel with 1 thread and
/// with one per hardware thread.
std::vector<std::pair<emu::scheduler_kind, unsigned>> scheduler_runs(const config& c) {
    std::vector<std::pair<emu::scheduler_kind, unsigned>> runs = {{emu::scheduler_kind::deterministic, 1}};
    for (unsigned t : parallel_thread_counts(c)) {
        runs.emplace_back(emu::scheduler_kind::parallel, t);
    }
    return runs;
}

std::string sched_label(const std::string& scheduler, unsigned threads) {
    return scheduler == "deterministic" ? scheduler : fmt::format("{} x{}", scheduler, threads);
}

std::vector<row> run_all(const config& c) {
    std::vector<row> rows;
    using emu::scheduler_kind;
    const std::string sw = "fiber switch", at = "atomic fetch_add";

    // 1. fiber switch
    rows.push_back(measure(c, sw, "raw boost::context round trip", "boost::context",
                           [&] { return raw_fiber_round_trips(c.raw_round_trips); }));
    const std::size_t raw = rows.size() - 1;
    rows.back().baseline = raw;
    for (const auto& [k, t] : scheduler_runs(c)) {
        const auto o = emulator_options(c, k, t);
        rows.push_back(measure(c, sw, "spin_until poll (step)", emu::to_string(k),
                               [&] { return emulator_switches(c, o); }));
        rows.back().baseline = raw;
    }

    // 2. atomics: each op count gets its own single-thread baseline, timed just before the cases it scales.
    std::uint64_t baseline_ops = 0;
    std::size_t baseline = 0;
    std::vector<unsigned> contended_threads;
    for (const auto& [k, t] : scheduler_runs(c)) {
        const std::uint64_t ops = c.atomic_ops(k);
        if (ops != baseline_ops) {
            rows.push_back(measure(c, at, "std::atomic fetch_add loop", "host",
                                   [&] { return host_atomic_single(ops); }));
            baseline = rows.size() - 1;
            baseline_ops = ops;
            rows.back().baseline = baseline;
        }
        const auto o = emulator_options(c, k, t);
        for (counter_kind kind : {counter_kind::shared_device, counter_kind::per_workgroup}) {
            const char* name = kind == counter_kind::shared_device ? "device-scope shared counter"
                                                                   : "workgroup-scope per-WG counter";
            rows.push_back(
                measure(c, at, name, emu::to_string(k), [&] { return emulator_atomics(c, o, kind); }));
            rows.back().baseline = baseline;
            const unsigned used = rows.back().threads;
            if (k == scheduler_kind::parallel && used > 1 &&
                std::find(contended_threads.begin(), contended_threads.end(), used) ==
                    contended_threads.end()) {
                contended_threads.push_back(used);
            }
        }
    }
    // The contended host loop uses as many OS threads as the parallel scheduler really used, and the
    // parallel cases' op count.
    for (unsigned t : contended_threads) {
        const std::uint64_t ops = c.atomic_ops(scheduler_kind::parallel);
        if (ops != baseline_ops) {
            rows.push_back(measure(c, at, "std::atomic fetch_add loop", "host",
                                   [&] { return host_atomic_single(ops); }));
            baseline = rows.size() - 1;
            baseline_ops = ops;
            rows.back().baseline = baseline;
        }
        rows.push_back(measure(c, at, "std::atomic fetch_add loop, contended", "host",
                               [&] { return host_atomic_contended(ops, t); }));
        rows.back().baseline = baseline;
    }

    for (auto& r : rows) {
        r.ratio = r.ns_per_op / rows[r.baseline].ns_per_op;
    }
    return rows;
}

// ---- output ---------------------------------------------------------------------------------------------

std::string build_type() {
    const std::string t = CANOPY_BENCH_BUILD_TYPE;
    return t.empty() ? "unspecified" : t;
}

std::string sanitizers() {
    std::string s;
#if defined(CANOPY_ASAN)
    s += "address,undefined";
#endif
#if defined(CANOPY_TSAN)
    s += "thread";
#endif
    return s.empty() ? "none" : s;
}

nlohmann::json environment(const config& c) {
    const emu::virtual_device& d = emu::preset(c.device);
    unsigned slots = 0;
    {
        emu::scoped_options scoped(emulator_options(c, emu::scheduler_kind::deterministic, 1));
        slots = emu::resident_slots(c.block, 0);
    }
    return {
        {"virtual_device", d.name},
        {"virtual_device_description", d.description},
        {"compute_units", d.compute_units},
        {"subgroup_size", d.subgroup_size},
        {"resident_slots", slots},
        {"grid", c.grid},
        {"block", c.block},
        {"work_items", c.items()},
        {"hardware_concurrency", std::thread::hardware_concurrency()},
        {"parallel_threads", parallel_thread_counts(c)},
        {"stack_bytes", 64 * 1024},
        {"seed", 1},
        {"reps", c.reps},
        {"quick", c.quick},
        {"switch_polls_per_item", c.switch_polls},
        {"raw_round_trips", c.raw_round_trips},
        {"atomics_per_item_deterministic", c.atomic_per_item_det},
        {"atomics_per_item_parallel", c.atomic_per_item_par},
        {"build_type", build_type()},
        {"sanitizers", sanitizers()},
        {"compiler", CANOPY_BENCH_COMPILER},
        {"boost", BOOST_LIB_VERSION},
    };
}

void print_json(const config& c, const std::vector<row>& rows) {
    nlohmann::json out;
    out["benchmark"] = "canopy_bench_emulator";
    out["environment"] = environment(c);
    out["verified"] = true;
    out["ns_per_op"] =
        "median over reps of wall seconds / ops (aggregate throughput for multi-threaded rows)";
    auto& arr = out["results"] = nlohmann::json::array();
    for (const auto& r : rows) {
        arr.push_back({{"group", r.group},
                       {"case", r.name},
                       {"scheduler", r.scheduler},
                       {"threads", r.threads},
                       {"ops", r.ops},
                       {"seconds_median", r.seconds},
                       {"seconds", r.samples},
                       {"ns_per_op", r.ns_per_op},
                       {"baseline", {{"case", rows[r.baseline].name}, {"ops", rows[r.baseline].ops}}},
                       {"ratio_vs_baseline", r.ratio}});
    }
    fmt::print("{}\n", out.dump(2));
}

void print_table(const config& c, const std::vector<row>& rows) {
    const nlohmann::json env = environment(c);
    fmt::print("canopy_bench_emulator ({} build, sanitizers: {}, {})\n", build_type(), sanitizers(),
               CANOPY_BENCH_COMPILER);
    fmt::print(
        "virtual device {} ({} CUs, sub-group {}, {} resident slots), grid {} x block {} = {} work-items\n",
        c.device, env["compute_units"].get<unsigned>(), env["subgroup_size"].get<unsigned>(),
        env["resident_slots"].get<unsigned>(), c.grid, c.block, c.items());
    fmt::print("hardware_concurrency {}, parallel scheduler threads {}, median of {} reps{}\n",
               std::thread::hardware_concurrency(), fmt::join(parallel_thread_counts(c), " and "), c.reps,
               c.quick ? " (--quick: sizes too small for meaningful numbers)" : "");
    fmt::print(
        "switch: K = {} failed polls per work-item; atomics: N = {} (deterministic) / {} (parallel) per "
        "work-item\n\n",
        c.switch_polls, c.atomic_per_item_det, c.atomic_per_item_par);
    const char* hdr = "{:<38} {:<16} {:>10} {:>10} {:>10} {:>9}\n";
    std::string group;
    for (const auto& r : rows) {
        if (r.group != group) {
            group = r.group;
            fmt::print("{}{}\n", group == rows.front().group ? "" : "\n",
                       group == "fiber switch"
                           ? "fiber switch (ratio vs raw boost::context round trip)"
                           : "atomic fetch_add, relaxed (ratio vs single-thread std::atomic)");
            fmt::print(fmt::runtime(hdr), "case", "scheduler", "ops", "seconds", "ns/op", "ratio");
            fmt::print("{}\n", std::string(98, '-'));
        }
        fmt::print("{:<38} {:<16} {:>10} {:>10.4f} {:>10.2f} {:>8.2f}x\n", r.name,
                   sched_label(r.scheduler, r.threads), r.ops, r.seconds, r.ns_per_op, r.ratio);
    }
    fmt::print(
        "\nns/op = wall seconds / ops (aggregate throughput for rows with more than one thread); an\n"
        "emulator switch op is one scheduling step: fiber -> scheduler -> fiber, like one raw round trip.\n"
        "All results verified.\n");
}

} // namespace

int main(int argc, char** argv) {
    config c;
    CLI::App app{
        "canopy_bench_emulator — emulator fiber-switch cost and atomic throughput, as ns/op and as a "
        "ratio to native baselines timed in the same run",
        "canopy_bench_emulator"};
    app.add_flag("--json", c.json, "print machine-readable JSON instead of the table");
    app.add_flag("--quick", c.quick, "a sub-second smoke run (numbers are not meaningful)");
    app.add_option("--reps", c.reps, "timed repetitions per case; the median is reported")
        ->check(CLI::Range(1u, 1000u));
    std::vector<std::string> names;
    for (const auto& d : emu::presets()) {
        names.push_back(d.name);
    }
    app.add_option("--device", c.device, "virtual device preset")->check(CLI::IsMember(names));
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "canopy_bench_emulator: {}\nRun 'canopy_bench_emulator --help' for usage.\n",
                   e.what());
        return 2;
    }

    try {
        if (c.quick) {
            c.reps = std::min(c.reps, 3u);
            c.switch_polls = 16;
            c.raw_round_trips = 20'000;
            c.atomic_per_item_det = 16;
            c.atomic_per_item_par = 64;
        }
        c.hardware_threads = std::max(1u, std::thread::hardware_concurrency());
        {
            emu::scoped_options scoped(emulator_options(c, emu::scheduler_kind::deterministic, 1));
            c.grid = emu::resident_slots(c.block, 0);
        }
        if (c.quick) {
            // Few work-groups (but one per parallel thread): creating fibers dominates tiny runs.
            c.grid = std::min(c.grid, std::max(2u, c.hardware_threads));
        }
        if (c.grid == 0) {
            fmt::print(stderr, "canopy_bench_emulator: device {} cannot run work-groups of {}\n", c.device,
                       c.block);
            return 1;
        }
        if (c.atomic_ops(emu::scheduler_kind::parallel) > std::numeric_limits<unsigned>::max()) {
            fmt::print(
                stderr,
                "canopy_bench_emulator: {} fetch_adds overflow the 32-bit counters; use a smaller device\n",
                c.atomic_ops(emu::scheduler_kind::parallel));
            return 1;
        }
        const auto rows = run_all(c);
        if (c.json) {
            print_json(c, rows);
        } else {
            print_table(c, rows);
        }
    } catch (const verification_failure& e) {
        fmt::print(stderr, "canopy_bench_emulator: WRONG RESULT, no numbers reported: {}\n", e.what());
        return 1;
    } catch (const std::exception& e) {
        fmt::print(stderr, "canopy_bench_emulator: error: {}\n", e.what());
        return 1;
    }
    return 0;
}
